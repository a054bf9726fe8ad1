'use strict';
// I/O per query (the posts' r/o, rKB/o, wKB/o), p95 latency and memory growth per query of
// the timed rounds, head against base. Pure.
//
// A ratio alone cannot say what a read-only workload whose tables are cached does: both sides
// read nothing, and 0/0 is no ratio. So each figure keeps the mean of each side beside the
// paired ratio: reports show "—" when both sides did no I/O, and "0→0.28" when only one did
// (a head that starts reading is the regression to see, and no ratio shows it).

const { pairedDifferences, differenceInterval } = require('./statistics');

// The round fields the harness writes (schema/results.schema.json), with the posts' names.
// r/o comes from the device (/proc/diskstats): /proc/<pid>/io counts bytes, not requests.
// rKB/o and wKB/o are mysqld's own bytes (/proc/<pid>/io): the device's also carry the other
// side's background flushing and the runner's other jobs; they are kept for the full report.
const IO_FIGURES = [
  { key: 'device_reads_per_query', label: 'r/o', what: 'read requests of the device holding the datadirs per query (/proc/diskstats)' },
  { key: 'read_kb_per_query', label: 'rKB/o', what: 'KB mysqld read from storage per query (/proc/<pid>/io read_bytes)' },
  { key: 'write_kb_per_query', label: 'wKB/o', what: 'KB mysqld wrote per query (/proc/<pid>/io write_bytes)' },
  { key: 'device_read_kb_per_query', label: 'device rKB/o', what: 'KB the device read per query, everyone\'s' },
  { key: 'device_write_kb_per_query', label: 'device wKB/o', what: 'KB the device wrote per query, everyone\'s' },
];
// The three columns every report shows; the device's KB are in report.html and results.csv.
const IO_COLUMNS = IO_FIGURES.slice(0, 3);
// Suites may limit these like cpu_per_query: head/base, higher is worse.
const IO_LIMIT_KEYS = IO_COLUMNS.map((f) => f.key);
const IO_LABEL = Object.fromEntries(IO_FIGURES.map((f) => [f.key, f.label]));

const isNumber = (x) => typeof x === 'number' && Number.isFinite(x);

// Arithmetic mean of each side's rounds (zeros count: a round that read nothing is a fact).
function sideMeans(rounds, metric) {
  const of = (side) => {
    const values = rounds.filter((r) => r.side === side && isNumber(r[metric])).map((r) => r[metric]);
    return values.length ? values.reduce((s, x) => s + x, 0) / values.length : null;
  };
  return { base: of('base'), head: of('head') };
}

/**
 * {<figure key>: {base, head, ratio}} of the timed rounds, or null when no round carries an
 * I/O figure (results written before the harness sampled I/O). `interval(rounds, metric)` is
 * the verdict's paired-ratio interval (null when no pair has the figure above 0 on both sides).
 */
function ioFigures(rounds, interval) {
  if (!rounds.some((r) => IO_FIGURES.some((f) => isNumber(r[f.key])))) return null;
  return Object.fromEntries(IO_FIGURES.map((f) => [f.key, { ...sideMeans(rounds, f.key), ratio: interval(rounds, f.key) }]));
}

/**
 * sysbench's 95th percentile latency of each round (ms): {base, head, ratio} like an I/O
 * figure (head/base, above 1 = head slower to answer), or null when no round has one.
 */
function latencyP95(rounds, interval) {
  const p95 = rounds.map((r) => ({ index: r.index, side: r.side, p95: r.latency_ms ? r.latency_ms.p95 : null }));
  if (!p95.some((r) => isNumber(r.p95))) return null;
  return { ...sideMeans(p95, 'p95'), ratio: interval(p95, 'p95') };
}

// A head − base difference in memory growth smaller than this many bytes per query, or one
// whose interval still holds 0, is not shown outside the full tables where no limit judges it:
// A/A rows of thousands of queries a round stay within a byte or two here (docs/measurements.md,
// "Memory growth per query").
const MEMORY_SHOWN_FROM = 64;

/**
 * mysqld's resident memory over the timed rounds: each side's mean growth per query (bytes),
 * the paired difference head − base with its interval (`difference`, a difference and not a
 * ratio: the base's growth is often about 0), each side's resident bytes before its first round
 * and after its last, and its peak after its last. null when no round carries the figure
 * (results written before memory was sampled). `notable`: the difference is worth a line where
 * no limit judges it.
 */
function memoryFigure(rounds) {
  if (!rounds.some((r) => isNumber(r.memory_growth_per_query))) return null;
  const difference = differenceInterval(pairedDifferences(rounds, 'memory_growth_per_query'));
  // A side's figure of its first or last round (`pick` chooses between two rounds).
  const end = (pick) => (side, key) => {
    const own = rounds.filter((r) => r.side === side && isNumber(r[key]));
    return own.length ? own.reduce(pick)[key] : null;
  };
  const first = end((a, b) => (b.index < a.index ? b : a));
  const last = end((a, b) => (b.index > a.index ? b : a));
  const notable = Boolean(difference && difference.low !== null
    && Math.abs(difference.estimate) >= MEMORY_SHOWN_FROM && (difference.low > 0 || difference.high < 0));
  return {
    ...sideMeans(rounds, 'memory_growth_per_query'),
    difference,
    rss_before_bytes: { base: first('base', 'rss_before_bytes'), head: first('head', 'rss_before_bytes') },
    rss_bytes: { base: last('base', 'rss_bytes'), head: last('head', 'rss_bytes') },
    hwm_bytes: { base: last('base', 'hwm_bytes'), head: last('head', 'hwm_bytes') },
    notable,
  };
}

module.exports = { IO_FIGURES, IO_COLUMNS, IO_LIMIT_KEYS, IO_LABEL, MEMORY_SHOWN_FROM, ioFigures, latencyP95, memoryFigure, sideMeans };
