'use strict';
// Everything the bot writes in a pull request, as pure functions of what it knows: replies to
// commands, the state of a measuring command (its reply, or the sticky comment when the bot
// reports), check run titles. Each is pinned by
// a test (test/unit/bot/messages.test.js). The verdict itself is rendered by @perfgate/core.
const core = require('@perfgate/core');
const { helpText } = require('../commands');

const short = (sha) => (sha ? `\`${String(sha).slice(0, 12)}\`` : '(unknown)');
// A command line as its author typed it, in a code span (core's: GitHub renders nothing inside).
const code = (text) => core.markdownCode(text);
const link = (text, url) => (url ? `[${text}](${url})` : text);

// Text that came from a run's artifact (a file name, a value, a headline) is cut to a readable
// length and shown through core's escaping: in a code span (untrusted), or as text.
const UNTRUSTED_MAX = 300;
const untrusted = (value) => core.markdownCode(value, { max: UNTRUSTED_MAX });
const untrustedText = (value) => core.markdownText(value, { max: UNTRUSTED_MAX });
// A verdict's headline names each row's figures and limit: it gets room for a few rows.
const HEADLINE_SHOWN = 1000;
const headlineText = (value) => core.markdownText(value, { max: HEADLINE_SHOWN });

// The first line of every reply: lets a job that is run again after a crash find the reply it
// already posted instead of posting it twice.
function replyMarker(commentId) {
  return `<!-- perfgate:reply comment=${commentId} -->`;
}

function reply(commentId, text) {
  return `${replyMarker(commentId)}\n${text}\n`;
}

const minutes = (ms) => {
  const n = Math.max(1, Math.round(ms / 60_000));
  return `${n} minute${n === 1 ? '' : 's'}`;
};

// The teams are named in code spans: an @-mention would notify the whole team of every refusal,
// and anyone who can comment could send one per pull request.
function who(teams) {
  return teams.length ? ` or membership of ${teams.map((t) => code(t)).join(', ')}` : '';
}

const REPLIES = {
  refused: ({ author, line, repo, teams }) =>
    `Sorry @${author}, ${code(line)} needs write access to ${repo}${who(teams)}. Nothing was started.`,
  // The error quotes what the author typed (tests=@team): text, never a mention or markup.
  invalid: ({ author, error }) => `@${author} ${core.markdownText(error, { max: HEADLINE_SHOWN })}\n\n${code('/perf help')} lists the commands and their arguments.`,
  help: ({ author }) => `@${author} here is what I understand:\n\n${helpText().trimEnd()}`,
  closed: ({ author, prNumber, line }) => `@${author} pull request #${prNumber} is closed: ${code(line)} was not started.`,
  notServed: ({ author, name }) => `@${author} ${code(`/perf ${name}`)} is not served by this bot yet; ${code('/perf quick')}, ${code('/perf full')}, ${code('/perf ahi')}, ${code('/perf ddl')}, ${code('/perf contention')}, ${code('/perf tpcc')}, ${code('/perf rerun')}, ${code('/perf cancel')}, ${code('/perf waive')}, ${code('/perf bisect')}, ${code('/perf signoff')} and ${code('/perf help')} are.`,
  cancelled: ({ author, count }) => (count
    ? `@${author} cancelled ${count === 1 ? 'the queued or running measurement' : `${count} queued or running measurements`} of this pull request.`
    : `@${author} nothing to cancel: no measurement of this pull request is queued or running.`),
  nothingToRerun: ({ author }) => `@${author} nothing to run again: no ${code('/perf quick')}, ${code('/perf full')}, ${code('/perf ahi')}, ${code('/perf ddl')}, ${code('/perf contention')} or ${code('/perf tpcc')} has been run on this pull request yet.`,
  waiveSignoffOnly: ({ author, microbenchmark }) => `@${author} ${code(microbenchmark)} is a suite as a whole, which only a release sign-off waives; in a pull request waive its rows. Nothing was recorded.`,
  waived: ({ author, microbenchmark, reason }) => `@${author} waiver recorded for ${code(microbenchmark)} in this pull request: ${core.markdownText(reason)}`,
  // GitHub did not answer the bot from the comment until past the command's deadline.
  notStarted: ({ author, line, waitedMs, deadlineMs }) =>
    `@${author} ${code(line)} was not started: GitHub did not answer me for ${minutes(waitedMs)} after your comment, longer than a command may wait (${minutes(deadlineMs)}). Nothing was started; comment again to start it.`,
  dispatchFailed: ({ author, line, workflow, error }) =>
    `@${author} ${code(line)} could not be started: GitHub refused to run ${code(workflow)} (${error}). A maintainer of this repository needs to look at the workflow; nothing was started.`,
};

// Arguments of the command the workflow's options do not take (contract.OPTION_OF_ARG).
function droppedNote(dropped) {
  if (!dropped || !dropped.length) return '';
  return ` (${dropped.map((d) => code(`${d}=`)).join(', ')} not passed on: the workflow's options take rounds, threads and tests)`;
}

// When the dispatched workflow reports (PERFGATE_REPORT=workflow, the example workflows): the
// bot's one reply to a measuring command, edited as the run goes. The workflow's own check run
// and sticky comment carry the verdict.
const STATUS = {
  queued: ({ request, runUrl, dropped }) =>
    `⏳ ${code(requestLine(request))} from @${request.author}: head ${short(request.headSha)} against base ${short(request.baseSha)}, ${link('workflow run', runUrl)} queued${droppedNote(dropped)}. Its check run and sticky comment will have the verdict.`,
  cancelled: ({ request }) =>
    `⏹️ ${code(requestLine(request))} from @${request.author}${request.headSha ? ` (head ${short(request.headSha)})` : ''} was cancelled: ${request.detail || 'cancelled'}.`,
  stored: ({ request, runUrl, folders, verdict }) =>
    `📦 ${code(requestLine(request))} from @${request.author}: the ${link('workflow run', runUrl)} of head ${short(request.headSha)} against base ${short(request.baseSha)} is done and its ${folders === 1 ? 'run folder is' : `${folders} run folders (shards) are`} stored${verdict ? `; ${verdict.verdict}: ${headlineText(String(verdict.headline).replace(/\.$/, ''))}` : ''}.`,
  failed: ({ request, runUrl, why }) =>
    `💥 ${code(requestLine(request))} from @${request.author}: the ${link('workflow run', runUrl)} (head ${short(request.headSha)}, base ${short(request.baseSha)}) left nothing perfgate could use: ${why}. Nothing was stored; ${code('/perf rerun')} measures it again.`,
};

// The sticky comment (one per pull request and suite, found by core.commentMarker(suite))
// before there is a verdict, and when there will be none (PERFGATE_REPORT=bot).
const STICKY = {
  queued: ({ suite, request, runUrl, dropped }) => [
    `### ⏳ perfgate ${suite}: queued`,
    '',
    `${code(requestLine(request))} from @${request.author} measures head ${short(request.headSha)} against base ${short(request.baseSha)}: ${link('workflow run', runUrl)} queued${droppedNote(dropped)}.`,
  ],
  cancelled: ({ suite, request }) => [
    `### ⏹️ perfgate ${suite}: cancelled`,
    '',
    `${code(requestLine(request))} from @${request.author}${request.headSha ? ` (head ${short(request.headSha)})` : ''} was cancelled: ${request.detail || 'cancelled'}.`,
  ],
  failed: ({ suite, request, runUrl, why }) => [
    `### 💥 perfgate ${suite}: error`,
    '',
    `The ${link('workflow run', runUrl)} of ${code(requestLine(request))} from @${request.author} (head ${short(request.headSha)}, base ${short(request.baseSha)}) left nothing perfgate could use: ${why}. Nothing was stored; ${code('/perf rerun')} measures it again.`,
  ],
};

function requestLine(request) {
  return request.line || `/perf ${request.command}`;
}

function sticky(state, fields) {
  return `${core.commentMarker(fields.suite)}\n${STICKY[state](fields).join('\n')}\n`;
}

// What a push or /perf cancel writes into a request's detail (shown in the sticky comment).
const CANCEL_REASONS = {
  push: ({ headSha }) => `new commits were pushed (head now ${short(headSha)}); comment again to measure them`,
  closed: () => 'the pull request was closed',
  command: ({ author }) => `@${author} cancelled it with ${code('/perf cancel')}`,
};

// The footer under a verdict in the sticky comment: who asked, where the run is.
function verdictFooter({ request, runUrl }) {
  return `\n_Measured for ${code(requestLine(request))} from @${request.author}; ${link('workflow run', runUrl)}._\n`;
}

const CHECK = {
  // core's name, as the action's report job gives it: a narrowed command never completes the
  // suite's own check run.
  name: (suite, options) => core.checkRunName(suite, options),
  queued: ({ suite, request }) => ({
    title: `perfgate ${suite}: queued`,
    summary: `${code(requestLine(request))} from @${request.author}: head ${short(request.headSha)} against base ${short(request.baseSha)}.`,
  }),
  cancelled: ({ suite, request }) => ({ title: `perfgate ${suite}: cancelled`, summary: `${request.detail || 'cancelled'}.` }),
  failed: ({ suite, why }) => ({ title: `perfgate ${suite}: error`, summary: `No verdict: ${why}.` }),
};

module.exports = { REPLIES, STATUS, reply, replyMarker, sticky, verdictFooter, CANCEL_REASONS, CHECK, requestLine, untrusted };
