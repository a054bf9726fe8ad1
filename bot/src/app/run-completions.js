'use strict';
// What becomes of a workflow run's completion, from a webhook or from the sweep: one run job
// per run attempt (its unique key), queued again when GitHub redelivers a completion whose job
// did not do its work (it failed for good, or its run was kept); kept when it came before the
// request it belongs to knew its run, and handed back to its run job once the request does.
const store = require('../store');

const runJobKey = ({ repo, runId, attempt }) => `run:${repo}/${runId}/${attempt}`;

// How many more tries a run job queued again gets.
const REQUEUED_ATTEMPTS = 5;

/**
 * Queues the run job of a completion (work: triage's {kind: 'run', repo, runId, attempt, ...}).
 * -> {outcome: 'queued' | 'queued again' | 'duplicate run', jobId}
 */
async function queueRunCompletion(db, work) {
  const key = runJobKey(work);
  const job = await store.enqueue(db, { kind: 'run', payload: work }, key);
  if (job.created) return { outcome: 'queued', jobId: job.id };
  const unfinished = job.status === 'failed' || Boolean(await keptUntaken(db, work));
  if (unfinished && await store.requeue(db, key, { attempts: REQUEUED_ATTEMPTS })) return { outcome: 'queued again', jobId: job.id };
  return { outcome: 'duplicate run', jobId: job.id };
}

async function keptUntaken(db, { repo, runId, attempt }) {
  const kept = await store.keptRun(db, { repo, runId, attempt });
  return kept && kept.takenAt === null ? kept : null;
}

/** A completion no request knows yet: kept for the request that will (the run job's payload stays in its job). */
async function keepRunCompletion(db, { repo, runId, attempt }) {
  return store.keepRun(db, { repo, runId, attempt });
}

/** A request now knows run `runId`: the completions kept for it go back to their run jobs. -> how many */
async function releaseKeptRuns(db, { repo, runId }) {
  const taken = await store.takeKeptRuns(db, { repo, runId });
  for (const kept of taken) await store.requeue(db, runJobKey(kept), { attempts: REQUEUED_ATTEMPTS });
  return taken.length;
}

module.exports = { queueRunCompletion, keepRunCompletion, releaseKeptRuns, runJobKey };
