'use strict';
// A workflow run's artifact is untrusted input: the run built and ran a pull request's code on
// the runner that made it. Before anything in it is stored or shown:
//   - the zip is no larger than the limit (checked before and while downloading);
//   - it has at most MAX_ENTRIES entries, none larger than the limit, all together no larger
//     than 4 times the zip limit (by their headers, and by what actually unpacks);
//   - every entry's path stays inside the folder it would be unpacked into: no absolute paths,
//     no '..', no backslashes or drive letters, no symbolic links;
//   - every document the bot reads (contract.DOCUMENTS) is JSON valid by its schema;
//   - action-run.json names the command's pull request, and the run was judged;
//   - the commits measured are 40 hex digits and the very ones the command pinned, the suite
//     is the one it asked for, and a shard's folder says it is that shard.
// Nothing is written to disk: the documents are read into memory, the rest is never unpacked.
const path = require('node:path');
const yauzl = require('yauzl');
const core = require('@perfgate/core');
const { DOCUMENTS, REQUIRED_DOCUMENTS, SHA, isRunArtifact } = require('./contract');

class ArtifactRejected extends Error {
  get name() { return 'ArtifactRejected'; }
}

const MAX_ENTRIES = 10_000;
const UNPACK_FACTOR = 4;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

const reject = (why) => { throw new ArtifactRejected(why); };

/**
 * The path an entry would have inside the extraction folder, or a reason it may not be there.
 * Pure, and the one rule for every entry name.
 */
function entryPath(name) {
  if (name.includes('\0')) return { problem: `archive path ${JSON.stringify(name)} holds a NUL byte` };
  if (name.includes('\\')) return { problem: `archive path ${JSON.stringify(name)} holds a backslash` };
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return { problem: `archive path ${JSON.stringify(name)} is absolute` };
  if (name.split('/').includes('..')) return { problem: `archive path ${JSON.stringify(name)} leaves the extraction folder` };
  const root = path.posix.join('/', 'folder');
  const resolved = path.posix.resolve(root, name);
  if (resolved !== root && !resolved.startsWith(`${root}/`)) return { problem: `archive path ${JSON.stringify(name)} leaves the extraction folder` };
  return { path: path.posix.relative(root, resolved) };
}

function openZip(buffer) {
  return new Promise((resolve, reject) => {
    // Names are checked here, not by yauzl, so that every rule lives in entryPath().
    yauzl.fromBuffer(buffer, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true }, (err, zip) => {
      if (err) reject(new ArtifactRejected(`the artifact is not a readable zip (${err.message})`));
      else resolve(zip);
    });
  });
}

// The zip's entries one at a time (null at the end); a broken zip rejects the artifact.
function entryReader(zip) {
  let waiting = null;
  let failure = null;
  zip.on('entry', (entry) => waiting.resolve(entry));
  zip.on('end', () => waiting.resolve(null));
  zip.on('error', (err) => {
    failure = new ArtifactRejected(`the artifact is not a readable zip (${err.message})`);
    if (waiting) waiting.reject(failure);
  });
  return () => new Promise((resolve, rejectNext) => {
    if (failure) {
      rejectNext(failure);
      return;
    }
    waiting = { resolve, reject: rejectNext };
    zip.readEntry();
  });
}

function readEntry(zip, entry, limit) {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err) return reject(new ArtifactRejected(`cannot unpack ${entry.decodedName} (${err.message})`));
      const chunks = [];
      let size = 0;
      stream.on('data', (chunk) => {
        size += chunk.length;
        if (size > limit) {
          stream.destroy();
          reject(new ArtifactRejected(`${entry.decodedName} unpacks to more than ${limit} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      stream.on('error', (e) => reject(new ArtifactRejected(`cannot unpack ${entry.decodedName} (${e.message})`)));
      stream.on('end', () => resolve(Buffer.concat(chunks)));
      return undefined;
    });
  });
}

/**
 * Reads a run folder zip (the documents named in `documents`, file name → schema kind; the
 * run folder's by default). Returns {entries: [paths], documents: {'results.json': object, ...}}
 * or throws ArtifactRejected naming the first entry that breaks a rule.
 */
async function readRunFolder(buffer, { maxBytes, documents: read = DOCUMENTS }) {
  const maxUnpacked = maxBytes * UNPACK_FACTOR;
  const zip = await openZip(buffer);
  try {
    if (zip.entryCount > MAX_ENTRIES) reject(`the artifact holds ${zip.entryCount} entries; at most ${MAX_ENTRIES} are accepted`);
    const entries = [];
    const documents = {};
    let declared = 0;
    const next = entryReader(zip);
    for (;;) {
      const entry = await next();
      if (!entry) break;
      const name = entry.fileName.toString('utf8');
      entry.decodedName = name;
      const where = entryPath(name);
      if (where.problem) reject(where.problem);
      if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK) reject(`archive entry ${JSON.stringify(name)} is a symbolic link`);
      if (name.endsWith('/')) continue;
      declared += entry.uncompressedSize;
      if (entry.uncompressedSize > maxBytes) reject(`${name} unpacks to ${entry.uncompressedSize} bytes; at most ${maxBytes} are accepted per file`);
      if (declared > maxUnpacked) reject(`the artifact unpacks to more than ${maxUnpacked} bytes`);
      entries.push(where.path);
      const kind = read[where.path];
      if (!kind) continue;
      if (Object.hasOwn(documents, where.path)) reject(`the artifact holds ${where.path} twice`);
      const bytes = await readEntry(zip, entry, maxBytes);
      try {
        documents[where.path] = JSON.parse(bytes.toString('utf8'));
      } catch (err) {
        reject(`${where.path} is not JSON (${err.message})`);
      }
    }
    return { entries, documents };
  } finally {
    zip.close();
  }
}

function commitProblem(file, key, found, pinned) {
  if (typeof found !== 'string' || !SHA.test(found)) return `${file}: ${key} is ${JSON.stringify(found ?? null)}, not a commit SHA of 40 hex digits`;
  if (found !== pinned) return `${file}: ${key} is ${found}, but the command pinned ${pinned}`;
  return null;
}

/**
 * Checks the documents of one run folder (the artifact `name`) against their schemas and
 * against the request: the pull request, the pinned commits, the suite, and the shard its
 * name says. Pure. Returns {results, verdict, plan, actionRun} or throws ArtifactRejected,
 * naming the artifact and the file.
 */
function checkRunFolder({ documents }, { name = 'the artifact', prNumber, baseSha, headSha, suite }) {
  const fail = (why) => reject(`${name}/${why}`);
  for (const file of REQUIRED_DOCUMENTS) if (!Object.hasOwn(documents, file)) reject(`${name} has no ${file} at its top`);
  for (const [file, doc] of Object.entries(documents)) {
    const problem = core.schemaProblem(DOCUMENTS[file], doc);
    if (problem) fail(`${file}: ${problem}`);
  }
  const actionRun = documents['action-run.json'];
  const pinned = { base: baseSha, head: headSha };
  if (actionRun.pull_request !== prNumber) fail(`action-run.json: pull_request is ${actionRun.pull_request}, but the command was on #${prNumber}`);
  const runProblem = commitProblem('action-run.json', 'base_sha', actionRun.base_sha, baseSha) || commitProblem('action-run.json', 'head_sha', actionRun.head_sha, headSha);
  if (runProblem) fail(runProblem);
  const shard = /-shard-(\d+)-of-(\d+)$/.exec(name);
  const named = shard ? `${shard[1]}/${shard[2]}` : 'none';
  const recorded = actionRun.shard ? `${actionRun.shard.index}/${actionRun.shard.count}` : 'none';
  if (named !== recorded) fail(`action-run.json: shard is ${recorded}, but the artifact's name says ${named}`);
  if (actionRun.status !== 'judged') reject(`${name}: the run has no verdict (${actionRun.status}${actionRun.message ? `: ${actionRun.message}` : ''})`);
  if (!Object.hasOwn(documents, 'verdict.json')) reject(`${name} has no verdict.json at its top, though action-run.json says the run was judged`);
  const results = documents['results.json'];
  const verdict = documents['verdict.json'];
  const plan = documents['plan.json'] || null;
  for (const side of ['base', 'head']) {
    const found = [
      commitProblem('results.json', `sides.${side}.commit`, results.sides[side].commit, pinned[side]),
      commitProblem('verdict.json', `run.sides.${side}.commit`, verdict.run.sides[side] && verdict.run.sides[side].commit, pinned[side]),
      plan && commitProblem('plan.json', `sides.${side}.commit`, plan.sides[side].commit, pinned[side]),
    ].find(Boolean);
    if (found) fail(found);
  }
  for (const [file, found] of [['action-run.json', actionRun.suite], ['results.json', results.plan && results.plan.suite], ['verdict.json', verdict.suite], ['plan.json', plan && plan.suite]]) {
    if (file === 'plan.json' && !plan) continue;
    if (found !== suite) fail(`${file}: suite is ${JSON.stringify(found)}, but the command asked for ${suite}`);
  }
  const measured = new Set(results.benchmarks.map((b) => b.id));
  const unknown = verdict.benchmarks.find((b) => !measured.has(b.id));
  if (unknown) fail(`verdict.json judges ${unknown.id}, which results.json does not hold`);
  return { results, verdict, plan, actionRun };
}

/** Reads at most `limit` bytes of a response body; more is a rejection, not a truncation. */
async function readCapped(response, limit) {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) reject(`the artifact download is ${declared} bytes; at most ${limit} are accepted`);
  const chunks = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.length;
    if (size > limit) reject(`the artifact download is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks.map((c) => Buffer.from(c)));
}

/** Downloads one artifact (its short-lived URL, capped) and reads it (readRunFolder). */
async function downloadArtifact(octokit, { owner, repo, artifact, maxBytes, documents }) {
  // GitHub answers with a redirect to a short-lived URL that needs no token: follow it by hand,
  // so that the token never goes to the storage host and the body can be capped.
  const answer = await octokit.rest.actions.downloadArtifact({ owner, repo, artifact_id: artifact.id, archive_format: 'zip', request: { redirect: 'manual' } });
  const location = answer.headers.location;
  if (!location) throw new Error(`GitHub answered ${answer.status} without a download location for artifact ${artifact.id}`);
  const response = await fetch(location, { redirect: 'follow' });
  if (!response.ok) throw new Error(`downloading artifact ${artifact.id} failed: ${response.status} ${response.statusText}`);
  return readRunFolder(await readCapped(response, maxBytes), { maxBytes, documents });
}

/**
 * Downloads the run folder artifacts of a workflow run for `suite` (perfgate-<suite>, or its
 * shards) and reads each. Returns [{name, entries, documents}] by name. Throws ArtifactRejected
 * when there is none or one breaks a rule; other errors (network, GitHub 5xx) are worth trying
 * again.
 */
async function downloadRunFolders(octokit, { owner, repo, runId, suite, maxBytes }) {
  const listed = await octokit.paginate(octokit.rest.actions.listWorkflowRunArtifacts, { owner, repo, run_id: runId, per_page: 100 });
  const found = listed.filter((a) => isRunArtifact(a.name, suite)).sort((a, b) => a.name.localeCompare(b.name));
  if (!found.length) reject(`the run uploaded no run folder (an artifact perfgate-${suite}, or its shards)`);
  const names = found.map((a) => a.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) reject(`the run uploaded two artifacts named ${twice}`);
  const folders = [];
  for (const artifact of found) {
    if (artifact.expired) reject(`the artifact ${artifact.name} has expired`);
    if (artifact.size_in_bytes > maxBytes) reject(`the artifact ${artifact.name} is ${artifact.size_in_bytes} bytes; at most ${maxBytes} are accepted`);
  }
  for (const artifact of found) {
    try {
      folders.push({ name: artifact.name, ...(await downloadArtifact(octokit, { owner, repo, artifact, maxBytes })) });
    } catch (err) {
      if (err instanceof ArtifactRejected) reject(`${artifact.name}: ${err.message}`);
      throw err;
    }
  }
  return folders;
}

module.exports = { ArtifactRejected, entryPath, readRunFolder, checkRunFolder, downloadArtifact, downloadRunFolders, MAX_ENTRIES };
