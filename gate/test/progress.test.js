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
  const event = { event: 'round', benchmark: 'point-query', side: 'base', round: 2, rounds: 4, eta_seconds: 310 };
  assert.equal(formatProgress(event), 'point-query  base  round 2/4  ~5m10s left');
  assert.equal(formatProgress({ ...event, benchmark_index: 2, benchmarks: 10 }), '[3/10] point-query  base  round 2/4  ~5m10s left');
  assert.equal(formatProgress(event, 'extra rounds 1'), '(extra rounds 1) point-query  base  round 2/4  ~5m10s left');
  assert.equal(formatProgress({ event: 'round', benchmark: 'scan_range=100', side: 'head', round: 1 }), 'scan_range=100  head  round 1');
});

test('a phase event says what is being done; unknown events print nothing', () => {
  assert.equal(formatProgress({ event: 'phase', phase: 'prepare', side: 'head', eta_seconds: 42 }), 'prepare  head  ~42s left');
  assert.equal(formatProgress({ event: 'phase', phase: 'warmup', side: 'base', benchmark: 'point-query' }), 'warmup  base  point-query');
  assert.equal(formatProgress({ event: 'phase' }), null);
  assert.equal(formatProgress({ event: 'sample', qps: 1 }), null);
  assert.equal(formatProgress(null), null);
});
