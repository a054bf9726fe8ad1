'use strict';
// The build record's compiler and flags, read from a real configured MariaDB 10.11 tree
// (perfgate build's recipe, cmake 3.25, Debian 12's GCC 12).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { parseCMakeCache, compilerOf, buildRecord } = require('../../../core/src/cmake-cache');

const TREE = path.join(__dirname, '../../fixtures/build/mariadb-tree');
const cacheText = fs.readFileSync(path.join(TREE, 'CMakeCache.txt'), 'utf8');
const compilerText = fs.readFileSync(path.join(TREE, 'CMakeCXXCompiler.cmake'), 'utf8');

test('CMakeCache.txt entries by name, whatever their type; comments skipped', () => {
  const cache = parseCMakeCache(cacheText);
  assert.equal(cache.WITH_LIBFMT, 'system');
  assert.equal(cache.PLUGIN_ROCKSDB, 'NO');
  assert.equal(cache.CMAKE_CXX_FLAGS, '');
  assert.deepEqual(parseCMakeCache('# comment\n// help text\nA:BOOL=ON\nB=x=y\r\n\n'), { A: 'ON', B: 'x=y' });
});

test('the compiler of a configured tree and the flags of its build type', () => {
  assert.deepEqual(compilerOf(compilerText), { id: 'GNU', version: '12.2.0' });
  assert.equal(compilerOf('set(CMAKE_C_COMPILER_ID "Clang")'), null, 'a C-only tree has no C++ compiler');
  assert.deepEqual(buildRecord(cacheText, compilerText), {
    compiler: { id: 'GNU', version: '12.2.0', path: '/usr/bin/c++' },
    cmakeCache: { CMAKE_BUILD_TYPE: 'RelWithDebInfo', CMAKE_C_FLAGS_RELWITHDEBINFO: '-O2 -g -DNDEBUG', CMAKE_CXX_FLAGS_RELWITHDEBINFO: '-O2 -g -DNDEBUG' },
  });
  assert.deepEqual(buildRecord('CMAKE_CXX_FLAGS:STRING=-march=native\n', null), { compiler: null, cmakeCache: { CMAKE_CXX_FLAGS: '-march=native' } });
});
