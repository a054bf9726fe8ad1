'use strict';
// The limits one row of a verdict is held to, and the limits a verdict records. Limits come
// from the loaded suite (config.limits = {default, byName, ahi_gain}, see config/thresholds.js)
// or, for callers and tests that build them by hand, a flat {default, <name>: …}.
const { UsageError } = require('./errors');
const { IO_LIMIT_KEYS } = require('./per-query');

// The per-query figures a row's limits may hold beside rQPS: {warn, fail}, above fail fails
// (memory_per_query in bytes of head − base growth, the others head/base ratios).
const PER_QUERY_KEYS = ['cpu_per_query', 'instructions', ...IO_LIMIT_KEYS, 'memory_per_query'];

/**
 * The limits of one row, with what main's history taught in their place (config.learned). An
 * AHI gain cell is judged by `ahi_gain`, else `default`: a
 * workload's own limits are on the rQPS of its cells, not on how the head's AHI gain compares
 * with the base's. Otherwise the microbenchmark at its thread count first (also when a run of
 * one thread count names its rows without it: its id is then the bare name, whose entry must
 * not hide the thread count's), then the row's own id, then the microbenchmark.
 */
function rowLimits(config, bench, { ahiGain = false } = {}) {
  const table = (config && config.limits) || {};
  const byName = table.byName || table;
  const own = (entries) => (bench.threads === undefined ? undefined : entries[`${bench.name} threads=${bench.threads}`]) || entries[bench.id] || entries[bench.name];
  let l = ahiGain ? table.ahi_gain : own(byName);
  if (!l) l = table.default;
  if (!l || !(l.fail > 0) || !(l.warn >= l.fail)) {
    throw new UsageError(`limits for '${bench.id}': expected {warn, fail} with 0 < fail <= warn, got ${JSON.stringify(l)}`);
  }
  const out = { warn: l.warn, fail: l.fail };
  for (const key of PER_QUERY_KEYS) {
    const u = l[key];
    if (!u) continue;
    if (!(u.warn > 0 && u.fail >= u.warn)) {
      throw new UsageError(`${key} limits for '${bench.id}': expected {warn, fail} with 0 < warn <= fail, got ${JSON.stringify(u)}`);
    }
    out[key] = { warn: u.warn, fail: u.fail };
  }
  // Learned limits are per row id; an AHI row or gain cell takes only its own (its workload's
  // name is its other cells' too).
  const taught = config && config.learned ? config.learned.byName : null;
  const learned = taught ? (ahiGain || bench.ahi ? taught[bench.id] : own(taught)) : null;
  return learned ? withLearned(out, learned) : out;
}

// The row's limits with what main's history taught in their place: per signal (rqps, instructions,
// cpu) {warn, fail}, or, for a signal too noisy on main for any useful limit, `unstable` (judge-row.js
// leaves that signal out of the row's verdict; an unstable cpu/o leaves the row without a cpu/o
// limit). `learned` names the signals learned and their runs.
const LIMIT_KEY = { instructions: 'instructions', cpu: 'cpu_per_query' };
function withLearned(limits, learned) {
  const out = { ...limits, source: 'learned', learned: {} };
  const unstable = [];
  for (const [signal, l] of Object.entries(learned)) {
    // cpu/o replaces a cpu/o limit the suite sets; where it sets none, the row is not judged by it.
    if (signal === 'cpu' && !limits.cpu_per_query) continue;
    out.learned[signal] = { runs: l.runs, p99: l.p99 };
    if (l.unstable) {
      unstable.push({ signal, runs: l.runs, p99: l.p99 });
      if (signal === 'cpu') out.cpu_per_query = null;
    } else if (signal === 'rqps') Object.assign(out, { warn: l.warn, fail: l.fail });
    else out[LIMIT_KEY[signal]] = { warn: l.warn, fail: l.fail };
  }
  if (unstable.length) out.unstable = unstable;
  return out;
}

/** The limits as the verdict records them: {default, ahi_gain?, <name>: {warn, fail, …}}. */
function flatLimits(config) {
  const table = (config && config.limits) || {};
  if (!table.byName) return table;
  const flat = { default: table.default, ...table.byName };
  if (table.ahi_gain) flat.ahi_gain = table.ahi_gain;
  for (const [k, l] of Object.entries(flat)) {
    flat[k] = { warn: l.warn, fail: l.fail };
    for (const key of PER_QUERY_KEYS) if (l[key]) flat[k][key] = l[key];
  }
  return flat;
}

module.exports = { rowLimits, flatLimits };
