'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { loadThresholds, limitsFor } = require('../../../core/src/config/thresholds');
const { thresholdsWith, lineOf, configErrorOf: errorOf } = require('../../support/thresholds-copy');

const replace = (from, to) => (text) => text.replace(from, to);

test('the shipped thresholds load into one typed config', () => {
  const config = loadThresholds();
  assert.deepEqual(Object.keys(config.suites), ['ahi-quick', 'ahi', 'contention-quick', 'ddl-quick', 'ddl', 'full', 'quick', 'tpcc']);
  const quick = config.suites.quick;
  assert.equal(quick.benchmarks.length, 14);
  assert.equal(quick.benchmarks.at(-1), 'insert_range=100');
  assert.deepEqual(quick.measure.threads, [1]);
  assert.equal(quick.measure.pin_cpus, 'split');
  assert.equal(config.suites.full.measure.pin_cpus, 'none');
  assert.deepEqual(quick.limits.default, { warn: 0.97, fail: 0.93, cpu_per_query: null, instructions: { warn: 1.003, fail: 1.007 }, memory_per_query: { warn: 256, fail: 512 } });
  assert.deepEqual(quick.measure.signals, ['time', 'instructions']);
  assert.deepEqual(quick.instructions, { windows: 3, seed: 1 });
  assert.deepEqual(config.suites.full.measure.signals, ['time']);
  assert.deepEqual(config.catalogue['update-index_range=100'].instructions, { events: 300 });
  assert.deepEqual(quick.budget, { extra_pairs: 19, minutes: 5 });
  // The suite as a whole: as shipped, and the same for a suite file that leaves the key out
  // whose rows are held as the quick suite's are (ahi: 0.97/0.93 over 9 workloads).
  const wide = { rqps: { warn: 0.98, fail: 0.97 }, instructions: { warn: 1.002, fail: 1.003 }, min_rows: 3 };
  assert.deepEqual(quick.suite_wide, wide);
  assert.deepEqual(config.suites.ahi.suite_wide, wide);
  assert.deepEqual(config.suites.full.suite_wide, { ...wide, instructions: { warn: 1.005, fail: 1.01 } }); // its rows: 1.015 / 1.03
  // The contention slice leaves it out: its two rows' 0.93/0.85 over √2.
  assert.deepEqual(config.suites['contention-quick'].suite_wide.rqps, { warn: 0.94, fail: 0.89 });
  assert.deepEqual(quick.explain, { rows: 3, seconds_per_row: 60 });
  const ahi = config.suites.ahi;
  assert.equal(ahi.benchmarks, null);
  assert.deepEqual(ahi.ahi.states, ['off', 'on']);
  assert.equal(ahi.ahi.workloads.length, 9);
  // The ticket's break-even share, with indexed and non-indexed updates.
  assert.deepEqual(ahi.ahi.workloads.filter((w) => w.update_percent === 2).map((w) => w.update), ['index', 'nonindex']);
  assert.deepEqual(ahi.ahi.parts, [1, 8]);
  assert.deepEqual(ahi.ahi.variants.slice(0, 2).map((v) => [v.name, v.workload, v.parts]), [['point-select parts=1', 'point-select', 1], ['point-select+1%update-index parts=1', 'point-select+1%update-index', 1]]);
  assert.equal(ahi.ahi.variants.length, 18);
  assert.ok(ahi.limits.ahi_gain);
  // The pull request's slice: point selects alone and at 2% indexed updates, no partitions.
  const slice = config.suites['ahi-quick'].ahi;
  assert.deepEqual(slice.workloads.map((w) => w.update_percent), [0, 2]);
  assert.equal(slice.parts, null);
  assert.deepEqual(slice.variants.map((v) => v.name), ['point-select', 'point-select+2%update-index']);
  assert.equal(config.profiles.mariadb.options.innodb_buffer_pool_size, '1G');
  // profile: defaults sets only the buffer pool: every other variable is the build's own.
  assert.deepEqual(config.profiles.defaults.options, { innodb_buffer_pool_size: '1G' });
  assert.equal(config.catalogue['point-query'].script, 'oltp_point_select');
  const tpcc = config.suites.tpcc;
  assert.deepEqual([tpcc.tpcc, tpcc.ddl, tpcc.benchmarks, tpcc.scale], [true, false, ['tpcc'], { tables: 1, rows: 100000 }]);
  assert.deepEqual([config.catalogue.tpcc.group, config.catalogue.tpcc.script], ['tpcc', 'perfgate_tpcc']);
  // One row: the suite as a whole is held to the row's own limits, not the quick suite's.
  assert.deepEqual(tpcc.suite_wide.rqps, { warn: tpcc.limits.default.warn, fail: tpcc.limits.default.fail });
  for (const suite of Object.values(config.suites)) {
    // The DDL suites' own profiles differ from the flavour's in a redo log small enough to copy,
    // no buffer pool loaded in the background, LOAD DATA LOCAL allowed for the bulk load (off
    // by default on MySQL 8.0 and later), and on MySQL DDL on the connection's thread alone. TPC-C restores a fresh copy every round too,
    // and on MariaDB turns snapshot isolation off on every version.
    const own = suite.ddl || suite.tpcc ? 'ddl-' : '';
    const mariadb = suite.tpcc ? 'tpcc-mariadb' : `${own}mariadb`;
    assert.deepEqual(suite.profiles, { mariadb, mysql: `${own}mysql`, percona: `${own}mysql` }, `${suite.name}: the profile follows the server's flavour`);
  }
  const differ = (flavor) => {
    const [own, ddl] = [config.profiles[flavor].options, config.profiles[`ddl-${flavor}`].options];
    return [...new Set([...Object.keys(own), ...Object.keys(ddl)])].filter((k) => own[k] !== ddl[k]);
  };
  const ddlOnly = ['innodb_buffer_pool_dump_at_shutdown', 'innodb_buffer_pool_load_at_startup', 'local_infile'];
  assert.deepEqual([differ('mariadb'), differ('mysql')], [['innodb_log_file_size', ...ddlOnly], ['innodb_redo_log_capacity', 'innodb_buffer_pool_dump_at_shutdown', 'innodb_buffer_pool_load_at_startup', 'innodb_ddl_threads', 'innodb_parallel_read_threads', 'local_infile']]);
  assert.deepEqual([config.profiles['ddl-mysql'].options.innodb_ddl_threads, config.profiles['ddl-mysql'].options.innodb_parallel_read_threads], ['1', '1']);
  const tpccProfile = config.profiles['tpcc-mariadb'].options;
  const without = (options, key) => Object.fromEntries(Object.entries(options).filter(([k]) => k !== key));
  assert.deepEqual(without(tpccProfile, 'loose_innodb_snapshot_isolation'), without(config.profiles['ddl-mariadb'].options, 'local_infile'));
  assert.equal(tpccProfile.loose_innodb_snapshot_isolation, 'OFF');
});

test('the MySQL profile turns the binary log off and says what the adaptive hash index is', () => {
  const { mysql, mariadb } = loadThresholds().profiles;
  // Written bare, as my.cnf needs it: `disable_log_bin = ON` is not the same option.
  assert.equal(mysql.options.disable_log_bin, null);
  assert.equal(mysql.options.innodb_adaptive_hash_index, 'OFF');
  assert.equal(mysql.options.innodb_redo_log_capacity, '1G');
  assert.equal(mysql.options.innodb_log_file_size, undefined);
  assert.equal(mariadb.options.innodb_adaptive_hash_index, 'OFF');
  assert.equal(mariadb.options.disable_log_bin, undefined);
});

test('a suite may name one profile for every flavour, or one per flavour', () => {
  const pinned = loadThresholds(thresholdsWith({ 'suites/quick.yml': replace('suite: quick\n', 'suite: quick\nprofile: mariadb\n') }));
  assert.deepEqual(pinned.suites.quick.profiles, { mariadb: 'mariadb', mysql: 'mariadb', percona: 'mariadb' });
  const dir = thresholdsWith({
    'suites/quick.yml': replace('suite: quick\n', 'suite: quick\nprofile: {mysql: mysql-binlog}\n'),
    'profiles/mysql-binlog.cnf': () => '[mysqld]\nlog_bin = binlog\nsync_binlog = 1\n',
  });
  const perFlavour = loadThresholds(dir);
  assert.deepEqual(perFlavour.suites.quick.profiles, { mariadb: 'mariadb', mysql: 'mysql-binlog', percona: 'mysql' });
  assert.deepEqual(perFlavour.profiles['mysql-binlog'].options, { log_bin: 'binlog', sync_binlog: '1' });
});

test('per-microbenchmark limits inherit what they leave out from default', () => {
  const dir = thresholdsWith({
    'suites/quick.yml': replace(/limits:\n/, 'limits:\n  update-index_range=100: {fail: 0.90, cpu_per_query: {warn: 1.05, fail: 1.10}}\n'),
  });
  const quick = loadThresholds(dir).suites.quick;
  assert.deepEqual(limitsFor(quick, 'update-index_range=100'), { warn: 0.97, fail: 0.9, cpu_per_query: { warn: 1.05, fail: 1.1 }, instructions: { warn: 1.003, fail: 1.007 }, memory_per_query: { warn: 256, fail: 512 } });
  assert.deepEqual(limitsFor(quick, 'point-query'), quick.limits.default);
});

test('a limit at one thread count inherits from its microbenchmark, then default; judge picks it for that row only', () => {
  const dir = thresholdsWith({
    'suites/quick.yml': replace(/limits:\n/, 'limits:\n  update-index_range=100: {fail: 0.90, cpu_per_query: {warn: 1.05, fail: 1.10}}\n  update-index_range=100 threads=4: {warn: 0.85, fail: 0.80}\n  point-query threads=1: {warn: 0.95}\n'),
  });
  const quick = loadThresholds(dir).suites.quick;
  assert.deepEqual(limitsFor(quick, 'update-index_range=100 threads=4'), { warn: 0.85, fail: 0.8, cpu_per_query: { warn: 1.05, fail: 1.1 }, instructions: { warn: 1.003, fail: 1.007 }, memory_per_query: { warn: 256, fail: 512 } });
  assert.deepEqual(limitsFor(quick, 'point-query threads=1'), { ...quick.limits.default, warn: 0.95 });
  const { judge } = require('../../../core/src/verdict');
  const rounds = [0, 1].flatMap((index) => [{ index, side: 'base', qps: 1000 }, { index, side: 'head', qps: 1000 }]);
  const row = (name, threads, id = `${name} threads=${threads}`) => ({ id, name, group: 'write', threads, status: 'ok', rounds });
  const v = judge({
    schema: 'perfgate.results/v1', plan: { suite: 'quick' }, status: 'ok', errors: [], sides: {},
    benchmarks: [row('update-index_range=100', 1), row('update-index_range=100', 4), row('point-query', 1, 'point-query')],
  }, quick);
  const limitsOf = (id) => v.benchmarks.find((b) => b.id === id).limits;
  assert.deepEqual([limitsOf('update-index_range=100 threads=1').fail, limitsOf('update-index_range=100 threads=4').fail], [0.9, 0.8]);
  // A run of one thread count names its rows without it, and still gets that thread count's limit.
  assert.equal(limitsOf('point-query').warn, 0.95);
});

test('the limit of a thread count is not hidden by the entry of its microbenchmark when the run has one thread count', () => {
  // The row of a one-thread-count run is named `point-query`, the key of the plain entry too:
  // a 3.5% slowdown wholly below the threads=1 fail limit passed under the plain 0.95 / 0.90.
  const dir = thresholdsWith({
    'suites/quick.yml': replace(/limits:\n/, 'limits:\n  point-query: {warn: 0.95, fail: 0.90}\n  point-query threads=1: {warn: 0.99, fail: 0.98}\n'),
  });
  const quick = loadThresholds(dir).suites.quick;
  const { judge } = require('../../../core/src/verdict');
  const rounds = [0, 1, 2, 3].flatMap((index) => [{ index, side: 'base', qps: 1000 }, { index, side: 'head', qps: 965 + index }]);
  const v = judge({
    schema: 'perfgate.results/v1', plan: { suite: 'quick' }, status: 'ok', errors: [], sides: {},
    benchmarks: [{ id: 'point-query', name: 'point-query', group: 'read', threads: 1, status: 'ok', rounds }],
  }, quick);
  assert.deepEqual([v.benchmarks[0].limits.fail, v.benchmarks[0].verdict, v.verdict], [0.98, 'fail', 'fail']);
});

test('the limits of an AHI workload at a thread count hold at every partition count', () => {
  const dir = thresholdsWith({
    'suites/ahi.yml': replace(/limits:\n/, 'limits:\n  point-select threads=4: {warn: 0.99, fail: 0.98}\n'),
  });
  const ahi = loadThresholds(dir).suites.ahi;
  for (const parts of ahi.ahi.parts) {
    assert.deepEqual(limitsFor(ahi, `point-select parts=${parts} threads=4`).fail, 0.98, `parts=${parts}`);
  }
});

test('I/O per query limits (r/o, rKB/o, wKB/o) load like cpu_per_query, inherited from default', () => {
  const dir = thresholdsWith({
    'suites/quick.yml': (text) => text
      .replace('{warn: 0.97, fail: 0.93,', '{warn: 0.97, fail: 0.93, write_kb_per_query: {warn: 1.1, fail: 1.25},')
      .replace(/limits:\n/, 'limits:\n  update-index_range=100: {write_kb_per_query: {fail: 1.3}, device_reads_per_query: {warn: 1.5, fail: 2}}\n'),
  });
  const quick = loadThresholds(dir).suites.quick;
  assert.deepEqual(quick.limits.default.write_kb_per_query, { warn: 1.1, fail: 1.25 });
  assert.deepEqual(limitsFor(quick, 'update-index_range=100').write_kb_per_query, { warn: 1.1, fail: 1.3 });
  assert.deepEqual(limitsFor(quick, 'update-index_range=100').device_reads_per_query, { warn: 1.5, fail: 2 });
  assert.equal('device_reads_per_query' in quick.limits.default, false, 'an I/O limit nobody set is not there');
});

test('a bad explanation budget names the file, line and key', () => {
  const quick = 'suites/quick.yml';
  for (const [from, to, message] of [
    ['  seconds_per_row: 60 ', '  seconds_per_row: 0 ', 'explain.seconds_per_row: 0 is not valid; expected a number > 0'],
    ['  rows: 3 ', '  rows: 1.5 ', 'explain.rows: 1.5 is not valid; expected an integer >= 0'],
    ['  rows: 3 ', '  row: 3 ', 'explain.row: unknown key; expected one of: rows, seconds_per_row'],
  ]) {
    const dir = thresholdsWith({ [quick]: replace(from, to) });
    assert.equal(errorOf(dir), `${path.join(dir, quick)}:${lineOf(dir, quick, to.trim())}: ${message}`);
  }
  const without = thresholdsWith({ [quick]: replace(/\nexplain:[^]*?\nbenchmarks:/, '\nbenchmarks:') });
  assert.deepEqual(loadThresholds(without).suites.quick.explain, { rows: 3, seconds_per_row: 60 });
});

test('config errors name file, line and key, the bad value and the expected form', async (t) => {
  const cases = [
    {
      name: 'malformed YAML',
      edits: { 'suites/quick.yml': replace('  seconds: 1 ', '  seconds: 1: 8 ') },
      file: 'suites/quick.yml', at: 'seconds: 1: 8',
      expect: (f, l) => `${f}:${l}: malformed YAML: Nested mappings are not allowed in compact mappings`,
    },
    {
      name: 'duplicate key',
      edits: { 'suites/quick.yml': replace('  seconds: 1 ', '  seconds: 1\n  seconds: 8 ') },
      file: 'suites/quick.yml', at: 'seconds: 8',
      expect: (f, l) => `${f}:${l}: malformed YAML: Map keys must be unique`,
    },
    {
      name: 'warn below fail',
      edits: { 'suites/quick.yml': replace('{warn: 0.97, fail: 0.93,', '{warn: 0.90, fail: 0.93,') },
      file: 'suites/quick.yml', at: 'default: {warn',
      expect: (f, l) => `${f}:${l}: limits.default.warn: warn 0.9 is below fail 0.93; expected warn >= fail (rQPS below fail fails, below warn warns)`,
    },
    {
      name: 'a ratio of 0',
      edits: { 'suites/quick.yml': replace('fail: 0.93,', 'fail: 0,') },
      file: 'suites/quick.yml', at: 'default: {warn',
      expect: (f, l) => `${f}:${l}: limits.default.fail: 0 is not valid; expected a ratio in (0, 2]`,
    },
    {
      name: 'a ratio above 2',
      edits: { 'suites/quick.yml': replace('{warn: 0.97, fail: 0.93,', '{warn: 2.5, fail: 0.93,') },
      file: 'suites/quick.yml', at: 'default: {warn',
      expect: (f, l) => `${f}:${l}: limits.default.warn: 2.5 is not valid; expected a ratio in (0, 2]`,
    },
    {
      name: 'a limit for a name outside the suite',
      edits: { 'suites/quick.yml': replace(/limits:\n/, 'limits:\n  delete_range=100: {fail: 0.9}\n') },
      file: 'suites/quick.yml', at: 'delete_range=100:',
      expect: (f, l) => `${f}:${l}: limits.delete_range=100: 'delete_range=100' is not a microbenchmark of suite quick; expected default, one of: point-query, random-points_range=1000, points-covered-pk_range=100, range-notcovered-si_range=100, read-only_range=10000, scan_range=100, range-notcovered-si-planned_range=100, points-notcovered-si-planned_range=100, range-order-limit-si-planned_range=1000, join-si-planned_range=100, update-index_range=100, update-inlist_range=100, update-nonindex_range=100, insert_range=100, or one of those followed by ' threads=<n>' (e.g. 'point-query threads=4')`,
    },
    {
      name: 'a per-thread limit of a name outside the suite',
      edits: { 'suites/quick.yml': replace(/limits:\n/, 'limits:\n  delete_range=100 threads=4: {fail: 0.9}\n') },
      file: 'suites/quick.yml', at: 'delete_range=100 threads=4:',
      expect: (f, l) => `${f}:${l}: limits.delete_range=100 threads=4: 'delete_range=100 threads=4' is not a microbenchmark of suite quick; expected default, one of: point-query, random-points_range=1000, points-covered-pk_range=100, range-notcovered-si_range=100, read-only_range=10000, scan_range=100, range-notcovered-si-planned_range=100, points-notcovered-si-planned_range=100, range-order-limit-si-planned_range=1000, join-si-planned_range=100, update-index_range=100, update-inlist_range=100, update-nonindex_range=100, insert_range=100, or one of those followed by ' threads=<n>' (e.g. 'point-query threads=4')`,
    },
    {
      name: 'a per-thread limit at 0 threads',
      edits: { 'suites/quick.yml': replace(/limits:\n/, 'limits:\n  point-query threads=0: {fail: 0.9}\n') },
      file: 'suites/quick.yml', at: 'point-query threads=0:',
      expect: (f, l) => `${f}:${l}: limits.point-query threads=0: 'point-query threads=0' is not a microbenchmark of suite quick; expected default, one of: point-query, random-points_range=1000, points-covered-pk_range=100, range-notcovered-si_range=100, read-only_range=10000, scan_range=100, range-notcovered-si-planned_range=100, points-notcovered-si-planned_range=100, range-order-limit-si-planned_range=1000, join-si-planned_range=100, update-index_range=100, update-inlist_range=100, update-nonindex_range=100, insert_range=100, or one of those followed by ' threads=<n>' (e.g. 'point-query threads=4')`,
    },
    {
      name: 'a per-thread limit with warn below fail',
      edits: { 'suites/quick.yml': replace(/limits:\n/, 'limits:\n  point-query threads=4: {warn: 0.80}\n') },
      file: 'suites/quick.yml', at: 'point-query threads=4:',
      expect: (f, l) => `${f}:${l}: limits.point-query threads=4.warn: warn 0.8 is below fail 0.93; expected warn >= fail (rQPS below fail fails, below warn warns)`,
    },
    {
      name: 'a misspelt limit key',
      edits: { 'suites/quick.yml': replace('{warn: 0.97, fail: 0.93,', '{wran: 0.97, fail: 0.93,') },
      file: 'suites/quick.yml', at: 'default: {wran',
      expect: (f, l) => `${f}:${l}: limits.default.wran: unknown key; expected one of: warn, fail, cpu_per_query, instructions, device_reads_per_query, read_kb_per_query, write_kb_per_query, memory_per_query`,
    },
    {
      name: 'cpu/o warn above fail',
      edits: { 'suites/quick.yml': replace('{warn: 0.97, fail: 0.93,', '{warn: 0.97, fail: 0.93, cpu_per_query: {warn: 1.2, fail: 1.1},') },
      file: 'suites/quick.yml', at: 'default: {warn',
      expect: (f, l) => `${f}:${l}: limits.default.cpu_per_query.warn: warn 1.2 is above fail 1.1; expected warn <= fail (cpu/o above fail fails, above warn warns)`,
    },
    {
      name: 'wKB/o warn above fail',
      edits: { 'suites/quick.yml': replace('{warn: 0.97, fail: 0.93,', '{warn: 0.97, fail: 0.93, write_kb_per_query: {warn: 1.5, fail: 1.2},') },
      file: 'suites/quick.yml', at: 'default: {warn',
      expect: (f, l) => `${f}:${l}: limits.default.write_kb_per_query.warn: warn 1.5 is above fail 1.2; expected warn <= fail (wKB/o above fail fails, above warn warns)`,
    },
    {
      name: 'an r/o limit with one bound only',
      edits: { 'suites/quick.yml': replace('{warn: 0.97, fail: 0.93,', '{warn: 0.97, fail: 0.93, device_reads_per_query: {warn: 1.5},') },
      file: 'suites/quick.yml', at: 'default: {warn',
      expect: (f, l) => `${f}:${l}: limits.default.device_reads_per_query: needs both warn and fail; expected device_reads_per_query: {warn: 1.10, fail: 1.25}`,
    },
    {
      name: 'a suite benchmark missing from the catalogue',
      edits: { 'suites/quick.yml': replace('  - scan_range=100', '  - scan_range=1000') },
      file: 'suites/quick.yml', at: '- scan_range=1000',
      expect: (f, l, dir) => `${f}:${l}: benchmarks[5]: 'scan_range=1000' is not in ${path.join(dir, 'benchmarks.yml')} or the shipped benchmarks.yml; expected a microbenchmark defined there`,
    },
    {
      name: 'a benchmark listed twice',
      edits: { 'suites/quick.yml': replace('  - insert_range=100', '  - insert_range=100\n  - point-query') },
      file: 'suites/quick.yml', at: '  - point-query',
      nth: 2,
      expect: (f, l) => `${f}:${l}: benchmarks[14]: 'point-query' is listed twice; expected each microbenchmark once`,
    },
    {
      name: 'suite name differing from the file name',
      edits: { 'suites/quick.yml': replace('suite: quick', 'suite: fast') },
      file: 'suites/quick.yml', at: 'suite: fast',
      expect: (f, l) => `${f}:${l}: suite: 'fast' differs from the file name; expected 'quick'`,
    },
    {
      name: 'a profile without a .cnf',
      edits: { 'suites/quick.yml': replace('suite: quick\n', 'suite: quick\nprofile: percona\n') },
      file: 'suites/quick.yml', at: 'profile: percona',
      expect: (f, l) => `${f}:${l}: profile: 'percona' has no profiles/percona.cnf; expected one of: ddl-mariadb, ddl-mysql, defaults, mariadb, mysql, tpcc-mariadb`,
    },
    {
      name: 'a flavour\'s profile without a .cnf',
      edits: { 'suites/quick.yml': replace('suite: quick\n', 'suite: quick\nprofile: {mysql: mysql-binlog}\n') },
      file: 'suites/quick.yml', at: 'profile: {mysql',
      expect: (f, l) => `${f}:${l}: profile.mysql: 'mysql-binlog' has no profiles/mysql-binlog.cnf; expected one of: ddl-mariadb, ddl-mysql, defaults, mariadb, mysql, tpcc-mariadb`,
    },
    {
      name: 'a profile for a flavour perfgate does not know',
      edits: { 'suites/quick.yml': replace('suite: quick\n', 'suite: quick\nprofile: {postgres: mysql}\n') },
      file: 'suites/quick.yml', at: 'profile: {postgres',
      expect: (f, l) => `${f}:${l}: profile.postgres: unknown server flavour; expected one of mariadb, mysql, percona`,
    },
    {
      name: 'a profile that is a number',
      edits: { 'suites/quick.yml': replace('suite: quick\n', 'suite: quick\nprofile: 8\n') },
      file: 'suites/quick.yml', at: 'profile: 8',
      expect: (f, l) => `${f}:${l}: profile: 8 is not valid; expected a profile name or a mapping of mariadb/mysql/percona to profile names`,
    },
    {
      name: 'one round',
      edits: { 'suites/quick.yml': replace('  rounds: 5 ', '  rounds: 1 ') },
      file: 'suites/quick.yml', at: 'rounds: 1',
      expect: (f, l) => `${f}:${l}: measure.rounds: 1 is not valid; expected an integer >= 2`,
    },
    {
      name: 'side_schedule that is not one of the three',
      edits: { 'suites/quick.yml': replace('side_schedule: alternating', 'side_schedule: yes') },
      file: 'suites/quick.yml', at: 'side_schedule: yes',
      expect: (f, l) => `${f}:${l}: measure.side_schedule: 'yes' is not valid; expected one of: in-turn, together, alternating`,
    },
    {
      name: 'pin_cpus that is neither split nor none',
      edits: { 'suites/quick.yml': replace('  pin_cpus: split', '  pin_cpus: server=0,client=1') },
      file: 'suites/quick.yml', at: 'pin_cpus: server=0,client=1',
      expect: (f, l) => `${f}:${l}: measure.pin_cpus: 'server=0,client=1' is not valid; expected one of: split, none`,
    },
    {
      name: 'a fraction of a second',
      edits: { 'suites/quick.yml': replace('  seconds: 1 ', '  seconds: 2.5 ') },
      file: 'suites/quick.yml', at: 'seconds: 2.5',
      expect: (f, l) => `${f}:${l}: measure.seconds: 2.5 must be integer: one timed round of one side, whole seconds (sysbench 1.0.20 --time takes an integer)`,
    },
    {
      name: 'bad threads',
      edits: { 'suites/ahi.yml': replace('threads: [1, 4]', 'threads: [1, 0]') },
      file: 'suites/ahi.yml', at: 'threads: [1, 0]',
      expect: (f, l) => `${f}:${l}: measure.threads[1]: 0 is not valid; expected an integer >= 1`,
    },
    {
      name: 'a budget without minutes',
      edits: { 'suites/quick.yml': replace(/\n  minutes:.*/, '') },
      file: 'suites/quick.yml', at: 'budget:',
      expect: (f, l) => `${f}:${l}: budget: missing key 'minutes'; expected budget: {extra_pairs: <timed pairs a row may get beyond measure.rounds>, minutes: <wall time of a run's extra measurement>} with extra_pairs, minutes`,
    },
    {
      // A fork's suite file, or one perfgate calibrate wrote, from before the budget had two knobs.
      name: 'a budget of the six knobs it had before',
      edits: { 'suites/quick.yml': replace(/\nbudget:\n[^]*?\nbenchmarks:/, '\nbudget:\n  extra_rounds: 13\n  step_rounds: 4\n  confirm_rounds: 6\n  extra_windows: 6\nbenchmarks:') },
      file: 'suites/quick.yml', at: 'extra_rounds: 13',
      expect: (f, l) => `${f}:${l}: budget.extra_rounds: no longer a budget key (the budget is two knobs now); expected budget: {extra_pairs: <timed pairs a row may get beyond measure.rounds>, minutes: <wall time of a run's extra measurement>}, e.g. {extra_pairs: 19, minutes: 5} for this file's extra_rounds + confirm_rounds (docs/usage.md, "Budget")`,
    },
    {
      name: 'a negative number of extra pairs',
      edits: { 'suites/quick.yml': replace(/\n  extra_pairs:.*/, '\n  extra_pairs: -1') },
      file: 'suites/quick.yml', at: 'extra_pairs: -1',
      expect: (f, l) => `${f}:${l}: budget.extra_pairs: -1 is not valid; expected an integer >= 0`,
    },
    {
      name: 'suite-wide rQPS limits the wrong way round',
      edits: { 'suites/quick.yml': replace('  rqps: {warn: 0.98, fail: 0.97}', '  rqps: {warn: 0.96, fail: 0.97}') },
      file: 'suites/quick.yml', at: 'rqps: {warn: 0.96',
      expect: (f, l) => `${f}:${l}: suite_wide.rqps.warn: warn 0.96 is below fail 0.97; expected warn >= fail (the suite's rQPS below fail fails, below warn warns)`,
    },
    {
      name: 'suite-wide instruction limits the wrong way round',
      edits: { 'suites/quick.yml': replace('  instructions: {warn: 1.002, fail: 1.003}', '  instructions: {warn: 1.02, fail: 1.01}') },
      file: 'suites/quick.yml', at: 'instructions: {warn: 1.02',
      expect: (f, l) => `${f}:${l}: suite_wide.instructions.warn: warn 1.02 is above fail 1.01; expected warn <= fail (the suite's instr/o above fail fails, above warn warns)`,
    },
    {
      name: 'a suite-wide limit that is no ratio',
      edits: { 'suites/quick.yml': replace('  instructions: {warn: 1.002, fail: 1.003}', '  instructions: {warn: 1.005, fail: 1%}') },
      file: 'suites/quick.yml', at: 'instructions: {warn: 1.005, fail: 1%}',
      expect: (f, l) => `${f}:${l}: suite_wide.instructions.fail: '1%' is not valid; expected a ratio in (0, 2]`,
    },
    {
      name: 'a suite-wide limit without its fail',
      edits: { 'suites/quick.yml': replace('  rqps: {warn: 0.98, fail: 0.97}', '  rqps: {warn: 0.98}') },
      file: 'suites/quick.yml', at: 'rqps: {warn: 0.98}',
      expect: (f, l) => `${f}:${l}: suite_wide.rqps: missing key 'fail'; expected {warn, fail} (suite_wide: {rqps: {warn, fail}, instructions: {warn, fail}, min_rows: <an integer >= 2>}) with warn, fail`,
    },
    {
      name: 'a suite-wide figure of one row',
      edits: { 'suites/quick.yml': replace(/\n  min_rows: 3 .*/, '\n  min_rows: 1') },
      file: 'suites/quick.yml', at: 'min_rows: 1',
      expect: (f, l) => `${f}:${l}: suite_wide.min_rows: 1 is not valid; expected an integer >= 2 (rows a suite-wide figure needs)`,
    },
    {
      name: 'an unknown suite-wide key',
      edits: { 'suites/quick.yml': replace('  rqps: {warn: 0.98, fail: 0.97}', '  qps: {warn: 0.98, fail: 0.97}') },
      file: 'suites/quick.yml', at: 'qps: {warn: 0.98',
      expect: (f, l) => `${f}:${l}: suite_wide.qps: unknown key; expected one of: rqps, instructions, min_rows`,
    },
    {
      name: 'an AHI workload with updates but no update column',
      edits: { 'suites/ahi.yml': replace('{name: point-select+5%update-index, update_percent: 5, update: index}', '{name: point-select+5%update-index, update_percent: 5}') },
      file: 'suites/ahi.yml', at: 'point-select+5%update-index,',
      expect: (f, l) => `${f}:${l}: ahi.workloads[3]: update_percent 5 needs 'update'; expected update: index or update: nonindex`,
    },
    {
      name: 'a bad AHI state',
      edits: { 'suites/ahi.yml': replace('states: ["off", "on"]', 'states: ["off", "yes"]') },
      file: 'suites/ahi.yml', at: 'states:',
      expect: (f, l) => `${f}:${l}: ahi.states[1]: 'yes' is not valid; expected one of: off, on`,
    },
    {
      name: 'an AHI partition count the server does not take',
      edits: { 'suites/ahi.yml': replace('parts: [1, 8]', 'parts: [1, 1024]') },
      file: 'suites/ahi.yml', at: 'parts: [1, 1024]',
      expect: (f, l) => `${f}:${l}: ahi.parts[1]: 1024 is not valid; expected an integer >= 1 and <= 512`,
    },
    {
      name: 'an AHI partition count twice',
      edits: { 'suites/ahi.yml': replace('parts: [1, 8]', 'parts: [8, 8]') },
      file: 'suites/ahi.yml', at: 'parts: [8, 8]',
      expect: (f, l) => `${f}:${l}: ahi.parts: [8,8] repeats a count; expected each partition count once`,
    },
    {
      name: 'an empty list of AHI partition counts',
      edits: { 'suites/ahi.yml': replace('parts: [1, 8]', 'parts: []') },
      file: 'suites/ahi.yml', at: 'parts: []',
      expect: (f, l) => `${f}:${l}: ahi.parts: [] is not valid; expected a non-empty list`,
    },
    {
      name: 'ahi_gain outside the ahi suite',
      edits: { 'suites/quick.yml': replace(/limits:\n/, 'limits:\n  ahi_gain: {warn: 0.97, fail: 0.93}\n') },
      file: 'suites/quick.yml', at: 'ahi_gain',
      expect: (f, l) => `${f}:${l}: limits.ahi_gain: 'ahi_gain' is not a microbenchmark of suite quick; expected default, one of: point-query, random-points_range=1000, points-covered-pk_range=100, range-notcovered-si_range=100, read-only_range=10000, scan_range=100, range-notcovered-si-planned_range=100, points-notcovered-si-planned_range=100, range-order-limit-si-planned_range=1000, join-si-planned_range=100, update-index_range=100, update-inlist_range=100, update-nonindex_range=100, insert_range=100, or one of those followed by ' threads=<n>' (e.g. 'point-query threads=4')`,
    },
    {
      name: 'a catalogue entry with a bad group',
      edits: { 'benchmarks.yml': replace('    group: range\n    kind: read\n    script: perfgate_scan', '    group: scan\n    kind: read\n    script: perfgate_scan') },
      file: 'benchmarks.yml', at: 'group: scan',
      expect: (f, l) => `${f}:${l}: benchmarks.scan_range=100.group: 'scan' is not valid; expected one of: point, range, write, ddl`,
    },
    {
      name: 'a catalogue entry naming a script that does not exist',
      edits: { 'benchmarks.yml': replace('script: perfgate_scan', 'script: perfgate_scna') },
      file: 'benchmarks.yml', at: 'script: perfgate_scna',
      expect: (f, l) => `${f}:${l}: benchmarks.scan_range=100.script: "perfgate_scna" is not valid; expected one of: oltp_delete, oltp_insert, oltp_point_select, oltp_read_only, oltp_read_write, oltp_update_index, oltp_update_non_index, oltp_write_only, perfgate_ahi_mix, perfgate_delete, perfgate_join, perfgate_points, perfgate_range, perfgate_scan, perfgate_update_inlist, perfgate_update_skewed, select_random_points, select_random_ranges`,
    },
    {
      name: 'a catalogue entry setting an option the harness owns',
      edits: { 'benchmarks.yml': replace('options: {range_size: 10000}', 'options: {range_size: 10000, table-size: 5}') },
      file: 'benchmarks.yml', at: 'options: {range_size: 10000, table-size',
      expect: (f, l) => `${f}:${l}: benchmarks.read-only_range=10000.options.table-size: set by perfgate from the plan's scale, threads and seconds, or by the harness (connection, random numbers); remove it from the options`,
    },
    {
      name: 'a catalogue option name sysbench would not parse',
      edits: { 'benchmarks.yml': replace('options: {range_size: 10000}', 'options: {Range: 10000}') },
      file: 'benchmarks.yml', at: 'options: {Range',
      expect: (f, l) => `${f}:${l}: benchmarks.read-only_range=10000.options.Range: is not a valid name; expected lower-case letters, digits, '_' or '-'`,
    },
    {
      name: 'a profile setting what perfgate sets for each server',
      edits: { 'profiles/mariadb.cnf': replace('[mysqld]\n', '[mysqld]\npid-file = /tmp/x.pid\n') },
      file: 'profiles/mariadb.cnf', at: 'pid-file = ',
      expect: (f, l) => `${f}:${l}: pid-file: set by perfgate for each server (basedir, datadir, tmpdir, socket, port, bind_address, pid_file, log_error, user, loose_mysqlx); remove it from the server options`,
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

test('a suite that leaves suite_wide out is held to its own rows\' limits brought towards 1 by √rows', () => {
  // The shipped default line's limits replaced (its other keys kept); an edit that finds nothing fails.
  const SHIPPED = '  default: {warn: 0.97, fail: 0.93, instructions: {warn: 1.003, fail: 1.007}';
  const rowsAt = (text, limits) => {
    assert.ok(text.includes(SHIPPED), 'the quick suite\'s default limits line');
    return text.replace(SHIPPED, `  default: ${limits}`);
  };
  const loose = (text) => rowsAt(text, '{warn: 0.90, fail: 0.85, instructions: {warn: 1.03, fail: 1.06}');
  const noKey = (text) => text.replace(/\nsuite_wide:\n(  .*\n)+/, '\n');
  const dir = thresholdsWith({ 'suites/quick.yml': (t) => noKey(loose(t)) });
  const quick = loadThresholds(dir).suites.quick;
  assert.equal(quick.benchmarks.length, 14);
  // rQPS 0.90 → e^(ln 0.90 / √14) = 0.9722 → 0.97; 0.85 → 0.9575 → 0.95; instr/o 1.03 → 1.0079 → 1.008, 1.06 → 1.0157 → 1.016.
  assert.deepEqual(quick.suite_wide, { rqps: { warn: 0.97, fail: 0.95 }, instructions: { warn: 1.008, fail: 1.016 }, min_rows: 3 });
  // Rows tighter than the shipped quick suite's never give a tighter suite-wide limit than it ships.
  const tight = thresholdsWith({ 'suites/quick.yml': (t) => noKey(rowsAt(t, '{warn: 0.995, fail: 0.99, instructions: {warn: 1.002, fail: 1.004}')) });
  assert.deepEqual(loadThresholds(tight).suites.quick.suite_wide, { rqps: { warn: 0.98, fail: 0.97 }, instructions: { warn: 1.002, fail: 1.003 }, min_rows: 3 });
  // One pair given: the other still follows the rows.
  const half = thresholdsWith({ 'suites/quick.yml': (t) => loose(t).replace(/\nsuite_wide:\n(  .*\n)+/, '\nsuite_wide:\n  rqps: {warn: 0.99, fail: 0.98}\n') });
  assert.deepEqual(loadThresholds(half).suites.quick.suite_wide, { rqps: { warn: 0.99, fail: 0.98 }, instructions: { warn: 1.008, fail: 1.016 }, min_rows: 3 });
});
