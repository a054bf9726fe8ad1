'use strict';
// The runs the bot dispatches for main commits (table watch_runs of 0006_watch, one suite's
// each since 0011_watch_suites): per suite watched, one measurement of each pushed main commit
// against the previous main commit with a result, and at most one re-measurement (purpose
// 'confirm') of its failing microbenchmarks. The row is claimed before the dispatch, so a push
// delivered twice dispatches once.
const { StoreError } = require('./connection');
const { storedVerdict } = require('./stored-verdicts');

const PURPOSES = ['measure', 'confirm'];

function required(value, name) {
  if (value === undefined || value === null || value === '') throw new StoreError(`store: missing '${name}'`);
  return value;
}

const toWatchRun = (r) => r && ({
  id: Number(r.id), repo: r.repo, headSha: r.head_sha, baseSha: r.base_sha, purpose: r.purpose, suite: r.suite,
  tests: r.tests ? JSON.parse(r.tests) : null, status: r.status, installationId: r.installation_id === null ? null : Number(r.installation_id),
  workflowRunId: r.workflow_run_id === null ? null : Number(r.workflow_run_id), runId: r.run_id === null ? null : Number(r.run_id),
  detail: r.detail, createdAt: Number(r.created_at),
});

/** -> {watchRun, duplicate}: the run of this commit, purpose and suite, claimed unless it was there. */
async function claimWatchRun(store, { repo, headSha, baseSha, purpose, suite, tests = null, installationId = null }) {
  if (!PURPOSES.includes(purpose)) throw new StoreError(`claimWatchRun: purpose ${JSON.stringify(purpose)}: expected one of ${PURPOSES.join(', ')}`);
  const key = { repo: required(repo, 'repo'), head_sha: required(headSha, 'headSha'), purpose, suite: required(suite, 'suite') };
  const find = () => store.db.selectFrom('watch_runs').selectAll().where('repo', '=', key.repo).where('head_sha', '=', key.head_sha)
    .where('purpose', '=', purpose).where('suite', '=', key.suite).executeTakeFirst();
  const seen = await find();
  if (seen) return { watchRun: toWatchRun(seen), duplicate: true };
  const now = store.now();
  try {
    await store.db.insertInto('watch_runs').values({
      ...key, base_sha: required(baseSha, 'baseSha'), tests: tests ? JSON.stringify(tests) : null, status: 'dispatching',
      installation_id: installationId, created_at: now, updated_at: now,
    }).execute();
  } catch (err) {
    if (!store.behaviour.isUniqueViolation(err)) throw err;
    return { watchRun: toWatchRun(await find()), duplicate: true };
  }
  return { watchRun: toWatchRun(await find()), duplicate: false };
}

async function updateWatchRun(store, id, { status, workflowRunId, runId, detail }) {
  const set = { updated_at: store.now() };
  if (status !== undefined) set.status = status;
  if (workflowRunId !== undefined) set.workflow_run_id = workflowRunId;
  if (runId !== undefined) set.run_id = runId;
  if (detail !== undefined) set.detail = detail;
  await store.db.updateTable('watch_runs').set(set).where('id', '=', id).execute();
}

async function getWatchRun(store, id) {
  return toWatchRun(await store.db.selectFrom('watch_runs').selectAll().where('id', '=', id).executeTakeFirst()) || null;
}

/** The watch run whose dispatch started workflow run `workflowRunId` of `repo`, or null. */
async function watchRunOfWorkflowRun(store, { repo, workflowRunId }) {
  return toWatchRun(await store.db.selectFrom('watch_runs').selectAll().where('repo', '=', repo).where('workflow_run_id', '=', workflowRunId)
    .executeTakeFirst()) || null;
}

async function watchRunOf(store, { repo, headSha, purpose, suite }) {
  return toWatchRun(await store.db.selectFrom('watch_runs').selectAll().where('repo', '=', repo).where('head_sha', '=', headSha)
    .where('purpose', '=', purpose).where('suite', '=', required(suite, 'suite')).executeTakeFirst()) || null;
}

/** Every suite's watch run of a commit and purpose, oldest first. */
async function watchRunsOf(store, { repo, headSha, purpose }) {
  const rows = await store.db.selectFrom('watch_runs').selectAll().where('repo', '=', repo).where('head_sha', '=', headSha)
    .where('purpose', '=', purpose).orderBy('id').execute();
  return rows.map(toWatchRun);
}

/** The head of a suite's latest measured ('stored') main commit of a repository, or null. */
async function lastMeasuredMainCommit(store, { repo, suite }) {
  const row = await store.db.selectFrom('watch_runs as w').innerJoin('commits as c', (j) => j.onRef('c.sha', '=', 'w.head_sha').onRef('c.repo', '=', 'w.repo'))
    .select(['w.head_sha']).where('w.repo', '=', repo).where('w.purpose', '=', 'measure').where('w.suite', '=', required(suite, 'suite')).where('w.status', '=', 'stored')
    .where('c.main_seq', 'is not', null).orderBy('c.main_seq', 'desc').executeTakeFirst();
  return row ? row.head_sha : null;
}

/** The next free place on a repository's main branch (main_seq). */
async function nextMainSeq(store, { repo }) {
  const row = await store.db.selectFrom('commits').select((eb) => eb.fn.max('main_seq').as('top')).where('repo', '=', repo).executeTakeFirst();
  return row && row.top !== null ? Number(row.top) + 1 : 0;
}

/** The main_seq of a commit, or null when it is not (yet) known on main. */
async function mainSeqOf(store, { repo, sha }) {
  const row = await store.db.selectFrom('commits').select('main_seq').where('repo', '=', repo).where('sha', '=', sha).executeTakeFirst();
  return row && row.main_seq !== null ? Number(row.main_seq) : null;
}

/** The verdict stored with a run, or null; one stored before perfgate.verdict/v2 is read as v2. */
async function verdictOfRun(store, runId) {
  const row = await store.db.selectFrom('verdicts').select('document').where('run_id', '=', runId).orderBy('id', 'desc').executeTakeFirst();
  return row ? storedVerdict(JSON.parse(row.document), `the verdict of run ${runId}`) : null;
}

/**
 * Instructions per query of the queries' own threads of one microbenchmark along main, from
 * the stored verdicts (the harness counts them per side in paired windows, not per round):
 * every judged run whose commits are on main gives its base and its head level, unless the
 * row's instructions were in error. -> [{seq, sha, value}] in main order.
 * (All threads' level is history.mainSeries 'all_threads_instructions_per_query', per window.)
 */
async function instructionLevels(store, { repo, benchKey }) {
  const rows = await store.db.selectFrom('verdicts as v').innerJoin('runs as r', 'r.id', 'v.run_id')
    .innerJoin('run_sides as s', 's.run_id', 'r.id').innerJoin('commits as c', 'c.id', 's.commit_id')
    .select(['v.run_id as runId', 'v.document', 's.side', 'c.sha', 'c.main_seq as seq'])
    .where('r.repo', '=', repo).where('c.main_seq', 'is not', null).orderBy('c.main_seq').orderBy('v.run_id').execute();
  const documents = new Map();
  const points = [];
  for (const row of rows) {
    if (!documents.has(row.runId)) documents.set(row.runId, JSON.parse(row.document));
    const item = documents.get(row.runId).benchmarks.find((b) => b.id === benchKey);
    if (!item || item.instructions_verdict === 'error') continue;
    const value = item.instructions && item.instructions.per_query && item.instructions.per_query[row.side];
    if (typeof value === 'number' && value > 0) points.push({ seq: Number(row.seq), sha: row.sha, value });
  }
  return points;
}

module.exports = { instructionLevels, verdictOfRun, claimWatchRun, updateWatchRun, getWatchRun, watchRunOf, watchRunsOf, watchRunOfWorkflowRun, lastMeasuredMainCommit, nextMainSeq, mainSeqOf, WATCH_PURPOSES: PURPOSES };
