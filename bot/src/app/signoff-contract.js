'use strict';
// The contract between the bot's /perf signoff and the fork's .github/examples/perf-signoff.yml
// (docs/bot.md "Release sign-off", docs/action.md):
//
//   the bot dispatches  perf-signoff.yml on the default branch with these inputs, all strings:
//     candidate-ref, candidate-sha   the release candidate as named and as pinned (40 hex digits)
//     previous-ref, previous-sha     the release it is measured against, likewise
//     conversation                   the issue or pull request the command was written in
//     request-id                     the bot's id of the command
//     suites                         the suites to measure, separated by spaces (PERFGATE_SIGNOFF_SUITES)
//   the workflow names its run   perfgate signoff <candidate-ref> against <previous-ref> (<request-id>)
//   its measure jobs (one per shard of the full suite and one per other suite, the action with
//   release: true, no write token) upload perfgate-<suite>[-shard-<K>-of-<N>]; its signoff job
//   (the action's job: signoff) merges and judges each suite and uploads its judged run folder
//   as perfgate-signoff-<suite> (core.signoffArtifact), results.json and verdict.json at its top.
//   The bot takes those folders, decides and sets the commit status perfgate/signoff on the
//   candidate, and posts the report: it keeps the waivers the decision counts. The workflow
//   sets the status itself only for a pushed release tag, which no bot dispatched.
const core = require('@perfgate/core');
const { SHA } = require('./contract');

const SIGNOFF_WORKFLOW = 'perf-signoff.yml';
// The suites a sign-off measures unless PERFGATE_SIGNOFF_SUITES says otherwise (docs/bot.md).
const SIGNOFF_SUITES = Object.freeze(['full', 'ddl', 'tpcc']);

const SIGNOFF_INPUT = Object.freeze({
  candidateRef: 'candidate-ref',
  candidateSha: 'candidate-sha',
  previousRef: 'previous-ref',
  previousSha: 'previous-sha',
  conversation: 'conversation',
  requestId: 'request-id',
  suites: 'suites',
});

const SIGNOFF_RUN_NAME = `perfgate signoff \${{ inputs.${SIGNOFF_INPUT.candidateRef} || github.ref_name }} against \${{ inputs.${SIGNOFF_INPUT.previousRef} }} (\${{ inputs.${SIGNOFF_INPUT.requestId} }})`;

/** The workflow_dispatch inputs of a sign-off (every value a string). */
function signoffInputs({ candidate, previous, conversation, requestId, suites }) {
  for (const [name, side] of [['candidate', candidate], ['previous', previous]]) {
    if (!SHA.test(side.sha || '')) throw new Error(`signoffInputs: ${name}.sha ${JSON.stringify(side.sha)} is not 40 hex digits`);
  }
  return {
    [SIGNOFF_INPUT.candidateRef]: candidate.ref,
    [SIGNOFF_INPUT.candidateSha]: candidate.sha,
    [SIGNOFF_INPUT.previousRef]: previous.ref,
    [SIGNOFF_INPUT.previousSha]: previous.sha,
    [SIGNOFF_INPUT.conversation]: String(conversation),
    [SIGNOFF_INPUT.requestId]: requestId,
    [SIGNOFF_INPUT.suites]: suites.join(' '),
  };
}

class SignoffFolderRejected extends Error {
  get name() { return 'SignoffFolderRejected'; }
}

/**
 * Checks one suite's judged run folder of a sign-off (untrusted until checked: it came from a
 * runner) against its schemas and the sign-off: that suite, the pinned commits, a verdict of only
 * measured rows. A side measured from an installed prefix has no commit (null): it is accepted,
 * and the report names what was measured by version. Pure. Returns {results, verdict,
 * installedPrefixes} or throws SignoffFolderRejected naming the file and key.
 */
function checkSignoffFolder({ documents }, { suite, name = core.signoffArtifact(suite), previousSha, candidateSha }) {
  const fail = (why) => { throw new SignoffFolderRejected(`${name}/${why}`); };
  for (const file of ['results.json', 'verdict.json']) if (!Object.hasOwn(documents, file)) fail(`${file} is missing at its top`);
  const kinds = { 'results.json': 'results', 'verdict.json': 'verdict', 'plan.json': 'plan' };
  let verdict = null;
  for (const [file, kind] of Object.entries(kinds)) {
    if (!Object.hasOwn(documents, file)) continue;
    // A verdict of an older perfgate is read as the current version (core's readVerdict).
    const read = kind === 'verdict' ? core.readVerdict(documents[file]) : { problem: core.schemaProblem(kind, documents[file]) };
    if (read.problem) fail(`${file}: ${read.problem}`);
    if (read.verdict) verdict = read.verdict;
  }
  const results = documents['results.json'];
  const pinned = { base: previousSha, head: candidateSha };
  let installedPrefixes = false;
  for (const side of ['base', 'head']) {
    for (const [file, found] of [['results.json', results.sides[side].commit], ['verdict.json', verdict.run.sides[side] && verdict.run.sides[side].commit]]) {
      if (found === null || found === undefined) {
        installedPrefixes = true;
        continue;
      }
      if (found !== pinned[side]) fail(`${file}: sides.${side}.commit is ${JSON.stringify(found)}, but the sign-off pinned ${pinned[side]}`);
    }
  }
  for (const [file, found] of [['results.json', results.plan && results.plan.suite], ['verdict.json', verdict.suite]]) {
    if (found !== suite) fail(`${file}: suite is ${JSON.stringify(found)}, but this folder is the sign-off's ${suite}`);
  }
  const measured = new Set(results.benchmarks.map((b) => b.id));
  const unknown = verdict.benchmarks.find((b) => !measured.has(b.id));
  if (unknown) fail(`verdict.json judges ${unknown.id}, which results.json does not hold`);
  // Every row planned and measured is judged: a verdict that leaves one out would decide without it.
  const judged = new Set(verdict.benchmarks.map((b) => b.id));
  const planned = ((results.plan && results.plan.benchmarks) || []).map((b) => b.id);
  const unjudged = [...planned, ...measured].find((id) => !judged.has(id));
  if (unjudged) fail(`verdict.json does not judge ${unjudged}, which results.json ${measured.has(unjudged) ? 'holds' : 'plans'}`);
  return { results, verdict, installedPrefixes };
}

module.exports = {
  SIGNOFF_WORKFLOW, SIGNOFF_SUITES, SIGNOFF_INPUT, SIGNOFF_RUN_NAME, signoffInputs, checkSignoffFolder, SignoffFolderRejected,
};
