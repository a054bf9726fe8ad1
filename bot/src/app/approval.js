'use strict';
// Which head a maintainer's measuring command approves. The comment says "measure this pull
// request", and the maintainer saw the head of the moment they wrote it; a push a second later
// must not ride on their word. The issue_comment delivery carries no head SHA, so the bot keeps
// the heads the pull request's opened, reopened and synchronize deliveries announced, each
// with the time GitHub stamped on it (store/pull-heads.js), and pins the head they show as of
// the comment — whatever order the deliveries arrive in, and whenever the job runs.
//
//   /perf quick          the head the deliveries show before the comment, when it is still
//                        the head and nothing shows a newer one; a push after the comment
//                        cancels the command (as that push does when its delivery comes
//                        first); a head stamped too close to the comment to be ordered against
//                        it, or one the bot cannot vouch for, is refused, asking for
//   /perf quick <sha>    exactly that commit, while it is the head: 40 hex digits as written;
//                        a shorter prefix (resolved by GitHub) only when the deliveries show it
//                        was the head before the comment (a commit with a chosen 7-digit
//                        prefix is cheap to make and push after the comment)
const store = require('../store');
const { SHA } = require('./contract');
const { resolveCommit } = require('./commits');

// The comment's created_at and a pull request's updated_at are stamped by different GitHub
// services, in whole seconds, and GitHub bounds neither their drift nor the lag of a push's
// update: a head stamped this close to the comment, on either side, is not ordered against it
// (docs/bot.md#pinned-commits says why this long).
const STAMP_MARGIN_MS = 60 * 1000;

const code = (text) => `\`${String(text).replace(/`/g, "'")}\``;
const short = (sha) => code(String(sha).slice(0, 12));

/**
 * The head the deliveries show as the pull request's last before `until` (ms), or null when
 * none does, or two different heads share that last second (which one was seen is unknown).
 */
function headBefore(until, heads) {
  const before = heads.filter((h) => h.at < until);
  if (!before.length) return null;
  const last = Math.max(...before.map((h) => h.at));
  const shas = new Set(before.filter((h) => h.at === last).map((h) => h.sha));
  return shas.size === 1 ? [...shas][0] : null;
}

/**
 * The decision (pure).
 * @param commentAt  when the comment was written (its created_at, ms), or null
 * @param heads      the pull request's recorded heads, [{sha, at}] (at: ms, GitHub's stamp)
 * @param current    the pull request's head now (pulls.get)
 * @param named      null, or the commit the command names: {given: as typed, sha: the full
 *                   SHA GitHub resolved it to, or null with error: GitHub's answer}
 * @param marginMs   how close to the comment a head's stamp cannot be ordered against it
 * @returns {approve: sha}                                       pin and measure this head
 *        | {cancel: sha}                                        a push after the comment
 *        | {refuse: 'unproven', why: 'none'|'same-second'|'moved', current}
 *        | {refuse: 'unproven', why: 'near', near: sha, marginMs, current}
 *        | {refuse: 'unknown-commit', given, error}
 *        | {refuse: 'not-head', given, sha, current}
 *        | {refuse: 'abbreviated', given, sha}
 */
function approveHead({ commentAt, heads, current, named = null, marginMs = STAMP_MARGIN_MS }) {
  if (named && !named.sha) return { refuse: 'unknown-commit', given: named.given, error: named.error };
  if (named && named.sha !== current) return { refuse: 'not-head', given: named.given, sha: named.sha, current };
  const known = Number.isFinite(commentAt);
  const seen = known ? headBefore(commentAt - marginMs, heads) : null;
  const latest = (list) => list.reduce((a, b) => (b.at >= a.at ? b : a)).sha;
  // A push after the comment cancels the command, as its delivery does when it comes after
  // the comment's: the same outcome in either order.
  const after = known ? heads.filter((h) => h.at > commentAt + marginMs && h.sha !== seen) : [];
  if (after.length) return { cancel: latest(after) };
  // The maintainer wrote out this very commit, and it is the head.
  if (named && named.given === named.sha) return { approve: named.sha };
  const near = known ? heads.filter((h) => Math.abs(h.at - commentAt) <= marginMs && h.sha !== seen) : [];
  let implied;
  if (near.length) implied = { refuse: 'unproven', why: 'near', near: latest(near), marginMs, current };
  else if (seen === null) implied = { refuse: 'unproven', why: known && heads.some((h) => h.at < commentAt - marginMs) ? 'same-second' : 'none', current };
  else if (seen !== current) implied = { refuse: 'unproven', why: 'moved', current };
  else implied = { approve: seen };
  if (!named || implied.approve === named.sha) return implied;
  return { refuse: 'abbreviated', given: named.given, sha: named.sha };
}

const UNPROVEN_WHY = {
  none: () => 'no delivery of its opening or of a push before your comment reached me',
  'same-second': () => 'two different heads were pushed in the same second before your comment',
  moved: ({ current }) => `its head is now ${short(current)}, a push no delivery has told me about yet`,
  near: ({ near, marginMs }) => `the head ${short(near)} was stamped within ${marginMs / 1000} s of your comment, too close for GitHub's clocks to tell which came first`,
};

// Replies when a command is not started for want of an approved head. `line` is the command
// as written, `suite` the one it measures.
const REFUSALS = {
  unproven: ({ author, line, suite, why, current, near, marginMs }) =>
    `@${author} I cannot tell which head of this pull request you saw when you wrote ${code(line)}: ${UNPROVEN_WHY[why]({ current, near, marginMs })}. `
    + `Nothing was started. Name the commit you reviewed: ${code(`/perf ${suite} <sha>`)} (the head is now ${short(current)}).`,
  'unknown-commit': ({ author, line, given, error }) =>
    `@${author} ${code(given)} names no commit of this repository (GitHub: ${error}): ${code(line)} was not started.`,
  'not-head': ({ author, line, given, sha, current }) =>
    `@${author} ${code(given)} (${short(sha)}) is not the head of this pull request, which is now ${short(current)}: ${code(line)} was not started. A run measures the head only.`,
  abbreviated: ({ author, line, given, sha }) =>
    `@${author} ${code(given)} names the head ${short(sha)}, but I cannot show it was the head when you wrote ${code(line)}: give its full 40-digit SHA. Nothing was started.`,
};

/**
 * Looks up what the decision needs (the pull request now, its recorded heads, the named commit)
 * and decides. -> {pull, decision}
 */
async function decideApproval(ctx, octokit, request, { named = null }) {
  const [owner, repo] = request.repo.split('/');
  const { data: pull } = await octokit.rest.pulls.get({ owner, repo, pull_number: request.prNumber });
  const heads = await store.pullHeads(ctx.store, { repo: request.repo, prNumber: request.prNumber });
  let resolved = null;
  if (named) {
    const found = SHA.test(named) ? { sha: named } : await resolveCommit(octokit, { owner, repo }, named);
    resolved = { given: named, sha: found.sha || null, error: found.error || null };
  }
  return { pull, decision: approveHead({ commentAt: request.commentCreatedAt, heads, current: pull.head.sha, named: resolved }) };
}

module.exports = { approveHead, decideApproval, REFUSALS, STAMP_MARGIN_MS };
