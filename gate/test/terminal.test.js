'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { renderTerminal, summarizeBenchmark, pairedRatios, median } = require('../src/render/terminal');

const round = (index, side, qps, cpu, cs) => ({ index, side, qps, cpu_per_query_us: cpu, cs_per_query: cs });

test('median of an odd and an even count', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([]), null);
});

test('ratios pair rounds of the same index, head over base, skipping unpaired and null metrics', () => {
  const rounds = [
    round(0, 'base', 100, 10, 2), round(0, 'head', 90, 11, null),
    round(1, 'head', 120, 12, 3), round(1, 'base', 100, 10, 2),
    round(2, 'base', 100, 10, 2),
  ];
  assert.deepEqual(pairedRatios(rounds, 'qps'), [0.9, 1.2]);
  assert.deepEqual(pairedRatios(rounds, 'cs_per_query'), [1.5]);
  const s = summarizeBenchmark({ id: 'x', status: 'ok', rounds });
  assert.ok(Math.abs(s.rqps - 1.05) < 1e-12);
  assert.ok(Math.abs(s.cpu - 1.15) < 1e-12);
  assert.equal(s.pairs, 2);
});

test('the table has one row per microbenchmark and marks errors', () => {
  const results = {
    plan: { suite: 'quick' },
    status: 'error',
    sides: { base: { label: 'base', version: '10.11.18-MariaDB' }, head: { label: 'head', version: '10.11.19-MariaDB' } },
    benchmarks: [
      { id: 'point-query', status: 'ok', rounds: [round(0, 'base', 1000, 50, 1), round(0, 'head', 950, 52, 1)] },
      { id: 'update-index_range=100', status: 'error', rounds: [] },
    ],
  };
  assert.equal(renderTerminal(results), [
    'rQPS of head (10.11.19-MariaDB) against base (10.11.18-MariaDB), suite quick',
    '',
    'microbenchmark           rQPS  cpu/o   cs/o  base QPS  head QPS  pairs',
    'point-query             0.950  1.040  1.000      1000       950      1',
    'update-index_range=100  error      -      -         -         -      0',
    '',
    'rQPS: head/base QPS, median of the paired round ratios (1.000 = same, below 1 = head slower).',
    'cpu/o, cs/o: head/base mysqld CPU time and context switches per query (above 1 = head does more work).',
    'The run has errors: rows marked error are not measurements.',
    '',
  ].join('\n'));
});
