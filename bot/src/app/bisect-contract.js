'use strict';
// The contract between the bot and the example workflow .github/examples/perf-bisect.yml that a
// fork copies for `/perf bisect` (docs/bot.md, docs/action.md), beside contract.js's for the
// measuring commands.
//
//   the bot dispatches  perf-bisect.yml on the repository's default branch with these
//                       workflow_dispatch inputs, all strings:
//     pull-request   the pull request the command was given in (where the bot answers)
//     good-sha       the good commit, pinned when the command was given (40 hex digits)
//     bad-sha        the bad commit, pinned likewise
//     good-ref       the good ref as the command named it (shown in bisect.json)
//     bad-ref        the bad ref as the command named it
//     tests          the microbenchmarks to watch, comma-separated (empty: the whole suite)
//     request-id     the bot's id of the command
//   the workflow names its runs  run-name: perfgate bisect on pull request <pr> (<request-id>)
//   the bisect job uploads, while it runs, after every step that changed bisect.json, the
//   artifact perfgate-bisect-progress-<N> (N = the steps recorded, 1…) with bisect.json at its
//   top, and at the end the artifact perfgate-bisect with bisect.json at its top.
const { SHA, requestIdOf, runNameMatches, workflowPath } = require('./contract');

const WORKFLOW = 'perf-bisect.yml';

const INPUT = Object.freeze({
  pullRequest: 'pull-request',
  goodSha: 'good-sha',
  badSha: 'bad-sha',
  goodRef: 'good-ref',
  badRef: 'bad-ref',
  tests: 'tests',
  requestId: 'request-id',
});

const RUN_NAME = `perfgate bisect on pull request \${{ inputs.${INPUT.pullRequest} }} (\${{ inputs.${INPUT.requestId} }})`;

// The suite the request row records: it selects the workflow (config.workflows.bisect).
const SUITE = 'bisect';
const RESULT_ARTIFACT = 'perfgate-bisect';
const PROGRESS_PREFIX = 'perfgate-bisect-progress-';
const DOCUMENTS = Object.freeze({ 'bisect.json': 'bisect' });

/** The workflow_dispatch inputs of a bisection (every value a string, as GitHub wants). */
function bisectInputs({ prNumber, goodSha, badSha, goodRef, badRef, tests, requestId }) {
  for (const [name, sha] of [['goodSha', goodSha], ['badSha', badSha]]) {
    if (!SHA.test(sha || '')) throw new Error(`bisectInputs: ${name} ${JSON.stringify(sha)} is not 40 hex digits`);
  }
  return {
    [INPUT.pullRequest]: String(prNumber),
    [INPUT.goodSha]: goodSha,
    [INPUT.badSha]: badSha,
    [INPUT.goodRef]: goodRef || goodSha,
    [INPUT.badRef]: badRef || badSha,
    [INPUT.tests]: (tests || []).join(','),
    [INPUT.requestId]: requestId,
  };
}

/** The step count a progress artifact's name carries, or null for any other name. */
function progressStep(name) {
  const match = new RegExp(`^${PROGRESS_PREFIX}([1-9][0-9]{0,5})$`).exec(String(name));
  return match ? Number(match[1]) : null;
}

const progressArtifact = (steps) => `${PROGRESS_PREFIX}${steps}`;

module.exports = {
  WORKFLOW, INPUT, RUN_NAME, SUITE, RESULT_ARTIFACT, PROGRESS_PREFIX, DOCUMENTS,
  bisectInputs, progressStep, progressArtifact, requestIdOf, runNameMatches, workflowPath,
};
