'use strict';
// Where the thresholds come from: a folder that is missing or partial, a fork's own folder, and
// files that are hostile to read (alias bombs, FIFOs). The format's errors: config.test.js.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { loadThresholds } = require('../../../core/src/config/thresholds');
const { ConfigError } = require('../../../core/src/errors');
const { thresholdsWith, configErrorOf: errorOf } = require('../../support/thresholds-copy');

test('a thresholds folder that does not exist is named', () => {
  assert.equal(errorOf('/nonexistent/thresholds'), '/nonexistent/thresholds: not a directory; expected a thresholds folder holding suites/<suite>.yml');
});

test('a thresholds folder without suites/ is named', () => {
  const dir = thresholdsWith({});
  require('node:fs').rmSync(path.join(dir, 'suites'), { recursive: true });
  assert.equal(errorOf(dir), `${dir}: no suites/ folder; expected a thresholds folder holding suites/<suite>.yml`);
});

test('a fork folder with only its suites uses the shipped catalogue and profiles; its own entries win', () => {
  const fs = require('node:fs');
  const os = require('node:os');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-fork-thresholds-'));
  try {
    fs.mkdirSync(path.join(dir, 'suites'));
    fs.copyFileSync(path.join(__dirname, '../../../thresholds/suites/quick.yml'), path.join(dir, 'suites/quick.yml'));
    let config = loadThresholds(dir);
    assert.deepEqual(Object.keys(config.suites), ['quick']);
    assert.equal(config.catalogue['point-query'].script, 'oltp_point_select');
    assert.equal(config.profiles.mariadb.options.innodb_buffer_pool_size, '1G');
    fs.mkdirSync(path.join(dir, 'profiles'));
    fs.writeFileSync(path.join(dir, 'profiles/mariadb.cnf'), '[mysqld]\ninnodb_buffer_pool_size = 4G\n');
    fs.writeFileSync(path.join(dir, 'benchmarks.yml'), 'benchmarks:\n  point-query:\n    {group: point, kind: read, script: perfgate_points, options: {points: 1}, instructions: {events: 10}}\n');
    config = loadThresholds(dir);
    assert.equal(config.profiles.mariadb.options.innodb_buffer_pool_size, '4G');
    assert.equal(config.profiles.mysql.options.innodb_redo_log_capacity, '1G', 'profiles the fork does not have stay');
    assert.equal(config.catalogue['point-query'].script, 'perfgate_points');
    assert.equal(config.catalogue['insert_range=100'].script, 'oltp_insert', 'entries the fork does not have stay');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a YAML file whose aliases expand past the count is refused with its name, not expanded or thrown as a crash', () => {
  const { YamlSource } = require('../../../core/src/config/yaml-source');
  const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 10; i++) levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(', ')}]`);
  assert.throws(() => new YamlSource('suites/bomb.yml', `${levels.join('\n')}\n`),
    (err) => err instanceof ConfigError && /^suites\/bomb\.yml: malformed YAML: Excessive alias count/.test(err.message));
});

test('a suite file that is a FIFO is refused at once by name, not read (the read would block for ever)', (t) => {
  const fs = require('node:fs');
  const { execFileSync } = require('node:child_process');
  const dir = thresholdsWith({ 'suites/quick.yml': null });
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  execFileSync('mkfifo', [path.join(dir, 'suites', 'quick.yml')]);
  assert.match(errorOf(dir), /suites\/quick\.yml: cannot be read \(EINVAL\); expected a YAML file$/);
});
