// The action's inputs, read once into one settings object. Every check is here; an error names
// the input, the bad value and the expected form.
import path from 'node:path';
import perfgateCore from '@perfgate/core';

export const JOBS = ['gate', 'measure', 'report', 'bisect', 'signoff'];
const COMMENT_MODES = ['sticky', 'off'];
const MEASURE_RESULTS = ['success', 'failure', 'cancelled', 'skipped'];
// What `options` may override (the names of `perfgate compare`'s options), and `tests`.
const OPTION_KEYS = ['seconds', 'warmup-seconds', 'rounds', 'tables', 'rows', 'threads', 'metric', 'tests'];
const SHA = /^[0-9a-f]{40}$/;
// What git accepts as one revision name here: no ranges, options or shell characters.
const REF = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/^~-]+$/;

export class InputError extends Error {
  constructor(message) {
    super(message);
    this.name = 'InputError';
  }
}

function bad(name, value, expected) {
  return new InputError(`input ${name}: '${value}' is not valid; expected ${expected}`);
}

function oneOf(name, value, allowed) {
  if (!allowed.includes(value)) throw bad(name, value, `one of ${allowed.join(', ')}`);
  return value;
}

function optionalSha(name, value) {
  if (value && !SHA.test(value)) throw bad(name, value, 'a full commit SHA (40 lowercase hex digits)');
  return value || null;
}

// job=bisect: the pinned good and bad commits, the names the command gave them, the tests.
function bisectInputs(input) {
  const ends = {};
  for (const end of ['good', 'bad']) {
    const sha = input(`${end}-sha`);
    if (!SHA.test(sha)) throw bad(`${end}-sha`, sha, 'a full commit SHA (40 lowercase hex digits), as the perfgate bot pins it');
    const ref = input(`${end}-ref`) || sha;
    if (!REF.test(ref)) throw bad(`${end}-ref`, ref, 'a commit SHA, branch or tag');
    ends[end] = { sha, ref };
  }
  const raw = input('tests');
  const tests = raw ? [...new Set(raw.split(',').map((t) => t.trim()).filter(Boolean))] : null;
  if (raw && !tests.length) throw bad('tests', raw, 'microbenchmark names separated by commas, e.g. update-index_range=100,point-query');
  return { ...ends, tests };
}

function flag(name, value) {
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw bad(name, value, 'true or false');
}

// A release pair (release: true, and job=signoff): no pull request; the candidate (head-sha)
// and the previous release (base-ref) pinned as full SHAs; their names for the report.
function releaseInputs(input, pullRequest) {
  if (pullRequest !== null) throw bad('pull-request', String(pullRequest), 'empty for a release sign-off (release: true), which measures two tagged commits, not a pull request');
  const sides = {};
  for (const [side, shaInput, refInput] of [['candidate', 'head-sha', 'candidate-ref'], ['previous', 'base-ref', 'previous-ref']]) {
    const sha = input(shaInput);
    if (!SHA.test(sha)) throw bad(shaInput, sha, `the ${side === 'candidate' ? 'candidate' : 'previous release'}'s commit as a full SHA (40 lowercase hex digits) for a release sign-off`);
    const ref = input(refInput) || sha;
    if (!REF.test(ref)) throw bad(refInput, ref, 'a tag, branch or commit SHA (the name shown in the report)');
    sides[side] = { sha, ref };
  }
  return sides;
}

/** "K/N" → {index: K, count: N}, or null for the whole suite. */
export function parseShard(value) {
  if (!value) return null;
  const match = /^(\d+)\/(\d+)$/.exec(value);
  const index = match ? Number(match[1]) : 0;
  const count = match ? Number(match[2]) : 0;
  if (!match || count < 1 || index < 1 || index > count) throw bad('shard', value, 'K/N with 1 <= K <= N, e.g. 2/4');
  return { index, count };
}

/** "rounds=8 threads=1,4" → {rounds: '8', threads: '1,4'}; values are checked by perfgate itself. */
export function parseOptions(value) {
  const options = {};
  for (const word of value.split(/\s+/).filter(Boolean)) {
    const match = /^([a-z-]+)=(\S+)$/.exec(word);
    if (!match) throw bad('options', word, 'key=value words, e.g. "rounds=8 threads=1,4"');
    if (!OPTION_KEYS.includes(match[1])) throw bad('options', word, `a key among ${OPTION_KEYS.join(', ')}`);
    if (options[match[1]] !== undefined) throw bad('options', word, `each key once (${match[1]} is given twice)`);
    options[match[1]] = match[2];
  }
  return options;
}

function pullRequestNumber(raw, event) {
  if (raw) {
    if (!/^[1-9]\d*$/.test(raw)) throw bad('pull-request', raw, 'a pull request number, e.g. 42');
    return Number(raw);
  }
  return event.pull_request?.number ?? null;
}

function repository(env) {
  const value = env.GITHUB_REPOSITORY || '';
  const match = /^([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+)$/.exec(value);
  if (!match) throw new InputError(`environment GITHUB_REPOSITORY: '${value}' is not valid; expected owner/name (the action runs inside a workflow)`);
  return { owner: match[1], repo: match[2], fullName: value };
}

/**
 * @param input      (name) => the input's value as a trimmed string ('' when not given)
 * @param env        the step's environment (GITHUB_*, RUNNER_*)
 * @param event      the event payload (GITHUB_EVENT_PATH)
 * @returns the settings every job reads; nothing else reads inputs or the event
 */
export function readSettings({ input, env, event }) {
  const job = oneOf('job', input('job'), JOBS);
  const eventName = env.GITHUB_EVENT_NAME || '';
  const pullRequest = pullRequestNumber(input('pull-request'), event);
  // No pull request: the measure and report jobs may run on a commit of the default branch
  // (the watch workflow), named by head-sha; the gate exists for pull requests only.
  if (pullRequest === null && (job === 'gate' || !input('head-sha'))) {
    const or = job === 'gate' ? '' : ', or head-sha for a commit of the default branch';
    throw new InputError(`input pull-request: missing for a ${eventName || 'unknown'} event; expected the pull request number (pull_request events carry it)${or}`);
  }
  const baseRef = input('base-ref') || event.pull_request?.base?.sha || '';
  if (baseRef && !REF.test(baseRef)) throw bad('base-ref', baseRef, 'a commit SHA, branch or tag');
  const baseBasedir = input('base-basedir');
  const headBasedir = input('head-basedir');
  if (Boolean(baseBasedir) !== Boolean(headBasedir)) {
    const [given, missing] = baseBasedir ? ['base-basedir', 'head-basedir'] : ['head-basedir', 'base-basedir'];
    throw new InputError(`input ${missing}: missing while ${given} is given; expected both installed prefixes, or neither (then both sides are built from source)`);
  }
  const thresholds = input('thresholds');
  if (thresholds && (path.isAbsolute(thresholds) || thresholds.split(/[\\/]/).includes('..'))) {
    throw bad('thresholds', thresholds, 'a folder relative to the repository root, e.g. perfgate/thresholds (it is read from the base commit)');
  }
  // job=signoff judges several suites, named separated by spaces; every other job runs one.
  const suites = (input('suite') || 'quick').trim().split(/\s+/);
  const several = job === 'signoff' ? 'suite names separated by spaces, such as full ddl tpcc' : 'a suite name such as quick, full or ahi';
  if (suites.length > 1 && job !== 'signoff') throw bad('suite', input('suite'), several);
  // A name starts with a letter or digit: `.` or `..` would name a folder above the run's own.
  const badSuite = suites.find((s) => !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(s));
  if (badSuite) throw bad('suite', badSuite, several);
  if (new Set(suites).size !== suites.length) throw bad('suite', input('suite'), `${several}, each once`);
  const suite = suites[0];
  const checkRunId = input('check-run-id');
  if (checkRunId && !/^\d+$/.test(checkRunId)) throw bad('check-run-id', checkRunId, 'a check run id (the gate job\'s check-run-id output)');
  const thresholdsDigest = input('thresholds-digest');
  if (thresholdsDigest && !/^sha256:[0-9a-f]{64}$/.test(thresholdsDigest)) throw bad('thresholds-digest', thresholdsDigest, "sha256:<64 hex digits> (the measure job's thresholds-digest output)");
  const measureResult = input('measure-result');
  if (measureResult && !MEASURE_RESULTS.includes(measureResult)) throw bad('measure-result', measureResult, `one of ${MEASURE_RESULTS.join(', ')} (needs.measure.result)`);
  const release = job === 'signoff' || flag('release', input('release'));
  if (release && job !== 'measure' && job !== 'signoff') throw bad('release', input('release'), `false for job=${job}; a release pair is measured (job=measure) and signed off (job=signoff)`);
  const commitStatus = flag('commit-status', input('commit-status'));
  if (commitStatus && job !== 'signoff') throw bad('commit-status', input('commit-status'), `false for job=${job}; only job=signoff sets perfgate/signoff`);
  let explain;
  try {
    explain = perfgateCore.parseExplainAsk(input('explain') || 'auto', 'input explain');
  } catch (err) {
    throw new InputError(err.message);
  }
  const token = input('github-token');
  if (!token) throw new InputError('input github-token: missing; expected a token (the default is github.token)');
  return {
    job,
    eventName,
    event,
    repository: repository(env),
    serverUrl: env.GITHUB_SERVER_URL || 'https://github.com',
    apiUrl: env.GITHUB_API_URL || 'https://api.github.com',
    runId: env.GITHUB_RUN_ID || null,
    runAttempt: env.GITHUB_RUN_ATTEMPT || '1',
    pullRequest,
    suite,
    suites,
    thresholds: thresholds ? thresholds.replace(/\/+$/, '') : null,
    source: path.resolve(input('source') || env.GITHUB_WORKSPACE || '.'),
    baseRef: baseRef || null,
    headSha: optionalSha('head-sha', input('head-sha') || event.pull_request?.head?.sha || ''),
    approvedSha: optionalSha('approved-sha', input('approved-sha')),
    basedirs: baseBasedir ? { base: path.resolve(baseBasedir), head: path.resolve(headBasedir) } : null,
    shard: parseShard(input('shard')),
    options: parseOptions(input('options')),
    // job=measure: the rows the explanation step looks at; a shard's rows are judged with the
    // others' in the report job, so a shard explains none.
    explain: input('shard') ? null : explain,
    checkRunId: checkRunId ? Number(checkRunId) : null,
    measureResult: measureResult || null,
    // job=report, signoff: the digest of the limits the measure jobs read, from their output.
    thresholdsDigest: thresholdsDigest || null,
    bisect: job === 'bisect' ? bisectInputs(input) : null,
    release: release ? releaseInputs(input, pullRequest) : null,
    // job=signoff: whether this job sets the commit status perfgate/signoff itself (a pushed
    // release tag, no bot); the bot sets it for its /perf signoff, counting its waivers.
    commitStatus,
    // A commit of the default branch has no pull request to comment on: its check run says it.
    comment: pullRequest === null ? 'none' : oneOf('comment', input('comment') || 'sticky', COMMENT_MODES),
    ref: env.GITHUB_REF || null,
    commentAuthor: input('comment-author') || 'github-actions[bot]',
    failOn: oneOf('fail-on', input('fail-on') || 'fail', perfgateCore.FAIL_ON),
    token,
    workDir: path.resolve(input('work-dir') || path.join(env.RUNNER_TEMP || '.', 'perfgate')),
  };
}

/** The run folder's name: one per suite and shard, and the artifact's name. */
export function runName(settings) {
  const shard = settings.shard ? `-shard-${settings.shard.index}-of-${settings.shard.count}` : '';
  return `perfgate-${settings.suite}${shard}`;
}
