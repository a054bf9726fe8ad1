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
  SIGNOFF_WORKFLOW, SIGNOFF_RUN_NAME, MERGED_ARTIFACT, signoffInputs, checkSignoffFolder, SignoffFolderRejected,
} = require('../../../bot/src/app/signoff-contract');
const { isRunArtifact } = require('../../../bot/src/app/contract');

const WORKFLOW = YAML.parse(fs.readFileSync(path.join(__dirname, '../../../.github/examples', SIGNOFF_WORKFLOW), 'utf8'));
const PREVIOUS = '8'.repeat(40);
const CANDIDATE = '1'.repeat(40);

test('every input the bot sends is declared, every required one is sent, within 25; the run-name is the one the bot finds runs by', () => {
  const declared = WORKFLOW.on.workflow_dispatch.inputs;
  const inputs = signoffInputs({ candidate: { ref: 'mariadb-10.11.19', sha: CANDIDATE }, previous: { ref: 'mariadb-10.11.18', sha: PREVIOUS }, conversation: 41, requestId: 'c1' });
  for (const name of Object.keys(inputs)) assert.ok(Object.hasOwn(declared, name), `${SIGNOFF_WORKFLOW} declares no input '${name}'`);
  for (const [name, spec] of Object.entries(declared)) if (spec.required) assert.ok(Object.hasOwn(inputs, name), `${SIGNOFF_WORKFLOW} requires '${name}'`);
  assert.ok(Object.keys(declared).length <= 25);
  assert.ok(Object.values(inputs).every((v) => typeof v === 'string'));
  assert.equal(WORKFLOW['run-name'], SIGNOFF_RUN_NAME);
  assert.ok(WORKFLOW['run-name'].endsWith('(${{ inputs.request-id }})'));
  assert.throws(() => signoffInputs({ candidate: { ref: 'x', sha: 'abc' }, previous: { ref: 'y', sha: PREVIOUS }, conversation: 1, requestId: 'c1' }), /candidate\.sha "abc" is not 40 hex digits/);
});

test('the workflow runs on release tags too, shards the full suite with instructions through the action, and only the signoff job writes', () => {
  assert.ok(Array.isArray(WORKFLOW.on.push.tags));
  assert.deepEqual(WORKFLOW.permissions, {});
  assert.deepEqual(WORKFLOW.jobs.refs.permissions, { contents: 'read' });
  assert.deepEqual(WORKFLOW.jobs.measure.permissions, { contents: 'read' }, 'release code is built there: no token that writes');
  assert.deepEqual(WORKFLOW.jobs.signoff.permissions, { actions: 'read', statuses: 'write' });
  const action = (job) => WORKFLOW.jobs[job].steps.filter((s) => /^perfgate\/perfgate\/action@[0-9a-f]{40}$/.test(String(s.uses)));
  const [measure] = action('measure');
  assert.deepEqual([measure.with.job, measure.with.release, measure.with.suite, measure.with.options, measure.with.shard], ['measure', true, 'full', 'metric=both', '${{ matrix.shard }}'],
    'the shards count instructions too: they decide where time stays open');
  const [signoff] = action('signoff');
  assert.equal(signoff.with.job, 'signoff');
  // The bot sets the status for its own dispatches (it keeps the waivers); a pushed tag has no bot.
  assert.equal(signoff.with['commit-status'], "${{ github.event_name == 'push' }}");
  // Only actions/checkout of the fork itself and perfgate's action: nothing else is fetched.
  for (const [name, job] of Object.entries(WORKFLOW.jobs)) {
    for (const step of job.steps.filter((s) => s.uses)) {
      assert.ok(/^actions\/checkout@[0-9a-f]{40}$/.test(step.uses) || /^perfgate\/perfgate\/action@/.test(step.uses), `${name}: ${step.uses}`);
      if (step.uses.startsWith('actions/checkout@')) assert.equal(step.with.repository, undefined, `${name} checks out the fork only`);
    }
  }
  assert.ok(isRunArtifact(MERGED_ARTIFACT, 'signoff'));
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
  const plain = checkSignoffFolder(mergedFolder(), { previousSha: PREVIOUS, candidateSha: CANDIDATE });
  assert.equal(plain.installedPrefixes, true);
  assert.equal(plain.verdict.benchmarks.length, 42);
  const pinned = checkSignoffFolder(mergedFolder((d) => {
    for (const [side, sha] of [['base', PREVIOUS], ['head', CANDIDATE]]) {
      d['results.json'].sides[side].commit = sha;
      d['verdict.json'].run.sides[side].commit = sha;
    }
  }), { previousSha: PREVIOUS, candidateSha: CANDIDATE });
  assert.equal(pinned.installedPrefixes, false);
  const refusals = [
    [(d) => { delete d['verdict.json']; }, 'perfgate-signoff/verdict.json is missing at its top'],
    [(d) => { d['verdict.json'].suite = 'quick'; }, 'perfgate-signoff/verdict.json: suite is "quick", but a sign-off runs full'],
    [(d) => { d['results.json'].sides.head.commit = PREVIOUS; }, `perfgate-signoff/results.json: sides.head.commit is "${PREVIOUS}", but the sign-off pinned ${CANDIDATE}`],
    [(d) => { d['results.json'].benchmarks.pop(); }, 'perfgate-signoff/verdict.json judges insert_range=100, which results.json does not hold'],
    [(d) => { d['verdict.json'].schema = 'x'; }, /^perfgate-signoff\/verdict\.json: /],
  ];
  for (const [edit, message] of refusals) {
    assert.throws(() => checkSignoffFolder(mergedFolder(edit), { previousSha: PREVIOUS, candidateSha: CANDIDATE }), (err) => err instanceof SignoffFolderRejected && (message instanceof RegExp ? message.test(err.message) : err.message === message), String(message));
  }
});
