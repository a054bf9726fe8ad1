'use strict';
// One entry of a suite's `limits` (default, a microbenchmark, `<name> threads=<n>`, ahi_gain):
// the rQPS pair and the optional per-query pairs, each inheritable from the entry above it.
// Loaded by config/thresholds.js; judged by row-limits.js and the signals (docs/usage.md,
// "Thresholds format").
const check = require('./checks');
const { IO_COLUMNS } = require('../per-query');

const RATIO = { above: 0, max: 2, what: 'a ratio in (0, 2]' };
// memory_per_query limits are bytes of head − base growth per query, not ratios.
const BYTES = { above: 0, what: 'a number of bytes per query > 0' };

// Limits where higher is worse (cpu/o, instr/o, I/O per query as head/base ratios; memory
// growth per query as a difference in bytes): warn <= fail, both needed once, each
// inheritable from the default entry.
function loadUpperLimits(src, at, inherited, { label, example, bounds = RATIO }) {
  const raw = check.mapping(src, at, { optional: ['warn', 'fail'], what: `${label} limits {warn, fail}` });
  const base = inherited || {};
  const warn = raw.warn === undefined ? base.warn : check.number(src, [...at, 'warn'], bounds);
  const fail = raw.fail === undefined ? base.fail : check.number(src, [...at, 'fail'], bounds);
  if (warn === undefined || fail === undefined) src.fail(at, `needs both warn and fail; expected ${at[at.length - 1]}: ${example}`);
  if (warn > fail) {
    const key = raw.warn !== undefined ? 'warn' : 'fail';
    src.fail([...at, key], `warn ${warn} is above fail ${fail}; expected warn <= fail (${label} above fail fails, above warn warns)`);
  }
  return { warn, fail };
}

// One rQPS limit pair, with optional cpu/o, instr/o, I/O and memory pairs. `inherit` fills
// keys a per-name entry leaves out.
function loadLimit(src, at, inherit, { perQuery = true } = {}) {
  const extra = perQuery ? ['cpu_per_query', 'instructions', ...IO_COLUMNS.map((f) => f.key), 'memory_per_query'] : [];
  const raw = check.mapping(src, at, {
    required: inherit ? [] : ['warn', 'fail'],
    optional: inherit ? ['warn', 'fail', ...extra] : extra,
    what: 'limits {warn, fail}',
  });
  const warn = raw.warn === undefined ? inherit.warn : check.number(src, [...at, 'warn'], RATIO);
  const fail = raw.fail === undefined ? inherit.fail : check.number(src, [...at, 'fail'], RATIO);
  if (warn < fail) {
    const key = raw.warn !== undefined ? 'warn' : 'fail';
    src.fail([...at, key], `warn ${warn} is below fail ${fail}; expected warn >= fail (rQPS below fail fails, below warn warns)`);
  }
  const upper = (key, label, example, bounds) => {
    const inherited = inherit ? inherit[key] : null;
    return raw[key] === undefined ? inherited : loadUpperLimits(src, [...at, key], inherited, { label, example, bounds });
  };
  const limit = {
    warn,
    fail,
    // cpu/o and instr/o are head/base work per query: higher is worse, the order of rQPS reversed.
    cpu_per_query: upper('cpu_per_query', 'cpu/o', '{warn: 1.05, fail: 1.10}'),
    instructions: upper('instructions', 'instr/o', '{warn: 1.02, fail: 1.05}'),
  };
  // I/O per query likewise (head/base, higher is worse), kept only when set.
  if (perQuery) {
    for (const { key, label } of IO_COLUMNS) {
      const io = upper(key, label, '{warn: 1.10, fail: 1.25}');
      if (io) limit[key] = io;
    }
    // Memory growth per query: bytes head − base (a leak is a regression), kept only when set.
    // A microbenchmark's `memory_per_query: null` leaves it unjudged: too few queries a round.
    const unjudged = inherit && raw.memory_per_query === null;
    const memory = unjudged ? null : upper('memory_per_query', 'memory growth per query', '{warn: 128, fail: 256} (bytes per query)', BYTES);
    if (memory) limit.memory_per_query = memory;
  }
  return limit;
}

module.exports = { loadLimit };
