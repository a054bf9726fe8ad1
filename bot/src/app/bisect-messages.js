'use strict';
// What the bot writes for /perf bisect: its one reply to the command, edited as the bisection
// goes (queued, each step, the culprit or why there is none), and the refusals before anything
// starts. Pure; pinned by test/unit/bot/app-bisect.test.mjs. The bisection itself is rendered
// by @perfgate/core (renderBisectComment).
const core = require('@perfgate/core');
const { requestLine, untrusted } = require('./messages');

const short = (sha) => `\`${String(sha).slice(0, 12)}\``;
const code = (text) => core.markdownCode(text);
const link = (text, url) => (url ? `[${text}](${url})` : text);
const REPLY_MARKER_ROOM = 200;

const REFUSALS = {
  notCommit: ({ author, ref, repo, error }) => `@${author} ${code(ref)} is not a commit of ${repo} (${error}). Nothing was started.`,
  sameCommit: ({ author, good, bad, sha }) => `@${author} ${code(good)} and ${code(bad)} are the same commit ${short(sha)}; expected a good commit older than the bad one. Nothing was started.`,
  notAncestor: ({ author, good, bad, goodSha, badSha, status }) =>
    `@${author} ${code(good)} (${short(goodSha)}) is not an ancestor of ${code(bad)} (${short(badSha)}): GitHub compares them as ${status}. Expected the older, good commit first, on the bad commit's history. Nothing was started.`,
};

function intro(request, runUrl) {
  return `${code(requestLine(request))} from @${request.author}, ${link('workflow run', runUrl)}.`;
}

/** The reply before the first step is known. */
function queued({ request, runUrl, goodRef, badRef }) {
  return [
    '### 🔎 perfgate bisect: queued',
    '',
    intro(request, runUrl),
    '',
    `Searching the first-parent commits from ${code(goodRef)} (${short(request.baseSha)}) to ${code(badRef)} (${short(request.headSha)}); this reply shows each step as the bisection goes.`,
  ].join('\n');
}

/** The reply with the bisection so far (a progress artifact) or at its end (the result). */
function bisection({ request, runUrl, doc, final }) {
  const full = core.renderBisectComment(doc, { intro: intro(request, runUrl), final }).trimEnd();
  // A long search's folded text may not fit in one comment; the steps and the culprit do.
  if (full.length <= core.GITHUB_COMMENT_LIMIT - REPLY_MARKER_ROOM) return full;
  return core.renderBisectComment(doc, { intro: intro(request, runUrl), final: false }).trimEnd();
}

function failed({ request, runUrl, why }) {
  return [
    '### 💥 perfgate bisect: no result',
    '',
    intro(request, runUrl),
    '',
    `The run (good ${short(request.baseSha)}, bad ${short(request.headSha)}) left no bisection perfgate could use: ${why}. Nothing was stored; comment ${code(requestLine(request))} again to bisect again.`,
  ].join('\n');
}

module.exports = { REFUSALS, queued, bisection, failed, untrusted };
