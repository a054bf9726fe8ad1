'use strict';
// The quantile wrappers refuse what their distributions do not define, saying which argument;
// their values are checked against scipy in test/stats/test_stats_scipy.py.
const test = require('node:test');
const assert = require('node:assert/strict');
const s = require('../../../core/src/statistics');

test('quantiles outside a distribution\'s domain are refused, naming the argument', () => {
  assert.throws(() => s.studentTQuantile(1, 3), { name: 'RangeError', message: 'quantile needs 0 < p < 1, got 1' });
  assert.throws(() => s.studentTQuantile(0.975, 0), { name: 'RangeError', message: "Student's t needs df > 0, got 0" });
  assert.throws(() => s.chiSquareQuantile(0.1, -1), { name: 'RangeError', message: 'chi-square needs df > 0, got -1' });
  assert.throws(() => s.normalQuantile(Number.NaN), { name: 'RangeError', message: 'quantile needs 0 < p < 1, got NaN' });
  assert.throws(() => s.binomialUpperBound(3, 2), { name: 'RangeError', message: 'binomialUpperBound needs 0 <= x <= n, n > 0; got x=3, n=2' });
});

test('the quantiles are symmetric where their distributions are, and a bound reaches 1 only when every trial failed', () => {
  assert.ok(Math.abs(s.studentTQuantile(0.025, 4) + s.studentTQuantile(0.975, 4)) < 1e-12);
  assert.ok(Math.abs(s.normalQuantile(0.5)) < 1e-15);
  assert.equal(s.binomialUpperBound(5, 5), 1);
  assert.ok(s.binomialUpperBound(0, 100) < 0.03);
});

test('projectedInterval: no more pairs is the interval itself; more pairs of the same spread narrow it around the same centre', () => {
  const { ratioInterval, projectedInterval } = require('../../../core/src/statistics');
  const measured = ratioInterval([0.91, 1.04, 0.97, 1.12, 0.88]);
  const same = projectedInterval(measured, 0);
  assert.ok(Math.abs(same.low - measured.low) < 1e-12 && Math.abs(same.high - measured.high) < 1e-12);
  const later = projectedInterval(measured, 6);
  assert.equal(later.n, 11);
  assert.equal(later.estimate, measured.estimate);
  assert.ok(later.low > measured.low && later.high < measured.high);
  // Six more pairs narrow a t interval of 5 pairs by t(10)/t(4) * sqrt(5/11) on the log scale.
  const { studentTQuantile } = require('../../../core/src/statistics');
  const shrink = (studentTQuantile(0.975, 10) / studentTQuantile(0.975, 4)) * Math.sqrt(5 / 11);
  assert.ok(Math.abs(Math.log(later.high / later.estimate) - shrink * Math.log(measured.high / measured.estimate)) < 1e-12);
  assert.equal(projectedInterval({ n: 1, estimate: 1, low: null, high: null, sd_log: null }, 6), null);
});
