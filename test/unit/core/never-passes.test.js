'use strict';
// The gate's first promise, over drawn measurements rather than chosen ones: judge never passes
// a row whose pooled interval of any signal lies wholly beyond a warn limit, always fails one
// wholly beyond a fail limit, never calls a row a closed pass while an interval still reaches a
// limit, and the headline never says nothing got slower while any row is other than a closed
// pass. Rows of any size of change, noise, number of pairs and windows, and limits; time
// alone, instructions alone, or both. fast-check shrinks a failing case to its smallest form.
const test = require('node:test');
const assert = require('node:assert/strict');
const fc = require('fast-check');
const { judge } = require('../../../core/src/verdict');
const { resultsDoc } = require('./results-doc');
const { pooledIntervals } = require('./pooled-intervals');

const drawnLimits = fc.record({
  warn: fc.double({ min: 0.85, max: 1, noNaN: true }),
  gap: fc.double({ min: 0, max: 0.1, noNaN: true }),
  instrWarn: fc.double({ min: 1.001, max: 1.05, noNaN: true }),
  instrGap: fc.double({ min: 0, max: 0.05, noNaN: true }),
}).map(({ warn, gap, instrWarn, instrGap }) => ({
  warn, fail: warn - gap, instructions: { warn: instrWarn, fail: instrWarn + instrGap },
}));

// One row: its true change of time and of instructions, each sample's spread, and how many
// pairs and windows were measured (0: that signal was not measured).
const drawnRow = fc.record({
  rqps: fc.double({ min: 0.6, max: 1.2, noNaN: true }),
  timeSpread: fc.double({ min: 0, max: 0.3, noNaN: true }),
  pairs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 20 })),
  instr: fc.double({ min: 0.95, max: 1.1, noNaN: true }),
  instrSpread: fc.double({ min: 0, max: 0.02, noNaN: true }),
  windows: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 9 })),
  noise: fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: 40, maxLength: 40 }),
}).filter((r) => r.pairs > 0 || r.windows > 0);

function benchOf(r, k) {
  const rounds = Array.from({ length: r.pairs }, (_, index) => [
    { index, side: 'base', qps: 1000, errors: 0, cpu_per_query_us: 100, cs_per_query: 1 },
    { index, side: 'head', qps: 1000 * r.rqps * Math.exp(r.timeSpread * r.noise[index]), errors: 0, cpu_per_query_us: 100, cs_per_query: 1 }]).flat();
  const window = (perQuery) => ({ events: 1000, queries: 1000, seconds: 1, connection: { instructions: perQuery * 1000, threads: 1, per_query: perQuery }, background: { instructions: 0, threads: 8, per_query: 0 } });
  const windows = (ratio, at) => Array.from({ length: r.windows }, (_, i) => window(40000 * ratio * Math.exp(r.instrSpread * r.noise[at + i])));
  const bench = { id: `row-${k}`, name: `row-${k}`, group: 'g', status: 'ok', rounds };
  if (r.windows > 0) bench.instructions = { events: 1000, seed: 1, base: { windows: windows(1, 20) }, head: { windows: windows(r.instr, 30) } };
  return bench;
}

const judged = (rows, limits) => judge(resultsDoc(rows.map(benchOf)), { limits: { default: limits } });

test('judge never passes a row whose interval lies wholly beyond a warn limit, over drawn rows and limits', () => {
  fc.assert(fc.property(fc.array(drawnRow, { minLength: 1, maxLength: 4 }), drawnLimits, (rows, limits) => {
    const v = judged(rows, limits);
    for (const row of v.benchmarks) {
      if (row.verdict === 'error') continue;
      const seen = pooledIntervals(row, limits);
      if (seen.beyondWarn) assert.notEqual(row.verdict, 'pass', `${row.id}: ${row.reason}`);
      if (seen.beyondFail) assert.equal(row.verdict, 'fail', `${row.id}: ${row.reason}`);
      if (row.verdict === 'pass' && !row.could_be) {
        assert.ok(!seen.reachesWarn && !seen.single, `closed pass with an interval reaching a warn limit: ${row.id}: ${row.reason}`);
      }
    }
    const allClosedPasses = v.benchmarks.every((b) => b.verdict === 'pass' && !b.could_be);
    if (!allClosedPasses) assert.doesNotMatch(v.headline, /^Pass: (all \\d+ comparisons within their limits|1 comparison, within its limits)/, v.headline);
    if (v.benchmarks.some((b) => b.verdict === 'fail')) assert.equal(v.verdict, 'fail');
  }), { seed: 20261129, numRuns: 600 });
});
