'use strict';
// /perf quick, /perf full, /perf ahi, /perf ddl [<sha>] [threads=] [tests=] [rounds=]: the suite of the
// command on the head approved as of the comment, or exactly the commit named (measure.js).
const contract = require('../contract');
const { measure } = require('../measure');

module.exports = async function startMeasurement(ctx, { octokit, request, command, lookFirst }) {
  const { sha: named = null, ...args } = command.args;
  await measure(ctx, octokit, request, { suite: contract.SUITE_OF_COMMAND[command.name], args, named, lookFirst });
};
