'use strict';
// The build path for real: a tiny CMake project (test/fixtures/tiny-cmake) committed into a
// scratch git repository, built with cmake + ninja into the perfgate cache.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const { buildCommit } = require('../../../cli/src/source-build/build-commit');
const { loadRecipe } = require('../../../core/src/config/build-recipe');
const { BuildError } = require('../../../core/src/build-failure');
const { main } = require('../../../cli/src/main');
const { gitIn, setup } = require('../../support/tiny-fork');

function cacheEntries(cacheDir) {
  try { return fs.readdirSync(path.join(cacheDir, 'builds')).sort(); } catch { return []; }
}

function compiledObjects(logText) {
  return logText.split('\n').filter((l) => /^\[\d+\/\d+\] Building (C|CXX) object/.test(l)).length;
}

test('build, cache hit, then an incremental build of a one-file change', async (t) => {
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
  // What a bug report's verification team asks for, read from the configured tree: the compiler
  // that built it (the machine's own c++) and the flags of its build type.
  const cxx = execFileSync('c++', ['-dumpfullversion'], { encoding: 'utf8' }).trim();
  assert.deepEqual({ id: manifest.compiler.id, version: manifest.compiler.version }, { id: 'GNU', version: cxx });
  assert.match(manifest.compiler.path, /\/(c\+\+|g\+\+)(-\d+)?$/);
  assert.deepEqual(manifest.cmakeCache, { CMAKE_BUILD_TYPE: 'RelWithDebInfo', CMAKE_C_FLAGS_RELWITHDEBINFO: '-O2 -g -DNDEBUG', CMAKE_CXX_FLAGS_RELWITHDEBINFO: '-O2 -g -DNDEBUG' });
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
  const other = loadRecipe({ buildConfigs: [s.recipeFile], defines: [['TINY_GREETING', 'other']], cacheDir: s.cacheDir });
  const rebuilt = await buildCommit({ source: s.repo, ref: 'base', recipe: other, cacheDir: s.cacheDir, env: s.env });
  assert.equal(rebuilt.cache, 'cold');
  assert.notEqual(rebuilt.key, base.key);
  assert.match(execFileSync(path.join(rebuilt.prefix, 'bin/tinyd'), { encoding: 'utf8' }), /^other /);
});

test('failures name their step and leave no cache entry behind', async (t) => {
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

test('perfgate build prints the prefix; a failed build exits 4 with the step and log tail', async (t) => {
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

test('PERFGATE_BUILD_NICE runs cmake and ninja at that niceness', async (t) => {
  const s = setup(t);
  const env = { ...s.env, PERFGATE_BUILD_NICE: '5' };
  const built = await buildCommit({ source: s.repo, ref: 'base', recipe: s.recipe, cacheDir: s.cacheDir, env });
  const log = fs.readFileSync(built.logFile, 'utf8');
  assert.match(log, /^\$ nice -n 5 cmake -G Ninja /m);
  assert.match(log, /^\$ nice -n 5 ninja -C /m);
  assert.match(log, /^\$ git -C /m);
  await assert.rejects(buildCommit({ source: s.repo, ref: 'one-file', recipe: s.recipe, cacheDir: s.cacheDir, env: { ...s.env, PERFGATE_BUILD_NICE: 'low' } }),
    /PERFGATE_BUILD_NICE 'low': expected an integer niceness, e\.g\. 19/);
  const lock = path.join(s.cacheDir, 'trees', fs.readdirSync(path.join(s.cacheDir, 'trees'))[0], 'lock');
  assert.equal(spawnSync('flock', ['--nonblock', lock, 'true']).status, 0, 'the tree lock is released after an error');
});

// A real full disk: the cache on a 600 KiB tmpfs, mounted in a mount namespace of its own
// (unshare -m), so the host's mounts never change; the build runs inside it and what the
// cache holds afterwards is listed there too.
test('a disk that fills up: the build fails as disk-full and nothing is cached', async (t) => {
  assert.equal(process.getuid(), 0, 'mounting a tmpfs in a private mount namespace needs root: run the tests as root, as benchmark runners do');
  const s = setup(t);
  const small = path.join(s.root, 'small-disk');
  fs.mkdirSync(small, { recursive: true });
  const perfgate = path.resolve(__dirname, '../../../cli/bin/perfgate.js');
  const script = 'mount -t tmpfs -o size=600k tmpfs "$1" && PERFGATE_CACHE="$1" "$2" "$3" build --source "$4" --ref base --build-config "$5"; echo "exit=$?"; ls -A "$1/builds"';
  const r = spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', small, process.execPath, perfgate, s.repo, s.recipeFile],
    { encoding: 'utf8', env: { ...s.env, PATH: process.env.PATH } });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines[0], 'exit=4', r.stderr);
  assert.match(r.stderr, /^build error: .* failed: the disk is full \((No space left on device|\d+ KiB left)\)\. Free space under the perfgate cache and retry\.$/m);
  assert.deepEqual(lines.slice(1), [], 'no cache entry, no temp folder');
  assert.deepEqual(fs.readdirSync(small), [], 'the tmpfs lived only in its namespace');
});

// Pull-request code runs on runners that hold tokens; cmake and ninja (and every child of
// perfgate) get an allow-listed environment.
test('a pull request whose CMakeLists.txt writes its environment sees no token, secret or key', async (t) => {
  const s = setup(t);
  const secrets = {
    GITHUB_TOKEN: 'ghs_secretvalue1', ACTIONS_RUNTIME_TOKEN: 'rt_secretvalue2', ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'id_secretvalue3',
    ACTIONS_RESULTS_URL: 'https://results.invalid/secretvalue4', RUNNER_TOKEN: 'runner_secretvalue5', AWS_SECRET_ACCESS_KEY: 'aws_secretvalue6',
    PERFGATE_WEBHOOK_SECRET: 'hook_secretvalue7', PERFGATE_PRIVATE_KEY_FILE: '/keys/secretvalue8.pem', DB_PASSWORD: 'pw_secretvalue9',
    NPM_CONFIG__AUTH: 'npm_secretvalue10', INPUT_GITHUB_TOKEN: 'input_secretvalue11',
  };
  const built = await buildCommit({ source: s.repo, ref: 'env-report', recipe: s.recipe, cacheDir: s.cacheDir, env: { ...s.env, ...secrets } });
  for (const when of ['configure', 'build']) {
    const seen = fs.readFileSync(path.join(built.prefix, 'share', `${when}.env`), 'utf8');
    const names = seen.split('\n').filter(Boolean).map((l) => l.split('=')[0]);
    assert.ok(names.includes('PATH') && names.includes('HOME'), `${when}: the report is a real environment: ${names.join(' ')}`);
    for (const [name, value] of Object.entries(secrets)) {
      assert.ok(!names.includes(name), `${when}: ${name} reached the build`);
      assert.ok(!seen.includes(value), `${when}: the value of ${name} reached the build`);
    }
    assert.deepEqual(names.filter((n) => /TOKEN|SECRET|PASSW|KEY|AUTH|^ACTIONS_|^RUNNER_|^GITHUB_|^INPUT_/i.test(n)), [], when);
  }
});

test('a corrupt cache entry is discarded and rebuilt, not a failure of every later build', async (t) => {
  const s = setup(t);
  const first = await s.build('base');
  const manifest = path.join(s.cacheDir, 'builds', first.key, 'build.json');
  fs.writeFileSync(manifest, '{"schema": "perfgate.build/v1", "key": ');
  const second = await s.build('base');
  assert.notEqual(second.cache, 'hit', 'a manifest that does not parse is not a cache hit');
  assert.equal(second.key, first.key);
  assert.equal(JSON.parse(fs.readFileSync(manifest, 'utf8')).key, first.key, 'the entry was written again, whole');
  assert.equal((await s.build('base')).cache, 'hit');
  // A prefix that lost a required file is not trusted either.
  fs.rmSync(path.join(second.prefix, 'bin', 'tinyd'));
  const third = await s.build('base');
  assert.notEqual(third.cache, 'hit');
  assert.ok(fs.existsSync(path.join(third.prefix, 'bin', 'tinyd')));
  assert.ok(fs.readFileSync(third.logFile, 'utf8').includes(`discarding the cache entry ${first.key}: the prefix lacks bin/tinyd`));
});

test('SIGTERM during a build stops cmake and what it started, caches nothing, frees the lock, exits 143', async (t) => {
  const s = setup(t);
  const child = require('node:child_process').spawn(process.execPath,
    [path.resolve(__dirname, '../../../cli/bin/perfgate.js'), 'build', '--source', s.repo, '--ref', 'slow-configure', '--build-config', s.recipeFile],
    { env: { ...s.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`configure never started:\n${stderr}`)), 60000);
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (/: configure, /.test(stderr)) { clearTimeout(timer); resolve(); }
    });
  });
  // cmake runs the configure step's sleep (an odd duration, so no other process matches).
  const sleeping = () => spawnSync('pgrep', ['-f', '^sleep 127\\.31$'], { encoding: 'utf8' }).stdout.trim();
  for (let waited = 0; !sleeping() && waited < 30000; waited += 100) await new Promise((r) => setTimeout(r, 100));
  assert.ok(sleeping(), 'the configure step is running');
  child.kill('SIGTERM');
  const [code] = await new Promise((resolve) => child.on('exit', (...a) => resolve(a)));
  assert.equal(code, 143, stderr);
  assert.match(stderr, /perfgate build: cancelled by SIGTERM; nothing was cached/);
  assert.equal(sleeping(), '', 'nothing the build started is left running');
  assert.deepEqual(cacheEntries(s.cacheDir), [], 'no cache entry and no temp folder');
  const lock = path.join(s.cacheDir, 'trees', fs.readdirSync(path.join(s.cacheDir, 'trees'))[0], 'lock');
  assert.equal(spawnSync('flock', ['--nonblock', lock, 'true']).status, 0, 'the tree lock is free');
});
