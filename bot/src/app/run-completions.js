'use strict';
// What becomes of a workflow run's completion, from a webhook or from the sweep: one run job
// per run attempt (its unique key), queued again when GitHub redelivers a completion whose job
// did not do its work (it failed for good, or was kept); kept when it came before the request
// it belongs to knew its run (the worker keeps a job whose handler says KEEP), and queued again
// once the request does.
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
  if (['failed', 'kept'].includes(job.status) && await store.requeue(db, key, { attempts: REQUEUED_ATTEMPTS })) return { outcome: 'queued again', jobId: job.id };
  return { outcome: 'duplicate run', jobId: job.id };
}

/** A request now knows run `runId`: its completions kept go back to their run jobs. -> how many */
async function releaseKeptRuns(db, { repo, runId }) {
  const kept = (await store.keptJobs(db, { kind: 'run' })).filter((job) => job.payload.repo === repo && job.payload.runId === runId);
  for (const job of kept) await store.requeue(db, job.uniqueKey, { attempts: REQUEUED_ATTEMPTS });
  return kept.length;
}

module.exports = { queueRunCompletion, releaseKeptRuns, runJobKey };
