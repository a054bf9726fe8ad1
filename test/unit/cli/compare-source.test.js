'use strict';
// `perfgate compare --source` when a side does not build: an error run folder, never a verdict.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { main } = require('../../../cli/src/main');
const { schemaProblem } = require('../../../core/src/schemas');
const { gitIn, setup } = require('../../support/tiny-fork');

async function compare(s, out, ...args) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (x) => { stdout += x; } }, stderr: { write: (x) => { stderr += x; } }, env: s.env };
  const code = await main(['compare', '--source', s.repo, '--build-config', s.recipeFile, '--out', out,
    '--tables', '1', '--rows', '100', ...args], io);
  return { code, stdout, stderr };
}

const readJson = (f) => JSON.parse(fs.readFileSync(f, 'utf8'));

test('a head that does not compile: exit 4, results with status error, both commits and logs kept', async (t) => {
  const s = setup(t);
  const out = path.join(s.root, 'run');
  fs.mkdirSync(out);
  fs.writeFileSync(path.join(out, 'verdict.json'), '{"stale": true}');
  const r = await compare(s, out, '--base', 'base', '--head', 'broken', '--tests', 'update-index_range=100,point-query');
  assert.equal(r.code, 4, r.stderr);
  assert.match(r.stderr, /perfgate compare: error: the head ref 'broken' did not build: compile \(ninja\) failed at .*plan\.cc\.o: .*error: 'this_does_not_compile'/);
  const results = readJson(path.join(out, 'results.json'));
  assert.equal(schemaProblem('results', results), null);
  assert.equal(results.status, 'error');
  assert.deepEqual(results.benchmarks, []);
  assert.equal(results.errors[0].side, 'head');
  assert.match(results.errors[0].step, /^build: compile at .*plan\.cc\.o$/);
  assert.match(results.errors[0].log_tail, /ninja: build stopped: subcommand failed\./);
  const plan = readJson(path.join(out, 'plan.json'));
  assert.equal(plan.sides.base.commit, gitIn(s.repo, 'rev-parse', 'base'));
  assert.equal(plan.sides.head.commit, gitIn(s.repo, 'rev-parse', 'broken'));
  // --tests: only those microbenchmarks, in the suite's order.
  assert.deepEqual(plan.benchmarks.map((b) => b.id), ['point-query', 'update-index_range=100']);
  // The recipe's flavour goes with the built side: it names a Percona Server built from source.
  assert.equal(plan.sides.base.flavor, 'mariadb');
  assert.equal(results.sides.head.commit, plan.sides.head.commit);
  assert.ok(fs.existsSync(path.join(out, 'build/base.log')));
  assert.match(fs.readFileSync(path.join(out, 'build/head.log'), 'utf8'), /FAILED: /);
  const builds = readJson(path.join(out, 'build/builds.json'));
  assert.equal(schemaProblem('builds', builds), null);
  assert.equal(builds.sides.base.status, 'ok');
  assert.equal(builds.sides.head.status, 'error');
  assert.equal(builds.sides.head.error.step, 'compile');
  const verdict = readJson(path.join(out, 'verdict.json'));
  assert.equal(schemaProblem('verdict', verdict), null);
  assert.equal(verdict.verdict, 'error');
  assert.equal(verdict.exit_code, 4);
  assert.match(verdict.headline, /head/);
  assert.equal(verdict.stale, undefined, 'the stale verdict of an earlier run is replaced');
  for (const f of ['comment.md', 'summary.md', 'report.html']) assert.ok(fs.existsSync(path.join(out, f)), f);
  assert.match(fs.readFileSync(path.join(out, 'comment.md'), 'utf8'), /did not build/);
});

test('a base ref that does not exist: exit 4 naming the ref; bad options exit 2', async (t) => {
  const s = setup(t);
  const out = path.join(s.root, 'run');
  const r = await compare(s, out, '--base', 'no-such-branch', '--head', 'base');
  assert.equal(r.code, 4);
  assert.match(r.stderr, /error: the base ref 'no-such-branch' did not build: ref 'no-such-branch' does not name a commit/);
  assert.equal(readJson(path.join(out, 'results.json')).errors[0].step, 'build: ref');

  const usage = await compare(s, out, '--base', 'base', '--head', 'base', '--flavor', 'db2');
  assert.equal(usage.code, 2);
  assert.equal(usage.stderr, "perfgate compare: --flavor 'db2': expected one of mariadb, mysql, percona\n");
});
