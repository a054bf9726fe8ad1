'use strict';
// What a configured CMake build tree says about how its server was compiled, for the build
// record (build.json): the compiler and the flags the verification team of a bug tracker asks
// for. Pure: the text of CMakeCache.txt and CMakeFiles/<version>/CMake<LANG>Compiler.cmake in.

// The cache entries worth recording besides the -D flags perfgate passed (those are in the
// recipe): the build type and the compiler flags that apply to it.
function recordedKeys(buildType) {
  const type = buildType ? `_${buildType.toUpperCase()}` : null;
  return ['CMAKE_BUILD_TYPE', 'CMAKE_C_FLAGS', 'CMAKE_CXX_FLAGS', ...(type ? [`CMAKE_C_FLAGS${type}`, `CMAKE_CXX_FLAGS${type}`] : [])];
}

/** NAME:TYPE=VALUE lines of CMakeCache.txt as {NAME: VALUE}; comments and blank lines skipped. */
function parseCMakeCache(text) {
  const entries = {};
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#') || line.startsWith('//')) continue;
    const m = /^([A-Za-z0-9_.+-]+)(?::[A-Z_]+)?=(.*)$/.exec(line.replace(/\r$/, ''));
    if (m) entries[m[1]] = m[2];
  }
  return entries;
}

/** {id, version} from CMake<LANG>Compiler.cmake (set(CMAKE_CXX_COMPILER_ID "GNU") ...), or null. */
function compilerOf(text, lang = 'CXX') {
  const value = (name) => {
    const m = new RegExp(`^set\\(CMAKE_${lang}_COMPILER_${name} "([^"]*)"\\)`, 'm').exec(text);
    return m ? m[1] : null;
  };
  const id = value('ID');
  return id ? { id, version: value('VERSION') } : null;
}

/**
 * The build record's `compiler` and `cmakeCache` from a configured tree: the C++ compiler
 * (mysqld is C++), with its path from the cache; the build type and its flags. `compilerText`
 * is CMakeCXXCompiler.cmake, or null when the tree has none.
 */
function buildRecord(cacheText, compilerText) {
  const cache = parseCMakeCache(cacheText);
  const compiler = compilerText ? compilerOf(compilerText) : null;
  const cmakeCache = Object.fromEntries(recordedKeys(cache.CMAKE_BUILD_TYPE).filter((k) => cache[k]).map((k) => [k, cache[k]]));
  return {
    compiler: compiler ? { ...compiler, path: cache.CMAKE_CXX_COMPILER || null } : null,
    cmakeCache,
  };
}

module.exports = { parseCMakeCache, compilerOf, buildRecord };
