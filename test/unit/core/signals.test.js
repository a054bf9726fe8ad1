'use strict';
// The rule that makes one verdict of a microbenchmark's time and instruction signals, as a
// table written out by hand: every pair of signal states, and what each must come to. The
// same table is in docs/verdicts.md.
const test = require('node:test');
const assert = require('node:assert/strict');
const { rowVerdict, signalRange } = require('../../../core/src/row-verdict');
const { judge } = require('../../../core/src/verdict');

// A signal's state: not measured, failed, or the span of verdicts its interval covers.
const STATES = {
  none: null,
  error: { error: 'failed' },
  P: { best: 'pass', worst: 'pass' },
  W: { best: 'warn', worst: 'warn' },
  F: { best: 'fail', worst: 'fail' },
  PW: { best: 'pass', worst: 'warn' }, // reaches the warn limit only
  WF: { best: 'warn', worst: 'fail' }, // wholly beyond warn, reaches the fail limit
  PF: { best: 'pass', worst: 'fail' }, // reaches the fail limit from within warn
};
const COLUMNS = ['none', 'error', 'P', 'W', 'F', 'PW', 'WF', 'PF'];

// rows: the time signal; columns: the instruction signal, in the order of COLUMNS. Each cell:
// the verdict, then the signals that still need their own measurement (t: time, i: instructions);
// '+' marks a pass that is open (its interval still reaches the warn limit).
const TABLE = {
  none: ['error', 'error', 'pass', 'warn', 'fail', 'pass+ i', 'undecided i', 'undecided i'],
  error: ['error', 'error', 'error', 'error', 'error', 'error', 'error', 'error'],
  P: ['pass', 'error', 'pass', 'warn', 'fail', 'pass+ i', 'undecided i', 'undecided i'],
  W: ['warn', 'error', 'warn', 'warn', 'fail', 'warn', 'undecided i', 'undecided i'],
  F: ['fail', 'error', 'fail', 'fail', 'fail', 'fail', 'fail', 'fail'],
  PW: ['pass+ t', 'error', 'pass+ t', 'warn', 'fail', 'pass+ ti', 'undecided i', 'undecided ti'],
  WF: ['undecided t', 'error', 'undecided t', 'undecided t', 'fail', 'undecided t', 'undecided ti', 'undecided ti'],
  PF: ['undecided t', 'error', 'undecided t', 'undecided t', 'fail', 'undecided ti', 'undecided ti', 'undecided ti'],
};

function expected(cell) {
  const [word, needs = ''] = cell.split(' ');
  const open = word.endsWith('+') || word === 'undecided';
  return {
    verdict: word.replace('+', ''),
    open: word === 'error' ? false : open,
    needs: [...needs].map((c) => ({ t: 'time', i: 'instructions' })[c]),
  };
}

test('every pair of signal states comes to the verdict of the table', () => {
  for (const [time, row] of Object.entries(TABLE)) {
    row.forEach((cell, k) => {
      const got = rowVerdict({ time: STATES[time], instructions: STATES[COLUMNS[k]] });
      const want = expected(cell);
      const where = `time ${time}, instructions ${COLUMNS[k]}`;
      assert.equal(got.verdict, want.verdict, where);
      assert.equal(got.open, want.open, where);
      assert.deepEqual(got.needs, want.needs, where);
    });
  }
});

test('where an interval lies against its limits, for both directions', () => {
  const L = { warn: 0.97, fail: 0.93 };
  const rq = (low, high) => signalRange({ estimate: (low + high) / 2, low, high }, L, { higherIsWorse: false });
  assert.deepEqual(rq(0.98, 1.05), { best: 'pass', worst: 'pass' });
  assert.deepEqual(rq(0.97, 1.05), { best: 'pass', worst: 'pass' }); // at the limit is within it
  assert.deepEqual(rq(0.95, 1.05), { best: 'pass', worst: 'warn' });
  assert.deepEqual(rq(0.90, 1.05), { best: 'pass', worst: 'fail' });
  assert.deepEqual(rq(0.90, 0.96), { best: 'warn', worst: 'fail' });
  assert.deepEqual(rq(0.94, 0.96), { best: 'warn', worst: 'warn' });
  assert.deepEqual(rq(0.80, 0.92), { best: 'fail', worst: 'fail' });
  const I = { warn: 1.02, fail: 1.04 };
  const ins = (low, high) => signalRange({ estimate: (low + high) / 2, low, high }, I, { higherIsWorse: true });
  assert.deepEqual(ins(0.99, 1.01), { best: 'pass', worst: 'pass' });
  assert.deepEqual(ins(1.039, 1.046), { best: 'warn', worst: 'fail' });
  assert.deepEqual(ins(1.041, 1.046), { best: 'fail', worst: 'fail' });
  // One sample is no interval: it could be anything.
  assert.deepEqual(signalRange({ estimate: 1.2, low: null, high: null }, I, { higherIsWorse: true }), { best: 'pass', worst: 'fail' });
});

// The case that passed a measured 4% CPU regression: every instruction window 4.1-4.4% above
// base, the interval wholly above the warn limit and straddling the fail limit, and a noisy
// time interval that happened to lie above the warn limit.
test('instructions wholly above the warn limit with time passing is never a pass', () => {
  const windows = (perQuery) => perQuery.map((q) => ({ events: 1000, queries: 1000, seconds: 1, connection: { instructions: q * 1000, threads: 1, per_query: q }, background: { instructions: 0, threads: 8, per_query: 0 } }));
  const r = {
    schema: 'perfgate.results/v1', plan: { suite: 'quick' }, status: 'ok', errors: [],
    machine: { cpu_model: 'x', cores: 2, memory_bytes: 1, kernel: 'k', id: 'm' },
    sides: { base: { basedir: '/b', flavor: 'mariadb', version: '1' }, head: { basedir: '/h', flavor: 'mariadb', version: '2' } },
    benchmarks: [{
      id: 'point-query', name: 'point-query', group: 'point', status: 'ok',
      rounds: [1.10, 0.97, 1.12, 1.05, 1.08, 1.02].flatMap((ratio, index) => [
        { index, side: 'base', qps: 1000, errors: 0, cpu_per_query_us: 100, cs_per_query: 1 },
        { index, side: 'head', qps: 1000 * ratio, errors: 0, cpu_per_query_us: 100, cs_per_query: 1 }]),
      instructions: { events: 1000, seed: 1, base: { windows: windows([41000, 41010, 40990]) }, head: { windows: windows([42700, 42650, 42760]) } },
    }],
  };
  const limits = { default: { warn: 0.97, fail: 0.93, instructions: { warn: 1.02, fail: 1.04 } } };
  const v = judge(r, { limits });
  const row = v.benchmarks[0];
  assert.equal(row.time_verdict, 'pass');
  assert.notEqual(row.verdict, 'pass');
  assert.equal(row.verdict, 'undecided');
  assert.deepEqual(row.needs, ['instructions']);
  assert.equal(row.reason, '4% more instructions per query, could be beyond its fail limit: instr/o 1.042 [1.038, 1.046] lies wholly above the warn limit 1.02 and reaches above the fail limit 1.04 after 3 windows; rQPS 1.06 [1.00, 1.12] lies above the warn limit 0.97');
  assert.equal(v.headline, 'Undecided: point-query: 4% more instructions per query, could be beyond its fail limit (instr/o 1.042 [1.038, 1.046], fail limit 1.04); more instruction windows than the budget allows would decide.');
  // More windows at the same 4.2% narrow the interval above the fail limit: a fail, named so.
  r.benchmarks[0].instructions.base.windows = windows([41000, 41010, 40990, 41005, 40995, 41000]);
  r.benchmarks[0].instructions.head.windows = windows([42700, 42710, 42690, 42705, 42695, 42700]);
  const more = judge(r, { limits });
  assert.equal(more.benchmarks[0].verdict, 'fail');
  assert.equal(more.headline, 'Fail: point-query: 4% more instructions per query (instr/o 1.041 [1.041, 1.041], fail limit 1.04).');
});

// A time-only slowdown (a wait on one call in K): instructions unchanged, time interval open.
test('an open time interval is not settled by unchanged instructions', () => {
  const v = rowVerdict({ time: STATES.PF, instructions: STATES.P });
  assert.equal(v.verdict, 'undecided');
  assert.deepEqual(v.needs, ['time']);
});
