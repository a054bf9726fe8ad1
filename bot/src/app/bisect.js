'use strict';
// /perf bisect: the jobs behind it, run by the worker from the durable queue (docs/bot.md).
//
//   command   (from jobs.js, once the author may run commands and the command parsed)
//             resolve <good> and <bad> to SHAs through the API, check that good is an ancestor
//             of bad (GitHub's compare), pin both, dispatch perf-bisect.yml, open the
//             bisection's row, queue the first progress look, reply "queued"
//   progress  a scheduled look at the running bisection (one job per look, each queueing the
//             next, PERFGATE_BISECT_POLL_SECONDS apart): the newest progress artifact of the
//             run, if it has more steps than the reply shows, is checked and shown (the reply
//             edited once per new step); when the run has completed the chain ends and the
//             run's completion is queued (the same job the workflow_run webhook queues, so a
//             lost webhook does not leave the bisection unreported); it ends as well when the
//             request is no longer dispatched or after PERFGATE_BISECT_MAX_HOURS
//   completed (from jobs.js's run job) the result artifact perfgate-bisect: bisect.json
//             checked as untrusted, the culprit shown, the bisection stored
//
// The looks live in the jobs table like every other job: a bot that restarts finds the next
// look queued and goes on; the progress row (bisections.progress_steps) moves only forward, so
// no step is shown twice.
const store = require('../store');
const messages = require('./messages');
const bisectMessages = require('./bisect-messages');
const bisectContract = require('./bisect-contract');
const gh = require('./pull-request');
const { ArtifactRejected } = require('./artifact');
const { downloadBisectDocument } = require('./bisect-artifact');
const { isPermanent, describeError } = require('./github');
const { starterOf } = require('./dispatch');
const { resolveCommit } = require('./commits');

const PROGRESS_JOB = 'bisect-progress';
const progressKey = (request, look) => `${PROGRESS_JOB}:${request.id}:${look}`;

/**
 * The bisect jobs, given the steps they share with the measuring commands (jobs.js):
 * {whereOf, clientFor, dispatch, say}.
 */
function bisectJobs({ whereOf, clientFor, dispatch, say }) {
  async function reply(ctx, octokit, request, text) {
    const replyId = await gh.upsertReply(octokit, whereOf(request), {
      commentId: request.commentId, replyId: request.replyId, author: ctx.botLogin, body: messages.reply(request.commentId, text), lookFirst: !request.replyId,
    });
    if (replyId !== request.replyId) await store.updateRequest(ctx.store, request.id, { replyId });
    return replyId;
  }

  async function queueLook(ctx, request, look) {
    const runAt = ctx.store.now() + ctx.config.bisect.pollSeconds * 1000;
    await store.enqueue(ctx.store, { kind: PROGRESS_JOB, payload: { requestId: request.id, look }, runAt }, progressKey(request, look));
  }

  // Pins good and bad, or says why not (and returns null).
  async function pin(ctx, octokit, request, { good, bad, lookFirst }) {
    const where = whereOf(request);
    const author = request.author;
    const refuse = (text) => say(ctx, octokit, request, text, { status: 'invalid', lookFirst });
    const { data: pull } = await octokit.rest.pulls.get({ owner: where.owner, repo: where.repo, pull_number: where.prNumber });
    if (pull.state !== 'open') {
      await say(ctx, octokit, request, messages.REPLIES.closed({ author, prNumber: where.prNumber, line: messages.requestLine(request) }), { status: 'answered', lookFirst });
      return null;
    }
    const ends = {};
    for (const [name, ref] of [['good', good], ['bad', bad]]) {
      const found = await resolveCommit(octokit, where, ref);
      if (found.error) {
        await refuse(bisectMessages.REFUSALS.notCommit({ author, ref, repo: request.repo, error: found.error }));
        return null;
      }
      ends[name] = found.sha;
    }
    if (ends.good === ends.bad) {
      await refuse(bisectMessages.REFUSALS.sameCommit({ author, good, bad, sha: ends.good }));
      return null;
    }
    try {
      const { data } = await octokit.rest.repos.compareCommitsWithBasehead({ owner: where.owner, repo: where.repo, basehead: `${ends.good}...${ends.bad}`, per_page: 1 });
      if (data.status !== 'ahead') {
        await refuse(bisectMessages.REFUSALS.notAncestor({ author, good, bad, goodSha: ends.good, badSha: ends.bad, status: data.status }));
        return null;
      }
    } catch (err) {
      if (!isPermanent(err)) throw err;
      // GitHub cannot compare them (e.g. a very long history): the runner's `perfgate bisect`
      // refuses a good commit that is not on the bad one's first-parent history, in one line.
      ctx.log.warn(`bisect ${request.repo}#${request.prNumber}: GitHub did not compare ${ends.good}...${ends.bad} (${describeError(err)}); the runner checks the range`);
    }
    return ends;
  }

  async function command(ctx, octokit, request, { command: parsed, lookFirst }) {
    const { good, bad } = parsed.args;
    if (request.status === 'received') {
      const ends = await pin(ctx, octokit, request, { good, bad, lookFirst });
      if (!ends) return;
      await store.transition(ctx.store, request.id, 'pinned', { by: 'command', suite: bisectContract.SUITE, args: parsed.args, baseSha: ends.good, headSha: ends.bad });
      request = await store.getRequest(ctx.store, request.id);
    }
    if (request.status === 'pinned' || request.status === 'dispatching') request = await dispatch(ctx, octokit, request, { lookFirst });
    if (request.status === 'dispatched') {
      const bisection = await store.openBisection(ctx.store, {
        requestId: request.id, repo: request.repo, prNumber: request.prNumber, goodRef: good, goodSha: request.baseSha, badRef: bad, badSha: request.headSha, tests: parsed.args.tests || [],
      });
      await queueLook(ctx, request, 1);
      // Run again after a crash, a reply that shows steps already is not set back to "queued".
      if (bisection.progressSteps === 0) {
        await reply(ctx, octokit, request, bisectMessages.queued({ request, runUrl: request.runUrl, goodRef: good, badRef: bad }));
      }
    }
  }

  // The newest progress artifact, checked, when it holds more steps than the reply shows.
  async function newerProgress(ctx, octokit, request, bisection) {
    const where = whereOf(request);
    const listed = await octokit.paginate(octokit.rest.actions.listWorkflowRunArtifacts, { owner: where.owner, repo: where.repo, run_id: request.runId, per_page: 100 });
    const newest = listed.map((artifact) => ({ artifact, steps: bisectContract.progressStep(artifact.name) }))
      .filter((a) => a.steps !== null && !a.artifact.expired).sort((a, b) => b.steps - a.steps)[0];
    if (!newest || newest.steps <= bisection.progressSteps) return null;
    return downloadBisectDocument(octokit, {
      owner: where.owner, repo: where.repo, artifact: newest.artifact, maxBytes: ctx.config.maxArtifactBytes, goodSha: request.baseSha, badSha: request.headSha, final: false,
    });
  }

  async function progress(ctx, job) {
    const { requestId, look } = job.payload;
    const request = await store.getRequest(ctx.store, requestId);
    const bisection = request && await store.getBisection(ctx.store, requestId);
    if (!bisection || bisection.status !== store.BISECTION_RUNNING) return;
    if (request.status !== 'dispatched') {
      // Cancelled (a push, /perf cancel) or failed while it ran: the history says so, and the
      // looks end.
      if (['cancelled', 'failed'].includes(request.status)) {
        await store.finishBisection(ctx.store, request.id, { status: request.status, message: request.detail || request.status, workflowRunId: request.runId });
      }
      return;
    }
    if (ctx.store.now() - bisection.createdAt > ctx.config.bisect.maxHours * 3600 * 1000) {
      ctx.log.warn(`bisect ${request.repo}#${request.prNumber} (request ${request.id}): no result after ${ctx.config.bisect.maxHours} h; progress is no longer looked at (the run's completion is still reported)`);
      return;
    }
    if (!request.runId) {
      await queueLook(ctx, request, look + 1);
      return;
    }
    const octokit = await clientFor(ctx, request);
    const where = whereOf(request);
    let run = null;
    try {
      ({ data: run } = await octokit.rest.actions.getWorkflowRun({ owner: where.owner, repo: where.repo, run_id: request.runId }));
      const doc = await newerProgress(ctx, octokit, request, bisection);
      // The row moves first: a look run twice (or racing the completion) shows a step once.
      if (doc && await store.advanceProgress(ctx.store, request.id, doc.steps.length, { workflowRunId: request.runId })) {
        await reply(ctx, octokit, request, bisectMessages.bisection({ request, runUrl: request.runUrl, doc, final: false }));
        await showFinalIfFinished(ctx, octokit, request.id);
      }
    } catch (err) {
      // One bad look (a rejected artifact, GitHub failing) does not end the following.
      const why = err instanceof ArtifactRejected ? `a progress artifact was rejected: ${err.message}` : `looking failed: ${err.message}`;
      ctx.log.warn(`bisect ${request.repo}#${request.prNumber} (request ${request.id}): ${why}`);
    }
    if (run && run.status === 'completed') {
      // The same job (and key) as the workflow_run webhook's: whichever comes first reports.
      await store.enqueue(ctx.store, {
        kind: 'run',
        payload: {
          kind: 'run', repo: request.repo, runId: run.id, attempt: run.run_attempt || 1, conclusion: run.conclusion, displayTitle: run.display_title || null, runUrl: run.html_url || null,
          starter: starterOf(run), installationId: request.installationId,
        },
      }, `run:${request.repo}/${run.id}/${run.run_attempt || 1}`);
      return;
    }
    await queueLook(ctx, request, look + 1);
  }

  // A progress edit that raced the result: the result is shown again, last.
  async function showFinalIfFinished(ctx, octokit, requestId) {
    const bisection = await store.getBisection(ctx.store, requestId);
    if (!bisection || bisection.status === store.BISECTION_RUNNING) return;
    const request = await store.getRequest(ctx.store, requestId);
    await reply(ctx, octokit, request, bisection.document
      ? bisectMessages.bisection({ request, runUrl: request.runUrl, doc: bisection.document, final: true })
      : bisectMessages.failed({ request, runUrl: request.runUrl, why: bisection.message }));
  }

  async function completed(ctx, octokit, request, { runId, conclusion, runUrl }) {
    const where = whereOf(request);
    await store.openBisection(ctx.store, {
      requestId: request.id, repo: request.repo, prNumber: request.prNumber, goodRef: request.args.good, goodSha: request.baseSha, badRef: request.args.bad, badSha: request.headSha, tests: request.args.tests || [],
    });
    const shown = { ...request, runUrl: runUrl || request.runUrl };
    let doc;
    try {
      const listed = await octokit.paginate(octokit.rest.actions.listWorkflowRunArtifacts, { owner: where.owner, repo: where.repo, run_id: runId, per_page: 100 });
      const found = listed.filter((a) => a.name === bisectContract.RESULT_ARTIFACT);
      if (!found.length) throw new ArtifactRejected(`the run uploaded no ${bisectContract.RESULT_ARTIFACT} artifact`);
      if (found.length > 1) throw new ArtifactRejected(`the run uploaded two artifacts named ${bisectContract.RESULT_ARTIFACT}`);
      doc = await downloadBisectDocument(octokit, {
        owner: where.owner, repo: where.repo, artifact: found[0], maxBytes: ctx.config.maxArtifactBytes, goodSha: request.baseSha, badSha: request.headSha, final: true,
      });
    } catch (err) {
      if (!(err instanceof ArtifactRejected)) throw err;
      const why = conclusion === 'success' ? `its artifact was rejected: ${messages.untrusted(err.message)}` : `the run ended ${conclusion} (${messages.untrusted(err.message)})`;
      ctx.log.warn(`bisect ${request.repo}#${runId}: ${why}`);
      await store.finishBisection(ctx.store, request.id, { status: 'rejected', message: why, workflowRunId: runId });
      await reply(ctx, octokit, request, bisectMessages.failed({ request: shown, runUrl: shown.runUrl, why }));
      await store.transition(ctx.store, request.id, 'failed', { by: 'run', detail: why });
      return;
    }
    await store.finishBisection(ctx.store, request.id, { doc, status: doc.status, message: doc.message, workflowRunId: runId });
    await reply(ctx, octokit, request, bisectMessages.bisection({ request: shown, runUrl: shown.runUrl, doc, final: true }));
    const detail = doc.culprit ? `${doc.status}: culprit ${doc.culprit.commit}` : `${doc.status}: ${doc.message}`;
    await store.transition(ctx.store, request.id, 'completed', { by: 'run', detail: detail.slice(0, 1000) });
  }

  return { command, progress, completed };
}

module.exports = { bisectJobs, PROGRESS_JOB };
