'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { renderTerminal } = require('../../../core/src/render/terminal');

const round = (index, side, qps, cpu, cs) => ({ index, side, qps, cpu_per_query_us: cpu, cs_per_query: cs });

test('a run that was not judged shows the same figures a verdict would: geometric means of paired ratios', () => {
  const results = {
    plan: { suite: 'quick' },
    status: 'error',
    sides: { base: { label: 'base', version: '10.11.18-MariaDB' }, head: { label: 'head', version: '10.11.19-MariaDB' } },
    benchmarks: [
      // ratios 0.9 and 1.2: geometric mean √1.08 = 1.039 (a median or an arithmetic mean would say 1.05)
      { id: 'point-query', status: 'ok', rounds: [round(0, 'base', 100, 10, 2), round(0, 'head', 90, 11, null), round(1, 'head', 120, 12, 3), round(1, 'base', 100, 10, 2), round(2, 'base', 100, 10, 2)] },
      { id: 'update-index_range=100', status: 'error', rounds: [] },
    ],
  };
  assert.equal(renderTerminal(results), [
    'rQPS of head (10.11.19-MariaDB) against base (10.11.18-MariaDB), suite quick: measured, not judged',
    '',
    'microbenchmark           rQPS  95% interval  cpu/o  cs/o  pairs',
    'point-query              1.04     0.17–6.46   1.15  1.50      2',
    'update-index_range=100  error             –      –     –      0',
    '',
    'rQPS: head/base QPS, the geometric mean of the paired round ratios (1.00 = same, below 1 = head slower).',
    'cpu/o, cs/o: head/base mysqld CPU time and context switches per query (above 1 = head does more work).',
    'The run has errors: rows marked error are not measurements.',
    '',
  ].join('\n'));
});
