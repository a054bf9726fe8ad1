'use strict';
// Release sign-off: `/perf signoff <candidate> [vs <previous>]` and `/perf waive` in a sign-off's
// conversation (an issue, e.g. a release tracking issue, or a pull request). The command job
// (jobs.js) authorizes and hands over; here:
//
//   command   resolve both refs to SHAs and pin them (the previous release by the fork's tag
//             naming when `vs` is not given) with the suites (PERFGATE_SIGNOFF_SUITES), record
//             the sign-off, set the commit status
//             perfgate/signoff = pending on the candidate, dispatch perf-signoff.yml, reply
//   run       the run completed: take each suite's judged run folder, check it, store it,
//             decide, set the final status and post the report (core's renderSignoff) as the reply
//   waive     record the waiver for the conversation's latest sign-off, decide again from the
//             stored verdict and all its waivers, update the status and the report
//   cancel    `/perf cancel` in the conversation: the run stopped, status error, the report
//             says who cancelled it (a push leaves a sign-off running: it measures release refs)
//
// The bot sets the status for its sign-offs, not the workflow: the decision needs the waivers,
// which only the bot keeps (the workflow sets it only for a pushed tag, which has none).
const core = require('@perfgate/core');
const store = require('../store');
const contract = require('./contract');
const messages = require('./messages');
const gh = require('./pull-request');
const { downloadRunFolders, ArtifactRejected } = require('./artifact');
const { dispatchRequest } = require('./dispatch');
const { previousRelease } = require('./release-refs');
const {
  signoffInputs, checkSignoffFolder, SignoffFolderRejected, SIGNOFF_WORKFLOW,
} = require('./signoff-contract');

const code = (text) => `\`${String(text).replace(/`/g, "'")}\``;
const suitesText = (suites) => (suites.length === 1 ? `the ${suites[0]} suite` : `the suites ${suites.join(', ')}`);
const short = (sha) => code(String(sha).slice(0, 12));

const SIGNOFF_REPLIES = {
  unresolved: ({ author, ref }) => `@${author} ${code(ref)} names no release tag of this repository: a sign-off measures tagged releases only, so give a tag, or the full 40-digit SHA a tag points at. Nothing was started.`,
  needsPrevious: ({ author, problem }) => `@${author} ${problem}. Nothing was started.`,
  queued: ({ author, candidate, previous, suites, runUrl }) =>
    `⏳ @${author} release sign-off of ${code(candidate.ref)} (${short(candidate.sha)}) against ${code(previous.ref)} (${short(previous.sha)}): ${suitesText(suites)} ${suites.length === 1 ? 'is' : 'are'} ${runUrl ? `[running](${runUrl})` : 'queued'}. `
    + `Commit status ${code(core.SIGNOFF_CONTEXT)} on the candidate is pending; this reply becomes the report when the run completes.`,
  dispatchFailed: ({ author, workflow, error }) => `@${author} the sign-off could not be started: GitHub refused to run ${code(workflow)} (${error}). A maintainer of this repository needs to look at the workflow; nothing was started.`,
  noSignoff: ({ author }) => `@${author} there is no release sign-off in this issue to waive a microbenchmark of: start one with ${code('/perf signoff <candidate> [vs <previous>]')}.`,
  notInSuite: ({ author, microbenchmark, suites, allowed }) => `@${author} ${code(microbenchmark)} is not a microbenchmark of ${suitesText(suites)} this sign-off runs, nor one of them as a whole, so there is nothing to waive. Allowed: ${allowed.join(', ')}.`,
  waived: ({ author, microbenchmark, reason, candidate, decision, replaced }) =>
    `@${author} ${replaced ? 'waiver replaced' : 'waiver recorded'} for ${code(microbenchmark)} in the sign-off of ${code(candidate.ref)}: ${core.markdownText(reason)}\n\n`
    + (decision ? `The sign-off is now **${decision.state}**: ${decision.description}. Status and report updated.` : 'It counts when the run completes.'),
};

const STATUS_OF_PENDING = 'Being measured';

function whereOf(request) {
  const [owner, repo] = request.repo.split('/');
  return { owner, repo, prNumber: request.prNumber };
}

async function setStatus(octokit, where, sha, { state, description, targetUrl }) {
  await octokit.rest.repos.createCommitStatus({
    owner: where.owner, repo: where.repo, sha, state, context: core.SIGNOFF_CONTEXT,
    description: description.slice(0, core.STATUS_DESCRIPTION_LIMIT), ...(targetUrl ? { target_url: targetUrl } : {}),
  });
}

// --- pinning --------------------------------------------------------------------------------

async function releaseRefs(octokit, where) {
  const tags = await octokit.paginate(octokit.rest.repos.listTags, { owner: where.owner, repo: where.repo, per_page: 100 });
  return tags.map((t) => ({ name: t.name, sha: t.commit.sha }));
}

/**
 * A release tag, or the full SHA a tag points at → {ref, sha}, or null. Only tagged commits:
 * the workflow builds nothing else without a pull request (the action's release rule).
 */
function resolveRef(ref, tags) {
  const tag = contract.SHA.test(ref) ? tags.find((t) => t.sha === ref) : tags.find((t) => t.name === ref);
  return tag ? { ref, sha: tag.sha } : null;
}

async function pin(ctx, octokit, request, command, { say, lookFirst }) {
  const where = whereOf(request);
  const author = request.author;
  const tags = await releaseRefs(octokit, where);
  const candidate = resolveRef(command.args.candidate, tags);
  if (!candidate) {
    await say(ctx, octokit, request, SIGNOFF_REPLIES.unresolved({ author, ref: command.args.candidate }), { status: 'answered', lookFirst });
    return null;
  }
  let previousRef = command.args.previous;
  if (!previousRef) {
    const found = previousRelease(candidate.ref, tags.map((t) => t.name));
    if (found.problem) {
      await say(ctx, octokit, request, SIGNOFF_REPLIES.needsPrevious({ author, problem: found.problem }), { status: 'answered', lookFirst });
      return null;
    }
    previousRef = found.previous;
  }
  const previous = resolveRef(previousRef, tags);
  if (!previous) {
    await say(ctx, octokit, request, SIGNOFF_REPLIES.unresolved({ author, ref: previousRef }), { status: 'answered', lookFirst });
    return null;
  }
  // The SHAs of this moment are what the sign-off measures, whatever the tags point to later.
  const moved = await store.transition(ctx.store, request.id, 'pinned', {
    by: 'command', suite: ctx.config.signoffSuites[0], args: { candidate: candidate.ref, previous: previous.ref }, baseSha: previous.sha, headSha: candidate.sha,
  });
  if (moved) await store.recordSignoff(ctx.store, { requestId: request.id, repo: request.repo, issueNumber: request.prNumber, candidate, previous, suites: ctx.config.signoffSuites });
  return store.getRequest(ctx.store, request.id);
}

// --- dispatch -------------------------------------------------------------------------------

/** Dispatches perf-signoff.yml for the pinned pair (dispatch.js); the run is kept on the sign-off too. */
async function dispatch(ctx, octokit, request, signoff, { say, lookFirst }) {
  const where = whereOf(request);
  const workflow = ctx.config.workflows.signoff;
  const requestId = contract.requestIdOf(request);
  return dispatchRequest(ctx, octokit, request, {
    workflow,
    inputs: signoffInputs({ candidate: signoff.candidate, previous: signoff.previous, conversation: request.prNumber, requestId, suites: signoff.suites }),
    requestId,
    lookFirst,
    recorded: ({ runId, runUrl }) => store.updateSignoff(ctx.store, signoff.id, { workflowRunId: runId, runUrl }),
    async refused(why) {
      await setStatus(octokit, where, signoff.candidate.sha, { state: 'error', description: `The sign-off could not be started: ${why}` });
      await store.updateSignoff(ctx.store, signoff.id, { status: 'failed', state: 'error', failure: why, completedAt: ctx.store.now() });
      await say(ctx, octokit, request, SIGNOFF_REPLIES.dispatchFailed({ author: request.author, workflow: contract.workflowPath(workflow), error: why }), { status: 'failed', lookFirst });
    },
  });
}

/** /perf signoff, authorized: pin, record, pending status, dispatch, reply. Repeatable. */
async function signoffCommand(ctx, octokit, request, command, { say, lookFirst }) {
  const where = whereOf(request);
  if (request.status === 'received') {
    request = await pin(ctx, octokit, request, command, { say, lookFirst });
    if (!request || request.status !== 'pinned') return;
  }
  let signoff = await store.signoffForRequest(ctx.store, request.id);
  if (request.status === 'pinned') {
    await setStatus(octokit, where, signoff.candidate.sha, { state: 'pending', description: `${STATUS_OF_PENDING} against ${signoff.previous.ref}: ${signoff.suites.join(', ')}` });
  }
  if (request.status === 'pinned' || request.status === 'dispatching') request = await dispatch(ctx, octokit, request, signoff, { say, lookFirst });
  if (request.status !== 'dispatched') return;
  signoff = await store.signoffForRequest(ctx.store, request.id);
  if (signoff.status !== 'dispatched') return;
  if (request.runUrl && signoff.runUrl !== request.runUrl) signoff = await store.updateSignoff(ctx.store, signoff.id, { runUrl: request.runUrl });
  const body = messages.reply(request.commentId, SIGNOFF_REPLIES.queued({ author: request.author, candidate: signoff.candidate, previous: signoff.previous, suites: signoff.suites, runUrl: request.runUrl }));
  const replyId = await gh.upsertReply(octokit, where, { commentId: request.commentId, replyId: signoff.replyId, author: ctx.botLogin, body, lookFirst: lookFirst || !signoff.replyId });
  if (replyId !== signoff.replyId) {
    await store.updateSignoff(ctx.store, signoff.id, { replyId });
    await store.updateRequest(ctx.store, request.id, { replyId });
  }
}

// --- the report -----------------------------------------------------------------------------

/**
 * Decides the sign-off from its stored verdict (or failure) and all its waivers, and says so:
 * the report as the reply to the command, the commit status on the candidate. Repeatable.
 */
async function publish(ctx, octokit, request, signoff) {
  const where = { ...whereOf(request), prNumber: signoff.issueNumber };
  const waivers = await store.signoffWaivers(ctx.store, signoff.id);
  // A run that completed says per suite why it has no verdict; a cancelled one has only the failure.
  const options = { candidate: signoff.candidate, previous: signoff.previous, waivers, runUrl: signoff.runUrl, runFailed: signoff.verdicts ? null : signoff.failure };
  const { decision, files } = core.renderSignoff(signoff.verdicts || [], options);
  const body = core.fitComment(messages.reply(request.commentId, files['signoff.md']), 'the report is cut here to fit a comment; signoff.md of the workflow run holds all of it');
  const replyId = await gh.upsertReply(octokit, where, { commentId: request.commentId, replyId: signoff.replyId, author: ctx.botLogin, body, lookFirst: !signoff.replyId });
  await setStatus(octokit, where, signoff.candidate.sha, { state: decision.state, description: decision.description, targetUrl: signoff.runUrl });
  await store.updateSignoff(ctx.store, signoff.id, { state: decision.state, summary: decision.description, replyId });
  return decision;
}

// One suite's judged run folder of the run, checked and stored: {suite, verdict, problem, runId}.
// Rejected, it is the suite's problem (plain text, quoting the artifact: every report of it
// escapes it for its format); other errors (network, GitHub 5xx) are worth trying again.
async function suitePart(ctx, octokit, request, { suite, runId, attempt, conclusion }) {
  const where = whereOf(request);
  const name = core.signoffArtifact(suite);
  try {
    // That one artifact: another named like its shards is neither downloaded nor read.
    const [folder] = await downloadRunFolders(octokit, { owner: where.owner, repo: where.repo, runId, suite: `signoff-${suite}`, maxBytes: ctx.config.maxArtifactBytes, exact: true });
    const checked = checkSignoffFolder(folder, { suite, previousSha: request.baseSha, candidateSha: request.headSha });
    const stored = await store.storeRun(ctx.store, {
      request: { id: request.id, repo: request.repo, runKey: `${request.repo}/${runId}/${attempt}/${name}`, base: { sha: request.baseSha }, head: { sha: request.headSha } },
      results: checked.results, verdict: checked.verdict,
    });
    return { suite, verdict: checked.verdict, problem: null, runId: stored.runId };
  } catch (err) {
    if (!(err instanceof ArtifactRejected) && !(err instanceof SignoffFolderRejected)) throw err;
    const problem = conclusion === 'success' ? `its artifact was rejected: ${err.message}` : `the run ended ${conclusion} (${err.message})`;
    ctx.log.warn(`sign-off run ${request.repo}#${runId}, ${suite}: ${problem}`);
    return { suite, verdict: null, problem, runId: null };
  }
}

/** The sign-off's run completed: each suite's judged run folder checked and stored, decided, reported. */
async function signoffRunCompleted(ctx, octokit, request, { runId, attempt, conclusion, runUrl }) {
  let signoff = await store.signoffForRequest(ctx.store, request.id);
  if (!signoff) return;
  if (signoff.status === 'dispatched') {
    const parts = [];
    for (const suite of signoff.suites) parts.push(await suitePart(ctx, octokit, request, { suite, runId, attempt, conclusion }));
    const judged = parts.filter((p) => p.verdict);
    const verdicts = parts.map(({ suite, verdict, problem }) => ({ suite, verdict, problem }));
    const done = { runUrl: runUrl || signoff.runUrl, completedAt: ctx.store.now() };
    signoff = judged.length
      ? await store.updateSignoff(ctx.store, signoff.id, { status: 'completed', verdicts, runId: judged[0].runId, ...done })
      : await store.updateSignoff(ctx.store, signoff.id, { status: 'failed', verdicts, failure: parts.map((p) => `${p.suite}: ${p.problem}`).join('; '), ...done });
  }
  const decision = await publish(ctx, octokit, request, signoff);
  await store.transition(ctx.store, request.id, signoff.status === 'completed' ? 'completed' : 'failed', { by: 'run', detail: `${decision.state}: ${decision.description}` });
}

/**
 * The sign-off's request was cancelled (`/perf cancel` in its conversation; jobs.js stopped its
 * run): the sign-off fails with the reason, and its report and commit status (error) say so.
 * Returns false when nothing was recorded yet (cancelled before its refs were pinned): the
 * command's reply then says it, as for any command.
 */
async function signoffCancelled(ctx, octokit, request) {
  let signoff = await store.signoffForRequest(ctx.store, request.id);
  if (!signoff) return false;
  if (signoff.status === 'dispatched') {
    signoff = await store.updateSignoff(ctx.store, signoff.id, { status: 'failed', failure: request.detail || 'it was cancelled', completedAt: ctx.store.now() });
  }
  await publish(ctx, octokit, request, signoff);
  return true;
}

// --- waive ----------------------------------------------------------------------------------

/**
 * /perf waive, authorized, where a sign-off was asked for. Returns false when the conversation
 * is a pull request without a sign-off: the waiver is then the pull request's (jobs.js).
 */
async function signoffWaive(ctx, octokit, request, command, { say, lookFirst, onPullRequest }) {
  const author = request.author;
  const signoff = await store.latestSignoffIn(ctx.store, { repo: request.repo, issueNumber: request.prNumber });
  if (!signoff) {
    if (onPullRequest) return false;
    await say(ctx, octokit, request, SIGNOFF_REPLIES.noSignoff({ author }), { status: 'answered', lookFirst });
    return true;
  }
  const { microbenchmark, reason } = command.args;
  // Suites a fork's thresholds no longer have are left out: nothing of them can be waived.
  const suites = signoff.suites.filter((suite) => Object.hasOwn(ctx.config.thresholds.suites, suite));
  const allowed = suites.flatMap((suite) => [...core.findSuite(ctx.config.thresholds, suite).names, ...core.suiteWideNames(suite)]);
  if (!allowed.includes(microbenchmark)) {
    await say(ctx, octokit, request, SIGNOFF_REPLIES.notInSuite({ author, microbenchmark, suites: signoff.suites, allowed }), { status: 'invalid', lookFirst });
    return true;
  }
  const { replaced } = await store.recordSignoffWaiver(ctx.store, { signoffId: signoff.id, microbenchmark, reason, author, requestId: request.id });
  let decision = null;
  if (signoff.status !== 'dispatched') {
    const signoffRequest = await store.getRequest(ctx.store, signoff.requestId);
    decision = await publish(ctx, octokit, signoffRequest, signoff);
  }
  await say(ctx, octokit, request, SIGNOFF_REPLIES.waived({ author, microbenchmark, reason, candidate: signoff.candidate, decision, replaced }), { status: 'answered', lookFirst });
  return true;
}

module.exports = { signoffCommand, signoffRunCompleted, signoffCancelled, signoffWaive, publish, SIGNOFF_REPLIES, SIGNOFF_WORKFLOW };
