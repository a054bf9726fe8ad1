'use strict';
// /perf bisect in the history: one row per command (migration 0005_bisections).
//
//   openBisection(store, {...})          the row of a dispatched bisection (made once; again: the same row)
//   getBisection(store, requestId)       the row, or null
//   advanceProgress(store, requestId, steps, {workflowRunId})
//                                        true when `steps` is more than the bot showed last:
//                                        two pollers, or a poll after a restart, never show a
//                                        step twice nor go back
//   finishBisection(store, requestId, {doc, workflowRunId, status, message})
//                                        the outcome, culprit and steps, once: false when the
//                                        row was finished already
const STATUS_RUNNING = 'running';

const numberOrNull = (v) => (v === null || v === undefined ? null : Number(v));

function bisectionOf(row) {
  if (!row) return null;
  return {
    id: Number(row.id),
    requestId: Number(row.request_id),
    repo: row.repo,
    prNumber: numberOrNull(row.pr_number),
    goodRef: row.good_ref,
    goodSha: row.good_sha,
    badRef: row.bad_ref,
    badSha: row.bad_sha,
    tests: JSON.parse(row.tests),
    status: row.status,
    workflowRunId: numberOrNull(row.workflow_run_id),
    progressSteps: Number(row.progress_steps),
    culpritSha: row.culprit_sha,
    culpritParentSha: row.culprit_parent_sha,
    message: row.message,
    steps: row.steps ? JSON.parse(row.steps) : null,
    document: row.document ? JSON.parse(row.document) : null,
    createdAt: Number(row.created_at),
    completedAt: numberOrNull(row.completed_at),
  };
}

async function getBisection(store, requestId) {
  return bisectionOf(await store.db.selectFrom('bisections').selectAll().where('request_id', '=', requestId).executeTakeFirst());
}

async function openBisection(store, { requestId, repo, prNumber, goodRef, goodSha, badRef, badSha, tests = [] }) {
  const now = store.now();
  try {
    await store.behaviour.retrying(() => store.db.insertInto('bisections').values({
      request_id: requestId, repo, pr_number: prNumber, good_ref: goodRef, good_sha: goodSha, bad_ref: badRef, bad_sha: badSha,
      tests: JSON.stringify(tests), status: STATUS_RUNNING, progress_steps: 0, created_at: now, updated_at: now,
    }).executeTakeFirstOrThrow());
  } catch (err) {
    if (!store.behaviour.isUniqueViolation(err)) throw err;
  }
  return getBisection(store, requestId);
}

async function advanceProgress(store, requestId, steps, { workflowRunId = null } = {}) {
  const set = { progress_steps: steps, updated_at: store.now() };
  if (workflowRunId !== null) set.workflow_run_id = workflowRunId;
  const r = await store.behaviour.retrying(() => store.db.updateTable('bisections').set(set)
    .where('request_id', '=', requestId).where('status', '=', STATUS_RUNNING).where('progress_steps', '<', steps).executeTakeFirst());
  return Number(r.numUpdatedRows) === 1;
}

async function finishBisection(store, requestId, { doc = null, workflowRunId = null, status, message }) {
  const now = store.now();
  const culprit = doc && doc.culprit;
  const r = await store.behaviour.retrying(() => store.db.updateTable('bisections').set({
    status,
    message: String(message).slice(0, 4000),
    workflow_run_id: workflowRunId,
    culprit_sha: culprit ? culprit.commit : null,
    culprit_parent_sha: culprit ? culprit.parent : null,
    steps: doc ? JSON.stringify(doc.steps) : null,
    document: doc ? JSON.stringify(doc) : null,
    progress_steps: doc ? doc.steps.length : 0,
    updated_at: now,
    completed_at: now,
  }).where('request_id', '=', requestId).where('status', '=', STATUS_RUNNING).executeTakeFirst());
  return Number(r.numUpdatedRows) === 1;
}

module.exports = { openBisection, getBisection, advanceProgress, finishBisection, BISECTION_RUNNING: STATUS_RUNNING };
