'use strict';
// Build settings: thresholds/build.yml (+ a fork's overrides) → one resolved build recipe,
// and the cache key of a commit built with it. Pure: callers read the files.
const crypto = require('node:crypto');
const YAML = require('yaml');
const { UsageError } = require('../errors');

const FLAVORS = ['mariadb', 'mysql', 'percona'];
const FLAG_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Flags perfgate sets itself: the build tree layout and the compiler launcher are not a
// fork's choice, and they must not split the cache.
const RESERVED_FLAGS = new Set(['CMAKE_INSTALL_PREFIX', 'CMAKE_C_COMPILER_LAUNCHER', 'CMAKE_CXX_COMPILER_LAUNCHER']);

function fail(file, key, message) {
  return new UsageError(`${file}: ${key}: ${message}`);
}

function isPlainObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// Parses the text of a build config file. The defaults file must define every field of a
// flavor; an override file may define any subset (partial = true).
function parseBuildConfig(text, file, { partial = false } = {}) {
  let doc;
  try {
    doc = YAML.parse(text);
  } catch (err) {
    throw new UsageError(`${file}: not valid YAML: ${err.message.split('\n')[0]}`);
  }
  if (!isPlainObject(doc)) throw new UsageError(`${file}: expected a mapping with a 'flavors' key`);
  if (doc.schema !== undefined && doc.schema !== 'perfgate.build-config/v1') {
    throw fail(file, 'schema', `'${doc.schema}' is not supported; expected perfgate.build-config/v1`);
  }
  for (const key of Object.keys(doc)) {
    if (key !== 'schema' && key !== 'flavors') throw fail(file, key, "unknown key; expected 'schema' or 'flavors'");
  }
  if (!isPlainObject(doc.flavors)) throw fail(file, 'flavors', `expected a mapping of ${FLAVORS.join('/')} to build settings`);
  const flavors = {};
  for (const [name, entry] of Object.entries(doc.flavors)) {
    if (!FLAVORS.includes(name)) throw fail(file, `flavors.${name}`, `unknown flavor; expected one of ${FLAVORS.join(', ')}`);
    flavors[name] = parseFlavor(entry, file, `flavors.${name}`, partial);
  }
  return { flavors };
}

function parseFlavor(entry, file, at, partial) {
  if (!isPlainObject(entry)) throw fail(file, at, 'expected a mapping with cmake_flags, targets, install, required');
  const known = ['cmake_flags', 'targets', 'install', 'required'];
  for (const key of Object.keys(entry)) {
    if (!known.includes(key)) throw fail(file, `${at}.${key}`, `unknown key; expected one of ${known.join(', ')}`);
  }
  if (!partial) {
    for (const key of known) if (entry[key] === undefined) throw fail(file, `${at}.${key}`, 'missing');
  }
  const out = {};
  if (entry.cmake_flags !== undefined) out.cmake_flags = parseFlags(entry.cmake_flags, file, `${at}.cmake_flags`, partial);
  if (entry.targets !== undefined) {
    if (!Array.isArray(entry.targets) || entry.targets.length === 0 || !entry.targets.every((t) => typeof t === 'string' && /^[\w.+-]+$/.test(t))) {
      throw fail(file, `${at}.targets`, `${JSON.stringify(entry.targets)} is not a non-empty list of ninja target names`);
    }
    out.targets = [...entry.targets];
  }
  if (entry.install !== undefined) {
    if (!Array.isArray(entry.install) || entry.install.length === 0) {
      throw fail(file, `${at}.install`, 'expected a non-empty list of {dir, component}');
    }
    out.install = entry.install.map((step, i) => {
      const ok = isPlainObject(step) && typeof step.dir === 'string' && typeof step.component === 'string'
        && Object.keys(step).length === 2 && !step.dir.split('/').includes('..') && !step.dir.startsWith('/');
      if (!ok) throw fail(file, `${at}.install[${i}]`, `${JSON.stringify(step)} is not {dir: <relative build dir>, component: <name>}`);
      return { dir: step.dir, component: step.component };
    });
  }
  if (entry.required !== undefined) {
    if (!Array.isArray(entry.required)) throw fail(file, `${at}.required`, 'expected a list of paths or lists of alternative paths');
    out.required = entry.required.map((r, i) => {
      const alternatives = Array.isArray(r) ? r : [r];
      const ok = alternatives.length > 0 && alternatives.every((p) => typeof p === 'string' && p && !p.startsWith('/') && !p.split('/').includes('..'));
      if (!ok) throw fail(file, `${at}.required[${i}]`, `${JSON.stringify(r)} is not a relative path or a list of them`);
      return [...alternatives];
    });
  }
  return out;
}

function parseFlags(flags, file, at, allowNull) {
  if (!isPlainObject(flags)) throw fail(file, at, 'expected a mapping of NAME: value');
  const out = {};
  for (const [name, value] of Object.entries(flags)) {
    if (!FLAG_NAME.test(name)) throw fail(file, `${at}.${name}`, 'not a valid cmake variable name');
    if (RESERVED_FLAGS.has(name)) throw fail(file, `${at}.${name}`, 'is set by perfgate itself and cannot be overridden');
    if (value === null && allowNull) { out[name] = null; continue; }
    if (!['string', 'number', 'boolean'].includes(typeof value)) {
      throw fail(file, `${at}.${name}`, `${JSON.stringify(value)} is not a string, number or boolean`);
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

module.exports = { FLAVORS, parseBuildConfig, parseDefine, resolveBuild, recipeHash, cmakeArgs, cacheKey, treeKey };
