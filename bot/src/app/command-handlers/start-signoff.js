'use strict';
// /perf signoff <candidate> [vs <previous>]: the release sign-off (signoff.js). A /perf cancel
// that ran while it pinned or dispatched: whatever it wrote last (a pending status), it ends
// cancelled.
const signoff = require('../signoff');
const { say, settleCancelled } = require('../conversation');

module.exports = async function startSignoff(ctx, { octokit, request, command, lookFirst }) {
  await signoff.signoffCommand(ctx, octokit, request, command, { say, lookFirst });
  await settleCancelled(ctx, octokit, request);
};
