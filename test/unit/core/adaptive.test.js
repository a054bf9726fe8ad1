'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { nextStep, planIdsFor } = require('../../../core/src/next-step');

const budget = { extra_rounds: 6, step_rounds: 2, confirm_rounds: 4, extra_windows: 6, step_windows: 3, confirm_windows: 3 };
// A verdict from its rows: each {id, needs, time_verdict, instructions_verdict, verdict}.
const verdictOf = (overall, rows = [], ahi = []) => ({
  verdict: overall,
  benchmarks: rows,
  undecided: rows.filter((b) => b.verdict === 'undecided').map((b) => b.id),
  failed: rows.filter((b) => b.verdict === 'fail').map((b) => b.id),
  ahi,
});
const row = (id, verdict, needs = [], time = null, instructions = null) => ({ id, verdict, needs, time_verdict: time, instructions_verdict: instructions });
const fresh = { extra_rounds: 0, confirmed: [], extra_windows: 0, recounted: [] };

test('rows whose time could still change the verdict get more rounds, one step at a time, up to the budget', () => {
  const v = verdictOf('undecided', [row('scan_range=100', 'undecided', ['time'], 'undecided', 'pass')]);
  assert.deepEqual(nextStep(v, budget, fresh), { action: 'extend', ids: ['scan_range=100'], rounds: 2 });
  assert.deepEqual(nextStep(v, budget, { ...fresh, extra_rounds: 4 }), { action: 'extend', ids: ['scan_range=100'], rounds: 2 });
  assert.deepEqual(nextStep(v, { ...budget, extra_rounds: 5 }, { ...fresh, extra_rounds: 4 }), { action: 'extend', ids: ['scan_range=100'], rounds: 1 });
  assert.deepEqual(nextStep(v, budget, { ...fresh, extra_rounds: 6 }), { action: 'done', why: 'extra-round budget of 6 spent' });
});

test('a pass whose interval still reaches the warn limit gets more rounds too', () => {
  const v = verdictOf('pass', [row('point-query', 'pass', ['time'], 'pass', 'pass')]);
  assert.deepEqual(nextStep(v, budget, fresh), { action: 'extend', ids: ['point-query'], rounds: 2 });
});

test('undecided instructions get more windows, never time rounds in their place', () => {
  const v = verdictOf('undecided', [row('point-query', 'undecided', ['instructions'], 'pass', 'undecided')]);
  assert.deepEqual(nextStep(v, budget, fresh), { action: 'count', ids: ['point-query'], windows: 3 });
  assert.deepEqual(nextStep(v, budget, { ...fresh, extra_windows: 4, recounted: ['point-query'] }), { action: 'count', ids: ['point-query'], windows: 2 });
  assert.deepEqual(nextStep(v, budget, { ...fresh, extra_windows: 6, recounted: ['point-query'] }), { action: 'done', why: 'extra-window budget of 6 spent' });
});

test('an instruction fail is counted again on fresh processes once, and not re-timed', () => {
  const v = verdictOf('fail', [row('a', 'fail', [], 'pass', 'fail')]);
  assert.deepEqual(nextStep(v, budget, fresh), { action: 'recount', ids: ['a'], windows: 3 });
  assert.deepEqual(nextStep(v, budget, { ...fresh, recounted: ['a'] }), { action: 'done', why: 'every microbenchmark is decided' });
  assert.deepEqual(nextStep(v, { ...budget, confirm_windows: 0 }, fresh), { action: 'done', why: 'every microbenchmark is decided' });
});

test('an instruction warn is counted again on fresh processes once too: a shift of one pair of processes must not warn', () => {
  const v = verdictOf('warn', [row('update-index_range=100', 'warn', [], 'pass', 'warn'), row('point-query', 'pass', [], 'pass', 'pass')]);
  assert.deepEqual(nextStep(v, budget, fresh), { action: 'recount', ids: ['update-index_range=100'], windows: 3 });
  assert.deepEqual(nextStep(v, budget, { ...fresh, recounted: ['update-index_range=100'] }), { action: 'done', why: 'every microbenchmark is decided' });
  // A warn on time alone is no instruction warn: nothing to count again (it is confirmed with
  // rounds, below).
  const timeWarn = verdictOf('warn', [row('update-index_range=100', 'warn', [], 'warn', 'pass')]);
  assert.equal(nextStep(timeWarn, budget, fresh).action, 'confirm');
});

test('time warns are confirmed on fresh servers too, unless instructions prove them', () => {
  const timeWarn = verdictOf('warn', [row('update-index_range=100', 'warn', [], 'warn', 'pass'), row('point-query', 'pass', [], 'pass', 'pass')]);
  assert.deepEqual(nextStep(timeWarn, budget, fresh), { action: 'confirm', ids: ['update-index_range=100'], rounds: 4 });
  assert.deepEqual(nextStep(timeWarn, budget, { ...fresh, confirmed: ['update-index_range=100'] }), { action: 'done', why: 'every microbenchmark is decided' });
  // Instructions that prove the warn (counted again on fresh processes themselves): no rounds.
  const both = verdictOf('warn', [row('a', 'warn', [], 'warn', 'warn')]);
  assert.deepEqual(nextStep(both, budget, { ...fresh, recounted: ['a'] }), { action: 'done', why: 'every microbenchmark is decided' });
  // A warn of instructions alone is not timed again, and a time warn under an instruction
  // fail is moot.
  assert.equal(nextStep(verdictOf('warn', [row('a', 'warn', [], 'pass', 'warn')]), budget, { ...fresh, recounted: ['a'] }).action, 'done');
  assert.equal(nextStep(verdictOf('fail', [row('a', 'fail', [], 'warn', 'fail')]), budget, { ...fresh, recounted: ['a'] }).action, 'done');
  // A fail of instructions with time failing too needs no rounds; a time fail over an
  // instruction warn does.
  assert.equal(nextStep(verdictOf('fail', [row('a', 'fail', [], 'fail', 'fail')]), budget, { ...fresh, recounted: ['a'] }).action, 'done');
  assert.deepEqual(nextStep(verdictOf('fail', [row('a', 'fail', [], 'fail', 'warn')]), budget, { ...fresh, recounted: ['a'] }), { action: 'confirm', ids: ['a'], rounds: 4 });
  // An AHI gain cell that warns is time alone.
  const cell = { id: 'point-select@4:ahi-gain', verdict: 'warn', needs: [] };
  assert.deepEqual(nextStep(verdictOf('warn', [], [cell]), budget, fresh), { action: 'confirm', ids: ['point-select@4:ahi-gain'], rounds: 4 });
});

test('instructions first, then time: windows are cheap and steady', () => {
  const v = verdictOf('undecided', [
    row('a', 'undecided', ['instructions'], 'pass', 'undecided'),
    row('b', 'undecided', ['time'], 'undecided', 'pass'),
  ]);
  assert.equal(nextStep(v, budget, fresh).action, 'count');
  assert.deepEqual(nextStep(v, budget, { ...fresh, extra_windows: 6 }), { action: 'extend', ids: ['b'], rounds: 2 });
  assert.deepEqual(nextStep(v, budget, { ...fresh, extra_windows: 6, extra_rounds: 6 }), { action: 'done', why: 'extra-window budget of 6 and extra-round budget of 6 spent' });
});

test('time fails are confirmed once, after the open rows are settled or out of budget', () => {
  const v = verdictOf('fail', [row('point-query', 'undecided', ['time'], 'undecided', null), row('update-index_range=100', 'fail', [], 'fail', null)]);
  assert.equal(nextStep(v, budget, fresh).action, 'extend');
  assert.deepEqual(nextStep(v, budget, { ...fresh, extra_rounds: 6 }), { action: 'confirm', ids: ['update-index_range=100'], rounds: 4 });
  const onlyFail = verdictOf('fail', [row('update-index_range=100', 'fail', [], 'fail', null)]);
  assert.deepEqual(nextStep(onlyFail, budget, fresh), { action: 'confirm', ids: ['update-index_range=100'], rounds: 4 });
  assert.deepEqual(nextStep(onlyFail, budget, { ...fresh, confirmed: ['update-index_range=100'] }), { action: 'done', why: 'every microbenchmark is decided' });
});

test('a fail that appears after others were confirmed is confirmed too', () => {
  const v = verdictOf('fail', [row('a', 'fail', [], 'fail'), row('b', 'fail', [], 'fail')]);
  assert.deepEqual(nextStep(v, budget, { ...fresh, extra_rounds: 2, confirmed: ['a'] }), { action: 'confirm', ids: ['b'], rounds: 4 });
});

test('no budget: the first judgement stands', () => {
  const none = { extra_rounds: 0, step_rounds: 2, confirm_rounds: 0, extra_windows: 0, confirm_windows: 0 };
  assert.deepEqual(nextStep(verdictOf('fail', [row('x', 'undecided', ['time'], 'undecided'), row('y', 'fail', [], 'fail')]), none, fresh), { action: 'done', why: 'extra-round budget of 0 spent' });
  assert.deepEqual(nextStep(verdictOf('pass'), none, fresh), { action: 'done', why: 'every microbenchmark is decided' });
});

test('an errored run is never extended', () => {
  assert.deepEqual(nextStep(verdictOf('error', [row('x', 'undecided', ['time'])]), budget, fresh), { action: 'done', why: 'the run has errors' });
});

test('AHI gain cells map to the on and off benchmarks of their workload and thread count, in plan order', () => {
  const plan = {
    benchmarks: [
      { id: 'point-select ahi=off threads=1', name: 'point-select', threads: 1 },
      { id: 'point-select ahi=on threads=1', name: 'point-select', threads: 1 },
      { id: 'point-select ahi=off threads=4', name: 'point-select', threads: 4 },
      { id: 'point-select ahi=on threads=4', name: 'point-select', threads: 4 },
    ],
  };
  const verdict = { ahi: [{ id: 'point-select@4:ahi-gain', name: 'point-select', threads: 4 }] };
  assert.deepEqual(planIdsFor(['point-select@4:ahi-gain', 'point-select ahi=on threads=1'], verdict, plan), [
    'point-select ahi=on threads=1',
    'point-select ahi=off threads=4',
    'point-select ahi=on threads=4',
  ]);
  assert.throws(() => planIdsFor(['nope'], verdict, plan), /verdict names 'nope'/);
});

test('a fail on instructions alone is not re-timed: more timed rounds cannot change it', () => {
  const v = verdictOf('fail', [row('a', 'fail', [], 'pass', 'fail'), row('b', 'fail', [], 'fail', 'pass')]);
  assert.deepEqual(nextStep(v, budget, { ...fresh, recounted: ['a'] }), { action: 'confirm', ids: ['b'], rounds: 4 });
  assert.deepEqual(nextStep(v, budget, { ...fresh, recounted: ['a'], confirmed: ['b'] }), { action: 'done', why: 'every microbenchmark is decided' });
});

// A row of the quick suite's limits whose rQPS interval comes from n pairs of this spread.
const timed = (id, estimate, sdLog, n) => {
  const { ratioInterval } = require('../../../core/src/statistics');
  // n ratios with exactly this geometric mean and log spread (sample sd).
  const half = Math.floor(n / 2);
  const offsets = Array.from({ length: n }, (_, i) => (i < half ? -1 : i >= n - half ? 1 : 0));
  const scale = sdLog / Math.sqrt(offsets.reduce((s, x) => s + x * x, 0) / (n - 1));
  const rqps = ratioInterval(offsets.map((x) => estimate * Math.exp(x * scale)));
  return { ...row(id, 'undecided', ['time'], 'undecided', 'pass'), rqps, limits: { warn: 0.97, fail: 0.93 } };
};

test('extra rounds go only where they could close the interval at the spread measured so far', () => {
  // An A/A row on a noisy runner: ±28% after 5 pairs; six more pairs of that spread leave it
  // straddling both limits wherever its centre lies within half a standard error: no rounds,
  // the row stays open and the step says why.
  const noisy = timed('point-query', 1.0, 0.2, 5);
  assert.ok(noisy.rqps.low < 0.8 && noisy.rqps.high > 1.25, JSON.stringify(noisy.rqps));
  // A 15% slower row of the same spread: six more pairs would prove at least a warn.
  const slower = timed('update-index_range=100', 0.85, 0.12, 5);
  // A quiet row near the limits: six more pairs would settle it.
  const quiet = timed('scan_range=100', 0.995, 0.03, 5);
  const v = verdictOf('undecided', [noisy, slower, quiet]);
  assert.deepEqual(nextStep(v, budget, fresh), { action: 'extend', ids: ['update-index_range=100', 'scan_range=100'], rounds: 2 });
  assert.deepEqual(nextStep(verdictOf('undecided', [noisy]), budget, fresh),
    { action: 'done', why: 'the 6 extra rounds left could not close the open time interval at the spread measured' });
  // Fewer rounds left narrow less: two more pairs would leave a quiet row nearer the warn
  // limit where it is.
  const nearer = timed('scan_range=100', 0.985, 0.03, 5);
  assert.deepEqual(nextStep(verdictOf('undecided', [slower, nearer]), budget, { ...fresh, extra_rounds: 4 }).ids, ['update-index_range=100']);
  assert.deepEqual(nextStep(verdictOf('undecided', [slower, nearer]), budget, fresh).ids, ['update-index_range=100', 'scan_range=100']);
  // Too few pairs to know a spread: rounds, as before.
  const one = { ...row('insert_range=100', 'undecided', ['time'], 'undecided', 'pass'), rqps: { n: 1, estimate: 0.9, low: null, high: null, sd_log: null }, limits: { warn: 0.97, fail: 0.93 } };
  assert.deepEqual(nextStep(verdictOf('undecided', [one]), budget, fresh).ids, ['insert_range=100']);
});

test('the projection allows for the uncertain centre: a row read 0.96 [0.88, 1.05] after five pairs goes on', () => {
  // A 20% slower write row whose first five noisy pairs read 0.96: with 13 rounds left, the
  // interval projected at 0.96 itself would still reach both limits ([0.93, 0.99]), but half a
  // standard error higher it would clear the fail limit: more rounds can still change it.
  const { projectedInterval } = require('../../../core/src/statistics');
  const early = timed('update-index_range=100', 0.96, 0.066, 5);
  assert.equal(early.rqps.low.toFixed(2), '0.88');
  assert.equal(early.rqps.high.toFixed(2), '1.04');
  const atEstimate = projectedInterval(early.rqps, 13);
  assert.ok(atEstimate.low < 0.93 && atEstimate.high > 0.97, JSON.stringify(atEstimate));
  assert.deepEqual(nextStep(verdictOf('undecided', [early]), { ...budget, extra_rounds: 13 }, fresh),
    { action: 'extend', ids: ['update-index_range=100'], rounds: 2 });
  // Where no centre within half a standard error could close it (±45% after five pairs), the
  // row stops as before.
  const noisy = timed('point-query', 1.0, 0.3, 5);
  assert.equal(nextStep(verdictOf('undecided', [noisy]), { ...budget, extra_rounds: 13 }, fresh).action, 'done');
});
