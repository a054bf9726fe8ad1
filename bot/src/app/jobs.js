'use strict';
// The work behind each webhook, run by the worker from the durable queue. A job may run more
// than once (its worker died, GitHub failed): every step first looks at what the request's row
// says was done, and every write to GitHub can be repeated without a second effect.
//
//   command  authorize, then answer or measure: pin the base and the head the comment was
//            written on (approval.js), dispatch the suite's workflow (dispatch.js), say "queued"
//   push     a push (or close) cancelled commands of a pull request: cancel their workflow
//            runs and check runs, say so
//   run      a run this App dispatched completed (matched by the run id recorded at
//            dispatch): download its run folders, check them, store them, say so
//
// Where the bot says things depends on who reports (PERFGATE_REPORT): with `workflow` (the
// example workflows, whose report job writes the check run and the sticky comment) the bot
// keeps one reply per measuring command current; with `bot` it writes the check run and the
// sticky comment itself, the verdict rendered by @perfgate/core.
const core = require('@perfgate/core');
const store = require('../store');
const contract = require('./contract');
const messages = require('./messages');
const gh = require('./pull-request');
const { downloadRunFolders, checkRunFolder, ArtifactRejected } = require('./artifact');
const { dispatchRequest, findDispatchedRun, isBotDispatch, starterOf } = require('./dispatch');
const { decideApproval, REFUSALS } = require('./approval');
const bisectContract = require('./bisect-contract');
const { bisectJobs, PROGRESS_JOB: BISECT_PROGRESS_JOB } = require('./bisect');
const { watchPushJob, watchRunJob } = require('./watch-main');
const signoff = require('./signoff');
const { outsiderReply, undecided } = require('./reply-limit');
const { keepRunCompletion } = require('./run-completions');
const { sweepJob, SWEEP_JOB } = require('./sweep');

/** A job that cannot succeed by trying again: failed for good, its reason kept on the job. */
class PermanentJobError extends Error {
  get name() { return 'PermanentJobError'; }
}

const MEASURE_COMMANDS = Object.keys(contract.SUITE_OF_COMMAND);
// The check run's conclusion of each verdict: fail and error block a merge, warn and
// inconclusive are for a person to read.
function whereOf(request) {
  const [owner, repo] = request.repo.split('/');
  return { owner, repo, prNumber: request.prNumber };
}

async function clientFor(ctx, request, installationId = request.installationId) {
  if (installationId) return ctx.github.installation(installationId);
  const { owner, repo } = whereOf(request);
  const { data } = await ctx.github.app.rest.apps.getRepoInstallation({ owner, repo });
  return ctx.github.installation(data.id);
}

/** Write access (admin, maintain, write), or active membership of one of the configured teams. */
async function mayRun(ctx, octokit, { owner, repo }, login) {
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ owner, repo, username: login });
    if (data.permission === 'admin' || data.permission === 'write') return true;
  } catch (err) {
    if (err.status !== 404) throw err;
  }
  for (const team of ctx.config.teams) {
    const [org, slug] = team.split('/');
    try {
      const { data } = await octokit.rest.teams.getMembershipForUserInOrg({ org, team_slug: slug, username: login });
      if (data.state === 'active') return true;
    } catch (err) {
      if (err.status !== 404) throw err;
    }
  }
  return false;
}

const suiteOf = (request) => request.suite || contract.SUITE_OF_COMMAND[request.command] || null;

// --- cancelling -----------------------------------------------------------------------------

/**
 * Says where a measuring command stands: its reply (the workflow reports), or the sticky
 * comment of its suite (the bot reports). `state`: queued | cancelled | failed | stored;
 * `body` replaces the sticky comment's text when the bot shows a verdict.
 */
async function tell(ctx, octokit, request, state, fields = {}) {
  const where = whereOf(request);
  const suite = suiteOf(request);
  if (ctx.config.report === 'bot') {
    if (!suite) return;
    const body = fields.body || messages.sticky(state, { suite, request, ...fields });
    await gh.upsertSticky(octokit, where, { marker: core.commentMarker(suite), author: ctx.botLogin, body });
    return;
  }
  const replyId = await gh.upsertReply(octokit, where, {
    commentId: request.commentId, replyId: request.replyId, author: ctx.botLogin,
    body: messages.reply(request.commentId, messages.STATUS[state]({ request, ...fields })), lookFirst: true,
  });
  if (replyId !== request.replyId) await store.updateRequest(ctx.store, request.id, { replyId });
}

/** Stops what cancelled requests started and says so: workflow run, check run, their state. */
async function announceCancelled(ctx, octokit, requests) {
  for (const request of requests) {
    const where = whereOf(request);
    if (request.runId) await gh.cancelRun(octokit, where, request.runId);
    // A sign-off says it in its report and its commit status (signoff.js).
    if (request.command === 'signoff' && await signoff.signoffCancelled(ctx, octokit, request)) continue;
    if (request.checkRunId) {
      await gh.completeCheckRun(octokit, where, request.checkRunId, { conclusion: 'cancelled', output: messages.CHECK.cancelled({ suite: suiteOf(request), request }) });
    }
    await tell(ctx, octokit, request, 'cancelled');
  }
}

// --- command --------------------------------------------------------------------------------

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

/** Posts a reply once and moves the request to `status` (as its command job, or `by`: store LIFECYCLE). */
async function say(ctx, octokit, request, text, { status, lookFirst, by = 'command' }) {
  const replyId = await gh.postReply(octokit, whereOf(request), {
    commentId: request.commentId, author: ctx.botLogin, body: messages.reply(request.commentId, text), lookFirst,
  });
  await store.transition(ctx.store, request.id, status, { by, replyId });
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

async function measure(ctx, octokit, request, { suite, args, named = null, lookFirst }) {
  const where = whereOf(request);
  if (request.status === 'received') {
    // The head this command approves, as of the comment (approval.js): the run measures exactly it.
    const { pull, decision } = await decideApproval(ctx, octokit, request, { named });
    const author = request.author;
    const line = messages.requestLine(request);
    if (pull.state !== 'open') {
      await say(ctx, octokit, request, messages.REPLIES.closed({ author, prNumber: where.prNumber, line }), { status: 'answered', lookFirst });
      return;
    }
    if (decision.refuse) {
      await say(ctx, octokit, request, REFUSALS[decision.refuse]({ author, line, suite, ...decision }), { status: 'answered', lookFirst });
      return;
    }
    if (decision.cancel) {
      // A push at or after the comment: cancelled, as that push's delivery cancels a command
      // written before it; said below.
      await store.transition(ctx.store, request.id, 'cancelled', { by: 'command', suite, detail: messages.CANCEL_REASONS.push({ headSha: decision.cancel }) });
    } else {
      await store.transition(ctx.store, request.id, 'pinned', { by: 'command', suite, args, baseSha: pull.base.sha, headSha: decision.approve });
    }
    request = await store.getRequest(ctx.store, request.id);
  }
  if (request.status === 'pinned' || request.status === 'dispatching') request = await dispatch(ctx, octokit, request, { lookFirst });
  // The example workflows make their own check run (their gate job); a bot that reports makes it.
  if (ctx.config.report === 'bot' && request.status === 'dispatched' && !request.checkRunId) {
    const checkRunId = await gh.ensureCheckRun(octokit, where, {
      name: messages.CHECK.name(request.suite, contract.optionsOf(request.args)), headSha: request.headSha, externalId: contract.requestIdOf(request),
      detailsUrl: request.runUrl, output: messages.CHECK.queued({ suite: request.suite, request }), lookFirst,
    });
    await store.updateRequest(ctx.store, request.id, { checkRunId });
    request = await store.getRequest(ctx.store, request.id);
  }
  if (request.status === 'dispatched') {
    await tell(ctx, octokit, request, 'queued', { runUrl: request.runUrl, dropped: contract.optionsInput(request.args).dropped });
    request = await store.getRequest(ctx.store, request.id);
  }
  // A push may have cancelled the request while the steps above wrote to GitHub: whatever they
  // wrote last, the pull request ends up saying "cancelled".
  request = await store.getRequest(ctx.store, request.id);
  if (request.status === 'cancelled') await announceCancelled(ctx, octokit, [request]);
}

async function commandJob(ctx, job) {
  const { commentId, parsed } = job.payload;
  let request = await store.requestForComment(ctx.store, commentId);
  if (!request) throw new PermanentJobError(`no request was recorded for comment ${commentId}`);
  // refused, invalid, answered, completed, failed: this job did its part already. A dispatched
  // request may still lack its check run or sticky comment (the worker died after the
  // dispatch): measure() finishes what is missing.
  if (!['received', 'pinned', 'dispatching', 'dispatched', 'cancelled'].includes(request.status)) return;
  const octokit = await clientFor(ctx, request);
  const lookFirst = job.attempts > 1;
  const author = request.author;
  const command = parsed.command;
  let allowed = null;
  const authorized = async () => (allowed ??= await mayRun(ctx, octokit, whereOf(request), author));

  // Someone who may not run commands is answered once per conversation per hour (reply-limit.js).
  const limit = undecided(request) ? outsiderReply(request, await store.requestsOfPull(ctx.store, { repo: request.repo, prNumber: request.prNumber })) : { answer: true };
  if (!limit.answer && !(await authorized())) {
    await store.transition(ctx.store, request.id, command && !command.needsWrite ? 'answered' : 'refused', { by: 'command', detail: limit.because });
    return;
  }
  if (command && !command.needsWrite) {
    await gh.acknowledge(octokit, whereOf(request), commentId);
    await say(ctx, octokit, request, messages.REPLIES.help({ author }), { status: 'answered', lookFirst });
    return;
  }
  // Permission first: who may not run commands gets one refusal, whatever they wrote.
  if (!(await authorized())) {
    const line = command ? command.line : messages.requestLine(request);
    await say(ctx, octokit, request, messages.REPLIES.refused({ author, line, repo: request.repo, teams: ctx.config.teams }), { status: 'refused', lookFirst });
    return;
  }
  if (parsed.error) {
    await say(ctx, octokit, request, messages.REPLIES.invalid({ author, error: parsed.error }), { status: 'invalid', lookFirst });
    return;
  }
  await gh.acknowledge(octokit, whereOf(request), commentId);
  if (request.status === 'cancelled') {
    await announceCancelled(ctx, octokit, [request]);
    return;
  }
  if (await pastDeadline(ctx, octokit, request)) {
    const waited = { waitedMs: ctx.store.now() - request.createdAt, deadlineMs: ctx.config.commandDeadlineMs };
    await say(ctx, octokit, request, messages.REPLIES.notStarted({ author, line: messages.requestLine(request), ...waited }), { status: 'failed', lookFirst });
    return;
  }

  if (command.name === 'signoff') {
    await signoff.signoffCommand(ctx, octokit, request, command, { say, lookFirst });
    // A /perf cancel that ran while this job pinned or dispatched: whatever this job wrote
    // last (a pending status), the sign-off ends cancelled.
    request = await store.getRequest(ctx.store, request.id);
    if (request.status === 'cancelled') await announceCancelled(ctx, octokit, [request]);
    return;
  }
  if (MEASURE_COMMANDS.includes(command.name)) {
    const { sha: named = null, ...args } = command.args;
    await measure(ctx, octokit, request, { suite: contract.SUITE_OF_COMMAND[command.name], args, named, lookFirst });
    return;
  }
  if (command.name === 'rerun') {
    const previous = request.suite ? request
      : await store.latestRequest(ctx.store, { repo: request.repo, prNumber: request.prNumber, commands: [...MEASURE_COMMANDS, 'rerun'], statuses: ['dispatched', 'completed', 'failed', 'cancelled'] });
    if (!previous || !previous.suite) {
      await say(ctx, octokit, request, messages.REPLIES.nothingToRerun({ author }), { status: 'answered', lookFirst });
      return;
    }
    await measure(ctx, octokit, request, { suite: previous.suite, args: previous.args, lookFirst });
    return;
  }
  if (command.name === 'bisect') {
    await bisect.command(ctx, octokit, request, { command, lookFirst });
    request = await store.getRequest(ctx.store, request.id);
    if (request.status === 'cancelled') await announceCancelled(ctx, octokit, [request]);
    return;
  }
  if (command.name === 'cancel') {
    const reason = messages.CANCEL_REASONS.command({ author });
    // Everything the conversation started, a release sign-off included (a push leaves that running).
    const cancelled = await store.cancelRequests(ctx.store, { repo: request.repo, prNumber: request.prNumber, except: request.id, reason, keep: [], by: 'cancel' });
    // Run again after a crash, the requests this command cancelled before are announced again
    // (announcing is repeatable), so that none is left with its run going.
    const earlier = lookFirst
      ? (await store.requestsOfPull(ctx.store, { repo: request.repo, prNumber: request.prNumber, statuses: ['cancelled'] })).filter((r) => r.detail === reason && r.id !== request.id)
      : [];
    const ids = [...new Set([...cancelled.map((r) => r.id), ...earlier.map((r) => r.id)])];
    await announceCancelled(ctx, octokit, await Promise.all(ids.map((id) => store.getRequest(ctx.store, id))));
    await say(ctx, octokit, request, messages.REPLIES.cancelled({ author, count: ids.length }), { status: 'answered', lookFirst });
    return;
  }
  if (command.name === 'waive') {
    // In a sign-off's conversation the waiver is the sign-off's (signoff.js).
    if (await signoff.signoffWaive(ctx, octokit, request, command, { say, lookFirst, onPullRequest: job.payload.onPullRequest !== false })) return;
    await store.recordWaiver(ctx.store, {
      requestId: request.id, repo: request.repo, prNumber: request.prNumber, microbenchmark: command.args.microbenchmark, reason: command.args.reason, author,
    });
    await say(ctx, octokit, request, messages.REPLIES.waived({ author, microbenchmark: command.args.microbenchmark, reason: command.args.reason }), { status: 'answered', lookFirst });
    return;
  }
  await say(ctx, octokit, request, messages.REPLIES.notServed({ author, name: command.name }), { status: 'answered', lookFirst });
}

// --- push -----------------------------------------------------------------------------------

async function pushJob(ctx, job) {
  // Requests cancelled before their command job authorized them are announced by that job,
  // so that nobody learns of a command that would have been refused.
  const ids = job.payload.cancelled.filter((c) => c.status !== 'received').map((c) => c.id);
  const requests = (await Promise.all(ids.map((id) => store.getRequest(ctx.store, id)))).filter(Boolean);
  if (!requests.length) return;
  const octokit = await clientFor(ctx, requests[0], job.payload.installationId || requests[0].installationId);
  await announceCancelled(ctx, octokit, requests);
}

// --- run ------------------------------------------------------------------------------------

// The request whose dispatch started this run: by the run id recorded at dispatch. A request
// dispatched without one (GitHub gave none back, the run was not listed yet) takes the run only
// when GitHub lists it as the run this App dispatched for that request.
async function findRequestOfRun(ctx, { repo, runId, displayTitle, installationId }) {
  const known = await store.requestForRun(ctx.store, { repo, runId });
  if (known) return known;
  const waiting = (await store.requestsAwaitingRun(ctx.store, { repo })).find((r) => contract.runNameMatches(displayTitle, contract.requestIdOf(r)));
  if (!waiting) return null;
  const octokit = await clientFor(ctx, waiting, installationId || waiting.installationId);
  const [owner, name] = repo.split('/');
  const run = await findDispatchedRun(ctx, octokit, { owner, repo: name, workflow: workflowOf(ctx, waiting), requestId: contract.requestIdOf(waiting), since: waiting.createdAt });
  if (!run || run.id !== runId) return null;
  await store.updateRequest(ctx.store, waiting.id, { runId, runUrl: run.html_url || waiting.runUrl });
  return store.getRequest(ctx.store, waiting.id);
}

async function reportNoVerdict(ctx, octokit, request, { runUrl, why, by = 'run' }) {
  const where = whereOf(request);
  await tell(ctx, octokit, request, 'failed', { runUrl, why });
  if (request.checkRunId) {
    await gh.completeCheckRun(octokit, where, request.checkRunId, { conclusion: 'failure', detailsUrl: runUrl, output: messages.CHECK.failed({ suite: request.suite, why }) });
  }
  await store.transition(ctx.store, request.id, 'failed', { by, detail: why });
}

/** The bot's own report of a verdict: the sticky comment with core's table, the check run. */
async function reportVerdict(ctx, octokit, request, { verdict, runUrl, artifact }) {
  const where = whereOf(request);
  const footer = messages.verdictFooter({ request, runUrl });
  const reportLink = runUrl ? `the ${artifact} artifact of the [workflow run](${runUrl})` : null;
  const body = core.renderComment(verdict, { reportLink, limit: core.GITHUB_COMMENT_LIMIT - footer.length }) + footer;
  await tell(ctx, octokit, request, 'stored', { body });
  if (request.checkRunId) {
    await gh.completeCheckRun(octokit, where, request.checkRunId, { ...core.checkRunOutput(verdict, { reportLink, failOn: ctx.config.failOn }), detailsUrl: runUrl });
  }
}

async function starterFromGitHub(ctx, { repo, runId, installationId }) {
  const octokit = await clientFor(ctx, { repo }, installationId);
  const [owner, name] = repo.split('/');
  const { data } = await octokit.rest.actions.getWorkflowRun({ owner, repo: name, run_id: runId });
  return starterOf(data);
}

async function runJob(ctx, job) {
  const { repo, runId, attempt, conclusion, installationId } = job.payload;
  // A pull request's workflow can name its runs like the bot's and upload any artifact: only a
  // run this App dispatched is looked at. (A job queued before deliveries carried who started
  // the run asks GitHub.)
  const starter = job.payload.starter || await starterFromGitHub(ctx, { repo, runId, installationId });
  if (!isBotDispatch(starter, ctx.botLogin)) {
    const who = starter ? `event ${starter.event}, actor ${starter.actor}, triggered by ${starter.triggeredBy}` : 'no event or actor given';
    ctx.log.warn(`run ${repo}#${runId}: not a workflow_dispatch of ${ctx.botLogin} (${who}); ignored`);
    return;
  }
  const request = await findRequestOfRun(ctx, job.payload);
  if (!request) {
    if (await watchRunJob(ctx, job)) return;
    // The App dispatched it, and no request knows it yet: the bot may have stopped between its
    // dispatch and recording the run. Kept until one does (run-completions.js, sweep.js).
    await keepRunCompletion(ctx.store, { repo, runId, attempt });
    ctx.log.info(`run ${repo}#${runId}: no request knows this run yet; its completion is kept until one does`);
    return;
  }
  // completed or failed: reported already; cancelled: the pull request moved on.
  if (request.status !== 'dispatched') return;
  const octokit = await clientFor(ctx, request, installationId || request.installationId);
  if (request.command === 'signoff') {
    await signoff.signoffRunCompleted(ctx, octokit, request, { runId, attempt, conclusion, runUrl: job.payload.runUrl || request.runUrl });
    return;
  }
  const where = whereOf(request);
  const runUrl = job.payload.runUrl || request.runUrl;
  if (request.suite === bisectContract.SUITE) {
    await bisect.completed(ctx, octokit, request, { runId, conclusion, runUrl });
    return;
  }
  const pinned = { prNumber: request.prNumber, baseSha: request.baseSha, headSha: request.headSha, suite: request.suite, options: contract.optionsOf(request.args) };
  let checked;
  try {
    const folders = await downloadRunFolders(octokit, { owner: where.owner, repo: where.repo, runId, suite: request.suite, maxBytes: ctx.config.maxArtifactBytes });
    checked = folders.map((folder) => ({ name: folder.name, ...checkRunFolder(folder, { name: folder.name, ...pinned }) }));
    if (ctx.config.report === 'bot' && checked.length > 1) {
      throw new ArtifactRejected(`the run left ${checked.length} shard run folders; a bot that reports (PERFGATE_REPORT=bot) shows one run folder's verdict, while the example workflows merge shards in their report job (PERFGATE_REPORT=workflow)`);
    }
  } catch (err) {
    if (!(err instanceof ArtifactRejected)) throw err;
    const why = conclusion === 'success' ? `its artifact was rejected: ${messages.untrusted(err.message)}` : `the run ended ${conclusion} (${messages.untrusted(err.message)})`;
    ctx.log.warn(`run ${repo}#${runId}: ${why}`);
    await reportNoVerdict(ctx, octokit, request, { runUrl, why });
    return;
  }
  for (const { name, results, verdict } of checked) {
    await store.storeRun(ctx.store, {
      request: { id: request.id, repo, runKey: `${repo}/${runId}/${attempt}/${name}`, base: { sha: request.baseSha }, head: { sha: request.headSha } },
      results, verdict,
    });
  }
  if (ctx.config.report === 'bot') {
    await reportVerdict(ctx, octokit, request, { verdict: checked[0].verdict, runUrl, artifact: checked[0].name });
  } else {
    await tell(ctx, octokit, request, 'stored', { runUrl, folders: checked.length, verdict: checked.length === 1 ? checked[0].verdict : null });
  }
  const summary = checked.map((c) => `${c.name}: ${c.verdict.verdict}`).join(', ');
  await store.transition(ctx.store, request.id, 'completed', { by: 'run', detail: summary });
}

const bisect = bisectJobs({ whereOf, clientFor, dispatch, say });
const sweep = sweepJob({ clientFor, workflowOf, reportNoVerdict });

const HANDLERS = {
  command: commandJob, push: pushJob, run: runJob, [BISECT_PROGRESS_JOB]: (ctx, job) => bisect.progress(ctx, job), 'watch-push': watchPushJob, [SWEEP_JOB]: sweep,
};

module.exports = { HANDLERS, PermanentJobError, mayRun };
