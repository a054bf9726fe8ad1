'use strict';
// Who may not run commands hears from the bot once per pull request per hour, however often
// they comment. A refusal, or the help text, is a comment the App writes on their word alone:
// without a limit, anyone could make the App fill a pull request with replies (and spend its
// rate limit doing so). Maintainers are not limited: the limit only holds back a reply to
// someone who, asked once more, turns out not to be allowed to run commands.
//
// Pure: the caller reads the pull request's requests and checks the permission.

const OUTSIDER_REPLY_WINDOW_MS = 60 * 60 * 1000;

const when = (request) => request.commentCreatedAt ?? request.createdAt;
const sameLogin = (a, b) => String(a).toLowerCase() === String(b).toLowerCase();

/** A request its command job has not yet answered or authorized (a push may have cancelled it first). */
const undecided = (request) => request.status === 'received' || (request.status === 'cancelled' && !request.suite && request.replyId === null);

// A request the author heard back on without being allowed anything (a refusal, the help
// text), or one still waiting for its job, which may yet be such a reply.
function heardOrPending(request) {
  if (undecided(request)) return true;
  if (request.replyId === null) return false;
  return request.status === 'refused' || (request.status === 'answered' && request.command === 'help');
}

/**
 * Whether `request` may be answered without first knowing its author may run commands.
 * @param request  the request being answered: {id, author, commentCreatedAt, createdAt}
 * @param others   requests of the same pull request (those of others and later ones are ignored)
 * @param windowMs how far back a reply counts
 * @returns {answer: true} | {answer: false, because: one line for the request's detail}
 */
function outsiderReply(request, others, { windowMs = OUTSIDER_REPLY_WINDOW_MS } = {}) {
  const since = when(request) - windowMs;
  const earlier = others.find((other) => other.id < request.id && sameLogin(other.author, request.author)
    && when(other) >= since && heardOrPending(other));
  if (!earlier) return { answer: true };
  return {
    answer: false,
    because: `not answered: @${request.author} may not run commands, and their comment ${earlier.commentId}, less than ${windowMs / 60_000} minutes earlier, takes the one reply that allows`,
  };
}

module.exports = { outsiderReply, undecided, OUTSIDER_REPLY_WINDOW_MS };
