'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { formatHarnessProgress, formatDuration } = require('../../../core/src/progress');

test('durations read as s, m s, h m', () => {
  assert.equal(formatDuration(0), '0s');
  assert.equal(formatDuration(59.4), '59s');
  assert.equal(formatDuration(310), '5m10s');
  assert.equal(formatDuration(3725), '1h02m');
  assert.equal(formatDuration(-3), '0s');
});

test('a round event says benchmark, side, round k/n and time left', () => {
  const event = { event: 'round', benchmark: 'point-query', side: 'base', round: 1, rounds: 4, eta_seconds: 310 };
  assert.equal(formatHarnessProgress(event), 'point-query  base  round 2/4  ~5m10s left');
  assert.equal(formatHarnessProgress(event, { ids: ['x', 'y', 'point-query'] }), '[3/3] point-query  base  round 2/4  ~5m10s left');
  assert.equal(formatHarnessProgress({ event: 'round', benchmark: 'scan_range=100', side: 'head', round: 0 }), 'scan_range=100  head  round 1');
});

test('rounds of an extension count from its first round', () => {
  const event = { event: 'round', benchmark: 'point-query', side: 'head', round: 5, rounds: 2, eta_seconds: 20 };
  assert.equal(formatHarnessProgress(event, { stage: 'extra rounds', firstRound: 4, ids: ['point-query'] }), '(extra rounds) [1/1] point-query  head  round 2/2  ~20s left');
});

test('phase and error events; others print nothing', () => {
  assert.equal(formatHarnessProgress({ event: 'phase', phase: 'prepare', side: 'head', eta_seconds: 42 }), 'prepare  head  ~42s left');
  assert.equal(formatHarnessProgress({ event: 'phase', phase: 'warmup', side: 'base', benchmark: 'point-query' }, { ids: ['point-query'] }), '[1/1] point-query  warmup  base');
  assert.equal(formatHarnessProgress({ event: 'benchmark', benchmark: 'insert_range=100', status: 'error', message: 'sysbench failed\nmore' }), 'insert_range=100  error: sysbench failed');
  assert.equal(formatHarnessProgress({ event: 'benchmark', benchmark: 'insert_range=100', status: 'ok' }), null);
  assert.equal(formatHarnessProgress({ event: 'phase' }), null);
  assert.equal(formatHarnessProgress({ event: 'done', status: 'ok' }), null);
  assert.equal(formatHarnessProgress(null), null);
});

test('a round asked for while the row is open has no "of n"', () => {
  const { formatHarnessProgress } = require('../../../core');
  assert.equal(formatHarnessProgress({ event: 'round', benchmark: 'point-query', side: 'base, head', round: 7, extra: true }),
    'point-query  base, head  round 8 (more, while open)');
});
