'use strict';
// The rule that makes one verdict of a microbenchmark's time and instruction signals, as a
// table: every pair of verdicts, and what each must come to.
const test = require('node:test');
const assert = require('node:assert/strict');
const { combineSignals } = require('../../../core/src/verdict');

const V = ['pass', 'warn', 'inconclusive', 'fail', 'error'];
const sig = (verdict, what) => ({ verdict, reason: `${what} ${verdict}` });

// rows: time verdict; columns: instructions verdict, in the order of V.
const TABLE = {
  pass: ['pass', 'warn', 'pass', 'fail', 'error'],
  warn: ['warn', 'warn', 'warn', 'fail', 'error'],
  inconclusive: ['pass', 'warn', 'inconclusive', 'fail', 'error'],
  fail: ['fail', 'fail', 'fail', 'fail', 'error'],
  error: ['error', 'error', 'error', 'error', 'error'],
};

test('every pair of time and instruction verdicts comes to the verdict of the table', () => {
  for (const [time, row] of Object.entries(TABLE)) {
    row.forEach((expected, k) => {
      const got = combineSignals(sig(time, 'time'), sig(V[k], 'instr'));
      assert.equal(got.verdict, expected, `time ${time}, instructions ${V[k]}`);
    });
  }
});

test('an instructions fail is a fail even when the time interval is open', () => {
  assert.deepEqual(combineSignals(sig('inconclusive', 'rQPS'), sig('fail', 'instr/o')), { verdict: 'fail', reason: 'instr/o fail; rQPS inconclusive' });
});

test('a time fail stays a fail when instructions are unchanged (waits, locks, I/O, fsyncs)', () => {
  assert.deepEqual(combineSignals(sig('fail', 'rQPS'), sig('pass', 'instr/o')), { verdict: 'fail', reason: 'rQPS fail; instr/o pass' });
});

test('the steady signal decides what the noisy one cannot, and leads the reason', () => {
  assert.deepEqual(combineSignals(sig('inconclusive', 'rQPS'), sig('pass', 'instr/o')), { verdict: 'pass', reason: 'instr/o pass; rQPS inconclusive' });
  assert.deepEqual(combineSignals(sig('pass', 'rQPS'), sig('inconclusive', 'instr/o')), { verdict: 'pass', reason: 'rQPS pass; instr/o inconclusive' });
  assert.deepEqual(combineSignals(sig('pass', 'rQPS'), sig('warn', 'instr/o')), { verdict: 'warn', reason: 'instr/o warn; rQPS pass' });
});

test('time wholly below the warn limit but open at the fail limit, instructions unchanged: warn, not pass (a slowdown that runs no instructions)', () => {
  const slower = { verdict: 'inconclusive', reason: 'rQPS 0.90 [0.85, 0.96] straddles the fail limit 0.93', slowerThan: 0.97 };
  assert.deepEqual(combineSignals(slower, sig('pass', 'instr/o')), {
    verdict: 'warn',
    reason: 'rQPS 0.90 [0.85, 0.96] straddles the fail limit 0.93; instr/o pass: slower than the warn limit 0.97 on time throughout, which the instructions do not explain (waits, locks, I/O)',
  });
  // Instructions that say more than pass still decide; an interval reaching above warn is open.
  assert.equal(combineSignals(slower, sig('warn', 'instr/o')).verdict, 'warn');
  assert.equal(combineSignals(slower, sig('fail', 'instr/o')).verdict, 'fail');
  assert.equal(combineSignals({ ...slower, slowerThan: null }, sig('pass', 'instr/o')).verdict, 'pass');
  // cpu/o limits settled that rQPS interval as a pass: still a slowdown time measured.
  assert.equal(combineSignals({ ...slower, verdict: 'pass' }, sig('pass', 'instr/o')).verdict, 'warn');
});

test('a single signal is its own verdict', () => {
  for (const v of V) {
    assert.deepEqual(combineSignals(null, sig(v, 'instr/o')), { verdict: v, reason: `instr/o ${v}` });
    assert.deepEqual(combineSignals(sig(v, 'rQPS'), null), { verdict: v, reason: `rQPS ${v}` });
  }
});
