'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { parseNinjaStatus, formatBuildProgress, progressThrottle, formatDuration } = require('../../../core/src/progress');
const { classifyCommandFailure, classifyIoFailure, firstNinjaFailure, describeFailure, tailLines } = require('../../../core/src/build-failure');

test('ninja status lines give steps done and total; other lines give null', () => {
  assert.deepEqual(parseNinjaStatus('[412/856] Building CXX object sql/CMakeFiles/sql.dir/sql_update.cc.o'), { done: 412, total: 856 });
  assert.deepEqual(parseNinjaStatus('[1/1] Linking CXX executable sql/mariadbd'), { done: 1, total: 1 });
  assert.equal(parseNinjaStatus('ninja: no work to do.'), null);
  assert.equal(parseNinjaStatus('In file included from [1/2] x'), null);
  assert.equal(parseNinjaStatus('[3/2] impossible'), null);
  assert.equal(parseNinjaStatus('[0/0] nothing'), null);
});

test('a progress line shows the phase, percent of ninja steps, elapsed time and cache state', () => {
  assert.equal(formatBuildProgress({ label: 'head', phase: 'compile', done: 412, total: 856, elapsedSeconds: 312, cache: 'cold' }),
    'build head: compile, 48% of ninja steps (412/856), 5m12s elapsed, cache cold');
  assert.equal(formatBuildProgress({ label: 'base', phase: 'cached', done: 0, total: 0, elapsedSeconds: 0.4, cache: 'hit' }),
    'build base: cached, 0s elapsed, cache hit');
  assert.equal(formatDuration(3725), '1h02m');
});

test('progress is throttled but never hides a phase change or the last step', () => {
  const due = progressThrottle(10);
  assert.equal(due({ phase: 'compile', done: 1, total: 9 }, 0), true);
  assert.equal(due({ phase: 'compile', done: 2, total: 9 }, 3), false);
  assert.equal(due({ phase: 'compile', done: 3, total: 9 }, 11), true);
  assert.equal(due({ phase: 'compile', done: 9, total: 9 }, 12), true);
  assert.equal(due({ phase: 'install', done: 0, total: 0 }, 12.5), true);
});

// Real ninja output of a C++ compile error: the tiny CMake fixture with a broken core/plan.cc,
// built with LC_ALL=C as perfgate builds (paths shortened to /t).
const NINJA_FAILURE = fs.readFileSync(path.join(__dirname, '../../fixtures/build/ninja-compile-error.txt'), 'utf8');

test('a compile failure names the failing object and the first compiler error', () => {
  assert.deepEqual(firstNinjaFailure(NINJA_FAILURE), {
    target: 'CMakeFiles/tinycore.dir/core/plan.cc.o',
    error: "/t/src/core/plan.cc:8:3: error: 'this_does_not_compile' was not declared in this scope",
  });
  const err = classifyCommandFailure({ step: 'compile', command: 'ninja -C build tinyd', exitCode: 1, logText: NINJA_FAILURE, logFile: '/l.log' });
  assert.equal(err.reason, 'compile-error');
  assert.equal(err.target, 'CMakeFiles/tinycore.dir/core/plan.cc.o');
  assert.equal(err.message, "compile (ninja) failed at CMakeFiles/tinycore.dir/core/plan.cc.o: /t/src/core/plan.cc:8:3: error: 'this_does_not_compile' was not declared in this scope");
  assert.match(err.logTail, /ninja: build stopped: subcommand failed\.$/);
  const lines = describeFailure(err);
  assert.equal(lines[1], 'full log: /l.log');
  assert.equal(lines[2], 'last lines of the compile (ninja) output:');
});

test('a full disk is reported as such, whatever step hit it', () => {
  const err = classifyCommandFailure({ step: 'install', command: 'cmake -P x', exitCode: 1,
    logText: 'CMake Error at sql/cmake_install.cmake:52 (file):\n  file INSTALL cannot copy file "/b/sql/mariadbd": No space left on device.' });
  assert.equal(err.reason, 'disk-full');
  assert.equal(err.step, 'install');
  assert.match(err.message, /^install failed: the disk is full/);
  const io = classifyIoFailure('cache', Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
  assert.equal(io.reason, 'disk-full');
  assert.equal(io.message, 'store the prefix in the cache failed: the disk is full (ENOSPC). Free space under the perfgate cache and retry.');
});

test('a failed step with almost nothing left on the disk is a full disk, even when the tool did not say', () => {
  const silent = 'FAILED: CMakeFiles/tinycore.dir/core/checksum.c.o \nccache /usr/bin/cc -c checksum.c\nninja: build stopped: subcommand failed.';
  const full = classifyCommandFailure({ step: 'compile', command: 'ninja', exitCode: 1, logText: silent, freeBytes: 24 * 1024 });
  assert.equal(full.reason, 'disk-full');
  assert.equal(full.message, 'compile (ninja) failed: the disk is full (24 KiB left). Free space under the perfgate cache and retry.');
  const roomy = classifyCommandFailure({ step: 'compile', command: 'ninja', exitCode: 1, logText: silent, freeBytes: 10 * 1024 ** 3 });
  assert.equal(roomy.reason, 'compile-error');
  assert.equal(roomy.message, 'compile (ninja) failed at CMakeFiles/tinycore.dir/core/checksum.c.o');
});

test('other failures name the step, the command and its exit code; a missing tool says so', () => {
  const conf = classifyCommandFailure({ step: 'configure', command: 'cmake -G Ninja', exitCode: 1, logText: 'CMake Error: x' });
  assert.equal(conf.message, "configure (cmake) failed: 'cmake -G Ninja' exited with 1");
  assert.equal(conf.reason, 'configure-failed');
  const missing = classifyCommandFailure({ step: 'compile', command: 'ninja', exitCode: null, logText: '', spawnError: Object.assign(new Error('spawn ninja ENOENT'), { code: 'ENOENT' }) });
  assert.equal(missing.message, "compile (ninja) failed: could not run 'ninja': ENOENT");
  assert.equal(tailLines('a\nb\nc\n\n', 2), 'b\nc');
});
