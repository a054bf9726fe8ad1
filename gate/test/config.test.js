'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { loadThresholds, limitsFor } = require('../src/config');
const { ConfigError } = require('../src/config/errors');
const { thresholdsWith, lineOf } = require('./helpers');

function errorOf(dir) {
  try {
    loadThresholds(dir);
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${err.stack}`);
    assert.equal(err.exitCode, 2);
    assert.ok(!err.message.includes('\n'), 'error is one line');
    return err.message;
  }
  assert.fail('loadThresholds accepted a bad thresholds folder');
}

const replace = (from, to) => (text) => text.replace(from, to);

test('the shipped thresholds load into one typed config', () => {
  const config = loadThresholds();
  assert.deepEqual(Object.keys(config.suites), ['ahi', 'full', 'quick']);
  const quick = config.suites.quick;
  assert.equal(quick.benchmarks.length, 10);
  assert.equal(quick.benchmarks.at(-1), 'insert_range=100');
  assert.deepEqual(quick.measure.threads, [2]);
  assert.deepEqual(quick.limits.default, { warn: 0.97, fail: 0.93, cpu_per_query: null });
  assert.deepEqual(quick.budget, { extra_rounds: 6, confirm_rounds: 4, step_rounds: 2 });
  const ahi = config.suites.ahi;
  assert.equal(ahi.benchmarks, null);
  assert.deepEqual(ahi.ahi.states, ['off', 'on']);
  assert.equal(ahi.ahi.workloads.length, 7);
  assert.ok(ahi.limits.ahi_gain);
  assert.equal(config.profiles.mariadb.options.innodb_buffer_pool_size, '1G');
  assert.equal(config.catalogue['point-query'].script, 'oltp_point_select');
});

test('per-microbenchmark limits inherit what they leave out from default', () => {
  const dir = thresholdsWith({
    'quick.yml': replace(/limits:\n/, 'limits:\n  update-index_range=100: {fail: 0.90, cpu_per_query: {warn: 1.05, fail: 1.10}}\n'),
  });
  const quick = loadThresholds(dir).suites.quick;
  assert.deepEqual(limitsFor(quick, 'update-index_range=100'), { warn: 0.97, fail: 0.9, cpu_per_query: { warn: 1.05, fail: 1.1 } });
  assert.deepEqual(limitsFor(quick, 'point-query'), quick.limits.default);
});

test('config errors name file, line and key, the bad value and the expected form', async (t) => {
  const cases = [
    {
      name: 'malformed YAML',
      edits: { 'quick.yml': replace('  seconds: 3 ', '  seconds: 3: 8 ') },
      file: 'quick.yml', at: 'seconds: 3: 8',
      expect: (f, l) => `${f}:${l}: malformed YAML: Nested mappings are not allowed in compact mappings`,
    },
    {
      name: 'duplicate key',
      edits: { 'quick.yml': replace('  seconds: 3', '  seconds: 3\n  seconds: 8') },
      file: 'quick.yml', at: 'seconds: 8',
      expect: (f, l) => `${f}:${l}: malformed YAML: Map keys must be unique`,
    },
    {
      name: 'warn below fail',
      edits: { 'quick.yml': replace('{warn: 0.97, fail: 0.93}', '{warn: 0.90, fail: 0.93}') },
      file: 'quick.yml', at: 'default: {warn',
      expect: (f, l) => `${f}:${l}: limits.default.warn: warn 0.9 is below fail 0.93; expected warn >= fail (rQPS below fail fails, below warn warns)`,
    },
    {
      name: 'a ratio of 0',
      edits: { 'quick.yml': replace('fail: 0.93}', 'fail: 0}') },
      file: 'quick.yml', at: 'default: {warn',
      expect: (f, l) => `${f}:${l}: limits.default.fail: 0 is not valid; expected a ratio in (0, 2]`,
    },
    {
      name: 'a ratio above 2',
      edits: { 'quick.yml': replace('{warn: 0.97, fail: 0.93}', '{warn: 2.5, fail: 0.93}') },
      file: 'quick.yml', at: 'default: {warn',
      expect: (f, l) => `${f}:${l}: limits.default.warn: 2.5 is not valid; expected a ratio in (0, 2]`,
    },
    {
      name: 'a limit for a name outside the suite',
      edits: { 'quick.yml': replace(/limits:\n/, 'limits:\n  delete_range=100: {fail: 0.9}\n') },
      file: 'quick.yml', at: 'delete_range=100:',
      expect: (f, l) => `${f}:${l}: limits.delete_range=100: 'delete_range=100' is not a microbenchmark of suite quick; expected default or one of: point-query, random-points_range=1000, points-covered-pk_range=100, range-notcovered-si_range=100, read-only_range=10000, scan_range=100, update-index_range=100, update-inlist_range=100, update-nonindex_range=100, insert_range=100`,
    },
    {
      name: 'a misspelt limit key',
      edits: { 'quick.yml': replace('{warn: 0.97, fail: 0.93}', '{wran: 0.97, fail: 0.93}') },
      file: 'quick.yml', at: 'default: {wran',
      expect: (f, l) => `${f}:${l}: limits.default.wran: unknown key; expected one of: warn, fail, cpu_per_query`,
    },
    {
      name: 'cpu/o warn above fail',
      edits: { 'quick.yml': replace('{warn: 0.97, fail: 0.93}', '{warn: 0.97, fail: 0.93, cpu_per_query: {warn: 1.2, fail: 1.1}}') },
      file: 'quick.yml', at: 'default: {warn',
      expect: (f, l) => `${f}:${l}: limits.default.cpu_per_query.warn: warn 1.2 is above fail 1.1; expected warn <= fail (cpu/o above fail fails, above warn warns)`,
    },
    {
      name: 'a suite benchmark missing from the catalogue',
      edits: { 'quick.yml': replace('  - scan_range=100', '  - scan_range=1000') },
      file: 'quick.yml', at: '- scan_range=1000',
      expect: (f, l, dir) => `${f}:${l}: benchmarks[5]: 'scan_range=1000' is not in ${path.join(dir, 'benchmarks.yml')}; expected a microbenchmark defined there`,
    },
    {
      name: 'a benchmark listed twice',
      edits: { 'quick.yml': replace('  - insert_range=100', '  - insert_range=100\n  - point-query') },
      file: 'quick.yml', at: '  - point-query',
      nth: 2,
      expect: (f, l) => `${f}:${l}: benchmarks[10]: 'point-query' is listed twice; expected each microbenchmark once`,
    },
    {
      name: 'suite name differing from the file name',
      edits: { 'quick.yml': replace('suite: quick', 'suite: fast') },
      file: 'quick.yml', at: 'suite: fast',
      expect: (f, l) => `${f}:${l}: suite: 'fast' differs from the file name; expected 'quick'`,
    },
    {
      name: 'a profile without a .cnf',
      edits: { 'quick.yml': replace('profile: mariadb ', 'profile: percona ') },
      file: 'quick.yml', at: 'profile: percona',
      expect: (f, l) => `${f}:${l}: profile: 'percona' has no profiles/percona.cnf; expected one of: mariadb, mysql`,
    },
    {
      name: 'one round',
      edits: { 'quick.yml': replace('rounds: 6 ', 'rounds: 1 ') },
      file: 'quick.yml', at: 'rounds: 1',
      expect: (f, l) => `${f}:${l}: measure.rounds: 1 is not valid; expected an integer >= 2`,
    },
    {
      name: 'a fraction of a second',
      edits: { 'quick.yml': replace('seconds: 3 ', 'seconds: 2.5 ') },
      file: 'quick.yml', at: 'seconds: 2.5',
      expect: (f, l) => `${f}:${l}: measure.seconds: 2.5 is not valid; expected whole seconds >= 1 (sysbench 1.0.20 --time)`,
    },
    {
      name: 'bad threads',
      edits: { 'ahi.yml': replace('threads: [1, 4]', 'threads: [1, 0]') },
      file: 'ahi.yml', at: 'threads: [1, 0]',
      expect: (f, l) => `${f}:${l}: measure.threads[1]: 0 is not valid; expected an integer >= 1`,
    },
    {
      name: 'a budget without confirm_rounds',
      edits: { 'quick.yml': replace(/\n  confirm_rounds:.*/, '') },
      file: 'quick.yml', at: 'budget:',
      expect: (f, l) => `${f}:${l}: budget: missing key 'confirm_rounds'; expected a budget {extra_rounds, confirm_rounds} with extra_rounds, confirm_rounds`,
    },
    {
      name: 'an AHI workload with updates but no update column',
      edits: { 'ahi.yml': replace('{name: point-select+5%update-index, update_percent: 5, update: index}', '{name: point-select+5%update-index, update_percent: 5}') },
      file: 'ahi.yml', at: 'point-select+5%update-index,',
      expect: (f, l) => `${f}:${l}: ahi.workloads[2]: update_percent 5 needs 'update'; expected update: index or update: nonindex`,
    },
    {
      name: 'a bad AHI state',
      edits: { 'ahi.yml': replace('states: ["off", "on"]', 'states: ["off", "yes"]') },
      file: 'ahi.yml', at: 'states:',
      expect: (f, l) => `${f}:${l}: ahi.states[1]: 'yes' is not valid; expected one of: off, on`,
    },
    {
      name: 'ahi_gain outside the ahi suite',
      edits: { 'quick.yml': replace(/limits:\n/, 'limits:\n  ahi_gain: {warn: 0.97, fail: 0.93}\n') },
      file: 'quick.yml', at: 'ahi_gain',
      expect: (f, l) => `${f}:${l}: limits.ahi_gain: 'ahi_gain' is not a microbenchmark of suite quick; expected default or one of: point-query, random-points_range=1000, points-covered-pk_range=100, range-notcovered-si_range=100, read-only_range=10000, scan_range=100, update-index_range=100, update-inlist_range=100, update-nonindex_range=100, insert_range=100`,
    },
    {
      name: 'a catalogue entry with a bad group',
      edits: { 'benchmarks.yml': replace('    group: range\n    kind: read\n    script: perfgate_scan', '    group: scan\n    kind: read\n    script: perfgate_scan') },
      file: 'benchmarks.yml', at: 'group: scan',
      expect: (f, l) => `${f}:${l}: benchmarks.scan_range=100.group: 'scan' is not valid; expected one of: point, range, write`,
    },
    {
      name: 'a profile line that is not an option',
      edits: { 'profiles/mariadb.cnf': replace('[mysqld]\n', '[mysqld]\n= 5\n') },
      file: 'profiles/mariadb.cnf', at: '= 5',
      expect: (f, l) => `${f}:${l}: "= 5" is not an option; expected name = value`,
    },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const dir = thresholdsWith(c.edits);
      const file = path.join(dir, c.file);
      let line = lineOf(dir, c.file, c.at);
      if (c.nth === 2) {
        const lines = require('node:fs').readFileSync(file, 'utf8').split('\n');
        line = lines.findIndex((l, i) => i + 1 > line && l.includes(c.at)) + 1;
      }
      assert.equal(errorOf(dir), c.expect(file, line, dir));
    });
  }
});

test('a thresholds folder that does not exist is named', () => {
  assert.equal(errorOf('/nonexistent/thresholds'), '/nonexistent/thresholds: not a directory; expected a thresholds folder holding benchmarks.yml and suite files');
});

test('a missing catalogue is named', () => {
  const dir = thresholdsWith({ 'benchmarks.yml': null });
  assert.equal(errorOf(dir), `${path.join(dir, 'benchmarks.yml')}: cannot be read (ENOENT); expected a YAML file`);
});
