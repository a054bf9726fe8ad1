'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parsePinCpus, pinFromSettings, splitCpus, planPinCpus } = require('../../../core/src/pin-cpus');
const { runnerCpus } = require('../../../cli/src/runner-settings');
const { readSettings } = require('../../../cli/src/commands/compare');
const { resolvePlan } = require('../../../core/src/plan');
const { loadThresholds } = require('../../../core/src/config/thresholds');

test('pin sets parse into taskset lists', () => {
  assert.deepEqual(parsePinCpus('server=0-2,5,client=3', '--pin-cpus'), { server: '0-2,5', client: '3' });
  assert.equal(parsePinCpus('none', '--pin-cpus'), null);
});

test('bad pin sets name where they came from', () => {
  assert.throws(() => parsePinCpus('0:1', '--pin-cpus'),
    { message: "--pin-cpus '0:1': expected server=<cpus>,client=<cpus> with taskset lists (e.g. server=0,client=1) or none" });
  assert.throws(() => parsePinCpus('server=0-1,client=1', 'PERFGATE_PIN_CPUS'),
    { message: "PERFGATE_PIN_CPUS 'server=0-1,client=1': server and client share CPU 1; expected separate sets" });
});

test('the command line wins over the runner setting', () => {
  const env = { PERFGATE_PIN_CPUS: 'server=0,client=1' };
  assert.deepEqual(pinFromSettings(undefined, env), { server: '0', client: '1' });
  assert.equal(pinFromSettings('none', env), null);
  assert.equal(pinFromSettings(undefined, {}), undefined);  // neither says: the suite decides
});

test('compare --pin-cpus reaches plan.measure.pin_cpus', () => {
  const base = ['--base', '/b', '--head', '/h', '--out', '/tmp/x'];
  const settings = readSettings([...base, '--pin-cpus', 'server=0,client=1']);
  assert.deepEqual(settings.overrides.pin_cpus, { server: '0', client: '1' });
  const plan = resolvePlan(loadThresholds(), 'quick', settings.overrides, { base: { basedir: '/b' }, head: { basedir: '/h' } });
  assert.deepEqual(plan.measure.pin_cpus, { server: '0', client: '1' });
  assert.equal(readSettings(base, { PERFGATE_PIN_CPUS: 'server=1,client=0' }).overrides.pin_cpus.server, '1');
  const unpinned = resolvePlan(loadThresholds(), 'quick', readSettings(base, {}).overrides, { base: { basedir: '/b' }, head: { basedir: '/h' } });
  assert.equal(unpinned.measure.pin_cpus, undefined);
});

test('split: sysbench on the last CPU of the run, mysqld on the others', () => {
  assert.deepEqual(splitCpus([0, 1]), { server: '0', client: '1' });
  assert.deepEqual(splitCpus([3, 0, 1, 2]), { server: '0-2', client: '3' });
  assert.deepEqual(splitCpus([0, 1, 2, 5, 7, 8]), { server: '0-2,5,7', client: '8' });
  assert.deepEqual(splitCpus([4, 4, 6]), { server: '4', client: '6' });
  assert.equal(splitCpus([2]), null);  // one CPU: nothing to split
  assert.equal(splitCpus([]), null);
});

test('a setting wins over the suite; the suite splits unless the sides run together', () => {
  const sets = { server: '1', client: '0' };
  assert.deepEqual(planPinCpus(sets, 'split', 'alternating', [0, 1]), sets);
  assert.equal(planPinCpus(null, 'split', 'alternating', [0, 1]), null);  // --pin-cpus none
  assert.deepEqual(planPinCpus(undefined, 'split', 'alternating', [0, 1]), { server: '0', client: '1' });
  assert.deepEqual(planPinCpus(undefined, 'split', 'in-turn', [0, 1, 2, 3]), { server: '0-2', client: '3' });
  assert.equal(planPinCpus(undefined, 'split', 'together', [0, 1]), null);
  assert.equal(planPinCpus(null, 'split', 'together', [0, 1]), null);
  assert.throws(() => planPinCpus(sets, 'none', 'together', [0, 1]), { name: 'UsageError', message: /^--sides together: the sides cannot be pinned/ });
  assert.equal(planPinCpus(undefined, 'none', 'alternating', [0, 1]), null);
  assert.equal(planPinCpus(undefined, 'split', 'alternating', [0]), null);
});

test('the shipped quick suite pins on a 2-CPU runner; --pin-cpus none, --sides together and the full suite do not', () => {
  const config = loadThresholds();
  const sides = { base: { basedir: '/b' }, head: { basedir: '/h' } };
  const base = ['--base', '/b', '--head', '/h', '--out', '/tmp/x'];
  const plan = (argv, suite = 'quick', env = {}) => resolvePlan(config, suite, readSettings([...base, ...argv], env).overrides, sides, undefined, { cpus: [0, 1] });
  assert.deepEqual(plan([]).measure.pin_cpus, { server: '0', client: '1' });
  assert.equal(plan(['--pin-cpus', 'none']).measure.pin_cpus, undefined);
  assert.equal(plan([], 'quick', { PERFGATE_PIN_CPUS: 'none' }).measure.pin_cpus, undefined);
  assert.deepEqual(plan([], 'quick', { PERFGATE_PIN_CPUS: 'server=1,client=0' }).measure.pin_cpus, { server: '1', client: '0' });
  assert.equal(plan(['--sides', 'together']).measure.pin_cpus, undefined);
  assert.deepEqual(plan(['--sides', 'in-turn']).measure.pin_cpus, { server: '0', client: '1' });
  assert.equal(plan([], 'full').measure.pin_cpus, undefined);
  assert.equal(plan([], 'ahi-quick').measure.pin_cpus, undefined);  // its contention needs both CPUs
});

test("the runner's CPUs are its affinity among the CPUs online", (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-cpus-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const statusFile = path.join(dir, 'status');
  const onlineFile = path.join(dir, 'online');
  const missing = path.join(dir, 'missing');
  fs.writeFileSync(statusFile, 'Name:\tnode\nCpus_allowed:\t3c\nCpus_allowed_list:\t2-5\nMems_allowed:\t1\n');
  fs.writeFileSync(onlineFile, '0-7\n');
  assert.deepEqual(runnerCpus({ statusFile, onlineFile }), [2, 3, 4, 5]);
  // SMT siblings taken offline (runner-setup/tune) stay in the affinity list: never the client's CPU.
  fs.writeFileSync(statusFile, 'Cpus_allowed_list:\t0-3\n');
  fs.writeFileSync(onlineFile, '0-1\n');
  assert.deepEqual(runnerCpus({ statusFile, onlineFile }), [0, 1]);
  assert.deepEqual(splitCpus(runnerCpus({ statusFile, onlineFile })), { server: '0', client: '1' });
  fs.writeFileSync(statusFile, 'Cpus_allowed_list:\t0,2-3,7\n');
  fs.writeFileSync(onlineFile, '0,2-5,7\n');
  assert.deepEqual(runnerCpus({ statusFile, onlineFile }), [0, 2, 3, 7]);
  // One of the two files alone says what it says; neither: every CPU the kernel reports.
  assert.deepEqual(runnerCpus({ statusFile, onlineFile: missing }), [0, 2, 3, 7]);
  assert.deepEqual(runnerCpus({ statusFile: missing, onlineFile }), [0, 2, 3, 4, 5, 7]);
  fs.writeFileSync(statusFile, 'Name:\tnode\n');
  assert.deepEqual(runnerCpus({ statusFile, onlineFile: missing }), os.cpus().map((_, i) => i));
});
