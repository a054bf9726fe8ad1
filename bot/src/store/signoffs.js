'use strict';
// Release sign-offs and their waivers (tables of 0004_lifecycle, 0007_signoff and
// 0012_signoff_suites): one row per /perf signoff command (its request is the key, so a job run
// twice records one sign-off), the pinned commits and suites, where it was asked, each suite's
// judged verdict once the run completed, and the commit status it decided; one waiver per
// sign-off and microbenchmark (a second /perf waive of the same microbenchmark replaces the
// reason).
const { StoreError } = require('./connection');
const { storedVerdict } = require('./stored-verdicts');

const SIGNOFF_STATUSES = Object.freeze(['dispatched', 'completed', 'failed']);
const numberOrNull = (v) => (v === null || v === undefined ? null : Number(v));
// A sign-off recorded before 0012 measured the full suite alone, its verdict in `verdict`.
const EARLIER_SUITES = Object.freeze(['full']);

// Each suite's part of a stored sign-off: [{suite, verdict, problem}], or null before its run completed.
function partsOf(row) {
  const where = `the verdict of sign-off ${row.id}`;
  if (row.verdicts) {
    return JSON.parse(row.verdicts).map((p) => ({ suite: p.suite, verdict: p.verdict ? storedVerdict(p.verdict, `${where} (${p.suite})`) : null, problem: p.problem ?? null }));
  }
  return row.verdict ? [{ suite: EARLIER_SUITES[0], verdict: storedVerdict(JSON.parse(row.verdict), where), problem: null }] : null;
}

function signoffOf(row) {
  if (!row) return null;
  return {
    id: Number(row.id),
    requestId: numberOrNull(row.request_id),
    repo: row.repo,
    issueNumber: numberOrNull(row.issue_number),
    candidate: { ref: row.candidate_ref, sha: row.candidate_sha },
    previous: { ref: row.previous_ref, sha: row.previous_sha },
    status: row.status,
    state: row.state,
    workflowRunId: numberOrNull(row.workflow_run_id),
    runId: numberOrNull(row.run_id),
    runUrl: row.run_url ?? null,
    replyId: numberOrNull(row.reply_id),
    suites: row.suites ? row.suites.split(' ') : [...EARLIER_SUITES],
    verdicts: partsOf(row),
    failure: row.failure ?? null,
    summary: row.summary ?? null,
    createdAt: Number(row.created_at),
    completedAt: numberOrNull(row.completed_at),
  };
}

function need(value, name) {
  if (value === undefined || value === null || value === '') throw new StoreError(`store: missing '${name}'`);
  return value;
}

/** The sign-off of a request, made once: {signoff, duplicate}. */
async function recordSignoff(store, { requestId, repo, issueNumber, candidate, previous, suites, state = 'pending' }) {
  return store.behaviour.writeTransaction(store.db, async (tx) => {
    const seen = await tx.selectFrom('signoffs').selectAll().where('request_id', '=', need(requestId, 'requestId')).executeTakeFirst();
    if (seen) return { signoff: signoffOf(seen), duplicate: true };
    const now = store.now();
    await tx.insertInto('signoffs').values({
      request_id: requestId, repo: need(repo, 'repo'), issue_number: need(issueNumber, 'issueNumber'),
      candidate_ref: candidate.ref ?? null, candidate_sha: need(candidate.sha, 'candidate.sha'),
      previous_ref: previous.ref ?? null, previous_sha: need(previous.sha, 'previous.sha'),
      suites: need(suites && suites.length ? suites.join(' ') : null, 'suites'),
      status: 'dispatched', state, created_at: now, updated_at: now,
    }).execute();
    const row = await tx.selectFrom('signoffs').selectAll().where('request_id', '=', requestId).executeTakeFirstOrThrow();
    return { signoff: signoffOf(row), duplicate: false };
  });
}

async function signoffForRequest(store, requestId) {
  return signoffOf(await store.db.selectFrom('signoffs').selectAll().where('request_id', '=', requestId).executeTakeFirst());
}

/** The latest sign-off asked for in an issue or pull request, or null. */
async function latestSignoffIn(store, { repo, issueNumber }) {
  return signoffOf(await store.db.selectFrom('signoffs').selectAll()
    .where('repo', '=', repo).where('issue_number', '=', issueNumber).orderBy('id', 'desc').limit(1).executeTakeFirst());
}

const FIELDS = Object.freeze({
  status: 'status', state: 'state', workflowRunId: 'workflow_run_id', runId: 'run_id', runUrl: 'run_url', replyId: 'reply_id', failure: 'failure', summary: 'summary', completedAt: 'completed_at',
});

/** Sets fields of a sign-off (camelCase names of FIELDS, and verdicts: [{suite, verdict, problem}]). */
async function updateSignoff(store, id, fields) {
  const set = { updated_at: store.now() };
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'verdicts') set.verdicts = value === null ? null : JSON.stringify(value);
    else if (Object.hasOwn(FIELDS, key)) set[FIELDS[key]] = value;
    else throw new StoreError(`store: a sign-off has no field '${key}'`);
  }
  if (set.status !== undefined && !SIGNOFF_STATUSES.includes(set.status)) throw new StoreError(`store: sign-off status '${set.status}' is not one of ${SIGNOFF_STATUSES.join(', ')}`);
  await store.db.updateTable('signoffs').set(set).where('id', '=', id).execute();
  return signoffOf(await store.db.selectFrom('signoffs').selectAll().where('id', '=', id).executeTakeFirst());
}

/** A maintainer's waiver of one microbenchmark for a sign-off; the same one again replaces it. */
async function recordSignoffWaiver(store, { signoffId, microbenchmark, reason, author = null, requestId = null }) {
  return store.behaviour.writeTransaction(store.db, async (tx) => {
    const name = need(microbenchmark, 'microbenchmark');
    let micro = await tx.selectFrom('microbenchmarks').select('id').where('name', '=', name).executeTakeFirst();
    if (!micro) {
      await tx.insertInto('microbenchmarks').values({ name, group_name: null, kind: null, script: null, shape: null }).execute();
      micro = await tx.selectFrom('microbenchmarks').select('id').where('name', '=', name).executeTakeFirstOrThrow();
    }
    const row = { reason: need(reason, 'reason'), author, request_id: requestId, created_at: store.now() };
    const seen = await tx.selectFrom('signoff_waivers').select('id').where('signoff_id', '=', signoffId).where('microbenchmark_id', '=', micro.id).executeTakeFirst();
    if (seen) {
      await tx.updateTable('signoff_waivers').set(row).where('id', '=', seen.id).execute();
      return { id: Number(seen.id), replaced: true };
    }
    await tx.insertInto('signoff_waivers').values({ signoff_id: signoffId, microbenchmark_id: micro.id, ...row }).execute();
    const made = await tx.selectFrom('signoff_waivers').select('id').where('signoff_id', '=', signoffId).where('microbenchmark_id', '=', micro.id).executeTakeFirstOrThrow();
    return { id: Number(made.id), replaced: false };
  });
}

/** The waivers of a sign-off, oldest first: [{microbenchmark, reason, author, createdAt}]. */
async function signoffWaivers(store, signoffId) {
  const rows = await store.db.selectFrom('signoff_waivers as w').innerJoin('microbenchmarks as m', 'm.id', 'w.microbenchmark_id')
    .select(['w.id', 'm.name as microbenchmark', 'w.reason', 'w.author', 'w.created_at as createdAt'])
    .where('w.signoff_id', '=', signoffId).orderBy('w.id').execute();
  return rows.map((r) => ({ id: Number(r.id), microbenchmark: r.microbenchmark, reason: r.reason, author: r.author, createdAt: Number(r.createdAt) }));
}

module.exports = { recordSignoff, signoffForRequest, latestSignoffIn, updateSignoff, recordSignoffWaiver, signoffWaivers, SIGNOFF_STATUSES };
