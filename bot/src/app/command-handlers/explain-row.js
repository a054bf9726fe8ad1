'use strict';
// /perf why <microbenchmark>: the quick suite narrowed to that row, on the head approved as of
// the comment, with the explanation step asked to look at it whatever its verdict (the
// workflow's `explain` input): the comment then says why it got slower (docs/explain.md).
const contract = require('../contract');
const { measure } = require('../measure');

module.exports = async function explainRow(ctx, { octokit, request, command, lookFirst }) {
  const row = command.args.microbenchmark;
  await measure(ctx, octokit, request, { suite: contract.SUITE_OF_COMMAND[command.name], args: { tests: row, explain: row }, lookFirst });
};
