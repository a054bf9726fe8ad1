'use strict';
// The one reader of a run folder that came from a runner (the action's report and signoff jobs
// download it, the bot downloads it as a zip): a runner builds pull requests' code, so a run
// folder is hostile until these rules pass. Pure: the caller lists the entries (a zip's
// headers, a downloaded folder's files) and hands over the bytes of the documents asked for;
// every rule and every message is here.
//   - at most MAX_ENTRIES entries; none larger than `maxBytes`, all together no larger than
//     UNPACK_FACTOR × `maxBytes`;
//   - every entry's path stays inside the folder: no absolute paths, no '..', no backslashes,
//     drive letters or NUL bytes, no symbolic links;
//   - each document read (RUN_FOLDER_DOCUMENTS: file name at the top → schema kind) is JSON,
//     once, and valid by schema/<kind>.schema.json;
//   - action-run.json names the expected pull request, commits (40 hex digits), suite and
//     options, and the shard its artifact's name says; the run was judged; results.json,
//     verdict.json and plan.json name the same commits and suite, and the verdict judges only
//     what was measured.
const path = require('node:path');
const { schemaProblem } = require('./schemas');
const { readVerdict } = require('./verdict-versions');

class RunFolderRejected extends Error {
  get name() { return 'RunFolderRejected'; }
}

const RUN_FOLDER_DOCUMENTS = Object.freeze({ 'action-run.json': 'action-run', 'plan.json': 'plan', 'results.json': 'results', 'verdict.json': 'verdict' });
const MAX_ENTRIES = 10_000;
const UNPACK_FACTOR = 4;
// The largest file of a run folder accepted by default (the bot's PERFGATE_MAX_ARTIFACT_BYTES
// is the zip's limit, and the same number is its per-file limit).
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
const COMMIT_SHA = /^[0-9a-f]{40}$/;
// Each document's own ceiling, far above what a real run writes (a quick run with instruction
// windows: results.json 2.6 MB, verdict.json 180 KB, about 8,000 objects and arrays) and far
// below the artifact's: parsed whole, 64 MiB of `[{},{},…]` took a 3.4 GB heap and stopped
// the bot. Objects and arrays are counted (every `{` and `[`, in strings too) before parsing.
// explain.json: a row explained holds a few hundred KB of counter and wait windows.
const DOCUMENT_MAX_BYTES = Object.freeze({ 'action-run.json': 64 * 1024, 'plan.json': 4 * 1024 * 1024, 'verdict.json': 16 * 1024 * 1024, 'results.json': 32 * 1024 * 1024, 'explain.json': 32 * 1024 * 1024 });
const OTHER_DOCUMENT_MAX_BYTES = 4 * 1024 * 1024;
const MAX_JSON_CONTAINERS = 500_000;

/** The most bytes a document of a run folder (or another artifact's, e.g. bisect.json) may hold. */
const documentMaxBytes = (file, maxBytes) => Math.min(maxBytes, Object.hasOwn(DOCUMENT_MAX_BYTES, file) ? DOCUMENT_MAX_BYTES[file] : OTHER_DOCUMENT_MAX_BYTES);

function containers(bytes) {
  let n = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x7b || bytes[i] === 0x5b) n++;
  return n;
}

const reject = (why) => { throw new RunFolderRejected(why); };

/**
 * The path an entry would have inside the folder it is unpacked or downloaded into, or why it
 * may not be there. The one rule for every entry name.
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

/**
 * The rules of a run folder's entries, applied as they are listed. `count`, when the listing
 * knows it up front (a zip's directory), is checked before anything is read.
 * @returns {add({name, size, symlink, directory, special}) → {path, kind} | null (a directory),
 *           document(path, bytes), entries(), documents()}
 */
function runFolderListing({ maxBytes = DEFAULT_MAX_BYTES, documents = RUN_FOLDER_DOCUMENTS, count = null } = {}) {
  if (count !== null && count > MAX_ENTRIES) reject(`the artifact holds ${count} entries; at most ${MAX_ENTRIES} are accepted`);
  const maxUnpacked = maxBytes * UNPACK_FACTOR;
  const entries = [];
  const read = {};
  let declared = 0;
  return {
    // `special`: a device, a pipe or a socket, which a downloaded folder could hold.
    add({ name, size, symlink = false, directory = false, special = false }) {
      const where = entryPath(name);
      if (where.problem) reject(where.problem);
      if (symlink) reject(`archive entry ${JSON.stringify(name)} is a symbolic link`);
      if (special) reject(`archive entry ${JSON.stringify(name)} is not a regular file`);
      if (directory) return null;
      if (entries.length >= MAX_ENTRIES) reject(`the artifact holds more than ${MAX_ENTRIES} entries; at most ${MAX_ENTRIES} are accepted`);
      declared += size;
      if (size > maxBytes) reject(`${name} unpacks to ${size} bytes; at most ${maxBytes} are accepted per file`);
      if (declared > maxUnpacked) reject(`the artifact unpacks to more than ${maxUnpacked} bytes`);
      entries.push(where.path);
      const kind = Object.hasOwn(documents, where.path) ? documents[where.path] : null;
      if (kind && Object.hasOwn(read, where.path)) reject(`the artifact holds ${where.path} twice`);
      const most = kind ? documentMaxBytes(where.path, maxBytes) : maxBytes;
      if (size > most) reject(`${where.path} unpacks to ${size} bytes; at most ${most} are accepted for it`);
      return { path: where.path, kind, maxBytes: most };
    },
    document(file, bytes) {
      const limit = documentMaxBytes(file, maxBytes);
      if (bytes.length > limit) reject(`${file} unpacks to more than ${limit} bytes`);
      const count = containers(bytes);
      if (count > MAX_JSON_CONTAINERS) reject(`${file} holds ${count} JSON objects and arrays; at most ${MAX_JSON_CONTAINERS} are accepted`);
      try {
        read[file] = JSON.parse(Buffer.from(bytes).toString('utf8'));
      } catch (err) {
        reject(`${file} is not JSON (${err.message})`);
      }
    },
    entries: () => entries,
    documents: () => read,
  };
}

// `said(sha)`: who expects `expected`, in words.
function commitProblem(file, key, found, expected, said) {
  if (typeof found !== 'string' || !COMMIT_SHA.test(found)) return `${file}: ${key} is ${JSON.stringify(found ?? null)}, not a commit SHA of 40 hex digits`;
  if (expected !== undefined && found !== expected) return `${file}: ${key} is ${found}, but ${said(expected)}`;
  return null;
}

// Who set the expectations, in the words of a rejection: the bot's command by default.
const BY_COMMAND = Object.freeze({
  pullRequest: (n) => `the command was on #${n}`,
  commit: (sha) => `the command pinned ${sha}`,
  suite: (s) => `the command asked for ${s}`,
  options: (words) => `the command asked for ${words ? `'${words}'` : 'no options'}`,
});

/**
 * A run's options (the action's `options` input: {key: value}, a value a string, number or list)
 * as one line of key=value words in key order, '' for none: the same options always read the same.
 */
function optionWords(options = {}) {
  return Object.keys(options).filter((key) => options[key] !== undefined).sort()
    .map((key) => `${key}=${Array.isArray(options[key]) ? options[key].join(',') : options[key]}`).join(' ');
}

/**
 * The check run of a suite's run: `perfgate <suite>` for the suite as its limits define it, and
 * the options beside it for a run that narrows it (tests=) or measures it otherwise (rounds=,
 * threads=, ...). A branch protection rule requires `perfgate <suite>` by name, so a run of a
 * part of the suite, or of fewer rounds, must never complete a check run of that name.
 */
function checkRunName(suite, options = {}) {
  const words = optionWords(options);
  return words ? `perfgate ${suite} (${words})` : `perfgate ${suite}`;
}

/**
 * Checks one run folder's documents (`documents`: file name → parsed JSON, as runFolderListing
 * read them) against their schemas and against what is expected of it. Pure.
 * @param expected  {name: the artifact's name (perfgate-<suite>[-shard-K-of-N]), suite,
 *                   prNumber (null: no pull request), baseSha, headSha, options (as
 *                   optionWords takes them); a key left undefined is not compared (commits are
 *                   still checked to be SHAs), by: who expects it ({pullRequest(n), commit(sha),
 *                   suite(s), options(words)} → words; the command's by default)}
 * @returns {actionRun, results, verdict, plan} or throws RunFolderRejected naming the artifact,
 *          the file and the key
 */
function checkRunFolder({ documents }, { name = 'the artifact', prNumber, baseSha, headSha, suite, options, by = BY_COMMAND }) {
  const fail = (why) => reject(`${name}/${why}`);
  const checked = { ...documents };
  for (const [file, doc] of Object.entries(documents)) {
    // A verdict of an older run is read as the current version (verdict-versions.js).
    const { problem, verdict } = file === 'verdict.json' ? readVerdict(doc) : { problem: schemaProblem(RUN_FOLDER_DOCUMENTS[file], doc) };
    if (problem) fail(`${file}: ${problem}`);
    if (verdict) checked[file] = verdict;
  }
  if (!Object.hasOwn(documents, 'action-run.json')) reject(`${name} has no action-run.json at its top`);
  const actionRun = documents['action-run.json'];
  if (prNumber !== undefined && actionRun.pull_request !== prNumber) fail(`action-run.json: pull_request is ${actionRun.pull_request}, but ${by.pullRequest(prNumber)}`);
  const expectedSha = { base: baseSha, head: headSha };
  const runProblem = commitProblem('action-run.json', 'base_sha', actionRun.base_sha, baseSha, by.commit) || commitProblem('action-run.json', 'head_sha', actionRun.head_sha, headSha, by.commit);
  if (runProblem) fail(runProblem);
  const shard = /-shard-(\d+)-of-(\d+)$/.exec(name);
  const named = shard ? `${shard[1]}/${shard[2]}` : 'none';
  const recorded = actionRun.shard ? `${actionRun.shard.index}/${actionRun.shard.count}` : 'none';
  if (named !== recorded) fail(`action-run.json: shard is ${recorded}, but the artifact's name says ${named}`);
  if (suite !== undefined && actionRun.suite !== suite) fail(`action-run.json: suite is ${JSON.stringify(actionRun.suite)}, but ${by.suite(suite)}`);
  // The options name the check run (checkRunName): a run folder measured with other options
  // than the check run says would let a narrowed run stand in for the suite's check.
  if (options !== undefined && optionWords(actionRun.options) !== optionWords(options)) {
    const measured = optionWords(actionRun.options);
    fail(`action-run.json: options are ${measured ? `'${measured}'` : 'none'}, but ${by.options(optionWords(options))}`);
  }
  if (actionRun.status !== 'judged') reject(`${name}: the run has no verdict (${actionRun.status}${actionRun.message ? `: ${actionRun.message}` : ''})`);
  for (const file of ['results.json', 'verdict.json']) {
    if (!Object.hasOwn(documents, file)) reject(`${name} has no ${file} at its top, though action-run.json says the run was judged`);
  }
  const results = documents['results.json'];
  const verdict = checked['verdict.json'];
  const plan = documents['plan.json'] || null;
  for (const side of ['base', 'head']) {
    // Without an expectation the documents must agree with action-run.json.
    const [expected, said] = expectedSha[side] === undefined ? [actionRun[`${side}_sha`], (sha) => `action-run.json says ${sha}`] : [expectedSha[side], by.commit];
    const found = [
      commitProblem('results.json', `sides.${side}.commit`, results.sides[side].commit, expected, said),
      commitProblem('verdict.json', `run.sides.${side}.commit`, verdict.run.sides[side] && verdict.run.sides[side].commit, expected, said),
      plan && commitProblem('plan.json', `sides.${side}.commit`, plan.sides[side].commit, expected, said),
    ].find(Boolean);
    if (found) fail(found);
  }
  const expectedSuite = suite === undefined ? actionRun.suite : suite;
  for (const [file, found] of [['results.json', results.plan && results.plan.suite], ['verdict.json', verdict.suite], ['plan.json', plan && plan.suite]]) {
    if (file === 'plan.json' && !plan) continue;
    if (found !== expectedSuite) fail(`${file}: suite is ${JSON.stringify(found)}, but ${suite === undefined ? `action-run.json says ${expectedSuite}` : by.suite(suite)}`);
  }
  const measured = new Set(results.benchmarks.map((b) => b.id));
  const unknown = verdict.benchmarks.find((b) => !measured.has(b.id));
  if (unknown) fail(`verdict.json judges ${unknown.id}, which results.json does not hold`);
  return { actionRun, results, verdict, plan };
}

/** The run folder artifacts of a suite's run: perfgate-<suite>, or its shards perfgate-<suite>-shard-K-of-N. */
function isRunArtifact(name, suite) {
  const prefix = `perfgate-${suite}`;
  return name === prefix || new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-shard-[1-9][0-9]*-of-[1-9][0-9]*$`).test(name);
}

module.exports = {
  RUN_FOLDER_DOCUMENT_MAX_BYTES: DOCUMENT_MAX_BYTES, RUN_FOLDER_MAX_JSON_CONTAINERS: MAX_JSON_CONTAINERS,
  RunFolderRejected, RUN_FOLDER_DOCUMENTS, RUN_FOLDER_MAX_ENTRIES: MAX_ENTRIES, RUN_FOLDER_MAX_BYTES: DEFAULT_MAX_BYTES, COMMIT_SHA,
  entryPath, runFolderListing, checkRunFolder, isRunArtifact, optionWords, checkRunName,
};
