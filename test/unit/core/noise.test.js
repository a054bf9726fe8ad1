'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const core = require('@perfgate/core');

const REPO = path.resolve(__dirname, '../../..');

// One benchmark 'b' with rounds (base qps, head qps) per index.
function results(...pairs) {
  const rounds = pairs.flatMap(([base, head], index) => [{ index, side: 'base', qps: base }, { index, side: 'head', qps: head }]);
  return { benchmarks: [{ id: 'b', status: 'ok', rounds }] };
}

test('round CV is the mean over sides of stdev/mean within one run', () => {
  // base 100, 100: CV 0; head 110, 90: sd 14.142 / mean 100
  const table = core.conditionNoise({ u: [results([100, 110], [100, 90])] });
  assert.ok(Math.abs(table.b.u.cv - 0.1414214 / 2) < 1e-6);
});

test('paired ratios pair rounds by index and pool the runs of a condition', () => {
  const table = core.conditionNoise({ pinned: [results([100, 101], [100, 99]), results([100, 102], [100, 100])] });
  const s = table.b.pinned;
  assert.equal(s.pairs, 4);
  assert.equal(s.ratio_min, 0.99);
  assert.equal(s.ratio_max, 1.02);
  const logs = [1.01, 0.99, 1.02, 1.0].map(Math.log);
  const m = logs.reduce((a, b) => a + b) / 4;
  assert.ok(Math.abs(s.ratio_sd - Math.sqrt(logs.reduce((a, x) => a + (x - m) ** 2, 0) / 3)) < 1e-12);
});

test('the condition table renders one row per benchmark and a row of means', () => {
  const table = core.conditionNoise({ unpinned: [results([100, 110], [100, 90])], pinned: [results([100, 101], [100, 99])] });
  const lines = core.renderConditionNoise(table, ['unpinned', 'pinned']).split('\n');
  assert.equal(lines.length, 4);
  assert.equal(lines[2], '| b | 7.1% | 0.900–1.100 | 14.2% | 0.7% | 0.990–1.010 | 1.4% |');
  assert.match(lines[3], /^\| mean \| \*\*7\.1%\*\* \| \*\*width 0\.200\*\* \|/);
});

test('the noise table of the A/A run checked in', () => {
  const aa = JSON.parse(fs.readFileSync(path.join(REPO, 'test/fixtures/results/aa-quick-noise.json'), 'utf8'));
  const table = core.renderNoiseTable(core.noiseRows(aa));
  assert.equal(table.split('\n')[2], '| point-query | 16 | 7292–14749 | 19.5% | 22.6–40.1 | 16.0% | 0.60–1.47 | 0.83–1.69 |');
  assert.equal(table.split('\n').length, aa.benchmarks.length + 3, 'a header, a rule, one row per microbenchmark and a row of means');
});

test('noise rows leave out microbenchmarks that failed', () => {
  const aa = JSON.parse(fs.readFileSync(path.join(REPO, 'test/fixtures/results/tiny-quick.json'), 'utf8'));
  aa.benchmarks[0].status = 'error';
  assert.equal(core.noiseRows(aa).length, aa.benchmarks.length - 1);
});

test('pinning-noise --dry-run names each run it would make and measures nothing', () => {
  const out = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'perfgate-pinning-'));
  try {
    const base = path.join(REPO, 'test/fixtures'); // any folder: checkBasedir needs a server binary
    const r = spawnSync(process.execPath, [path.join(REPO, 'runner-setup/pinning-noise'), '--basedir', base, '--out', out, '--dry-run'], { encoding: 'utf8' });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /^pinning-noise: --basedir '.*fixtures': no server binary/);
    const server = path.join(out, 'server');
    fs.mkdirSync(path.join(server, 'sbin'), { recursive: true });
    fs.writeFileSync(path.join(server, 'sbin/mariadbd'), '#!/bin/sh\n', { mode: 0o755 });
    const dry = spawnSync(process.execPath, [path.join(REPO, 'runner-setup/pinning-noise'), '--basedir', server, '--out', out, '--dry-run', '--runs-per-condition', '1', '--pin', 'server=0,client=1'], { encoding: 'utf8' });
    assert.equal(dry.status, 0, dry.stderr);
    assert.deepEqual(dry.stdout.trim().split('\n'), [
      `would: measure ${server} against itself, suite quick, unpinned, into ${path.join(out, 'unpinned-0')}`,
      `would: measure ${server} against itself, suite quick, pinned (server 0, client 1), into ${path.join(out, 'pinned-0')}`,
    ]);
    assert.deepEqual(fs.readdirSync(out), ['server']);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
