'use strict';
// The bot's /perf signoff and .github/examples/perf-signoff.yml must agree: inputs, run-name,
// artifact names; and what the bot accepts from the merged run folder.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');
const core = require('@perfgate/core');
const {
  SIGNOFF_WORKFLOW, SIGNOFF_RUN_NAME, SIGNOFF_SUITES, signoffInputs, checkSignoffFolder, SignoffFolderRejected,
} = require('../../../bot/src/app/signoff-contract');
const { isRunArtifact } = require('../../../bot/src/app/contract');

const WORKFLOW = YAML.parse(fs.readFileSync(path.join(__dirname, '../../../.github/examples', SIGNOFF_WORKFLOW), 'utf8'));
const PREVIOUS = '8'.repeat(40);
const CANDIDATE = '1'.repeat(40);

test('every input the bot sends is declared, every required one is sent, within 25; the run-name is the one the bot finds runs by', () => {
  const declared = WORKFLOW.on.workflow_dispatch.inputs;
  const inputs = signoffInputs({ candidate: { ref: 'mariadb-10.11.19', sha: CANDIDATE }, previous: { ref: 'mariadb-10.11.18', sha: PREVIOUS }, conversation: 41, requestId: 'c1', suites: SIGNOFF_SUITES });
  assert.equal(inputs.suites, 'full ddl tpcc');
  for (const name of Object.keys(inputs)) assert.ok(Object.hasOwn(declared, name), `${SIGNOFF_WORKFLOW} declares no input '${name}'`);
  for (const [name, spec] of Object.entries(declared)) if (spec.required) assert.ok(Object.hasOwn(inputs, name), `${SIGNOFF_WORKFLOW} requires '${name}'`);
  assert.ok(Object.keys(declared).length <= 25);
  assert.ok(Object.values(inputs).every((v) => typeof v === 'string'));
  assert.equal(WORKFLOW['run-name'], SIGNOFF_RUN_NAME);
  assert.ok(WORKFLOW['run-name'].endsWith('(${{ inputs.request-id }})'));
  assert.throws(() => signoffInputs({ candidate: { ref: 'x', sha: 'abc' }, previous: { ref: 'y', sha: PREVIOUS }, conversation: 1, requestId: 'c1', suites: ['full'] }), /candidate\.sha "abc" is not 40 hex digits/);
});

test('the workflow runs on release tags too, measures each suite (the full suite sharded, with instructions) through the action, and only the signoff job writes', () => {
  assert.ok(Array.isArray(WORKFLOW.on.push.tags));
  assert.deepEqual(WORKFLOW.permissions, {});
  assert.deepEqual(WORKFLOW.jobs.refs.permissions, { contents: 'read' });
  assert.deepEqual(WORKFLOW.jobs.measure.permissions, { contents: 'read' }, 'release code is built there: no token that writes');
  assert.deepEqual(WORKFLOW.jobs.signoff.permissions, { actions: 'read', statuses: 'write' });
  const action = (job) => WORKFLOW.jobs[job].steps.filter((s) => /^perfgate\/perfgate\/action@[0-9a-f]{40}$/.test(String(s.uses)));
  const [measure] = action('measure');
  assert.deepEqual([measure.with.job, measure.with.release, measure.with.suite, measure.with.options, measure.with.shard], ['measure', true, '${{ matrix.suite }}', '${{ matrix.options }}', '${{ matrix.shard }}']);
  assert.equal(WORKFLOW.jobs.measure.strategy.matrix, '${{ fromJSON(needs.refs.outputs.matrix) }}');
  // The refs job's list of measure jobs: default suites, the full suite's shards counting instructions.
  const jobsStep = WORKFLOW.jobs.refs.steps.find((s) => s.id === 'jobs');
  assert.match(jobsStep.env.SUITES, /'full ddl tpcc' }}$/);
  assert.match(jobsStep.run, /"options": "metric=both"\} for s in suites if s == "full"/, 'the shards count instructions too: they decide where time stays open');
  const [signoff] = action('signoff');
  assert.equal(signoff.with.job, 'signoff');
  assert.equal(signoff.with.suite, '${{ needs.refs.outputs.suites }}');
  // The bot sets the status for its own dispatches (it keeps the waivers); a pushed tag has no bot.
  assert.equal(signoff.with['commit-status'], "${{ github.event_name == 'push' }}");
  // Only actions/checkout of the fork itself and perfgate's action: nothing else is fetched.
  for (const [name, job] of Object.entries(WORKFLOW.jobs)) {
    for (const step of job.steps.filter((s) => s.uses)) {
      assert.ok(/^actions\/checkout@[0-9a-f]{40}$/.test(step.uses) || /^perfgate\/perfgate\/action@/.test(step.uses), `${name}: ${step.uses}`);
      if (step.uses.startsWith('actions/checkout@')) assert.equal(step.with.repository, undefined, `${name} checks out the fork only`);
    }
  }
  for (const suite of SIGNOFF_SUITES) assert.ok(isRunArtifact(core.signoffArtifact(suite), `signoff-${suite}`));
  assert.ok(!isRunArtifact(core.signoffArtifact('full'), 'signoff'), 'the report artifact is not taken for a suite\'s folder');
});

// A real merged full run: the tiny two-shard run, merged and judged by core.
function mergedFolder(edit = () => {}) {
  const shards = [1, 2].map((k) => JSON.parse(fs.readFileSync(path.join(__dirname, `../../fixtures/results/full-shards-tiny/shard-${k}/results.json`), 'utf8')));
  const results = core.mergeResults(shards, { shards: true });
  const verdict = structuredClone(core.judge(results, core.findSuite(core.loadThresholds(), 'full')));
  const documents = { 'results.json': structuredClone(results), 'verdict.json': verdict };
  edit(documents);
  return { documents };
}

test('the merged run folder: installed prefixes (no commits) are accepted and said so; pinned commits must match', () => {
  const plain = checkSignoffFolder(mergedFolder(), { suite: 'full', previousSha: PREVIOUS, candidateSha: CANDIDATE });
  assert.equal(plain.installedPrefixes, true);
  assert.equal(plain.verdict.benchmarks.length, 42);
  const pinned = checkSignoffFolder(mergedFolder((d) => {
    for (const [side, sha] of [['base', PREVIOUS], ['head', CANDIDATE]]) {
      d['results.json'].sides[side].commit = sha;
      d['verdict.json'].run.sides[side].commit = sha;
    }
  }), { suite: 'full', previousSha: PREVIOUS, candidateSha: CANDIDATE });
  assert.equal(pinned.installedPrefixes, false);
  const refusals = [
    [(d) => { delete d['verdict.json']; }, 'perfgate-signoff-full/verdict.json is missing at its top'],
    [(d) => { d['verdict.json'].suite = 'quick'; }, 'perfgate-signoff-full/verdict.json: suite is "quick", but this folder is the sign-off\'s full'],
    [(d) => { d['results.json'].sides.head.commit = PREVIOUS; }, `perfgate-signoff-full/results.json: sides.head.commit is "${PREVIOUS}", but the sign-off pinned ${CANDIDATE}`],
    [(d) => { d['results.json'].benchmarks.pop(); }, 'perfgate-signoff-full/verdict.json judges insert_range=100, which results.json does not hold'],
    [(d) => { d['verdict.json'].benchmarks = d['verdict.json'].benchmarks.filter((b) => b.id !== 'scan_range=100'); }, 'perfgate-signoff-full/verdict.json does not judge scan_range=100, which results.json holds'],
    [(d) => {
      for (const file of ['verdict.json', 'results.json']) d[file].benchmarks = d[file].benchmarks.filter((b) => b.id !== 'scan_range=100');
    }, 'perfgate-signoff-full/verdict.json does not judge scan_range=100, which results.json plans'],
    [(d) => { d['verdict.json'].schema = 'x'; }, /^perfgate-signoff-full\/verdict\.json: /],
  ];
  for (const [edit, message] of refusals) {
    assert.throws(() => checkSignoffFolder(mergedFolder(edit), { suite: 'full', previousSha: PREVIOUS, candidateSha: CANDIDATE }), (err) => err instanceof SignoffFolderRejected && (message instanceof RegExp ? message.test(err.message) : err.message === message), String(message));
  }
  // The full suite's folder offered as the DDL suite's is refused.
  assert.throws(() => checkSignoffFolder(mergedFolder(), { suite: 'ddl', previousSha: PREVIOUS, candidateSha: CANDIDATE }), { message: 'perfgate-signoff-ddl/results.json: suite is "full", but this folder is the sign-off\'s ddl' });
});
