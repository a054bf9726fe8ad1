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

test('the workflow runs on release tags too, shards the full suite, and its jobs hold no write token', () => {
  assert.ok(Array.isArray(WORKFLOW.on.push.tags));
  assert.deepEqual(WORKFLOW.permissions, {});
  for (const [name, job] of Object.entries(WORKFLOW.jobs)) {
    assert.deepEqual(job.permissions, { contents: 'read' }, name);
  }
  const run = WORKFLOW.jobs.measure.steps.map((s) => s.run || '').join('\n');
  assert.match(run, /--suite full --metric both --shard "\$SHARD"/, "the shards count instructions too: they decide where time stays open");
  const uploads = Object.values(WORKFLOW.jobs).flatMap((j) => j.steps.filter((s) => String(s.uses).startsWith('actions/upload-artifact@')).map((s) => s.with.name));
  assert.deepEqual(uploads, ['${{ steps.shard.outputs.name }}', MERGED_ARTIFACT]);
  assert.match(WORKFLOW.jobs.measure.steps.find((s) => s.id === 'shard').run, /perfgate-signoff-shard-\$\{SHARD%\/\*\}-of-\$\{SHARD#\*\/\}/);
  for (const name of [MERGED_ARTIFACT, 'perfgate-signoff-shard-3-of-4']) assert.ok(isRunArtifact(name, 'signoff'), name);
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
