'use strict';
// /perf rerun: the pull request's last measuring command again, with its suite and arguments,
// on the head approved as of this comment.
const store = require('../../store');
const messages = require('../messages');
const { say } = require('../conversation');
const { measure, MEASURE_COMMANDS } = require('../measure');

module.exports = async function rerunMeasurement(ctx, { octokit, request, lookFirst }) {
  // A request pinned before (its job ran before a crash) keeps the suite it took then.
  const previous = request.suite ? request
    : await store.latestRequest(ctx.store, { repo: request.repo, prNumber: request.prNumber, commands: [...MEASURE_COMMANDS, 'rerun'], statuses: ['dispatched', 'completed', 'failed', 'cancelled'] });
  if (!previous || !previous.suite) {
    await say(ctx, octokit, request, messages.REPLIES.nothingToRerun({ author: request.author }), { status: 'answered', lookFirst });
    return;
  }
  await measure(ctx, octokit, request, { suite: previous.suite, args: previous.args, lookFirst });
};
