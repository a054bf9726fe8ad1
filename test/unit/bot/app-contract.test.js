'use strict';
// The bot and the example workflows a fork copies must agree: every input the bot dispatches
// is declared by the workflow it dispatches, the run-name is the one the bot finds runs by,
// and the artifacts are named as the bot looks for them.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');
const contract = require('../../../bot/src/app/contract');

const EXAMPLES = path.join(__dirname, '../../../.github/examples');
const workflow = (file) => YAML.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8'));
const SHA = 'a'.repeat(40);

test('every input the bot dispatches is declared by the workflow of its suite, within 25', () => {
  for (const [suite, file] of Object.entries(contract.WORKFLOWS)) {
    const declared = workflow(file).on.workflow_dispatch.inputs;
    const inputs = contract.dispatchInputs({ prNumber: 7, baseSha: SHA, headSha: SHA, suite, args: { rounds: 8, threads: [1, 4], tests: ['point-query'] }, requestId: 'c1' });
    for (const name of Object.keys(inputs)) assert.ok(Object.hasOwn(declared, name), `${file} declares no input '${name}'`);
    for (const [name, spec] of Object.entries(declared)) {
      if (spec.required) assert.ok(Object.hasOwn(inputs, name), `${file} requires '${name}', which the bot does not send`);
    }
    assert.ok(Object.keys(declared).length <= 25);
  }
});

test("the workflows' run-name is the one the bot finds its runs by", () => {
  for (const file of new Set(Object.values(contract.WORKFLOWS))) {
    assert.equal(workflow(file)['run-name'], contract.RUN_NAME, file);
  }
  assert.equal(contract.runNameMatches('perfgate quick on pull request 7 (c1000000001)', 'c1000000001'), true);
  assert.equal(contract.runNameMatches('perfgate quick on pull request 7 (c1000000001)', 'c1'), false);
});

test('options are the key=value words the action reads; what it cannot take is named', () => {
  assert.deepEqual(contract.optionsInput({ threads: [1, 4], rounds: 8, tests: ['point-query', 'scan_range=100'], metric: 'both' }),
    { options: 'rounds=8 tests=point-query,scan_range=100 threads=1,4', dropped: ['metric'] });
  assert.deepEqual(contract.optionsInput({}), { options: '', dropped: [] });
});

test('run folder artifacts: perfgate-<suite> and its shards, nothing else', () => {
  const cases = {
    'perfgate-quick': true, 'perfgate-full-shard-2-of-4': true, 'perfgate-full': false, 'perfgate-quick-extra': false,
    'perfgate-quick-shard-0x-of-4': false, 'other': false,
  };
  for (const [name, expected] of Object.entries(cases)) assert.equal(contract.isRunArtifact(name, name.startsWith('perfgate-full-shard') ? 'full' : 'quick'), expected, name);
});

test('/perf bisect: every input the bot dispatches is declared by perf-bisect.yml, within 25, and its run-name is the one the bot finds', () => {
  const bisect = require('../../../bot/src/app/bisect-contract');
  const file = workflow(bisect.WORKFLOW);
  const declared = file.on.workflow_dispatch.inputs;
  const inputs = bisect.bisectInputs({ prNumber: 7, goodSha: SHA, badSha: 'b'.repeat(40), goodRef: 'base', badRef: 'bisect-tip', tests: ['update-index_range=100'], requestId: 'c1' });
  assert.deepEqual(inputs, {
    'pull-request': '7', 'good-sha': SHA, 'bad-sha': 'b'.repeat(40), 'good-ref': 'base', 'bad-ref': 'bisect-tip', tests: 'update-index_range=100', 'request-id': 'c1',
  });
  for (const name of Object.keys(inputs)) assert.ok(Object.hasOwn(declared, name), `${bisect.WORKFLOW} declares no input '${name}'`);
  for (const [name, spec] of Object.entries(declared)) {
    if (spec.required) assert.ok(Object.hasOwn(inputs, name), `${bisect.WORKFLOW} requires '${name}', which the bot does not send`);
  }
  assert.ok(Object.keys(declared).length <= 25);
  assert.equal(file['run-name'], bisect.RUN_NAME);
  // The action step passes every input on, and holds a read-only token.
  const job = file.jobs.bisect;
  assert.deepEqual(job.permissions, { contents: 'read' });
  const step = job.steps.find((s) => String(s.uses).includes('/action@'));
  assert.equal(step.with.job, 'bisect');
  for (const name of ['pull-request', 'good-sha', 'bad-sha', 'good-ref', 'bad-ref', 'tests']) assert.equal(step.with[name], `\${{ inputs.${name} }}`, name);
  assert.throws(() => bisect.bisectInputs({ prNumber: 7, goodSha: 'base', badSha: SHA, requestId: 'c1' }), /goodSha "base" is not 40 hex digits/);
});

test('/perf bisect: progress artifacts are perfgate-bisect-progress-<N>, nothing else', () => {
  const bisect = require('../../../bot/src/app/bisect-contract');
  assert.equal(bisect.progressArtifact(3), 'perfgate-bisect-progress-3');
  const cases = { 'perfgate-bisect-progress-1': 1, 'perfgate-bisect-progress-12': 12, 'perfgate-bisect-progress-0': null, 'perfgate-bisect-progress-': null, 'perfgate-bisect': null, 'perfgate-bisect-progress-3x': null, 'perfgate-bisect-progress-../1': null };
  for (const [name, expected] of Object.entries(cases)) assert.equal(bisect.progressStep(name), expected, name);
});

test('/perf bisect: the action names its artifacts as the bot looks for them', async () => {
  const bisect = require('../../../bot/src/app/bisect-contract');
  const action = await import('../../../action/src/bisect.js');
  assert.equal(action.RESULT_ARTIFACT, bisect.RESULT_ARTIFACT);
  for (const steps of [1, 7, 40]) assert.equal(bisect.progressStep(action.progressArtifact(steps)), steps);
});
