'use strict';
// The change-point adapter (Apache Otava's E-Divisive means, harness/perfgate_harness/
// change_points.py) on a real series: instructions per query of update-index_range=100 from ten
// real A/A runs, and the same with the +31.6% step perfgate bisect measured on the end-to-end
// fork. It needs Otava's virtual environment (scripts/install-deps.sh); without it every test
// here fails saying so.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { detectChangePoints, commitSeries, DEFAULT_CHANGE_POINT_PYTHON } = require('../../../bot/src/app/change-points');

const python = process.env.PERFGATE_CHANGE_POINT_PYTHON || DEFAULT_CHANGE_POINT_PYTHON;
const fixture = require('../../fixtures/watch/update-index-instr-aa-series.json');
const sha = (n) => n.toString(16).padStart(40, 'c');
const measured = fixture.points.map((p) => p.instructions_per_query);
const series = (key, values) => ({ key, points: values.map((value, i) => ({ id: sha(i), value })) });
// The first 12 main commits as measured; from the 13th on, the commit that spins in
// row_upd_sec_index_entry is in, so every later point carries its step.
const STEP_AT = 12;
const stepped = measured.map((v, i) => (i >= STEP_AT ? v * fixture.step_ratio : v));

test('finds the +31.6% step at the commit that brought it, and nothing in A/A noise or a single outlier', async () => {
  const spike = measured.map((v, i) => (i === 9 ? v * fixture.step_ratio : v));
  const answer = await detectChangePoints([
    series('update-index_range=100/instructions_per_query/aa', measured),
    series('update-index_range=100/instructions_per_query/step', stepped),
    series('update-index_range=100/instructions_per_query/spike', spike),
  ], { python });
  assert.equal(answer.detector.library, 'apache-otava');
  assert.equal(answer.detector.version, '0.8.0');
  assert.equal(answer.change_points.length, 1, JSON.stringify(answer.change_points));
  const [cp] = answer.change_points;
  assert.equal(cp.key, 'update-index_range=100/instructions_per_query/step');
  assert.deepEqual([cp.index, cp.id, cp.previous_id], [STEP_AT, sha(STEP_AT), sha(STEP_AT - 1)]);
  assert.ok(Math.abs(cp.ratio - fixture.step_ratio) < 0.02, `ratio ${cp.ratio}`);
  assert.ok(cp.pvalue < 0.001, `p ${cp.pvalue}`);
  // The A/A series is real noise: run-2 sits 7% above the rest.
  assert.ok(Math.max(...measured) / Math.min(...measured) > 1.09);
});

test('one point per main commit: the sides measured on the same commit are averaged, in main order', () => {
  assert.deepEqual(commitSeries([
    { seq: 2, sha: 'b', value: 4 }, { seq: 1, sha: 'a', value: 2 }, { seq: 2, sha: 'b', value: 9 },
  ]), [{ id: 'a', value: 2 }, { id: 'b', value: 6 }]);
});

test('bad input is refused with one line naming the key, on both sides of the boundary', async () => {
  await assert.rejects(detectChangePoints([{ key: 'x', points: [{ id: 'a', value: -1 }] }], { python }),
    /the change-points request does not match schema\/change-points\.schema\.json: series\[0\]\.points\[0\]\.value: -1 must be > 0/);
  let stderr = '';
  try {
    execFileSync(python, ['-m', 'perfgate_harness.change_points'], {
      input: JSON.stringify({ schema: 'perfgate.change-points/v1', method: { max_pvalue: 0.001, min_magnitude: 0, window: 50 }, series: [{ key: 'x', points: [{ id: 'a', value: 0 }] }] }),
      env: { PATH: process.env.PATH, PYTHONPATH: path.join(__dirname, '../../../harness') }, stdio: 'pipe',
    });
  } catch (err) {
    assert.equal(err.status, 2);
    stderr = String(err.stderr);
  }
  assert.equal(stderr, 'change-points input: series[0].points[0].value: 0 is less than or equal to the minimum of 0\n');
  await assert.rejects(detectChangePoints([], { python: '/nonexistent/python' }),
    /^Error: change points: \/nonexistent\/python does not exist: run scripts\/install-deps\.sh/);
});
