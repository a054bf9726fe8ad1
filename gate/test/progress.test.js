'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { formatProgress, formatDuration } = require('../src/progress');

test('durations read as s, m s, h m', () => {
  assert.equal(formatDuration(0), '0s');
  assert.equal(formatDuration(59.4), '59s');
  assert.equal(formatDuration(310), '5m10s');
  assert.equal(formatDuration(3725), '1h02m');
  assert.equal(formatDuration(-3), '0s');
});

test('a round event says benchmark, side, round k/n and time left', () => {
  const event = { event: 'round', benchmark: 'point-query', side: 'base', round: 1, rounds: 4, eta_seconds: 310 };
  assert.equal(formatProgress(event), 'point-query  base  round 2/4  ~5m10s left');
  assert.equal(formatProgress(event, { ids: ['x', 'y', 'point-query'] }), '[3/3] point-query  base  round 2/4  ~5m10s left');
  assert.equal(formatProgress({ event: 'round', benchmark: 'scan_range=100', side: 'head', round: 0 }), 'scan_range=100  head  round 1');
});

test('rounds of an extension count from its first round', () => {
  const event = { event: 'round', benchmark: 'point-query', side: 'head', round: 5, rounds: 2, eta_seconds: 20 };
  assert.equal(formatProgress(event, { stage: 'extra rounds', firstRound: 4, ids: ['point-query'] }), '(extra rounds) [1/1] point-query  head  round 2/2  ~20s left');
});

test('phase and error events; others print nothing', () => {
  assert.equal(formatProgress({ event: 'phase', phase: 'prepare', side: 'head', eta_seconds: 42 }), 'prepare  head  ~42s left');
  assert.equal(formatProgress({ event: 'phase', phase: 'warmup', side: 'base', benchmark: 'point-query' }, { ids: ['point-query'] }), '[1/1] point-query  warmup  base');
  assert.equal(formatProgress({ event: 'benchmark', benchmark: 'insert_range=100', status: 'error', message: 'sysbench failed\nmore' }), 'insert_range=100  error: sysbench failed');
  assert.equal(formatProgress({ event: 'benchmark', benchmark: 'insert_range=100', status: 'ok' }), null);
  assert.equal(formatProgress({ event: 'phase' }), null);
  assert.equal(formatProgress({ event: 'done', status: 'ok' }), null);
  assert.equal(formatProgress(null), null);
});
