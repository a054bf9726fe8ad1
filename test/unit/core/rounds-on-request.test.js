'use strict';
// More pairs on a row's own servers, asked for by the harness after each pair (core.roundsNow
// on core.judgeRow), and how they come off the row's extra-round budget in the steps after.
const test = require('node:test');
const assert = require('node:assert/strict');
const { judgeRow, judge, nextStep, roundsNow } = require('../../../core');

const SUITE = { limits: { default: { warn: 0.97, fail: 0.93 } } };
const budget = { extra_rounds: 12, step_rounds: 4, confirm_rounds: 6 };
const fresh = { extra_rounds: 0, confirmed: [], extra_windows: 0, recounted: [], on_request: {} };

// A benchmark record as the harness has it after some pairs: head/base QPS ratios in order.
const record = (id, ratios, more = {}) => ({
  id, name: id, group: 'point', status: 'ok',
  rounds: ratios.flatMap((r, index) => [
    { index, side: 'base', qps: 1000, errors: 0, cpu_per_query_us: 100, cs_per_query: 1 },
    { index, side: 'head', qps: 1000 * r, errors: 0, cpu_per_query_us: 100 / r, cs_per_query: 1 },
  ]),
  ...more,
});
const results = (benchmarks) => ({
  schema: 'perfgate.results/v1', plan: { suite: 'quick', benchmarks: benchmarks.map((b) => ({ id: b.id })) }, status: 'ok', errors: [],
  machine: { cpu_model: 'x', cores: 2, memory_bytes: 1, kernel: 'k', id: 'm' },
  sides: { base: { basedir: '/b', flavor: 'mariadb', version: '1' }, head: { basedir: '/h', flavor: 'mariadb', version: '2' } },
  benchmarks,
});

// Six pairs spread about ±4% around 0.95: the interval straddles both limits and twelve
// more pairs at that spread would close it below the warn limit.
const OPEN = [0.99, 0.91, 0.97, 0.92, 0.98, 0.93];
// Six pairs within ±0.3% of 1.00: wholly above the warn limit.
const CLOSED = [1.0, 1.003, 0.998, 1.001, 0.999, 1.002];
// Six pairs spread ±25%: twelve more at that spread could not close it on a limit.
const HOPELESS = [1.3, 0.7, 1.25, 0.75, 1.2, 0.8];

test('judgeRow gives the row judge() writes for the same record', () => {
  for (const ratios of [OPEN, CLOSED, HOPELESS]) {
    const rec = record('point-query', ratios);
    const fromJudge = judge(results([rec]), SUITE).benchmarks[0];
    assert.deepEqual(judgeRow(rec, SUITE), fromJudge);
  }
});

test('an open row whose time could still change gets one more pair; a decided one gets none', () => {
  assert.equal(roundsNow(judgeRow(record('a', OPEN), SUITE), budget, fresh), 1);
  assert.equal(roundsNow(judgeRow(record('a', CLOSED), SUITE), budget, fresh), 0);
});

test('no pair where the rounds left could not close the interval at the spread measured', () => {
  assert.equal(roundsNow(judgeRow(record('a', HOPELESS), SUITE), budget, fresh), 0);
});

test('the pairs a row was given come off its own budget, and the steps\' rounds off every row', () => {
  const row = judgeRow(record('a', OPEN), SUITE);
  // At this spread three more pairs could close the interval below the warn limit, were its
  // centre half a standard error lower than measured; two could not.
  assert.equal(roundsNow(row, budget, { ...fresh, on_request: { a: 9 } }), 1);
  assert.equal(roundsNow(row, budget, { ...fresh, on_request: { a: 10 } }), 0);
  assert.equal(roundsNow(row, budget, { ...fresh, on_request: { a: 12 } }), 0);
  assert.equal(roundsNow(row, budget, { ...fresh, on_request: { b: 12 } }), 1);
  assert.equal(roundsNow(row, budget, { ...fresh, extra_rounds: 12 }), 0);
  assert.equal(roundsNow(row, { ...budget, extra_rounds: 0 }, fresh), 0);
});

test('an AHI row is measured further with its cell, by the steps, never pair by pair', () => {
  const row = judgeRow(record('a', OPEN, { ahi: 'on' }), SUITE);
  assert.ok(row.needs.includes('time'));
  assert.equal(roundsNow(row, budget, fresh), 0);
});

test('after the run, a step extends only rows with rounds left, by no more than the fewest left', () => {
  const v = judge(results([record('a', OPEN), record('b', OPEN.map((r) => r * 1.001))]), SUITE);
  assert.deepEqual(nextStep(v, budget, fresh), { action: 'extend', ids: ['a', 'b'], rounds: 4 });
  assert.deepEqual(nextStep(v, budget, { ...fresh, on_request: { a: 12 } }), { action: 'extend', ids: ['b'], rounds: 4 });
  assert.deepEqual(nextStep(v, budget, { ...fresh, on_request: { a: 10 } }), { action: 'extend', ids: ['b'], rounds: 4 });
  assert.deepEqual(nextStep(v, { ...budget, step_rounds: 12 }, { ...fresh, on_request: { a: 4 } }), { action: 'extend', ids: ['a', 'b'], rounds: 8 });
  const spentBoth = nextStep(v, budget, { ...fresh, on_request: { a: 12, b: 12 } });
  assert.deepEqual(spentBoth, { action: 'done', why: 'extra-round budget of 12 spent' });
});

test('when no row can close, done says so whatever each row has left', () => {
  const v = judge(results([record('a', HOPELESS), record('b', HOPELESS.map((r) => r * 1.001))]), SUITE);
  assert.deepEqual(nextStep(v, budget, { ...fresh, on_request: { a: 4 } }).why,
    'the extra rounds left could not close the 2 open time intervals at the spread measured');
  assert.deepEqual(nextStep(v, budget, fresh).why,
    'the 12 extra rounds left could not close the 2 open time intervals at the spread measured');
});
