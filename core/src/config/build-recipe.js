'use strict';
// Build recipes: thresholds/build.yml (+ a fork's overrides) → one resolved build recipe, and
// the cache key of a commit built with it. Files are read by the one YAML loader, so every
// problem names `file:line: key.path`.
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { YamlSource, show } = require('./yaml-source');
const check = require('./checks');
const { UsageError } = require('../errors');
const { FLAVORS } = require('./flavors');

const SHIPPED_BUILD_FILE = path.resolve(__dirname, '..', '..', '..', 'thresholds', 'build.yml');
const FLAG_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TARGET = /^[\w.+-]+$/;
const FLAVOR_KEYS = ['cmake_flags', 'targets', 'install', 'required'];
// Flags perfgate sets itself: the build tree layout and the compiler launcher are not a
// fork's choice, and they must not split the cache.
const RESERVED_FLAGS = new Set(['CMAKE_INSTALL_PREFIX', 'CMAKE_C_COMPILER_LAUNCHER', 'CMAKE_CXX_COMPILER_LAUNCHER']);

const isRelativeInside = (p) => typeof p === 'string' && p !== '' && !p.startsWith('/') && !p.split('/').includes('..');

// Parses the text of a build config file. The defaults file must define every field of a
// flavor; an override file may define any subset (partial = true).
function parseBuildConfig(text, file, { partial = false } = {}) {
  const src = new YamlSource(file, text);
  check.mapping(src, [], { required: ['flavors'], optional: ['schema'], what: 'a mapping with a flavors key' });
  if (src.data.schema !== undefined && src.data.schema !== 'perfgate.build-config/v1') {
    src.fail(['schema'], `${show(src.data.schema)} is not supported; expected perfgate.build-config/v1`);
  }
  const entries = check.mapping(src, ['flavors'], {
    optional: FLAVORS,
    what: `a mapping of ${FLAVORS.join('/')} to build settings`,
    unknown: () => `unknown flavor; expected one of ${FLAVORS.join(', ')}`,
  });
  const flavors = {};
  for (const name of Object.keys(entries)) flavors[name] = parseFlavor(src, ['flavors', name], partial);
  return { flavors };
}

function parseFlavor(src, at, partial) {
  const entry = check.mapping(src, at, {
    required: partial ? [] : FLAVOR_KEYS,
    optional: partial ? FLAVOR_KEYS : [],
    what: 'build settings',
  });
  const out = {};
  if (entry.cmake_flags !== undefined) out.cmake_flags = parseFlags(src, [...at, 'cmake_flags'], partial);
  if (entry.targets !== undefined) {
    const targets = check.list(src, [...at, 'targets'], { what: 'a non-empty list of ninja target names' });
    targets.forEach((_, i) => check.string(src, [...at, 'targets', i], { pattern: TARGET, what: 'a ninja target name' }));
    out.targets = [...targets];
  }
  if (entry.install !== undefined) {
    out.install = check.list(src, [...at, 'install'], { what: 'a non-empty list of {dir, component}' }).map((_, i) => {
      const step = [...at, 'install', i];
      check.mapping(src, step, { required: ['dir', 'component'], what: '{dir: <relative build dir>, component: <name>}' });
      const dir = check.string(src, [...step, 'dir'], { what: 'a build directory relative to the build tree' });
      if (!isRelativeInside(dir)) src.fail([...step, 'dir'], `${show(dir)} leaves the build tree; expected a relative path without '..'`);
      return { dir, component: check.string(src, [...step, 'component'], { what: 'a cmake install component' }) };
    });
  }
  if (entry.required !== undefined) {
    out.required = check.list(src, [...at, 'required'], { what: 'a list of paths or lists of alternative paths' }).map((r, i) => {
      const alternatives = Array.isArray(r) ? r : [r];
      if (!alternatives.length || !alternatives.every(isRelativeInside)) {
        src.fail([...at, 'required', i], `${show(r)} is not a relative path or a list of them`);
      }
      return [...alternatives];
    });
  }
  return out;
}

function parseFlags(src, at, allowNull) {
  const flags = check.mapping(src, at, { what: 'a mapping of NAME: value', anyKeys: true });
  const out = {};
  for (const [name, value] of Object.entries(flags)) {
    if (!FLAG_NAME.test(name)) src.fail([...at, name], 'not a valid cmake variable name');
    if (RESERVED_FLAGS.has(name)) src.fail([...at, name], 'is set by perfgate itself and cannot be overridden');
    if (value === null && allowNull) { out[name] = null; continue; }
    if (!['string', 'number', 'boolean'].includes(typeof value)) {
      src.fail([...at, name], `${show(value)} is not a string, number or boolean`);
    }
    out[name] = typeof value === 'boolean' ? (value ? 'ON' : 'OFF') : String(value);
  }
  return out;
}

// `-D NAME=VALUE` from the command line; `-D NAME=` (empty) is kept as an empty value, and
// `-U NAME` removes a default.
function parseDefine(text, argName = '-D') {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(text || '');
  if (!m) throw new UsageError(`${argName} '${text}': expected NAME=VALUE (a cmake variable)`);
  if (RESERVED_FLAGS.has(m[1])) throw new UsageError(`${argName} '${text}': ${m[1]} is set by perfgate itself and cannot be overridden`);
  return [m[1], m[2]];
}

// Defaults ← fork file ← command line. Later layers win; a null flag drops it.
// `cacheDir` expands ${cache} in flag values.
function resolveBuild({ defaults, overrides = [], defines = [], undefines = [], flavor, cacheDir }) {
  if (!FLAVORS.includes(flavor)) throw new UsageError(`--flavor '${flavor}': expected one of ${FLAVORS.join(', ')}`);
  const base = defaults.flavors[flavor];
  if (!base) throw new UsageError(`no build settings for flavor '${flavor}' in the build config`);
  let flags = { ...base.cmake_flags };
  let { targets, install, required } = base;
  for (const layer of overrides) {
    const entry = layer.flavors[flavor];
    if (!entry) continue;
    if (entry.cmake_flags) flags = { ...flags, ...entry.cmake_flags };
    if (entry.targets) targets = entry.targets;
    if (entry.install) install = entry.install;
    if (entry.required) required = entry.required;
  }
  for (const [name, value] of defines) flags[name] = value;
  for (const name of undefines) flags[name] = null;
  const cmakeFlags = {};
  for (const name of Object.keys(flags).sort()) {
    if (flags[name] === null) continue;
    cmakeFlags[name] = flags[name].split('${cache}').join(cacheDir);
  }
  const recipe = { flavor, cmakeFlags, targets: [...targets], install: install.map((s) => ({ ...s })), required: required.map((r) => [...r]) };
  return { ...recipe, flagsHash: recipeHash(recipe) };
}

// Everything that changes what gets installed goes into the hash; key order is fixed so the
// same recipe always hashes alike.
function recipeHash(recipe) {
  const canonical = JSON.stringify({
    flavor: recipe.flavor,
    cmakeFlags: Object.keys(recipe.cmakeFlags).sort().map((k) => [k, recipe.cmakeFlags[k]]),
    targets: recipe.targets,
    install: recipe.install.map((s) => [s.dir, s.component]),
  });
  return crypto.createHash('sha256').update(canonical).digest('hex');
}

function cmakeArgs(recipe) {
  return Object.entries(recipe.cmakeFlags).map(([k, v]) => `-D${k}=${v}`);
}

// The cache key of one installed prefix: the full commit SHA and 16 hex digits of the recipe
// hash (collisions among one machine's recipes are not a practical concern at 64 bits).
function cacheKey(commitSha, flagsHash) {
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commitSha)) throw new Error(`not a full commit SHA: '${commitSha}'`);
  if (!/^[0-9a-f]{16,}$/.test(flagsHash)) throw new Error(`not a recipe hash: '${flagsHash}'`);
  return `${commitSha}-${flagsHash.slice(0, 16)}`;
}

// One build tree per source repository, shared by every ref and flag set built from it, so
// that base then head is an incremental build.
function treeKey(sourceRealPath) {
  return crypto.createHash('sha256').update(sourceRealPath).digest('hex').slice(0, 16);
}

function readBuildFile(file, option, partial) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${option} '${file}': cannot read it (${err.code || err.message}); expected a build config YAML file`);
  }
  return parseBuildConfig(text, file, { partial });
}

/**
 * The recipe of one flavor: the shipped thresholds/build.yml, then the build.yml of the given
 * thresholds folder (a fork's copy may hold only the keys it changes), then each
 * `buildConfigs` file, then -D/-U. `cacheDir` expands ${cache} in flag values.
 */
function loadRecipe({ thresholdsDir = path.dirname(SHIPPED_BUILD_FILE), buildConfigs = [], defines = [], undefines = [], flavor = 'mariadb', cacheDir }) {
  const defaults = readBuildFile(SHIPPED_BUILD_FILE, 'shipped build config', false);
  const overrides = [];
  const forkFile = path.resolve(thresholdsDir, 'build.yml');
  if (forkFile !== SHIPPED_BUILD_FILE && fs.existsSync(forkFile)) overrides.push(readBuildFile(forkFile, '--thresholds', true));
  for (const file of buildConfigs) overrides.push(readBuildFile(file, '--build-config', true));
  return resolveBuild({ defaults, overrides, defines, undefines, flavor, cacheDir });
}

module.exports = { FLAVORS, parseBuildConfig, parseDefine, resolveBuild, loadRecipe, recipeHash, cmakeArgs, cacheKey, treeKey };
