'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { calibrate, renderCalibration, plan } = require('../../../core/src/calibration');
const { studentTQuantile } = require('../../../core/src/statistics');
const { schemaProblem } = require('../../../core/src/schemas');

const FIXTURES = path.join(__dirname, '../../fixtures/results');

test('plan(): half-width, detectable slowdown and suggested limits follow from the noise', () => {
  const s = 0.03;
  const n = 4;
  const se = s / 2;
  const h = studentTQuantile(0.975, 3) * se;
  const p = plan(s, n, 0.93);
  assert.ok(Math.abs(p.half_width - (Math.exp(h) - 1)) < 1e-12);
  assert.ok(Math.abs(p.detectable - (1 - Math.exp(-(h + 0.8416212335729143 * se)))) < 1e-12);
  assert.ok(Math.abs(p.caught_as_fail - (1 - 0.93 * Math.exp(-(h + 0.8416212335729143 * se)))) < 1e-12);
  // 3% noise at 4 rounds: interval ±4.9%, warn 0.93, fail 0.88.
  assert.equal(p.half_width.toFixed(3), '0.049');
  assert.deepEqual(p.suggested, { warn: 0.93, fail: 0.88 });
  // More rounds, tighter limits; an A/A offset below 1 lowers them.
  assert.ok(plan(s, 10, 0.93).suggested.warn > p.suggested.warn);
  assert.ok(plan(s, 4, 0.93, Math.log(0.97)).suggested.warn < p.suggested.warn);
  assert.equal(plan(s, 1, 0.93), null);
});

test('calibrate() on every captured results file is valid by schema/calibration.schema.json', () => {
  const { capturedResults, loadResults } = require('../../support/captured-results');
  for (const { name: d, file } of capturedResults()) {
    const cal = calibrate(loadResults(file), { limits: { default: { warn: 0.97, fail: 0.93, instructions: { warn: 1.02, fail: 1.04 } } } }, { atRounds: 4 });
    assert.equal(schemaProblem('calibration', cal), null, d);
    assert.equal(cal.rounds, 4);
    const text = renderCalibration(cal);
    for (const b of cal.benchmarks) assert.match(text, new RegExp(`^${b.id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `, 'm'));
  }
});
