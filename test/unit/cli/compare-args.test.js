'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { main } = require('../../../cli/src/main');
const { readSettings } = require('../../../cli/src/commands/compare');
const { thresholdsWith, lineOf } = require('../../support/thresholds-copy');
const { scratchDir } = require('../../support/scratch-dir');

// A real installed server prefix is not needed for argument errors, but --base/--head checks
// need a folder with an executable server binary: make one that is never run.
function fakePrefix() {
  const dir = scratchDir('perfgate-prefix-');
  fs.mkdirSync(path.join(dir, 'sbin'));
  fs.mkdirSync(path.join(dir, 'share'));
  fs.writeFileSync(path.join(dir, 'sbin', 'mariadbd'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
  return dir;
}

function capture() {
  let text = '';
  return { write: (s) => { text += s; }, get text() { return text; } };
}

async function compare(args) {
  const io = { stdout: capture(), stderr: capture(), env: process.env };
  const code = await main(['compare', ...args], io);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

test('settings: overrides are typed, the rest defaulted', () => {
  const s = readSettings(['--base', 'b', '--head', 'h', '--out', 'o', '--seconds', '2', '--rounds', '3', '--tables', '2', '--rows', '1000', '--threads', '1,4', '--warmup-seconds', '0']);
  assert.equal(s.suite, 'quick');
  assert.equal(s.out, path.resolve('o'));
  assert.deepEqual(s.overrides, { seconds: 2, warmup_seconds: 0, rounds: 3, tables: 2, rows: 1000, threads: [1, 4] });
  assert.deepEqual(readSettings(['--base', 'b', '--head', 'h', '--out', 'o', '--shard', '2/4']).overrides, { shard: { index: 2, count: 4 } });
  assert.equal(s.tests, null);
  assert.deepEqual(readSettings(['--base', 'b', '--head', 'h', '--out', 'o', '--tests', 'point-query, update-index_range=100,point-query']).tests, ['point-query', 'update-index_range=100']);
});

test('bad input exits 2 with one line naming the argument and writes nothing', async (t) => {
  const prefix = fakePrefix();
  const out = path.join(scratchDir('perfgate-out-'), 'run');
  const ok = ['--base', prefix, '--head', prefix, '--out', out];
  const badThresholds = thresholdsWith({ 'suites/ahi.yml': (s) => s.replace('seconds: 5', 'seconds: -5') });
  const cases = [
    [[...ok, '--metric', 'cycles'], "perfgate compare: --metric 'cycles': expected time, instructions or both"],
    [[...ok, '--head-option', 'innodb_flush_log_at_trx_commit'], "perfgate compare: --head-option 'innodb_flush_log_at_trx_commit': expected NAME=VALUE, a [mysqld] option such as innodb_flush_log_at_trx_commit=1"],
    [[...ok, '--head-option', 'datadir=/var/lib/mysql'], "perfgate compare: --head-option 'datadir': set by perfgate for each server (basedir, datadir, tmpdir, socket, port, bind_address, pid_file, log_error, user, loose_mysqlx); remove it from the server options"],
    [[...ok, '--bogus', '1'], "perfgate compare: unknown option '--bogus'; expected one of: --base, --head, --out, --suite, --thresholds, --seconds, --warmup-seconds, --rounds, --tables, --rows, --threads, --pin-cpus, --metric, --sides, --tests, --source, --flavor, --build-config, --keep-data, --explain, --untrusted-head, --base-option, --head-option, --shard, --help"],
    [[...ok, '--seconds', 'abc'], "perfgate compare: --seconds 'abc': not an integer >= 1; expected e.g. --seconds 3"],
    [[...ok, '--seconds', '1.5'], "perfgate compare: --seconds '1.5': not an integer >= 1; expected e.g. --seconds 3"],
    [[...ok, '--seconds', '0'], "perfgate compare: --seconds '0': not an integer >= 1; expected e.g. --seconds 3"],
    [[...ok, '--warmup-seconds=-1'], "perfgate compare: --warmup-seconds '-1': not an integer >= 0; expected e.g. --warmup-seconds 2"],
    [[...ok, '--rounds', '1'], "perfgate compare: --rounds '1': not an integer >= 2; expected e.g. --rounds 6"],
    [[...ok, '--rows', '1e3'], "perfgate compare: --rows '1e3': not an integer >= 1; expected e.g. --rows 10000"],
    [[...ok, '--tables', '0'], "perfgate compare: --tables '0': not an integer >= 1; expected e.g. --tables 8"],
    [[...ok, '--threads', '1,x'], "perfgate compare: --threads '1,x': not a list of positive integers; expected e.g. --threads 1,4"],
    [[...ok, '--threads', '2,2'], "perfgate compare: --threads '2,2': repeats a thread count; expected distinct counts, e.g. --threads 1,4"],
    [[...ok, '--shard', '0/4'], "perfgate compare: --shard '0/4': shard 0 of 4 does not exist; expected --shard K/N with 1 <= K <= N, e.g. --shard 2/4"],
    [[...ok, '--shard', '5/4'], "perfgate compare: --shard '5/4': shard 5 of 4 does not exist; expected --shard K/N with 1 <= K <= N, e.g. --shard 2/4"],
    [[...ok, '--shard', 'a/b'], "perfgate compare: --shard 'a/b': not of the form K/N; expected --shard K/N with 1 <= K <= N, e.g. --shard 2/4"],
    [[...ok, '--shard', '2'], "perfgate compare: --shard '2': not of the form K/N; expected --shard K/N with 1 <= K <= N, e.g. --shard 2/4"],
    [[...ok, '--suite', 'full', '--shard', '1/17'], "perfgate compare: --shard '1/17': suite full splits into at most 16 shards (each shard needs one of the 16 writes that run before the reads after writes); expected N <= 16"],
    [[...ok, '--suite', 'quick', '--shard', '3/15'], "perfgate compare: --shard '3/15': suite quick splits into at most 14 shards (it has 14 microbenchmarks that can run apart); expected N <= 14"],
    [[...ok, '--tests', 'point-query,no-such-test'], /^perfgate compare: --tests: 'no-such-test' not in suite quick; expected some of: point-query, .*insert_range=100$/],
    [[...ok, '--tests', ','], "perfgate compare: --tests ',': no microbenchmark named; expected e.g. --tests update-index_range=100,point-query"],
    [[...ok, '--suite', 'ahi', '--tests', 'point-select'], 'perfgate compare: --tests: suite ahi has no benchmark list; expected a suite that lists microbenchmarks'],
    [[...ok, '--explain', 'point-query;id'], 'perfgate compare: --explain: "point-query;id" is not valid; expected auto, all, none, or a comma-separated list of row ids (e.g. update-index_range=100,scan_range=100)'],
    [[...ok, '--explain', 'scan_range=100,no-such-row'], /^perfgate compare: --explain: no-such-row is not a row of this run; expected rows of: point-query, .*insert_range=100$/],
    [[...ok, '--rounds'], 'perfgate compare: --rounds: missing its value; expected --rounds <value> (see perfgate compare --help)'],
    [[...ok, 'extra'], "perfgate compare: unexpected argument 'extra'; expected only options (see perfgate compare --help)"],
    [['--head', prefix, '--out', out], 'perfgate compare: --base is missing; expected --base <basedir>'],
    [['--base', prefix, '--head', prefix], 'perfgate compare: --out is missing; expected --out <dir>'],
    [[...ok, '--suite', 'nope'], `perfgate compare: --suite 'nope': no suites/nope.yml in ${path.resolve(__dirname, '../../../thresholds')}; expected one of: ahi-quick, ahi, contention-quick, ddl-quick, ddl, full, quick, tpcc`],
    [['--base', '/nonexistent', '--head', prefix, '--out', out], "perfgate compare: --base '/nonexistent': no such directory; expected an installed server prefix holding bin/ or sbin/ and share/"],
    [['--base', prefix, '--head', os.tmpdir(), '--out', out], `perfgate compare: --head '${os.tmpdir()}': no server binary (looked for sbin/mariadbd, bin/mariadbd, sbin/mysqld, bin/mysqld, libexec/mysqld); expected an installed server prefix holding bin/ or sbin/ and share/`],
    [[...ok, '--thresholds', badThresholds], `perfgate compare: ${path.join(badThresholds, 'suites/ahi.yml')}:${lineOf(badThresholds, 'suites/ahi.yml', 'seconds: -5')}: measure.seconds: -5 must be >= 1: one timed round of one side, whole seconds (sysbench 1.0.20 --time takes an integer)`],
  ];
  for (const [args, message] of cases) {
    await t.test(args.join(' '), async () => {
      const r = await compare(args);
      assert.equal(r.code, 2);
      if (message instanceof RegExp) assert.match(r.stderr.trimEnd(), message);
      else assert.equal(r.stderr, `${message}\n`);
      assert.equal(r.stdout, '');
      assert.equal(fs.existsSync(out), false, 'nothing written');
    });
  }
});

test('--explain: auto unless said, the rows read once', () => {
  const args = ['--base', 'b', '--head', 'h', '--out', 'o'];
  assert.deepEqual(readSettings(args).explain, { mode: 'auto', rows: [] });
  assert.deepEqual(readSettings([...args, '--explain', 'none']).explain, { mode: 'none', rows: [] });
  assert.deepEqual(readSettings([...args, '--explain', 'scan_range=100,point-query']).explain, { mode: 'named', rows: ['scan_range=100', 'point-query'] });
  assert.equal(readSettings(['--base', 'b', '--head', 'h1', '--head', 'h2', '--out', 'o']).explain, null);
  assert.throws(() => readSettings(['--base', 'b', '--head', 'h1', '--head', 'h2', '--out', 'o', '--explain', 'all']),
    { message: "--explain 'all': the explanation step compares one head with the base; expected one --head, or --explain none" });
});

test('--help lists every option', async () => {
  const r = await compare(['--help']);
  assert.equal(r.code, 0);
  for (const option of ['--base', '--head', '--out', '--suite', '--thresholds', '--seconds', '--rounds', '--tables', '--rows', '--threads', '--tests', '--shard', '--explain']) {
    assert.match(r.stdout, new RegExp(`  ${option} `));
  }
});

test('a chain: --head repeated, in order; a single --head stays as it was', () => {
  const s = readSettings(['--base', 'b', '--head', 'h1', '--head', 'h2', '--head', 'h3', '--out', 'o']);
  assert.deepEqual(s.heads, ['h1', 'h2', 'h3']);
  assert.equal(s.head, 'h1');
  const one = readSettings(['--base', 'b', '--head', 'h', '--out', 'o']);
  assert.deepEqual([one.head, one.heads], ['h', ['h']]);
  // One head may be the base itself (an A/A run), as before.
  assert.equal(readSettings(['--base', 'b', '--head', 'b', '--out', 'o']).head, 'b');
});

test('a bad chain exits 2 with one line naming --head (or what it cannot go with) and writes nothing', async () => {
  const [a, b, c] = [fakePrefix(), fakePrefix(), fakePrefix()];
  const out = path.join(scratchDir('perfgate-out-'), 'run');
  const cases = [
    [['--base', a, '--head', b, '--head', a, '--out', out], `perfgate compare: --head '${a}': the same basedir as --base; expected a version other than the base`],
    [['--base', a, '--head', b, '--head', `${b}/`, '--out', out], `perfgate compare: --head '${b}': given twice (head 1 and head 2); expected each version once`],
    [['--base', a, ...Array.from({ length: 6 }, () => ['--head', fakePrefix()]).flat(), '--out', out],
      'perfgate compare: --head: 6 heads given; expected at most 5 (every head is a server running beside the others, and every round runs on each of them)'],
    [['--source', '.', '--base', 'v1', '--head', 'v2', '--head', 'v2', '--out', out], "perfgate compare: --head 'v2': given twice (head 1 and head 2); expected each version once"],
    [['--base', a, '--head', b, '--head', c, '--shard', '1/2', '--out', out], "perfgate compare: --shard '1/2': a chain of 2 heads runs whole; expected one --head with --shard"],
    [['--base', a, '--head', b, '--head', '/nonexistent', '--out', out], "perfgate compare: --head '/nonexistent': no such directory; expected an installed server prefix holding bin/ or sbin/ and share/"],
    // The quick suite counts instructions; a chain measures time only.
    [['--base', a, '--head', b, '--head', c, '--out', out], 'perfgate compare: --metric: a chain of 2 heads measures time only, but suite quick counts instructions too (measure.signals); expected --metric time'],
  ];
  for (const [args, message] of cases) {
    const r = await compare(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').pop(), message);
    assert.ok(!fs.existsSync(path.join(out, 'plan.json')), 'nothing written');
  }
});
