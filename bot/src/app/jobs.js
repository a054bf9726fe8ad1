'use strict';
// The work behind each webhook, run by the worker from the durable queue. A job may run more
// than once (its worker died, GitHub failed): every step first looks at what the request's row
// says was done, and every write to GitHub can be repeated without a second effect.
//
//   command  find the request, answer someone who may not run commands (once an hour), check
//            permission, answer a malformed command, 👍, then the command's own handler
//            (command-handlers/: one per /perf command)
//   push     a push (or close) cancelled commands of a pull request: cancel their workflow
//            runs and check runs, say so
//   run      a run this App dispatched completed (matched by the run id recorded at
//            dispatch): download its run folders, check them, store them, say so
//   sweep    unfinished requests against what GitHub shows (sweep.js)
//
// Where the bot says things depends on who reports (PERFGATE_REPORT): with `workflow` (the
// example workflows, whose report job writes the check run and the sticky comment) the bot
// keeps one reply per measuring command current; with `bot` it writes the check run and the
// sticky comment itself, the verdict rendered by @perfgate/core (conversation.js).
const core = require('@perfgate/core');
const store = require('../store');
const contract = require('./contract');
const messages = require('./messages');
const gh = require('./pull-request');
const { downloadRunFolders, checkRunFolder, ArtifactRejected } = require('./artifact');
const { findDispatchedRun, isBotDispatch, starterOf } = require('./dispatch');
const bisectContract = require('./bisect-contract');
const { bisectJobs, PROGRESS_JOB: BISECT_PROGRESS_JOB } = require('./bisect');
const { watchPushJob, watchRunJob } = require('./watch-main');
const signoff = require('./signoff');
const { outsiderReply, undecided } = require('./reply-limit');
const { KEEP } = require('./worker');
const { sweepJob, SWEEP_JOB } = require('./sweep');
const {
  whereOf, clientFor, mayRun, say, tell, announceCancelled,
} = require('./conversation');
const { workflowOf, dispatch, pastDeadline } = require('./measure');
const { commandHandlers } = require('./command-handlers');

/** A job that cannot succeed by trying again: failed for good, its reason kept on the job. */
class PermanentJobError extends Error {
  get name() { return 'PermanentJobError'; }
}

// --- command --------------------------------------------------------------------------------

async function commandJob(ctx, job) {
  const { commentId, parsed } = job.payload;
  const request = await store.requestForComment(ctx.store, commentId);
  if (!request) throw new PermanentJobError(`no request was recorded for comment ${commentId}`);
  // refused, invalid, answered, completed, failed: this job did its part already. A dispatched
  // request may still lack its check run or sticky comment (the worker died after the
  // dispatch): its handler finishes what is missing.
  if (!['received', 'pinned', 'dispatching', 'dispatched', 'cancelled'].includes(request.status)) return;
  const octokit = await clientFor(ctx, request);
  const lookFirst = job.attempts > 1;
  const author = request.author;
  const command = parsed.command;
  const handle = () => HANDLERS_OF_COMMANDS[command.name](ctx, { octokit, request, command, job, lookFirst });
  let allowed = null;
  const authorized = async () => (allowed ??= await mayRun(ctx, octokit, whereOf(request), author));

  // Someone who may not run commands is answered once per conversation per hour (reply-limit.js).
  const limit = undecided(request) ? outsiderReply(request, await store.requestsOfPull(ctx.store, { repo: request.repo, prNumber: request.prNumber })) : { answer: true };
  if (!limit.answer && !(await authorized())) {
    await store.transition(ctx.store, request.id, command && !command.needsWrite ? 'answered' : 'refused', { by: 'command', detail: limit.because });
    return;
  }
  // What anyone may ask (/perf help) needs no permission.
  if (command && !command.needsWrite) {
    await handle();
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
  await handle();
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
    ctx.log.info(`run ${repo}#${runId}: no request knows this run yet; its completion is kept until one does`);
    return KEEP;
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
const HANDLERS_OF_COMMANDS = commandHandlers({ bisect });

const HANDLERS = {
  command: commandJob, push: pushJob, run: runJob, [BISECT_PROGRESS_JOB]: (ctx, job) => bisect.progress(ctx, job), 'watch-push': watchPushJob, [SWEEP_JOB]: sweep,
};

module.exports = { HANDLERS, PermanentJobError };
