'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { parsePinCpus, pinFromSettings } = require('../../../core/src/pin-cpus');
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
  assert.equal(pinFromSettings(undefined, {}), null);
});

test('compare --pin-cpus reaches plan.measure.pin_cpus', () => {
  const base = ['--base', '/b', '--head', '/h', '--out', '/tmp/x'];
  const settings = readSettings([...base, '--pin-cpus', 'server=0,client=1']);
  assert.deepEqual(settings.overrides.pin_cpus, { server: '0', client: '1' });
  const plan = resolvePlan(loadThresholds(), 'quick', settings.overrides, { base: { basedir: '/b' }, head: { basedir: '/h' } });
  assert.deepEqual(plan.measure.pin_cpus, { server: '0', client: '1' });
  assert.equal(readSettings(base, { PERFGATE_PIN_CPUS: 'server=1,client=0' }).overrides.pin_cpus.server, '1');
  const unpinned = resolvePlan(loadThresholds(), 'quick', readSettings(base).overrides, { base: { basedir: '/b' }, head: { basedir: '/h' } });
  assert.equal(unpinned.measure.pin_cpus, undefined);
});
