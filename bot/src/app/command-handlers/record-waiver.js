'use strict';
// /perf waive <microbenchmark> -- <reason>: in a sign-off's conversation the sign-off's waiver
// (signoff.js); elsewhere the pull request's, recorded and acknowledged. A suite as a whole
// (full-suite, …) is waived in a sign-off only: a pull request's gate keeps waivers by row.
const core = require('@perfgate/core');
const store = require('../../store');
const messages = require('../messages');
const signoff = require('../signoff');
const { say } = require('../conversation');

module.exports = async function recordWaiver(ctx, { octokit, request, command, job, lookFirst }) {
  if (await signoff.signoffWaive(ctx, octokit, request, command, { say, lookFirst, onPullRequest: job.payload.onPullRequest !== false })) return;
  const { microbenchmark, reason } = command.args;
  if (Object.keys(ctx.config.thresholds.suites).some((suite) => core.suiteWideNames(suite).includes(microbenchmark))) {
    await say(ctx, octokit, request, messages.REPLIES.waiveSignoffOnly({ author: request.author, microbenchmark }), { status: 'invalid', lookFirst });
    return;
  }
  await store.recordWaiver(ctx.store, { requestId: request.id, repo: request.repo, prNumber: request.prNumber, microbenchmark, reason, author: request.author });
  await say(ctx, octokit, request, messages.REPLIES.waived({ author: request.author, microbenchmark, reason }), { status: 'answered', lookFirst });
};
