'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runMain } = require('../../support/cli-main');
const { schemaProblem } = require('../../../core/src/schemas');

const FIXTURES = path.join(__dirname, '../../fixtures/results');

const cli = (args) => runMain(args);

function runFolder(t, fixture = 'quick-tiny') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-judge-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.copyFileSync(path.join(FIXTURES, fixture, 'results.json'), path.join(dir, 'results.json'));
  return dir;
}

test('perfgate judge <dir> writes verdict.json and the reports; exit code follows the verdict', async (t) => {
  const dir = runFolder(t);
  const r = await cli(['judge', dir]);
  assert.equal(r.code, 3);
  const verdict = JSON.parse(fs.readFileSync(path.join(dir, 'verdict.json'), 'utf8'));
  assert.equal(schemaProblem('verdict', verdict), null);
  assert.equal(verdict.verdict, 'undecided');
  for (const f of ['comment.md', 'summary.md', 'report.html', 'results.csv', 'results.tsv']) assert.ok(fs.statSync(path.join(dir, f)).size > 100, f);
  // The table to paste: a header and one row per microbenchmark, written by the same writer.
  const csv = fs.readFileSync(path.join(dir, 'results.csv'), 'utf8').trimEnd().split('\n');
  assert.equal(csv.length, 1 + verdict.benchmarks.length);
  assert.equal(csv[1], 'point-query,2,0.52,0.15,1.83,1.55,1.19,0.36,1.29,4.78,3,undecided');
  assert.match(r.stderr, new RegExp(`^perfgate judge: wrote verdict\\.json, comment\\.md, summary\\.md, report\\.html, results\\.csv, results\\.tsv in ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  assert.deepEqual(fs.readdirSync(dir).filter((f) => f.includes('.tmp-')), []);
  assert.match(r.stdout, /^point-query +0\.52 +0\.15–1\.83 +1\.55 +1\.19 +0\.36 +1\.29 +4\.78 +3 +undecided$/m);
});

test('perfgate judge with other limits judges again', async (t) => {
  const dir = runFolder(t);
  let r = await cli(['judge', dir, '--warn', '0.1', '--fail', '0.05']);
  // Every row passes these limits; the suite as a whole keeps the suite's own, and 3 noisy
  // pairs a row leave it open.
  assert.equal(r.code, 3);
  assert.match(r.stdout, /^Undecided: all rows: could be beyond its fail limit \(rQPS 0\.947 \[0\.816, 1\.098\], fail limit 0\.97\); more rounds of its rows would decide\.$/m);
  assert.match(r.stdout, /^point-query +0\.52 .* pass$/m);
  r = await cli(['judge', dir, '--warn', '1.99', '--fail', '1.9']);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^Fail: point-query: 48% slower \(rQPS 0\.52 \[0\.15, 1\.83\], fail limit 1\.90\), random-points_range=1000: not slower, but beyond its fail limit \(rQPS 1\.11 \[1\.00, 1\.24\], fail limit 1\.90\), /m);
});

test('perfgate judge: bad input is one line naming what is wrong, exit 2, nothing written', async (t) => {
  const dir = runFolder(t);
  const cases = [
    [['judge'], 'perfgate judge: the run folder is missing; expected perfgate judge <dir>\n'],
    [['judge', path.join(dir, 'nope')], `perfgate judge: '${path.join(dir, 'nope')}': not a directory; expected a run folder holding results.json\n`],
    [['judge', dir, '--warn', '0.97'], 'perfgate judge: --fail is missing; expected both --warn <ratio> and --fail <ratio>, or neither\n'],
    [['judge', dir, '--warn', 'x', '--fail', '0.9'], "perfgate judge: --warn 'x': not a ratio in (0, 2]; expected e.g. --warn 0.97\n"],
    [['judge', dir, '--warn', '0.9', '--fail', '0.95'], 'perfgate judge: --warn 0.9 is below --fail 0.95; expected warn >= fail\n'],
    [['judge', dir, '--suite', 'nosuch'], null],
  ];
  for (const [args, message] of cases) {
    const r = await cli(args);
    assert.equal(r.code, 2, args.join(' '));
    if (message) assert.equal(r.stderr, message);
    else assert.match(r.stderr, /^perfgate judge: --suite 'nosuch': no suites\/nosuch\.yml in .*; expected one of: .*quick/);
  }
  fs.writeFileSync(path.join(dir, 'results.json'), '{"schema": "perfgate.results/v1"');
  const r = await cli(['judge', dir]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^perfgate judge: .*results\.json: not JSON \(.*\); expected a perfgate\.results\/v1 document\n$/);
  assert.deepEqual(fs.readdirSync(dir), ['results.json']);
});

test('perfgate judge refuses results from two machines unless told', async (t) => {
  const dir = runFolder(t);
  const other = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8'));
  other.machine.id = 'another-runner';
  // Another run: later round indices, and rounds that measured something of their own.
  for (const b of other.benchmarks) for (const r of b.rounds) { r.index += 100; r.queries += 1; }
  fs.writeFileSync(path.join(dir, 'results.extra.json'), JSON.stringify(other));
  const args = ['judge', dir, '--results', path.join(dir, 'results.json'), '--results', path.join(dir, 'results.extra.json')];
  let r = await cli(args);
  assert.equal(r.code, 2);
  assert.equal(r.stderr, `perfgate judge: results.extra.json: key 'machine.id' is "another-runner" but results.json has "ce1c063cdb6b2b21": timings from different machines are not comparable (pass --allow-different-machines to judge them anyway)\n`);
  assert.equal(fs.existsSync(path.join(dir, 'verdict.json')), false);
  r = await cli([...args, '--allow-different-machines']);
  assert.notEqual(r.code, 2);
  assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'verdict.json'), 'utf8')).run.merged_from, 2);
  assert.match(fs.readFileSync(path.join(dir, 'comment.md'), 'utf8'), /The merged results come from different machines/);
});

test('perfgate judge exits 1 on the suite as a whole failing while no row fails, and prints it first', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-judge-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  // A real A/A run of the quick suite counted on jemalloc (its per-function lists were dropped
  // to keep it small: empty ones here) with every head window 0.4% above: each row warns,
  // passes or stays open, none fails.
  const doc = JSON.parse(fs.readFileSync(path.join(FIXTURES, '../aa-jemalloc/aa-quick-2.json'), 'utf8'));
  for (const b of doc.benchmarks) {
    for (const side of ['base', 'head']) b.instructions[side].functions = {};
    for (const w of b.instructions.head.windows) w.connection.per_query *= 1.004;
  }
  fs.writeFileSync(path.join(dir, 'results.json'), JSON.stringify(doc));
  const r = await cli(['judge', dir]);
  assert.equal(r.code, 1, r.stderr);
  const verdict = JSON.parse(fs.readFileSync(path.join(dir, 'verdict.json'), 'utf8'));
  assert.equal(verdict.counts.fail, 0);
  assert.equal(verdict.suite_wide.verdict, 'fail');
  assert.match(r.stdout, /^Fail: all rows: 0\.4% more instructions per query \(instr\/o 1\.0040 \[1\.0037, 1\.0044\], fail limit 1\.003\)/m);
  const lines = r.stdout.split('\n');
  assert.match(lines[2], /^suite-wide +rQPS +95% interval +instr\/o +95% interval +verdict$/);
  assert.match(lines[3], /^all rows \(14\) +– +– +1\.0040 +1\.0037–1\.0044 +fail$/);
  assert.ok(lines.findIndex((l) => l.startsWith('microbenchmark')) > 3);
});
