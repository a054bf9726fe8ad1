'use strict';
// perfgate calibrate's arguments, and the thresholds folder it hands over: written, then
// loaded back before anyone is told to use it.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const core = require('@perfgate/core');
const { main } = require('../../../cli/src/main');
const { readSettings, writeThresholds } = require('../../../cli/src/commands/calibrate');
const { thresholdsWith } = require('../../support/thresholds-copy');
const { scratchDir } = require('../../support/scratch-dir');

function capture() {
  let text = '';
  return { write: (s) => { text += s; }, get text() { return text; } };
}

test('settings: three pairs of servers unless --pairs says otherwise', () => {
  assert.equal(readSettings(['--base', 'b', '--out', 'o']).pairs, 3);
  assert.equal(readSettings(['--base', 'b', '--out', 'o', '--pairs', '10']).pairs, 10);
});

test('a bad --pairs exits 2 with one line naming it and measures nothing', async () => {
  const out = path.join(scratchDir('perfgate-cal-'), 'run');
  for (const bad of ['0', 'two', '1.5', '-1']) {
    const io = { stdout: capture(), stderr: capture(), env: process.env };
    const code = await main(['calibrate', '--base', '/nonexistent', '--out', out, `--pairs=${bad}`], io);
    assert.equal(code, 2, bad);
    assert.equal(io.stderr.text, `perfgate calibrate: --pairs '${bad}': not an integer >= 1; expected e.g. --pairs 3\n`);
    assert.equal(fs.existsSync(out), false);
  }
});

const SUITE_TEXT = (dir) => fs.readFileSync(path.join(dir, 'suites', 'quick.yml'), 'utf8').replace('description: Quick', 'description: Calibrated');

test('the calibrated suite is written where --thresholds can take it, and loads', () => {
  const out = scratchDir('perfgate-cal-');
  const file = writeThresholds(out, core.SHIPPED_THRESHOLDS_DIR, 'quick', SUITE_TEXT(core.SHIPPED_THRESHOLDS_DIR));
  assert.equal(file, path.join(out, 'thresholds', 'suites', 'quick.yml'));
  assert.equal(core.loadThresholds(path.join(out, 'thresholds')).suites.quick.description, 'Calibrated sysbench subset run on every pull request');
  assert.deepEqual(fs.readdirSync(path.join(out, 'thresholds')), ['suites']);
});

test('a fork\'s own catalogue and profiles go with its calibrated suite, which names them', () => {
  const fork = thresholdsWith({
    'profiles/mariadb.cnf': (t) => t.replace('[mysqld]', '[mysqld]\n# the fork\'s own'),
    'suites/quick.yml': (t) => t.replace('suite: quick\n', 'suite: quick\nprofile: forked\n'),
  });
  fs.copyFileSync(path.join(fork, 'profiles', 'mariadb.cnf'), path.join(fork, 'profiles', 'forked.cnf'));
  const out = scratchDir('perfgate-cal-');
  writeThresholds(out, fork, 'quick', SUITE_TEXT(fork));
  assert.ok(fs.existsSync(path.join(out, 'thresholds', 'profiles', 'forked.cnf')));
  assert.ok(fs.existsSync(path.join(out, 'thresholds', 'benchmarks.yml')));
  assert.deepEqual(core.loadThresholds(path.join(out, 'thresholds')).suites.quick.profiles, { mariadb: 'forked', mysql: 'forked', percona: 'forked' });
});

test('a suite file the loader refuses is not handed over as calibrated', () => {
  const out = scratchDir('perfgate-cal-');
  const broken = SUITE_TEXT(core.SHIPPED_THRESHOLDS_DIR).replace('  default: {warn: 0.97', '  point-query: {warn: 0.5, fail: 0.9}\n  default: {warn: 0.97');
  assert.throws(() => writeThresholds(out, core.SHIPPED_THRESHOLDS_DIR, 'quick', broken), /quick\.yml:\d+: limits\.point-query\.warn: warn 0\.5 is below fail 0\.9/);
});

test('a pair whose measurement fails stops the calibration, naming the pair and its run folder', async () => {
  // A server prefix whose server cannot even say its version: the harness refuses the plan.
  const prefix = scratchDir('perfgate-prefix-');
  fs.mkdirSync(path.join(prefix, 'sbin'));
  fs.mkdirSync(path.join(prefix, 'share'));
  fs.writeFileSync(path.join(prefix, 'sbin', 'mariadbd'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
  const out = path.join(prefix, 'cal');
  const io = { stdout: capture(), stderr: capture(), env: process.env };
  const code = await main(['calibrate', '--base', prefix, '--out', out, '--pairs', '2', '--benchmarks', 'point-query', '--rounds', '2', '--seconds', '1'], io);
  assert.equal(code, 2);
  const lines = io.stderr.text.trimEnd().split('\n');
  assert.equal(lines[0], `perfgate calibrate: pair 1 of 2 (freshly started servers), run folder ${path.join(out, 'pair-1')}`);
  assert.equal(lines.at(-1), 'perfgate calibrate: pair 1: the harness refused plan.json (see its message above)');
  assert.deepEqual(fs.readdirSync(out), ['pair-1']);
  assert.equal(io.stdout.text, '');
});
