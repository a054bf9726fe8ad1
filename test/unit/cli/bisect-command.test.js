'use strict';
// `perfgate bisect` on a scratch fork of the tiny CMake project (real git, real builds): bad
// input is one line and exit 2 before anything is built; an end that does not build is an
// error (exit 4) with bisect.json saying so; SIGTERM while building stops everything (143).
// The search itself is tested as tables in test/unit/core/bisect.test.js, and end to end on a
// real MariaDB fork by test/e2e/run.sh.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { main } = require('../../../cli/src/main');
const { resolveRange } = require('../../../cli/src/bisect');
const { schemaProblem } = require('../../../core/src/schemas');
const { gitIn, setup } = require('../../support/tiny-fork');

const PERFGATE = path.resolve(__dirname, '../../../cli/bin/perfgate.js');

async function bisect(s, out, ...args) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (x) => { stdout += x; } }, stderr: { write: (x) => { stderr += x; } }, env: s.env };
  const code = await main(['bisect', '--source', s.repo, '--build-config', s.recipeFile, '--out', out, ...args], io);
  return { code, stdout, stderr };
}

const readJson = (f) => JSON.parse(fs.readFileSync(f, 'utf8'));
const built = (cacheDir) => (fs.existsSync(path.join(cacheDir, 'builds')) ? fs.readdirSync(path.join(cacheDir, 'builds')) : []);

// main:  base ─ c1 ─ M ─ c2          M merges side (s1, forked at base) with --no-ff
//          \─ s1 ───┘
function addHistory(repo) {
  gitIn(repo, 'checkout', '-q', '-b', 'line', 'base');
  const commit = (file, text, message) => {
    fs.appendFileSync(path.join(repo, file), text);
    gitIn(repo, 'add', file);
    gitIn(repo, 'commit', '-q', '-m', message);
    return gitIn(repo, 'rev-parse', 'HEAD');
  };
  const c1 = commit('NOTES', 'c1\n', 'c1');
  gitIn(repo, 'checkout', '-q', '-b', 'side', 'base');
  const s1 = commit('core/plan.cc', '\n// s1\n', 's1');
  gitIn(repo, 'checkout', '-q', 'line');
  gitIn(repo, 'merge', '-q', '--no-ff', '-m', 'Merge side', 'side');
  const merge = gitIn(repo, 'rev-parse', 'HEAD');
  const c2 = commit('NOTES', 'c2\n', 'c2');
  gitIn(repo, 'checkout', '-q', 'main');
  return { c1, s1, merge, c2 };
}

test('the range: first-parent commits of a history with a merge, the merge one step', (t) => {
  const s = setup(t);
  const h = addHistory(s.repo);
  const commits = resolveRange(s.repo, 'base', 'line');
  assert.deepEqual(commits.map((c) => c.commit), [gitIn(s.repo, 'rev-parse', 'base'), h.c1, h.merge, h.c2]);
  assert.deepEqual(commits.map((c) => c.subject), ['base', 'c1', 'Merge side', 'c2']);
  assert.deepEqual(commits.map((c) => c.merge), [false, false, true, false]);
  assert.deepEqual(commits[2].parents, [h.c1, h.s1]);
});

test('bad input: one line naming the option, exit 2, nothing built and no bisect.json', async (t) => {
  const s = setup(t);
  const h = addHistory(s.repo);
  const out = path.join(s.root, 'bisect');
  const short = (x) => x.slice(0, 12);
  const base = gitIn(s.repo, 'rev-parse', 'base');
  const CASES = [
    [['--good', 'base'], 'perfgate bisect: --bad is missing; expected --bad <git ref>'],
    [['--good', 'no-such-ref', '--bad', 'line'], `perfgate bisect: --good 'no-such-ref': does not name a commit in ${fs.realpathSync(s.repo)}; expected a branch, tag or SHA of that checkout`],
    [['--good', 'base', '--bad', 'v9.9'], `perfgate bisect: --bad 'v9.9': does not name a commit in ${fs.realpathSync(s.repo)}; expected a branch, tag or SHA of that checkout`],
    [['--good', 'line', '--bad', 'base'], `perfgate bisect: --good 'line' (${short(h.c2)}) is not an ancestor of --bad 'base' (${short(base)}); expected the older, good commit as --good`],
    [['--good', 'one-file', '--bad', 'broken'], /^perfgate bisect: --good 'one-file' \([0-9a-f]{12}\) is not an ancestor of --bad 'broken' \([0-9a-f]{12}\); expected the older, good commit as --good\n$/],
    [['--good', 'line', '--bad', h.c2], `perfgate bisect: --good 'line' and --bad '${h.c2}' are the same commit ${short(h.c2)}; expected a good commit older than the bad one\n`],
    // s1 is an ancestor of line (through the merge) but not on its first-parent history.
    [['--good', 'side', '--bad', 'line'], `perfgate bisect: --good 'side' (${short(h.s1)}) is not on the first-parent history of --bad 'line': that history leaves the good commit's ancestry at ${short(base)}; expected a commit of 'line''s first-parent chain, e.g. ${short(base)} or the merge that brought 'side' in`],
    [['--good', 'base', '--bad', 'line', '--tests', 'update-index_range=100,no-such-test'], /^perfgate bisect: --tests: 'no-such-test' not in suite quick; expected some of: point-query, .*insert_range=100\n$/],
    [['--good', 'base', '--bad', 'line', '--tests', ','], "perfgate bisect: --tests ',': no microbenchmark named; expected e.g. --tests update-index_range=100,point-query"],
    [['--good', 'base', '--bad', 'line', '--suite', 'ahi'], /^perfgate bisect: --suite ahi: bisect measures listed microbenchmarks/],
    [['--good', 'base', '--bad', 'line', '--repeats', 'many'], "perfgate bisect: --repeats 'many': not an integer >= 0; expected e.g. --repeats 2"],
    [['--good', 'base', '--bad', 'line', '--metric', 'cycles'], "perfgate bisect: --metric 'cycles': expected time, instructions or both"],
  ];
  for (const [args, expected] of CASES) {
    const r = await bisect(s, out, ...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    if (expected instanceof RegExp) assert.match(r.stderr, expected);
    else assert.equal(r.stderr, expected.endsWith('\n') ? expected : `${expected}\n`);
    assert.equal(r.stdout, '');
  }
  // A checkout with uncommitted changes is an error, as for compare --source: one line, exit 4.
  fs.appendFileSync(path.join(s.repo, 'core/plan.cc'), '\n// uncommitted\n');
  const dirty = await bisect(s, out, '--good', 'base', '--bad', 'line');
  assert.equal(dirty.code, 4);
  assert.equal(dirty.stderr, `perfgate bisect: --source '${s.repo}': source tree ${fs.realpathSync(s.repo)} has uncommitted changes in 1 file(s); commit or stash them: perfgate builds commits, not working trees\n`);
  assert.deepEqual(built(s.cacheDir), [], 'nothing was built');
  assert.ok(!fs.existsSync(path.join(out, 'bisect.json')));
});

test('an end that does not build: exit 4, bisect.json says error with the build step, logs kept', async (t) => {
  const s = setup(t);
  const out = path.join(s.root, 'bisect');
  const r = await bisect(s, out, '--good', 'base', '--bad', 'broken', '--tests', 'update-index_range=100');
  assert.equal(r.code, 4, r.stderr);
  const doc = readJson(path.join(out, 'bisect.json'));
  assert.equal(schemaProblem('bisect', doc), null);
  assert.equal(doc.status, 'error');
  assert.match(doc.message, /^the bad end [0-9a-f]{12} did not build: compile \(ninja\) failed at .*plan\.cc\.o/);
  assert.equal(doc.steps.length, 1);
  const [step] = doc.steps;
  assert.equal(step.kind, 'confirm');
  assert.equal(step.outcome, 'build-failed');
  assert.equal(step.failed_side, 'head');
  assert.deepEqual(step.builds.map((b) => [b.status, b.cache]), [['ok', 'cold'], ['error', null]]);
  assert.match(fs.readFileSync(path.join(out, step.builds[1].log), 'utf8'), /this_does_not_compile/);
  assert.deepEqual(doc.builds, { built: 1, cached: 0, seconds: step.builds[0].seconds });
  assert.equal(doc.measurements, 0);
  assert.match(r.stderr, /perfgate bisect: error: the bad end .* did not build/);
  assert.match(r.stdout, /\nno culprit: the bad end [0-9a-f]{12} did not build/);
});

test('SIGTERM while an end builds: everything it started stops, exit 143, bisect.json says cancelled', async (t) => {
  const s = setup(t);
  const out = path.join(s.root, 'bisect');
  const child = spawn(process.execPath, [PERFGATE, 'bisect', '--source', s.repo, '--build-config', s.recipeFile, '--out', out,
    '--good', 'base', '--bad', 'slow-configure', '--tests', 'point-query'], { env: s.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  // cmake runs the bad end's configure-time sleep (an odd duration, so no other process matches).
  const sleeping = () => spawnSync('pgrep', ['-f', '^sleep 127\\.31$'], { encoding: 'utf8' }).stdout.trim();
  for (let waited = 0; !sleeping() && waited < 120000; waited += 200) await new Promise((r) => setTimeout(r, 200));
  assert.ok(sleeping(), `the bad end's configure step is running:\n${stderr}`);
  child.kill('SIGTERM');
  const [code] = await new Promise((resolve) => child.on('exit', (...a) => resolve(a)));
  assert.equal(code, 143, stderr);
  assert.equal(sleeping(), '', 'nothing the build started is left running');
  const doc = readJson(path.join(out, 'bisect.json'));
  assert.equal(schemaProblem('bisect', doc), null);
  assert.equal(doc.status, 'cancelled');
  assert.equal(doc.message, 'cancelled by SIGTERM; nothing measured after the signal counts');
  assert.equal(doc.steps[0].outcome, 'cancelled');
  assert.match(stderr, /perfgate bisect: cancelled: cancelled by SIGTERM/);
  const slow = gitIn(s.repo, 'rev-parse', 'slow-configure');
  assert.ok(!built(s.cacheDir).some((e) => e.startsWith(slow)), 'no cache entry for the cancelled build');
  const lock = path.join(s.cacheDir, 'trees', fs.readdirSync(path.join(s.cacheDir, 'trees'))[0], 'lock');
  assert.equal(spawnSync('flock', ['--nonblock', lock, 'true']).status, 0, 'the tree lock is free');
});
