'use strict';
// The TPC-C suite: its catalogue entry, the rules a TPC-C suite follows and the plan it gives.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadThresholds } = require('../../../core/src/config/thresholds');
const { resolvePlan } = require('../../../core/src/plan');
const { thresholdsWith, lineOf, configErrorOf: errorOf, expectConfigErrors } = require('../../support/thresholds-copy');

const SIDES = { base: { basedir: '/opt/base' }, head: { basedir: '/opt/head' } };
const replace = (from, to) => (text) => {
  assert.ok(text.includes(from), `the shipped file holds ${from}`);
  return text.replace(from, to);
};

test('the TPC-C suite\'s plan: one row run by go-tpc, its warehouses the scale\'s tables (the plan checked against its schema)', () => {
  const plan = resolvePlan(loadThresholds(), 'tpcc', { tables: 2, threads: [4] }, SIDES);
  assert.deepEqual(plan.scale, { tables: 2, rows: 100000 });
  assert.deepEqual([plan.measure.signals, plan.measure.warmup_seconds, plan.profiles.mariadb.name], [['time'], 0, 'tpcc-mariadb']);
  const [row] = plan.benchmarks;
  assert.deepEqual({ ...row, shape: undefined }, {
    id: 'tpcc', name: 'tpcc', group: 'tpcc', kind: 'write', script: 'perfgate_tpcc', options: {}, threads: 4, shape: undefined,
  });
  assert.match(row.shape, /^go-tpc's TPC-C mix .*tpmC \/ 60/);
  // Counting instructions takes the catalogue's window size, in transactions of the mix.
  const counted = resolvePlan(loadThresholds(), 'tpcc', { signals: ['time', 'instructions'] }, SIDES);
  assert.equal(counted.benchmarks[0].instructions_events, loadThresholds().catalogue.tpcc.instructions.events);
});

test('TPC-C entries and suites with bad keys are refused naming file, line, key and the expected form', async (t) => {
  const entry = '  tpcc:\n    group: tpcc\n    kind: write\n';
  const cases = [
    {
      name: 'a sysbench script on a TPC-C entry',
      edits: { 'benchmarks.yml': replace(entry, `${entry}    script: oltp_insert\n`) },
      file: 'benchmarks.yml', line: (dir) => lineOf(dir, 'benchmarks.yml', '  tpcc:') + 3,
      expect: (f, l) => `${f}:${l}: benchmarks.tpcc.script: unknown key; expected one of: group, kind, instructions`,
    },
    {
      name: 'a TPC-C entry that says it reads',
      edits: { 'benchmarks.yml': replace(entry, entry.replace('kind: write', 'kind: read')) },
      file: 'benchmarks.yml', line: (dir) => lineOf(dir, 'benchmarks.yml', '  tpcc:') + 2,
      expect: (f, l) => `${f}:${l}: benchmarks.tpcc.kind: 'read' is not valid; expected one of: write`,
    },
    {
      name: 'a suite mixing TPC-C and microbenchmarks',
      edits: { 'suites/tpcc.yml': replace('  - tpcc\n', '  - tpcc\n  - point-query\n') },
      file: 'suites/tpcc.yml', at: '  - point-query',
      expect: (f, l) => `${f}:${l}: benchmarks[1]: 'point-query' is not TPC-C, 'tpcc' is; expected a suite of TPC-C rows only (they run on go-tpc's tables)`,
    },
    {
      name: 'a TPC-C suite with rows of its own',
      edits: { 'suites/tpcc.yml': replace('  rows: 100000 ', '  rows: 5000 ') },
      file: 'suites/tpcc.yml', at: '  rows: 5000',
      expect: (f, l) => `${f}:${l}: scale.rows: 5000 is not valid; expected 100000 (TPC-C's stock rows per warehouse; scale.tables is the number of warehouses)`,
    },
    {
      name: 'a TPC-C suite with the sides together',
      edits: { 'suites/tpcc.yml': replace('  signals: [time]', '  signals: [time]\n  side_schedule: together') },
      file: 'suites/tpcc.yml', at: 'side_schedule: together',
      expect: (f, l) => `${f}:${l}: measure.side_schedule: 'together' is not valid; expected in-turn (each round runs on a server restarted on a fresh copy, one side after the other)`,
    },
  ];
  await expectConfigErrors(t, cases);
});

test('a sysbench entry cannot name the TPC-C runner as its script', () => {
  const dir = thresholdsWith({ 'benchmarks.yml': replace('    script: perfgate_scan', '    script: perfgate_tpcc') });
  assert.match(errorOf(dir), /benchmarks\.scan_range=100\.script: "perfgate_tpcc" is not valid; expected one of: oltp_delete, /);
});
