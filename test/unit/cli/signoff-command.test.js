'use strict';
// `perfgate signoff <run-dir>`: the decision and report of a merged full-suite run folder.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runMain } = require('../../support/cli-main');
const core = require('../../../core');

const VERDICT = path.join(__dirname, '../../fixtures/verdicts/full-4-shards/verdict.json');

const cli = (args) => runMain(args);

test('perfgate signoff: writes signoff.md and signoff.html, prints the decision, exits by it', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-signoff-cli-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.copyFileSync(VERDICT, path.join(dir, 'verdict.json'));
  const failed = await cli(['signoff', dir, '--candidate-ref', 'mariadb-10.11.19', '--previous-ref', 'mariadb-10.11.18']);
  assert.equal(failed.code, 1, failed.stderr);
  assert.equal(failed.stdout, 'perfgate/signoff: failure — 37 of 42 not within limits (point-query.pre_range=100 undecided, random-points.pre_range=10 undecided and 35 more)\n');
  // The captured verdict is a v1 document: read as perfgate signoff reads it.
  const { verdict } = core.readVerdict(JSON.parse(fs.readFileSync(VERDICT, 'utf8')));
  const expected = core.renderSignoff(verdict, { candidate: { ref: 'mariadb-10.11.19', sha: null }, previous: { ref: 'mariadb-10.11.18', sha: null }, waivers: [] }).files;
  assert.equal(fs.readFileSync(path.join(dir, 'signoff.md'), 'utf8'), expected['signoff.md']);
  assert.equal(fs.readFileSync(path.join(dir, 'signoff.html'), 'utf8'), expected['signoff.html']);

  // Every row not within limits waived: success.
  const waivers = verdict.benchmarks.filter((b) => !['pass', 'warn'].includes(b.verdict)).map((b) => ({ microbenchmark: b.name, reason: 'accepted for this release', author: 'release-manager' }));
  fs.writeFileSync(path.join(dir, 'waivers.json'), JSON.stringify(waivers));
  const waived = await cli(['signoff', dir, '--waivers', path.join(dir, 'waivers.json')]);
  assert.equal(waived.code, 0, waived.stderr);
  assert.equal(waived.stdout, 'perfgate/signoff: success — All 42 microbenchmarks within limits, 37 waived\n');
  assert.match(fs.readFileSync(path.join(dir, 'signoff.md'), 'utf8'), /\| scan_range=100 \|.*\n[\s\S]*\| update-index_range=100 \| undecided \| @release-manager \| accepted for this release \|/);
});

test('perfgate signoff: bad input is one line naming it, exit 2, nothing written', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-signoff-cli-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const none = await cli(['signoff', dir]);
  assert.deepEqual([none.code, none.stderr], [2, `perfgate signoff: '${dir}': no verdict.json there; expected a merged run folder (perfgate merge --out)\n`]);
  fs.copyFileSync(VERDICT, path.join(dir, 'verdict.json'));
  fs.writeFileSync(path.join(dir, 'w.json'), JSON.stringify([{ microbenchmark: 'scan_range=100' }]));
  const bad = await cli(['signoff', dir, '--waivers', path.join(dir, 'w.json')]);
  assert.deepEqual([bad.code, bad.stderr], [2, `perfgate signoff: --waivers '${path.join(dir, 'w.json')}': entry 1 key 'reason' is undefined; expected text\n`]);
  const sha = await cli(['signoff', dir, '--candidate-sha', 'abc']);
  assert.deepEqual([sha.code, sha.stderr], [2, "perfgate signoff: --candidate-sha 'abc' is not valid; expected a commit SHA of 40 hex digits\n"]);
  assert.deepEqual(fs.readdirSync(dir).sort(), ['verdict.json', 'w.json']);
});

test('perfgate signoff of several suites: one report of all, written into the first folder; a suite given twice is refused', async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-signoff-cli-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const [full, ddl] = ['full', 'ddl'].map((name) => path.join(root, name));
  fs.mkdirSync(full);
  fs.mkdirSync(ddl);
  fs.copyFileSync(VERDICT, path.join(full, 'verdict.json'));
  fs.copyFileSync(path.join(__dirname, '../../fixtures/verdicts/ddl-quick-slow-index/verdict.json'), path.join(ddl, 'verdict.json'));
  const both = await cli(['signoff', full, ddl]);
  assert.equal(both.code, 1, both.stderr);
  assert.match(both.stdout, /^perfgate\/signoff: failure — 40 of 49 not within limits, a suite as a whole not within limits \(/);
  const md = fs.readFileSync(path.join(full, 'signoff.md'), 'utf8');
  assert.match(md, /· suites `full`, `ddl-quick`/);
  assert.match(md, /### ddl-quick: the suite as a whole/);
  assert.deepEqual(fs.readdirSync(ddl), ['verdict.json'], 'nothing written into the other folders');
  const twice = await cli(['signoff', full, full]);
  assert.deepEqual([twice.code, twice.stderr], [2, 'perfgate signoff: the run folders hold the suite full twice; expected one merged run folder per suite\n']);
});
