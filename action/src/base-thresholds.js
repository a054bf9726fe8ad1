// The thresholds folder as the base commit has it, copied out of git into the run folder: a
// pull request cannot loosen its own gate, because its working tree is never read for limits.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import perfgateCore from '@perfgate/core';
import perfgate from 'perfgate';

function git(source, args) {
  const result = perfgate.runProcessSync('git', ['-C', source, ...args]);
  if (result.error) throw new Error(`git ${args.join(' ')} in ${source}: ${result.error.message}`);
  return result;
}

/** The full SHA of `ref` in `source`, or null when it names no commit there. */
export function resolveCommit(source, ref) {
  const result = git(source, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  return result.status === 0 ? result.stdout.trim() : null;
}

function filesAt(source, commit, folder) {
  const result = git(source, ['ls-tree', '-r', '-z', '--name-only', commit, '--', `${folder}/`]);
  if (result.status !== 0) throw new Error(`git ls-tree ${commit} -- ${folder}/ in ${source}: ${result.stderr.trim()}`);
  return result.stdout.split('\0').filter(Boolean);
}

/**
 * Copies `folder` as it is in the first of `candidates` ([{ref, label}]) that has it into
 * `target`. Candidates are the base commit, then the default branch.
 * @returns {commit, ref, label, folder} of where the files came from, or null when no candidate
 *          has the folder (the caller then uses perfgate's shipped thresholds)
 */
export function copyThresholdsFrom({ source, folder, candidates, target }) {
  if (!fs.existsSync(path.join(source, '.git'))) {
    throw new Error(`input source: '${source}' is not a git checkout; expected the fork's checkout (actions/checkout with fetch-depth: 0), where the base commit's ${folder}/ is read`);
  }
  for (const candidate of candidates) {
    if (!candidate.ref) continue;
    const commit = resolveCommit(source, candidate.ref);
    if (!commit) continue;
    const files = filesAt(source, commit, folder);
    if (!files.some((file) => file.startsWith(`${folder}/suites/`))) continue;
    fs.rmSync(target, { recursive: true, force: true });
    for (const file of files) {
      const shown = git(source, ['show', `${commit}:${file}`]);
      if (shown.status !== 0) throw new Error(`git show ${commit}:${file} in ${source}: ${shown.stderr.trim()}`);
      const out = path.join(target, path.relative(folder, file));
      fs.mkdirSync(path.dirname(out), { recursive: true });
      fs.writeFileSync(out, shown.stdout);
    }
    return { commit, ref: candidate.ref, label: candidate.label, folder };
  }
  return null;
}

/**
 * The digest of a thresholds folder: sha256 over each file's path and the sha256 of its bytes,
 * in path order, as "sha256:<hex>". A link or special file in it is refused (an Error naming it).
 * The measure job gives the digest of the limits it loaded, before anything is built, as its
 * output thresholds-digest; the report and signoff jobs judge merged shards only with limits
 * of that digest.
 */
export function thresholdsDigest(dir) {
  const lines = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath ?? entry.path, entry.name);
    if (entry.isDirectory()) continue;
    if (!entry.isFile()) throw new Error(`${full}: not a regular file; a thresholds folder holds only files and folders`);
    const name = path.relative(dir, full).split(path.sep).join('/');
    lines.push(`${name}\0${crypto.createHash('sha256').update(fs.readFileSync(full)).digest('hex')}\n`);
  }
  return `sha256:${crypto.createHash('sha256').update(lines.sort().join('')).digest('hex')}`;
}

/** The line the reports show under the headline: where the limits were read. */
export function describeThresholdsOrigin(origin) {
  if (!origin || !origin.commit) return 'perfgate\'s shipped thresholds (the fork names no thresholds folder, or its base has none)';
  // The origin is read back from a run folder's action-run.json: text, never markdown.
  return `${perfgateCore.markdownCode(`${origin.folder}/`)} at ${perfgateCore.markdownText(origin.label)} ${perfgateCore.markdownCode(String(origin.commit).slice(0, 12))}`;
}

/**
 * Makes sure `sha` is in the checkout. A fork's head is on no branch of this repository, so a
 * checkout of the base branch (the default for pull_request_target and workflow_dispatch) lacks
 * it: fetch refs/pull/<n>/head, with the job's read-only token given to that one git command
 * through its environment (never written to .git/config, where a build could read it).
 */
export function ensureCommit({ source, sha, pullRequest, token, serverUrl }) {
  if (resolveCommit(source, sha)) return { fetched: false };
  const extraEnv = {};
  if (token) {
    Object.assign(extraEnv, {
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: `http.${serverUrl.replace(/\/?$/, '/')}.extraheader`,
      GIT_CONFIG_VALUE_0: `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`,
    });
  }
  const refspecs = pullRequest ? [`+refs/pull/${pullRequest}/head:refs/remotes/perfgate/pull/${pullRequest}/head`, sha] : [sha];
  const result = perfgate.runProcessSync('git', ['-C', source, 'fetch', '--no-tags', '--quiet', 'origin', ...refspecs], { extraEnv, timeoutMs: 30 * 60 * 1000 });
  if (!resolveCommit(source, sha)) {
    const why = result.error ? result.error.message : (result.stderr || '').trim().split('\n').pop() || `git fetch exited with ${result.status}`;
    const fetched = pullRequest ? `refs/pull/${pullRequest}/head` : sha;
    throw new Error(`commit ${sha} is not in ${source}, and fetching ${fetched} from origin did not bring it (${why}); expected a checkout with fetch-depth: 0 of this repository`);
  }
  return { fetched: true };
}
