'use strict';
// Thread counts as a dimension of a report: the judged rows of one microbenchmark at several
// client thread counts, side by side, and how each side's QPS grows with threads. Some
// regressions only show under concurrency (a latch, a busy-wait): the rQPS at 1 thread is
// fine and the one at 4 is not, or the head's QPS stops growing where the base's still does.
//
// Pure, and it decides nothing new: every cell is a row judge() already judged (its verdict is
// row-verdict.js's rule on that row's own signals); this only says which rows go together and
// in which column, and reads each side's QPS from the row's rounds.
const { sideQps } = require('./verdict');

// Rows are grouped by microbenchmark; an AHI cell's state is part of what it measures.
const rowKey = (b) => (b.ahi ? `${b.name} ahi=${b.ahi}` : b.name);

/**
 * @param benchmarks  judged rows (verdict.benchmarks, or the part of them a report shows)
 * @returns null when the rows hold fewer than two thread counts; else
 *   {threads: [t, …] ascending,
 *    rows: [{label, name, group, ahi,
 *            cells: [{threads, benchmark: judged row | null}]   one per thread count,
 *            qps: [{threads, base, head}]                        each side's geometric mean QPS (null: not measured),
 *            scaling: {from, to, base, head} | null}]}           QPS at the most threads over QPS at the fewest,
 *   rows in the order their first thread count appears.        per side, over the row's measured thread counts
 */
/** The distinct client thread counts of rows (judged or planned), ascending. */
function threadCounts(benchmarks) {
  return [...new Set(benchmarks.map((b) => b.threads).filter(Number.isInteger))].sort((a, b) => a - b);
}

function threadScaling(benchmarks) {
  const counted = benchmarks.filter((b) => Number.isInteger(b.threads));
  const threads = threadCounts(counted);
  if (threads.length < 2) return null;
  const rows = new Map();
  for (const b of counted) {
    const key = rowKey(b);
    if (!rows.has(key)) rows.set(key, { label: key, name: b.name, group: b.group ?? null, ahi: b.ahi ?? null, byThreads: new Map() });
    rows.get(key).byThreads.set(b.threads, b);
  }
  return {
    threads,
    rows: [...rows.values()].map(({ byThreads, ...row }) => {
      const qps = threads.map((t) => {
        const b = byThreads.get(t);
        return { threads: t, base: b ? sideQps(b, 'base') : null, head: b ? sideQps(b, 'head') : null };
      });
      return { ...row, cells: threads.map((t) => ({ threads: t, benchmark: byThreads.get(t) || null })), qps, scaling: scalingOf(qps) };
    }),
  };
}

// How much more QPS each side gets from its most threads than from its fewest: below the
// base's figure, the head scales worse.
function scalingOf(qps) {
  const measured = qps.filter((q) => q.base > 0 && q.head > 0);
  if (measured.length < 2) return null;
  const first = measured[0];
  const last = measured[measured.length - 1];
  return { from: first.threads, to: last.threads, base: last.base / first.base, head: last.head / first.head };
}

module.exports = { threadScaling, threadCounts };
