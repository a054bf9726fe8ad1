'use strict';
// /perf cancel: everything the conversation started and is still queued or running, a release
// sign-off included (a push leaves that running): its runs and check runs stopped, said.
const store = require('../../store');
const messages = require('../messages');
const { say, announceCancelled } = require('../conversation');

module.exports = async function cancelRuns(ctx, { octokit, request, lookFirst }) {
  const author = request.author;
  const reason = messages.CANCEL_REASONS.command({ author });
  const cancelled = await store.cancelRequests(ctx.store, { repo: request.repo, prNumber: request.prNumber, except: request.id, reason, keep: [], by: 'cancel' });
  // Run again after a crash, the requests this command cancelled before are announced again
  // (announcing is repeatable), so that none is left with its run going.
  const earlier = lookFirst
    ? (await store.requestsOfPull(ctx.store, { repo: request.repo, prNumber: request.prNumber, statuses: ['cancelled'] })).filter((r) => r.detail === reason && r.id !== request.id)
    : [];
  const ids = [...new Set([...cancelled.map((r) => r.id), ...earlier.map((r) => r.id)])];
  await announceCancelled(ctx, octokit, await Promise.all(ids.map((id) => store.getRequest(ctx.store, id))));
  await say(ctx, octokit, request, messages.REPLIES.cancelled({ author, count: ids.length }), { status: 'answered', lookFirst });
};
