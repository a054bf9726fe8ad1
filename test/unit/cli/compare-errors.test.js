'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { describeErrors } = require('../../../cli/src/compare-loop');
const { clearRunOutputs } = require('../../../cli/src/own-files');
const { scratchDir } = require('../../support/scratch-dir');

test('a run with errors is summarised by its first error in one line', () => {
  const long = `initializing the datadir failed: ${'x'.repeat(400)}\nlog tail`;
  const results = {
    status: 'error',
    errors: [
      { side: 'base', benchmark: null, step: 'init', message: long },
      { side: 'base', benchmark: 'point-query', step: 'skipped', message: 'not measured' },
    ],
  };
  const line = describeErrors(results);
  assert.ok(!line.includes('\n'));
  assert.ok(line.startsWith('base/init: initializing the datadir failed: xxx'));
  assert.ok(line.endsWith('… (and 1 more in results.json)'));
  assert.equal(describeErrors({ status: 'error', errors: [{ benchmark: 'scan_range=100', side: 'head', step: 'round', message: 'sysbench exited 1' }] }),
    'scan_range=100/head/round: sysbench exited 1');
  assert.equal(describeErrors({ status: 'error' }), 'status error');
});

test('files of an earlier run are removed before measuring; others stay', () => {
  const dir = scratchDir('perfgate-run-');
  const stale = ['plan.json', 'results.json', 'plan.extra-2.json', 'results.extra-12.json', 'verdict.json', 'comment.md', 'summary.md', 'report.html', 'results.csv', 'results.tsv'];
  const kept = ['notes.txt', 'results.json.bak', 'calibration.json', 'results.csv.old'];
  for (const f of [...stale, ...kept]) fs.writeFileSync(path.join(dir, f), '{}');
  clearRunOutputs(dir);
  assert.deepEqual(fs.readdirSync(dir).sort(), kept.sort());
});
