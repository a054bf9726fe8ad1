'use strict';
// /perf bisect <good> <bad> [tests=]: both refs pinned and perf-bisect.yml dispatched (bisect.js);
// cancelled meanwhile, it says so.
const { settleCancelled } = require('../conversation');

module.exports = (bisect) => async function startBisection(ctx, { octokit, request, command, lookFirst }) {
  await bisect.command(ctx, octokit, request, { command, lookFirst });
  await settleCancelled(ctx, octokit, request);
};
