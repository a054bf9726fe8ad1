'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadThresholds } = require('../../../core/src/config/thresholds');
const { resolvePlan, extensionPlan } = require('../../../core/src/plan');
const { schemaProblem } = require('../../../core/src/schemas');
const { UsageError } = require('../../../core/src/errors');

const config = loadThresholds();
const sides = { base: { basedir: '/srv/base', label: 'base' }, head: { basedir: '/srv/head', label: 'head' } };

test('quick resolves to one benchmark per catalogue name, in suite order', () => {
  const plan = resolvePlan(config, 'quick', {}, sides, '2026-01-01T00:00:00Z');
  assert.equal(schemaProblem('plan', plan), null);
  assert.equal(plan.suite, 'quick');
  assert.equal(plan.created, '2026-01-01T00:00:00Z');
  assert.deepEqual(plan.scale, { tables: 8, rows: 10000 });
  assert.deepEqual(plan.measure, { seconds: 1, warmup_seconds: 1, rounds: 5, side_schedule: 'alternating', signals: ['time', 'instructions'], instructions: { windows: 3, seed: 1 } });
  // Every flavour's profile: the harness picks a side's by what its server says it is.
  assert.deepEqual(Object.fromEntries(Object.entries(plan.profiles).map(([f, p]) => [f, p.name])), { mariadb: 'mariadb', mysql: 'mysql', percona: 'mysql' });
  assert.deepEqual(plan.profiles.mysql, { name: 'mysql', file: 'thresholds/profiles/mysql.cnf', options: config.profiles.mysql.options });
  assert.equal(plan.profiles.mariadb.options.innodb_adaptive_hash_index, 'OFF');
  assert.deepEqual(plan.benchmarks.map((b) => b.id), config.suites.quick.benchmarks);
  assert.deepEqual(plan.benchmarks[1], {
    id: 'random-points_range=1000',
    name: 'random-points_range=1000',
    group: 'point',
    kind: 'read',
    script: 'perfgate_points',
    options: { points_on: 'k', points_columns: 'id, k, c, pad', points: 1000 },
    threads: 1,
    shape: 'SELECT id, k, c, pad FROM sbtestN FORCE INDEX (k_N) WHERE k IN (<1000 random values>)',
    instructions_events: 6,
  });
  assert.deepEqual(plan.sides, sides);
});

test('side_schedule comes from the suite or an override, and is written only when not in-turn', () => {
  const inTurnConfig = { ...config, suites: { ...config.suites, quick: { ...config.suites.quick, measure: { ...config.suites.quick.measure, side_schedule: 'in-turn' } } } };
  assert.equal(resolvePlan(inTurnConfig, 'quick', {}, sides).measure.side_schedule, undefined);
  for (const schedule of ['together', 'alternating']) {
    assert.equal(resolvePlan(inTurnConfig, 'quick', { side_schedule: schedule }, sides).measure.side_schedule, schedule);
    const quick = config.suites.quick;
    const suite = { ...config, suites: { ...config.suites, quick: { ...quick, measure: { ...quick.measure, side_schedule: schedule } } } };
    const plan = resolvePlan(suite, 'quick', {}, sides);
    assert.equal(plan.measure.side_schedule, schedule);
    assert.equal(resolvePlan(suite, 'quick', { side_schedule: 'in-turn' }, sides).measure.side_schedule, undefined);
    const pinned = () => resolvePlan(suite, 'quick', { pin_cpus: { server: '0', client: '1' } }, sides);
    if (schedule === 'together') {
      assert.throws(pinned, { name: 'UsageError', message: /^--sides together: the sides cannot be pinned .*expected --sides in-turn, or --pin-cpus none$/ });
    } else {
      assert.deepEqual(pinned().measure.pin_cpus, { server: '0', client: '1' });  // one side runs at a time
    }
    // Extra rounds are measured the same way as the rounds they add to.
    assert.equal(extensionPlan(plan, [plan.benchmarks[0].id], 2, 5).measure.side_schedule, schedule);
  }
});

test('--metric picks the signals: time alone drops the instruction settings; instructions need events', () => {
  const timeOnly = resolvePlan(config, 'quick', { signals: ['time'] }, sides);
  assert.equal(schemaProblem('plan', timeOnly), null);
  assert.deepEqual(timeOnly.measure.signals, ['time']);
  assert.equal(timeOnly.measure.instructions, undefined);
  assert.ok(timeOnly.benchmarks.every((b) => b.instructions_events === undefined));
  const full = resolvePlan(config, 'full', { signals: ['instructions'] }, sides);
  assert.equal(schemaProblem('plan', full), null);
  assert.ok(full.benchmarks.every((b) => b.instructions_events > 0));
  assert.throws(() => resolvePlan(config, 'ahi', { signals: ['time', 'instructions'] }, sides),
    { message: '--metric: instructions are not counted for AHI cells (suite ahi); expected --metric time' });
  const noEvents = { ...config, catalogue: { ...config.catalogue, 'scan_range=100': { ...config.catalogue['scan_range=100'], instructions: null } } };
  assert.throws(() => resolvePlan(noEvents, 'quick', {}, sides),
    { message: "--metric: 'scan_range=100' has no instructions.events in the catalogue; expected one for every microbenchmark whose instructions are counted (or --metric time)" });
  // The plan schema refuses instruction settings the harness could not run.
  const plan = resolvePlan(config, 'quick', {}, sides);
  assert.match(schemaProblem('plan', { ...plan, measure: { ...plan.measure, instructions: undefined } }), /^measure: missing key 'instructions'$/);
  assert.match(schemaProblem('plan', { ...plan, benchmarks: [{ ...plan.benchmarks[0], instructions_events: undefined }] }), /^benchmarks\[0\]: missing key 'instructions_events'$/);
});

test('overrides replace scale, timing and threads; several thread counts make one id each', () => {
  const plan = resolvePlan(config, 'quick', { seconds: 1, warmup_seconds: 0, rounds: 2, tables: 2, rows: 1000, threads: [1, 4] }, sides);
  assert.deepEqual(plan.scale, { tables: 2, rows: 1000 });
  assert.deepEqual(plan.measure, { seconds: 1, warmup_seconds: 0, rounds: 2, side_schedule: 'alternating', signals: ['time', 'instructions'], instructions: { windows: 3, seed: 1 } });
  assert.equal(plan.benchmarks.length, 28);
  assert.deepEqual(plan.benchmarks.slice(0, 2).map((b) => [b.id, b.name, b.threads]), [
    ['point-query threads=1', 'point-query', 1],
    ['point-query threads=4', 'point-query', 4],
  ]);
  assert.equal(plan.created, undefined);
});

test('ahi resolves to one cell per partition count × workload × AHI state × thread count', () => {
  const plan = resolvePlan(config, 'ahi', {}, sides);
  assert.equal(schemaProblem('plan', plan), null);
  assert.equal(plan.benchmarks.length, 2 * 9 * 2 * 2);
  assert.deepEqual(plan.benchmarks.slice(0, 4).map((b) => b.id), [
    'point-select parts=1 ahi=off threads=1',
    'point-select parts=1 ahi=off threads=4',
    'point-select parts=1 ahi=on threads=1',
    'point-select parts=1 ahi=on threads=4',
  ]);
  // Every cell of one partition count before the next: one restart of the servers between them.
  const parts = plan.benchmarks.map((b) => b.ahi_parts);
  assert.deepEqual(parts, [...Array(36).fill(1), ...Array(36).fill(8)]);
  assert.ok(plan.benchmarks.some((b) => b.id === 'point-select+2%update-nonindex parts=8 ahi=on threads=4'));
  const cell = plan.benchmarks.find((b) => b.id === 'point-select+5%update-index parts=8 ahi=on threads=4');
  assert.deepEqual(cell, {
    id: 'point-select+5%update-index parts=8 ahi=on threads=4',
    name: 'point-select+5%update-index parts=8',
    group: 'ahi',
    kind: 'write',
    script: 'perfgate_ahi_mix',
    options: { update_percent: 5, update: 'index' },
    threads: 4,
    shape: 'SELECT c FROM sbtestN WHERE id = ?; 5% of events: UPDATE sbtestN SET k = k + 1 WHERE id = ?',
    ahi: 'on',
    ahi_parts: 8,
  });
  const readOnly = plan.benchmarks[0];
  assert.deepEqual(readOnly.options, { update_percent: 0 });
  assert.equal(readOnly.kind, 'read');
});

test('the pull request\'s AHI slice: 2% indexed updates, AHI off and on, the servers\' own partitions', () => {
  const plan = resolvePlan(config, 'ahi-quick', {}, sides);
  assert.equal(schemaProblem('plan', plan), null);
  assert.deepEqual(plan.benchmarks.map((b) => b.id), [
    'point-select ahi=off threads=4',
    'point-select ahi=on threads=4',
    'point-select+2%update-index ahi=off threads=4',
    'point-select+2%update-index ahi=on threads=4',
  ]);
  assert.ok(plan.benchmarks.every((b) => !('ahi_parts' in b)));
  assert.deepEqual(plan.benchmarks[3].options, { update_percent: 2, update: 'index' });
});

test('a plan with an AHI partition count outside 1..512 breaks the plan schema', () => {
  const plan = resolvePlan(config, 'ahi', {}, sides);
  plan.benchmarks[0].ahi_parts = 0;
  assert.match(schemaProblem('plan', plan), /ahi_parts/);
});

test('ahi threads override', () => {
  const plan = resolvePlan(config, 'ahi', { threads: [2] }, sides);
  assert.equal(plan.benchmarks.length, 36);
  assert.ok(plan.benchmarks.every((b) => b.threads === 2 && b.id.endsWith(' threads=2')));
});

test('an unknown suite names --suite, the folder and the known suites', () => {
  assert.throws(() => resolvePlan(config, 'nightly', {}, sides), (err) => {
    assert.ok(err instanceof UsageError);
    assert.equal(err.message, `--suite 'nightly': no suites/nightly.yml in ${config.dir}; expected one of: ahi-quick, ahi, contention-quick, ddl-quick, ddl, full, quick, tpcc`);
    return true;
  });
});

test('an extension plan keeps the plan but only the given benchmarks and continues round numbers', () => {
  const plan = resolvePlan(config, 'quick', {}, sides);
  const extra = extensionPlan(plan, ['scan_range=100', 'point-query'], 2, 6);
  assert.equal(schemaProblem('plan', extra), null);
  assert.deepEqual(extra.benchmarks.map((b) => b.id), ['point-query', 'scan_range=100']);
  assert.deepEqual(extra.measure, { seconds: 1, warmup_seconds: 1, rounds: 2, first_round: 6, side_schedule: 'alternating', signals: ['time'] });
  assert.throws(() => extensionPlan(plan, ['nope'], 2, 4), /not in the plan: nope/);
});

test('a chain\'s plan names every head in order; it measures time only', () => {
  const chain = { ...sides, head2: { basedir: '/srv/head2', label: 'head2' }, head3: { basedir: '/srv/head3', label: 'head3' } };
  const plan = resolvePlan(config, 'quick', { signals: ['time'] }, chain);
  assert.equal(schemaProblem('plan', plan), null);
  assert.deepEqual(Object.keys(plan.sides), ['base', 'head', 'head2', 'head3']);
  assert.equal(plan.sides.head3.basedir, '/srv/head3');
  assert.throws(() => resolvePlan(config, 'quick', {}, chain),
    { name: 'UsageError', message: '--metric: a chain of 3 heads measures time only, but suite quick counts instructions too (measure.signals); expected --metric time' });
});
