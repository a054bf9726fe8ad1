'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { nextStep, planIdsFor } = require('../../../core/src/next-step');

const budget = { extra_rounds: 6, step_rounds: 2, confirm_rounds: 4 };
const verdictOf = (overall, inconclusive = [], failed = [], ahi = []) => ({ verdict: overall, inconclusive, failed, ahi });
const fresh = { extra_rounds: 0, confirmed: [] };

test('undecided microbenchmarks get more rounds, one step at a time, up to the budget', () => {
  const v = verdictOf('inconclusive', ['scan_range=100']);
  assert.deepEqual(nextStep(v, budget, fresh), { action: 'extend', ids: ['scan_range=100'], rounds: 2 });
  assert.deepEqual(nextStep(v, budget, { extra_rounds: 4, confirmed: [] }), { action: 'extend', ids: ['scan_range=100'], rounds: 2 });
  assert.deepEqual(nextStep(v, { ...budget, extra_rounds: 5 }, { extra_rounds: 4, confirmed: [] }), { action: 'extend', ids: ['scan_range=100'], rounds: 1 });
  assert.deepEqual(nextStep(v, budget, { extra_rounds: 6, confirmed: [] }), { action: 'done', why: 'extra-round budget of 6 spent' });
});

test('fails are confirmed once, after the undecided ones are settled or out of budget', () => {
  const v = verdictOf('fail', ['point-query'], ['update-index_range=100']);
  assert.equal(nextStep(v, budget, fresh).action, 'extend');
  assert.deepEqual(nextStep(v, budget, { extra_rounds: 6, confirmed: [] }), { action: 'confirm', ids: ['update-index_range=100'], rounds: 4 });
  const onlyFail = verdictOf('fail', [], ['update-index_range=100']);
  assert.deepEqual(nextStep(onlyFail, budget, fresh), { action: 'confirm', ids: ['update-index_range=100'], rounds: 4 });
  assert.deepEqual(nextStep(onlyFail, budget, { extra_rounds: 0, confirmed: ['update-index_range=100'] }), { action: 'done', why: 'every microbenchmark is decided' });
});

test('a fail that appears after others were confirmed is confirmed too', () => {
  const v = verdictOf('fail', [], ['a', 'b']);
  assert.deepEqual(nextStep(v, budget, { extra_rounds: 2, confirmed: ['a'] }), { action: 'confirm', ids: ['b'], rounds: 4 });
});

test('no budget: the first judgement stands', () => {
  const none = { extra_rounds: 0, step_rounds: 2, confirm_rounds: 0 };
  assert.deepEqual(nextStep(verdictOf('fail', ['x'], ['y']), none, fresh), { action: 'done', why: 'extra-round budget of 0 spent' });
  assert.deepEqual(nextStep(verdictOf('pass'), none, fresh), { action: 'done', why: 'every microbenchmark is decided' });
});

test('an errored run is never extended', () => {
  assert.deepEqual(nextStep(verdictOf('error', ['x'], ['y']), budget, fresh), { action: 'done', why: 'the run has errors' });
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

test('a fail on instructions alone is not re-measured: more timed rounds cannot change it', () => {
  const v = { ...verdictOf('fail', [], ['a', 'b']), benchmarks: [{ id: 'a', time_verdict: 'pass', instructions_verdict: 'fail' }, { id: 'b', time_verdict: 'fail', instructions_verdict: 'pass' }] };
  assert.deepEqual(nextStep(v, budget, fresh), { action: 'confirm', ids: ['b'], rounds: 4 });
  assert.deepEqual(nextStep(v, budget, { extra_rounds: 0, confirmed: ['b'] }), { action: 'done', why: 'every microbenchmark is decided' });
});
