'use strict';
// The build path for real: a tiny CMake project (test/fixtures/tiny-cmake) committed into a
// scratch git repository, built with cmake + ninja into the perfgate cache.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { buildCommit } = require('../src/build/runner');
const { loadRecipe } = require('../src/build/settings');
const { BuildError } = require('../src/build/failure');
const { main } = require('../src/cli');
const { gitIn, setup, haveTools } = require('./helpers/tiny-fork');

function cacheEntries(cacheDir) {
  try { return fs.readdirSync(path.join(cacheDir, 'builds')).sort(); } catch { return []; }
}

function compiledObjects(logText) {
  return logText.split('\n').filter((l) => /^\[\d+\/\d+\] Building (C|CXX) object/.test(l)).length;
}

test('build, cache hit, then an incremental build of a one-file change', { skip: !haveTools && 'needs cmake, ninja, git, c++' }, async (t) => {
  const s = setup(t);
  const base = await s.build('base');
  assert.equal(base.cache, 'cold');
  assert.equal(base.commit, gitIn(s.repo, 'rev-parse', 'base'));
  assert.equal(base.prefix, path.join(s.cacheDir, 'builds', base.key, 'prefix'));
  assert.equal(execFileSync(path.join(base.prefix, 'bin/tinyd'), { encoding: 'utf8' }), 'from-recipe rows=4000 cost=404 checksum=3560192\n');
  assert.ok(fs.existsSync(path.join(base.prefix, 'bin/tiny_print_defaults')));
  assert.ok(fs.existsSync(path.join(base.prefix, 'share/tiny_tables.sql')));
  assert.ok(!fs.existsSync(path.join(base.prefix, 'docs')), 'components not asked for are not installed');
  const manifest = JSON.parse(fs.readFileSync(path.join(s.cacheDir, 'builds', base.key, 'build.json'), 'utf8'));
  assert.equal(manifest.schema, 'perfgate.build/v1');
  assert.equal(manifest.commit, base.commit);
  assert.equal(manifest.cmakeFlags.TINY_GREETING, 'from-recipe');
  assert.equal(compiledObjects(fs.readFileSync(base.logFile, 'utf8')), 5, 'cold: every object');
  const compileEvents = s.events.filter((e) => e.phase === 'compile' && e.total > 0);
  assert.ok(compileEvents.length > 0 && compileEvents.at(-1).done === compileEvents.at(-1).total, 'ninja progress reported');

  const again = await s.build('base');
  assert.equal(again.cache, 'hit');
  assert.equal(again.prefix, base.prefix);
  assert.ok(again.seconds < 5, `a cache hit took ${again.seconds}s`);

  const head = await s.build('one-file');
  assert.equal(head.cache, 'warm');
  assert.notEqual(head.prefix, base.prefix);
  assert.equal(execFileSync(path.join(head.prefix, 'bin/tinyd'), { encoding: 'utf8' }), 'from-recipe rows=4000 cost=410 checksum=3560192\n');
  assert.equal(compiledObjects(fs.readFileSync(head.logFile, 'utf8')), 1, 'incremental: only the changed file');
  assert.equal(execFileSync(path.join(base.prefix, 'bin/tinyd'), { encoding: 'utf8' }).includes('cost=404'), true, 'the base prefix is untouched');

  // A changed recipe is another cache entry and a fresh build tree, never a stale hit.
  const other = loadRecipe({ buildConfigs: [s.recipeFile], defines: [['TINY_GREETING', 'other']], env: s.env });
  const rebuilt = await buildCommit({ source: s.repo, ref: 'base', recipe: other, cacheDir: s.cacheDir, env: s.env });
  assert.equal(rebuilt.cache, 'cold');
  assert.notEqual(rebuilt.key, base.key);
  assert.match(execFileSync(path.join(rebuilt.prefix, 'bin/tinyd'), { encoding: 'utf8' }), /^other /);
});

test('failures name their step and leave no cache entry behind', { skip: !haveTools && 'needs cmake, ninja, git, c++' }, async (t) => {
  const s = setup(t);
  await assert.rejects(s.build('no-such-ref'), (err) => err instanceof BuildError && err.step === 'ref'
    && err.message === `ref 'no-such-ref' does not name a commit in ${fs.realpathSync(s.repo)}`);

  await assert.rejects(s.build('broken'), (err) => {
    assert.ok(err instanceof BuildError);
    assert.equal(err.step, 'compile');
    assert.equal(err.reason, 'compile-error');
    assert.match(err.target, /core\/plan\.cc\.o$/);
    assert.match(err.message, /error: 'this_does_not_compile' was not declared/);
    assert.match(err.logTail, /ninja: build stopped: subcommand failed\./);
    assert.ok(fs.readFileSync(err.logFile, 'utf8').includes('FAILED: '), 'the full log is kept');
    return true;
  });
  assert.deepEqual(cacheEntries(s.cacheDir), []);

  // Compiles and installs, but the prefix lacks a required file: verified, not cached.
  await assert.rejects(s.build('no-sql'), (err) => err instanceof BuildError && err.step === 'verify'
    && err.message === 'the installed prefix lacks share/tiny_tables.sql; check the install steps of the build config');
  assert.deepEqual(cacheEntries(s.cacheDir), [], 'no half-installed prefix, no temp folder');

  // After the failures the same tree still builds a good commit, incrementally.
  const ok = await s.build('one-file');
  assert.equal(ok.cache, 'warm');
  assert.deepEqual(cacheEntries(s.cacheDir), [ok.key]);

  fs.appendFileSync(path.join(s.repo, 'core/rows.cc'), '// local edit\n');
  await assert.rejects(s.build('base'), (err) => err instanceof BuildError && err.step === 'source' && err.reason === 'dirty-tree'
    && /has uncommitted changes in 1 file\(s\); commit or stash them/.test(err.message) && err.logTail.includes('core/rows.cc'));
});

test('perfgate build prints the prefix; a failed build exits 4 with the step and log tail', { skip: !haveTools && 'needs cmake, ninja, git, c++' }, async (t) => {
  const s = setup(t);
  const run = async (...args) => {
    let out = '';
    let err = '';
    const io = { stdout: { write: (x) => { out += x; } }, stderr: { write: (x) => { err += x; } }, env: s.env };
    const code = await main(['build', '--source', s.repo, '--build-config', s.recipeFile, ...args], io);
    return { code, out, err };
  };
  const ok = await run('--ref', 'base');
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.out, /^\/.*\/builds\/[0-9a-f]{40}-[0-9a-f]{16}\/prefix\n$/);
  assert.ok(fs.existsSync(path.join(ok.out.trim(), 'bin/tinyd')));
  assert.match(ok.err, /build base: compile, 100% of ninja steps \(\d+\/\d+\), \d+s elapsed, cache cold/);
  const hit = await run('--ref', 'base');
  assert.equal(hit.out, ok.out);
  assert.match(hit.err, /found in the cache/);

  const broken = await run('--ref', 'broken');
  assert.equal(broken.code, 4);
  assert.equal(broken.out, '');
  assert.match(broken.err, /^build error: compile \(ninja\) failed at .*plan\.cc\.o: .*error: 'this_does_not_compile'/m);
  assert.match(broken.err, /^full log: /m);
  assert.match(broken.err, /^ {2}ninja: build stopped: subcommand failed\.$/m);

  const missing = await run('--ref', 'nope');
  assert.equal(missing.code, 4);
  assert.match(missing.err, /^build error: ref 'nope' does not name a commit in /);

  const usage = await run('--ref', 'base', '--flavor', 'oracle');
  assert.equal(usage.code, 2);
  assert.equal(usage.err, "perfgate build: --flavor 'oracle': expected one of mariadb, mysql, percona\n");
});

test('PERFGATE_BUILD_NICE runs cmake and ninja at that niceness', { skip: !haveTools && 'needs cmake, ninja, git, c++' }, async (t) => {
  const s = setup(t);
  const env = { ...s.env, PERFGATE_BUILD_NICE: '5' };
  const built = await buildCommit({ source: s.repo, ref: 'base', recipe: s.recipe, cacheDir: s.cacheDir, env });
  const log = fs.readFileSync(built.logFile, 'utf8');
  assert.match(log, /^\$ nice -n 5 cmake -G Ninja /m);
  assert.match(log, /^\$ nice -n 5 ninja -C /m);
  assert.match(log, /^\$ git -C /m);
  await assert.rejects(buildCommit({ source: s.repo, ref: 'one-file', recipe: s.recipe, cacheDir: s.cacheDir, env: { ...s.env, PERFGATE_BUILD_NICE: 'low' } }),
    /PERFGATE_BUILD_NICE 'low': expected an integer niceness, e\.g\. 19/);
  assert.ok(!fs.existsSync(path.join(s.cacheDir, 'trees', require('node:fs').readdirSync(path.join(s.cacheDir, 'trees'))[0], 'lock')), 'the tree lock is released after an error');
});

// A real full disk: the cache on a 600 KiB tmpfs (needs root to mount; skipped otherwise).
function mountSmallDisk(dir) {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return 'needs root to mount a tmpfs';
  fs.mkdirSync(dir, { recursive: true });
  const r = require('node:child_process').spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=600k', 'tmpfs', dir], { encoding: 'utf8' });
  return r.status === 0 ? null : `cannot mount a tmpfs: ${(r.stderr || '').trim()}`;
}

test('a disk that fills up: the build fails as disk-full and nothing is cached', { skip: !haveTools && 'needs cmake, ninja, git, c++' }, async (t) => {
  const s = setup(t);
  const small = path.join(s.root, 'small-disk');
  const why = mountSmallDisk(small);
  if (why) { t.skip(why); return; }
  try {
  await assert.rejects(buildCommit({ source: s.repo, ref: 'base', recipe: s.recipe, cacheDir: small, env: s.env }), (err) => {
    assert.ok(err instanceof BuildError, String(err));
    assert.equal(err.reason, 'disk-full', `${err.message}\n${err.logTail}`);
    assert.match(err.message, /the disk is full \((No space left on device|\d+ KiB left)\)\. Free space under the perfgate cache and retry\.$/);
    return true;
  });
    assert.deepEqual(fs.readdirSync(path.join(small, 'builds')), [], 'no cache entry, no temp folder');
  } finally {
    require('node:child_process').spawnSync('umount', [small]);
  }
});
