'use strict';
// Typed reads of YAML data. Each returns the value when it has the expected form and otherwise
// fails through the source, naming the key path, the bad value and what was expected.
const { show } = require('./yaml-source');

function get(data, path) {
  let v = data;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = v[seg];
  }
  return v;
}

function isPlainObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// A mapping with exactly the known keys: typos such as `wran:` are errors, not silent defaults.
// `known(key)`: keys of a form rather than a list (limits of one microbenchmark at one thread count).
function mapping(src, path, { required = [], optional = [], what = 'a mapping', unknown, anyKeys = false, known: knownForm = () => false } = {}) {
  const v = get(src.data, path);
  if (!isPlainObject(v)) src.fail(path, `${show(v)} is not a mapping; expected ${what}`);
  const known = [...required, ...optional];
  for (const key of Object.keys(v)) {
    if (!anyKeys && !known.includes(key) && !knownForm(key)) {
      src.fail([...path, key], unknown ? unknown(key) : `unknown key; expected one of: ${known.join(', ')}`);
    }
  }
  for (const key of required) {
    if (!(key in v)) src.fail(path, `missing key '${key}'; expected ${what} with ${required.join(', ')}`);
  }
  return v;
}

function number(src, path, { integer = false, min, above, max, what } = {}) {
  const v = get(src.data, path);
  const expected = what || describeNumber({ integer, min, above, max });
  const ok = typeof v === 'number' && Number.isFinite(v)
    && (!integer || Number.isInteger(v))
    && (min === undefined || v >= min)
    && (above === undefined || v > above)
    && (max === undefined || v <= max);
  if (!ok) src.fail(path, `${show(v)} is not valid; expected ${expected}`);
  return v;
}

function describeNumber({ integer, min, above, max }) {
  const kind = integer ? 'an integer' : 'a number';
  const bounds = [];
  if (above !== undefined) bounds.push(`> ${above}`);
  if (min !== undefined) bounds.push(`>= ${min}`);
  if (max !== undefined) bounds.push(`<= ${max}`);
  return bounds.length ? `${kind} ${bounds.join(' and ')}` : kind;
}

function string(src, path, { pattern, what = 'a string' } = {}) {
  const v = get(src.data, path);
  if (typeof v !== 'string' || v === '' || (pattern && !pattern.test(v))) {
    src.fail(path, `${show(v)} is not valid; expected ${what}`);
  }
  return v;
}

function oneOf(src, path, allowed) {
  const v = get(src.data, path);
  if (!allowed.includes(v)) src.fail(path, `${show(v)} is not valid; expected one of: ${allowed.join(', ')}`);
  return v;
}

function list(src, path, { what = 'a list', nonEmpty = true } = {}) {
  const v = get(src.data, path);
  if (!Array.isArray(v) || (nonEmpty && v.length === 0)) {
    src.fail(path, `${show(v)} is not valid; expected ${nonEmpty ? 'a non-empty list' : what}`);
  }
  return v;
}

// `options:` of a benchmark: flat scalars only, since they become `--key=value` arguments.
function scalarMap(src, path) {
  const v = mapping(src, path, { what: 'a mapping of option names to scalars', anyKeys: true });
  for (const [key, value] of Object.entries(v)) {
    if (!['string', 'number', 'boolean'].includes(typeof value)) {
      src.fail([...path, key], `${show(value)} is not valid; expected a string, number or boolean`);
    }
  }
  return { ...v };
}

// Suites whose rows run on tables of their own (DDL, TPC-C): a suite holds rows of `group` only
// or none. Returns whether it holds any; fails at the first other row with other(name, first).
function groupOnly(src, benchmarks, catalogue, group, other) {
  if (!benchmarks) return false;
  const inGroup = benchmarks.map((name) => catalogue[name].group === group);
  if (!inGroup.some(Boolean)) return false;
  const at = inGroup.findIndex((yes) => !yes);
  if (at >= 0) src.fail(['benchmarks', at], other(show(benchmarks[at]), `'${benchmarks[inGroup.indexOf(true)]}'`));
  return true;
}

// Such rows restart a side on a fresh copy for every round: the sides run in turn.
function inTurn(src, measure, what) {
  if (measure.side_schedule !== 'in-turn') {
    src.fail(['measure', 'side_schedule'], `${show(measure.side_schedule)} is not valid; expected in-turn (each ${what} runs on a server restarted on a fresh copy, one side after the other)`);
  }
}

module.exports = { get, isPlainObject, mapping, number, string, oneOf, list, scalarMap, groupOnly, inTurn };
