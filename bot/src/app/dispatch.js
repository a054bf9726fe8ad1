'use strict';
// How the bot starts a workflow run, for every kind of work: measuring commands, bisections,
// release sign-offs (their request rows) and measurements of main (watch_runs rows).
//
//   dispatchWorkflow   the workflow_dispatch on the repository's default branch (the workflow
//                      file is the maintainers', never a pull request's) and the id of the run
//                      it started: GitHub's answer (return_run_details), else the run found by
//                      findDispatchedRun
//   findDispatchedRun  a run of that workflow with event workflow_dispatch, started by this
//                      App after the work was recorded, whose run-name ends in the work's id
//   dispatchRequest    a request's moves around the dispatch: pinned → dispatching → dispatched
//                      (or failed when GitHub refuses), repeatable after a crash
//
// The run id recorded here is the only key a completed run is accepted by (isBotDispatch and
// the run jobs): a run-name can be copied by any workflow, a run id cannot.
const store = require('../store');
const gh = require('./pull-request');
const { runNameMatches, workflowPath } = require('./contract');
const { isPermanent, describeError } = require('./github');
const { releaseKeptRuns } = require('./run-completions');

// How far GitHub's clock may be behind ours when runs are listed by creation time.
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/** GitHub refused a dispatch for good (no such workflow, inputs it does not declare, …). */
class DispatchRefused extends Error {
  get name() { return 'DispatchRefused'; }

  // Asked again, GitHub answers the same: a job that lets it through fails for good.
  get permanent() { return true; }
}

const loginOf = (user) => (user && typeof user.login === 'string' ? user.login : null);

/**
 * Who started a workflow run, from a workflow_run delivery or the REST API: its event, its
 * actor, and who triggered this attempt (a re-run is triggered by whoever re-ran it).
 */
function starterOf(run) {
  const actor = loginOf(run.actor);
  return { event: run.event || null, actor, triggeredBy: run.triggering_actor ? loginOf(run.triggering_actor) : actor };
}

/**
 * True when a run was started by this App's workflow_dispatch, and not re-run by anyone else:
 * a pull request's workflow, a run a person dispatched, and a re-run by a person all fail it.
 */
function isBotDispatch(starter, botLogin) {
  return Boolean(starter) && starter.event === 'workflow_dispatch' && starter.actor === botLogin && starter.triggeredBy === botLogin;
}

/**
 * The run this App dispatched for `requestId` on `workflow`, created at or after `since` (ms,
 * when the work was recorded), or null.
 */
async function findDispatchedRun(ctx, octokit, { owner, repo, workflow, requestId, since }) {
  // Newest first: the run looked for was created moments ago. (GitHub's description types the
  // `created` filter as one date-time, so the time is compared here.)
  const { data } = await octokit.rest.actions.listWorkflowRunsForRepo({ owner, repo, event: 'workflow_dispatch', actor: ctx.botLogin, per_page: 100 });
  return data.workflow_runs.find((run) => String(run.path).split('@')[0] === workflowPath(workflow)
    && isBotDispatch(starterOf(run), ctx.botLogin) && Date.parse(run.created_at) >= since - CLOCK_SKEW_MS
    && runNameMatches(run.display_title, requestId)) || null;
}

/**
 * Dispatches `workflow` with `inputs`, once (octokit.writeOnce: a dispatch whose answer was
 * lost is looked for by its run-name before it is sent again; with lookFirst before it is sent
 * at all) -> the run it started ({id, html_url}), or null when GitHub gave no id back and the
 * run is not listed yet. Throws DispatchRefused when GitHub refuses for good; other failures
 * throw as they are (the job is tried again, looking first).
 */
async function dispatchWorkflow(ctx, octokit, { owner, repo, workflow, inputs, requestId, since, lookFirst = false }) {
  const find = () => findDispatchedRun(ctx, octokit, { owner, repo, workflow, requestId, since });
  try {
    const ref = await ctx.defaultBranch(octokit, { owner, repo });
    return await octokit.writeOnce({
      what: `the dispatch of ${workflow} for ${requestId}`,
      lookFirst,
      find,
      async write() {
        const answer = await octokit.rest.actions.createWorkflowDispatch({ owner, repo, workflow_id: workflow, ref, inputs, return_run_details: true });
        if (answer.status === 200 && answer.data && Number.isInteger(answer.data.workflow_run_id)) {
          return { id: answer.data.workflow_run_id, html_url: answer.data.html_url || null };
        }
        // GitHub Enterprise Server without run details.
        return find();
      },
    });
  } catch (err) {
    if (!isPermanent(err)) throw err;
    throw new DispatchRefused(describeError(err));
  }
}

const whereOf = (request) => {
  const [owner, repo] = request.repo.split('/');
  return { owner, repo };
};

// The run's id and address on the request; a request cancelled while GitHub started the run
// keeps its id, and the run is stopped.
async function recordRun(ctx, octokit, request, run, recorded, { by = 'command' } = {}) {
  const fields = { runId: run ? run.id : null, runUrl: run ? run.html_url : null };
  const moved = await store.transition(ctx.store, request.id, 'dispatched', { by, ...fields });
  await recorded(fields);
  // A completion of the run that came before it was known here waits for it.
  if (run) await releaseKeptRuns(ctx.store, { repo: request.repo, runId: run.id });
  if (!moved && run) {
    await store.updateRequest(ctx.store, request.id, fields);
    await gh.cancelRun(octokit, whereOf(request), run.id);
  }
  return store.getRequest(ctx.store, request.id);
}

/**
 * Dispatches a pinned request's run and records it; run again after a crash, it first looks
 * for the run a dispatch that reached GitHub started. -> the request as it is now.
 * @param options {workflow, inputs, requestId, lookFirst,
 *                 recorded({runId, runUrl}): keeps the run elsewhere too (a sign-off's row),
 *                 refused(error): says that GitHub refused and moves the request to failed}
 */
async function dispatchRequest(ctx, octokit, request, { workflow, inputs, requestId, lookFirst, recorded = async () => {}, refused }) {
  const where = whereOf(request);
  const run = { owner: where.owner, repo: where.repo, workflow, requestId, since: request.createdAt };
  // A request found dispatching was being dispatched when its job stopped: its run may exist.
  const fresh = request.status === 'pinned';
  if (fresh && !(await store.transition(ctx.store, request.id, 'dispatching', { by: 'command' }))) return store.getRequest(ctx.store, request.id);
  let started;
  try {
    started = await dispatchWorkflow(ctx, octokit, { ...run, inputs, lookFirst: lookFirst || !fresh });
  } catch (err) {
    if (!(err instanceof DispatchRefused)) throw err;
    await refused(err.message);
    return store.getRequest(ctx.store, request.id);
  }
  return recordRun(ctx, octokit, request, started, recorded);
}

module.exports = { dispatchWorkflow, dispatchRequest, recordRun, findDispatchedRun, isBotDispatch, starterOf, DispatchRefused, CLOCK_SKEW_MS };
