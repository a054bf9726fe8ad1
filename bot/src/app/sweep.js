'use strict';
// The reconciliation sweep: a job queued every PERFGATE_SWEEP_SECONDS, at start and when GitHub
// answers again after failing. It compares the requests still unfinished with what GitHub
// shows and finishes or reports them, so that nothing a crash or an outage interrupted is lost:
//
//   kept completions   a completion kept for a request that now knows its run goes back to its
//                      run job (the bot stopped between the two: run-completions.js)
//   not started        a command whose job gave up (GitHub did not answer through all its
//                      tries) is tried again: its job starts it, or, past the command's
//                      deadline, says it was not started; after a day it is failed, logged
//   dispatched         a run GitHub shows completed gets the run job its completion would have
//                      queued (queued again when it failed); a run job that keeps failing, or a
//                      run GitHub no longer knows, is reported in the pull request
const store = require('../store');
const contract = require('./contract');
const { findDispatchedRun } = require('./dispatch');
const { runWork } = require('./triage');
const { queueRunCompletion, releaseKeptRuns, runJobKey } = require('./run-completions');

const SWEEP_JOB = 'sweep';
// A command is tried again for this long after it was recorded; then it is given up.
const GIVE_UP_MS = 24 * 3600 * 1000;
// A run job that has failed this often is not queued again: its request is reported failed.
const RUN_JOB_MAX_ATTEMPTS = 25;
const REQUEUED_ATTEMPTS = 5;

/** The unique key of the sweep queued at `now` every `everyMs`: one a period, whichever process queues it. */
const sweepKey = (now, everyMs) => `${SWEEP_JOB}:${Math.floor(now / everyMs)}`;

/** The sweep job, given the steps it shares with the command and run jobs (jobs.js). */
function sweepJob({ clientFor, workflowOf, reportNoVerdict }) {
  async function unstarted(ctx, request) {
    const job = request.commentId === null ? null : await store.jobByKey(ctx.store, `command:${request.commentId}`);
    if (!job || job.status !== 'failed') return;
    if (ctx.store.now() - request.createdAt > GIVE_UP_MS) {
      await store.transition(ctx.store, request.id, 'failed', { by: 'sweep', detail: `its job gave up: ${job.lastError}` });
      ctx.log.error(`sweep: request ${request.id} (${request.repo}#${request.prNumber}) given up after a day: ${job.lastError}`);
      return;
    }
    if (await store.requeue(ctx.store, job.uniqueKey, { attempts: REQUEUED_ATTEMPTS })) ctx.log.info(`sweep: request ${request.id}: its command job is tried again`);
  }

  // The request's run as GitHub shows it, recorded on the request when only its run-name knew it.
  async function runOf(ctx, octokit, request) {
    const [owner, repo] = request.repo.split('/');
    if (request.runId) {
      try {
        return (await octokit.rest.actions.getWorkflowRun({ owner, repo, run_id: request.runId })).data;
      } catch (err) {
        if (err.status === 404) return { gone: true };
        throw err;
      }
    }
    const run = await findDispatchedRun(ctx, octokit, { owner, repo, workflow: workflowOf(ctx, request), requestId: contract.requestIdOf(request), since: request.createdAt });
    if (!run) return null;
    await store.updateRequest(ctx.store, request.id, { runId: run.id, runUrl: run.html_url || request.runUrl });
    await releaseKeptRuns(ctx.store, { repo: request.repo, runId: run.id });
    return run;
  }

  async function dispatched(ctx, request) {
    const octokit = await clientFor(ctx, request);
    const run = await runOf(ctx, octokit, request);
    if (run && run.gone) {
      await reportNoVerdict(ctx, octokit, request, { runUrl: request.runUrl, why: 'GitHub no longer knows its workflow run', by: 'sweep' });
      return;
    }
    if (!run || run.status !== 'completed') return;
    const work = { ...runWork(run), repo: request.repo, installationId: request.installationId };
    const job = await store.jobByKey(ctx.store, runJobKey(work));
    if (job && job.status === 'failed' && job.attempts >= RUN_JOB_MAX_ATTEMPTS) {
      await reportNoVerdict(ctx, octokit, request, { runUrl: request.runUrl, why: `its results could not be taken (${job.lastError})`, by: 'sweep' });
      return;
    }
    const queued = await queueRunCompletion(ctx.store, work);
    if (queued.outcome !== 'duplicate run') ctx.log.info(`sweep: request ${request.id}: run ${run.id} completed; its run job ${queued.outcome}`);
  }

  return async function sweep(ctx) {
    for (const { payload } of await store.keptJobs(ctx.store, { kind: 'run' })) {
      if (await store.requestForRun(ctx.store, payload)) await releaseKeptRuns(ctx.store, payload);
    }
    // One request GitHub fails on does not keep the others from being looked at.
    const each = async (request, look) => {
      try {
        await look(ctx, request);
      } catch (err) {
        ctx.log.warn(`sweep: request ${request.id} (${request.repo}#${request.prNumber}): ${err.message}`);
      }
    };
    for (const request of await store.requestsIn(ctx.store, { statuses: ['received', 'pinned', 'dispatching'] })) await each(request, unstarted);
    for (const request of await store.requestsIn(ctx.store, { statuses: ['dispatched'] })) await each(request, dispatched);
  };
}

module.exports = { sweepJob, sweepKey, SWEEP_JOB };
