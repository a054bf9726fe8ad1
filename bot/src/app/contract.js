'use strict';
// The contract between the bot and the fork's workflows, in one place: the example workflows
// .github/examples/perf-command.yml (quick, ahi, ddl, contention-quick, tpcc) and perf-full.yml (full, sharded) that a fork
// copies, and the GitHub Action they run (docs/action.md, docs/bot.md).
//
//   the bot dispatches  the workflow of the command's suite, on the repository's default
//                       branch (the workflow file is the maintainers', never a pull request's),
//                       with these workflow_dispatch inputs, all strings:
//     pull-request   the pull request number
//     base-sha       the base commit the command pinned (40 hex digits)
//     head-sha       the head commit the command pinned (40 hex digits)
//     approved-sha   the same head: a maintainer's command approves exactly the head it pinned,
//                    so that the action builds a fork's pull request at that head and refuses
//                    it once the pull request has moved on
//     suite          quick | full | ahi | ddl | contention-quick | tpcc
//     options        the command's measurement arguments as the action reads them:
//                    "rounds=8 threads=1,4 tests=point-query,scan_range=100"
//     request-id     the bot's id of the command
//     explain        /perf why <row> only: the row the explanation step looks at (the action's
//                    `explain` input); left out otherwise, so that a workflow without the input
//                    still takes every other command
//   the workflows name their runs  run-name: perfgate <suite> on pull request <pr> (<request-id>)
//                       so that the bot finds its run where GitHub gives no run id back
//   and upload each measure job's run folder as the artifact perfgate-<suite> (a sharded run:
//   perfgate-<suite>-shard-<K>-of-<N>), with action-run.json, results.json and verdict.json at
//   its top.

const core = require('@perfgate/core');

const WORKFLOWS = Object.freeze({ quick: 'perf-command.yml', ahi: 'perf-command.yml', ddl: 'perf-command.yml', 'contention-quick': 'perf-command.yml', tpcc: 'perf-command.yml', full: 'perf-full.yml' });

const INPUT = Object.freeze({
  pullRequest: 'pull-request',
  baseSha: 'base-sha',
  headSha: 'head-sha',
  approvedSha: 'approved-sha',
  suite: 'suite',
  options: 'options',
  requestId: 'request-id',
  explain: 'explain',
});

// The commands that dispatch a measurement, and the suite each runs.
const SUITE_OF_COMMAND = Object.freeze({ quick: 'quick', full: 'full', ahi: 'ahi', why: 'quick', ddl: 'ddl', contention: 'contention-quick', tpcc: 'tpcc' });

// The command arguments the action's `options` input takes, by the name it gives them. `metric`
// has no such option: the suite's own signals decide.
const OPTION_OF_ARG = Object.freeze({ rounds: 'rounds', threads: 'threads', tests: 'tests' });

// The workflows' `run-name:`, as they write it.
const RUN_NAME = `perfgate \${{ inputs.${INPUT.suite} }} on pull request \${{ inputs.${INPUT.pullRequest} }} (\${{ inputs.${INPUT.requestId} }})`;

// What a run folder holds and how it is checked (its documents, their schemas, the commits) is
// core's run folder reader, which the action's report job applies too (core/src/untrusted-run-folder.js).
const SHA = core.COMMIT_SHA;

/** A command's id as the workflow sees it: "c" and the comment's id, which GitHub never reuses. */
function requestIdOf(request) {
  return request.commentId !== null && request.commentId !== undefined ? `c${request.commentId}` : `r${request.id}`;
}

/** The run folder artifacts of a suite's run: perfgate-<suite>, or its shards (core's rule). */
const { isRunArtifact } = core;

/** The command's measurement arguments the action's `options` input takes: {option: value}. */
function optionsOf(args = {}) {
  const options = {};
  for (const [arg, option] of Object.entries(OPTION_OF_ARG)) {
    if (args[arg] !== undefined) options[option] = args[arg];
  }
  return options;
}

/** The command's measurement arguments as the action's `options` input, and those it cannot pass. */
function optionsInput(args = {}) {
  const dropped = Object.keys(args).filter((arg) => !Object.hasOwn(OPTION_OF_ARG, arg) && arg !== 'explain');
  return { options: core.optionWords(optionsOf(args)), dropped };
}

/** The workflow_dispatch inputs of a measurement request (every value a string, as GitHub wants). */
function dispatchInputs({ prNumber, baseSha, headSha, suite, args, requestId }) {
  for (const [name, sha] of [['baseSha', baseSha], ['headSha', headSha]]) {
    if (!SHA.test(sha || '')) throw new Error(`dispatchInputs: ${name} ${JSON.stringify(sha)} is not 40 hex digits`);
  }
  return {
    [INPUT.pullRequest]: String(prNumber),
    [INPUT.baseSha]: baseSha,
    [INPUT.headSha]: headSha,
    [INPUT.approvedSha]: headSha,
    [INPUT.suite]: suite,
    [INPUT.options]: optionsInput(args).options,
    [INPUT.requestId]: requestId,
    ...(args && args.explain ? { [INPUT.explain]: args.explain } : {}),
  };
}

/** True when a run's display title is the run-name of this request. */
function runNameMatches(displayTitle, requestId) {
  return typeof displayTitle === 'string' && displayTitle.trimEnd().endsWith(`(${requestId})`);
}

const workflowPath = (file) => `.github/workflows/${file}`;

module.exports = {
  WORKFLOWS, INPUT, SUITE_OF_COMMAND, OPTION_OF_ARG, RUN_NAME, SHA,
  requestIdOf, isRunArtifact, optionsOf, optionsInput, dispatchInputs, runNameMatches, workflowPath,
};
