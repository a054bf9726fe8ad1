'use strict';
// The contract between the bot and the fork's perf-command.yml, in one place (docs/bot.md
// describes it for the workflow's side):
//
//   the bot dispatches   .github/workflows/perf-command.yml on the repository's default branch
//                        (the workflow file and what it runs are the maintainers', never a pull
//                        request's), with these workflow_dispatch inputs, all strings:
//     pr          the pull request number
//     base-sha    the base commit the command pinned (40 hex digits)
//     head-sha    the head commit the command pinned (40 hex digits): measure exactly this,
//                 fetched from refs/pull/<pr>/head, and refuse to run if it differs
//     suite       quick | full | ahi
//     options     JSON of the command's arguments, only those given: {"threads": [1, 4],
//                 "tests": ["point-query"], "rounds": 8, "metric": "time|instructions|both"}
//     request-id  the bot's id of the command
//   the workflow names its runs with   run-name: perfgate <suite> #<pr> (<request-id>)
//                        so that the bot finds its run when GitHub does not return the run id
//   and uploads the run folder of `perfgate compare` (results.json and verdict.json at its
//   top, plan.json and the reports beside them) as one artifact named perfgate-<request-id>.
// Six inputs, well within GitHub's 25.

const WORKFLOW_FILE = 'perf-command.yml';

const INPUT = Object.freeze({
  pr: 'pr',
  baseSha: 'base-sha',
  headSha: 'head-sha',
  suite: 'suite',
  options: 'options',
  requestId: 'request-id',
});

// The commands that dispatch a measurement, and the suite each runs.
const SUITE_OF_COMMAND = Object.freeze({ quick: 'quick', full: 'full', ahi: 'ahi' });

// The workflow's `run-name:`, as the workflow file writes it.
const RUN_NAME = `perfgate \${{ inputs.${INPUT.suite} }} #\${{ inputs.${INPUT.pr} }} (\${{ inputs.${INPUT.requestId} }})`;

const ARTIFACT_PREFIX = 'perfgate-';

// The documents the bot reads from the artifact, by file name at its top, and the schema each
// must match (schema/<kind>.schema.json). results.json and verdict.json must be there.
const DOCUMENTS = Object.freeze({ 'plan.json': 'plan', 'results.json': 'results', 'verdict.json': 'verdict' });
const REQUIRED_DOCUMENTS = Object.freeze(['results.json', 'verdict.json']);

const SHA = /^[0-9a-f]{40}$/;

/** A command's id as the workflow sees it: the comment's id, which GitHub never reuses. */
function requestIdOf(request) {
  return String(request.commentId ?? `r${request.id}`);
}

function artifactName(requestId) {
  return `${ARTIFACT_PREFIX}${requestId}`;
}

/** The workflow_dispatch inputs of a measurement request (every value a string, as GitHub wants). */
function dispatchInputs({ prNumber, baseSha, headSha, suite, args, requestId }) {
  for (const [name, sha] of [['baseSha', baseSha], ['headSha', headSha]]) {
    if (!SHA.test(sha || '')) throw new Error(`dispatchInputs: ${name} ${JSON.stringify(sha)} is not 40 hex digits`);
  }
  const options = {};
  for (const key of ['threads', 'tests', 'rounds', 'metric']) if (args && args[key] !== undefined) options[key] = args[key];
  return {
    [INPUT.pr]: String(prNumber),
    [INPUT.baseSha]: baseSha,
    [INPUT.headSha]: headSha,
    [INPUT.suite]: suite,
    [INPUT.options]: JSON.stringify(options),
    [INPUT.requestId]: requestId,
  };
}

/** True when a run's display title is the run-name of this request. */
function runNameMatches(displayTitle, requestId) {
  return typeof displayTitle === 'string' && displayTitle.trimEnd().endsWith(`(${requestId})`);
}

const workflowPath = (file = WORKFLOW_FILE) => `.github/workflows/${file}`;

module.exports = {
  WORKFLOW_FILE, INPUT, SUITE_OF_COMMAND, RUN_NAME, ARTIFACT_PREFIX, DOCUMENTS, REQUIRED_DOCUMENTS, SHA,
  requestIdOf, artifactName, dispatchInputs, runNameMatches, workflowPath,
};
