'use strict';
// A measurement's way from a command to a queued run: the head it approves pinned as of the
// comment (approval.js), the suite's workflow dispatched on the pinned commits (dispatch.js),
// the bot's check run when it reports, and the pull request told "queued". Each step first
// reads what the request's row says was done, so a job run again finishes what is missing.
const store = require('../store');
const contract = require('./contract');
const messages = require('./messages');
const gh = require('./pull-request');
const bisectContract = require('./bisect-contract');
const { dispatchRequest, findDispatchedRun } = require('./dispatch');
const { decideApproval, REFUSALS } = require('./approval');
const { whereOf, say, tell, settleCancelled } = require('./conversation');

// The commands that measure the pull request: one suite each.
const MEASURE_COMMANDS = Object.keys(contract.SUITE_OF_COMMAND);

// The workflow a request's run is of: its suite's, a sign-off's own.
const workflowOf = (ctx, request) => ctx.config.workflows[request.command === 'signoff' ? 'signoff' : request.suite];

/** Dispatches the run of a pinned measurement or bisection (dispatch.js). */
async function dispatch(ctx, octokit, request, { lookFirst }) {
  const workflow = workflowOf(ctx, request);
  const requestId = contract.requestIdOf(request);
  const inputs = request.suite === bisectContract.SUITE
    ? bisectContract.bisectInputs({
      prNumber: request.prNumber, goodSha: request.baseSha, badSha: request.headSha, goodRef: request.args.good, badRef: request.args.bad, tests: request.args.tests, requestId,
    })
    : contract.dispatchInputs({
      prNumber: request.prNumber, baseSha: request.baseSha, headSha: request.headSha, suite: request.suite, args: request.args, requestId,
    });
  const refused = (error) => say(ctx, octokit, request, messages.REPLIES.dispatchFailed({ author: request.author, line: messages.requestLine(request), workflow: contract.workflowPath(workflow), error }), { status: 'failed', lookFirst });
  return dispatchRequest(ctx, octokit, request, { workflow, inputs, requestId, lookFirst, refused });
}

/**
 * True when a command not yet started has waited past its deadline (GitHub did not answer its
 * job for that long): it is then not started at all. A run a dispatch started meanwhile is
 * found and kept.
 */
async function pastDeadline(ctx, octokit, request) {
  if (!['received', 'pinned', 'dispatching'].includes(request.status)) return false;
  if (ctx.store.now() - request.createdAt <= ctx.config.commandDeadlineMs) return false;
  if (request.status !== 'dispatching') return true;
  const [owner, repo] = request.repo.split('/');
  return !(await findDispatchedRun(ctx, octokit, { owner, repo, workflow: workflowOf(ctx, request), requestId: contract.requestIdOf(request), since: request.createdAt }));
}

// Pins the head the command approves, or says why not; -> the request as it is then, or null
// when the command ends here.
async function pin(ctx, octokit, request, { suite, args, named, lookFirst }) {
  // The head this command approves, as of the comment (approval.js): the run measures exactly it.
  const { pull, decision } = await decideApproval(ctx, octokit, request, { named });
  const author = request.author;
  const line = messages.requestLine(request);
  if (pull.state !== 'open') {
    await say(ctx, octokit, request, messages.REPLIES.closed({ author, prNumber: request.prNumber, line }), { status: 'answered', lookFirst });
    return null;
  }
  if (decision.refuse) {
    await say(ctx, octokit, request, REFUSALS[decision.refuse]({ author, line, suite, ...decision }), { status: 'answered', lookFirst });
    return null;
  }
  if (decision.cancel) {
    // A push after the comment: cancelled, as that push's delivery cancels a command written
    // before it; said at the end.
    await store.transition(ctx.store, request.id, 'cancelled', { by: 'command', suite, detail: messages.CANCEL_REASONS.push({ headSha: decision.cancel }) });
  } else {
    await store.transition(ctx.store, request.id, 'pinned', { by: 'command', suite, args, baseSha: pull.base.sha, headSha: decision.approve });
  }
  return store.getRequest(ctx.store, request.id);
}

/** Measures the pull request with `suite`: pinned, dispatched, its check run, "queued". */
async function measure(ctx, octokit, request, { suite, args, named = null, lookFirst }) {
  if (request.status === 'received') {
    request = await pin(ctx, octokit, request, { suite, args, named, lookFirst });
    if (!request) return;
  }
  if (request.status === 'pinned' || request.status === 'dispatching') request = await dispatch(ctx, octokit, request, { lookFirst });
  // The example workflows make their own check run (their gate job); a bot that reports makes it.
  if (ctx.config.report === 'bot' && request.status === 'dispatched' && !request.checkRunId) {
    const checkRunId = await gh.ensureCheckRun(octokit, whereOf(request), {
      name: messages.CHECK.name(request.suite, contract.optionsOf(request.args)), headSha: request.headSha, externalId: contract.requestIdOf(request),
      detailsUrl: request.runUrl, output: messages.CHECK.queued({ suite: request.suite, request }), lookFirst,
    });
    await store.updateRequest(ctx.store, request.id, { checkRunId });
    request = await store.getRequest(ctx.store, request.id);
  }
  if (request.status === 'dispatched') {
    await tell(ctx, octokit, request, 'queued', { runUrl: request.runUrl, dropped: contract.optionsInput(request.args).dropped });
  }
  // A push may have cancelled the request while the steps above wrote to GitHub: whatever they
  // wrote last, the pull request ends up saying "cancelled".
  await settleCancelled(ctx, octokit, request);
}

module.exports = { MEASURE_COMMANDS, workflowOf, dispatch, pastDeadline, measure };
