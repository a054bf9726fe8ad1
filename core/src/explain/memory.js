'use strict';
// Memory: mysqld's resident memory before and after windows of the same events on both sides.
// What the buffer pool takes as it warms up is not growth of the server's own: the pages it
// took (its pages-used delta × the page size) are taken off, and the rest per query is the
// residual. A head whose residual grows per query where the base's does not leaks. Pure.
//
// The rule (docs/explain.md#the-rules): the first
// window of a side warms caches up and is not judged; in every later window the head's
// residual exceeds the base's largest by more than max(LEAST_BYTES, BASE_MULTIPLE × the base's)
// per query. A/A later windows stayed within 14 B per query, first windows up to 55.
const LEAST_BYTES = 64;
const BASE_MULTIPLE = 3;
const MIN_WINDOWS = 2;
const DEFAULT_PAGE_BYTES = 16384;

const finite = (x) => typeof x === 'number' && Number.isFinite(x);

// Bytes per query the server grew by in a window, the buffer pool's new pages aside.
function residual(w, pageBytes) {
  if (!(w && w.queries > 0) || !finite(w.rss_before) || !finite(w.rss_after)) return null;
  const pages = finite(w.bp_pages_delta) ? Math.max(0, w.bp_pages_delta) : 0;
  return (w.rss_after - w.rss_before - pages * pageBytes) / w.queries;
}

function laterResiduals(side) {
  const windows = (side && side.windows) || [];
  const pageBytes = side && side.page_bytes > 0 ? side.page_bytes : DEFAULT_PAGE_BYTES;
  const values = windows.map((w) => residual(w, pageBytes));
  if (values.length < MIN_WINDOWS || values.some((v) => v === null)) return null;
  return values.slice(1);
}

// The peak (VmHWM) each side reached, for the report.
const peakOf = (side) => {
  const after = ((side && side.windows) || []).map((w) => w.hwm_after).filter(finite);
  return after.length ? Math.max(...after) : null;
};

/**
 * @param base, head  each side's memory: {windows: [{queries, rss_before, rss_after,
 *                    hwm_before, hwm_after, bp_pages_delta}], page_bytes?}, bytes
 * @returns {findings: [{kind: 'memory', base, head, floor, peak: {base, head}}], problem}:
 *          base and head the mean residual bytes per query of the later windows
 */
function memoryFindings(base, head) {
  const b = laterResiduals(base);
  const h = laterResiduals(head);
  if (!b || !h) return { findings: [], problem: `fewer than ${MIN_WINDOWS} memory windows a side` };
  const most = Math.max(...b);
  const floor = Math.max(LEAST_BYTES, BASE_MULTIPLE * Math.max(0, most));
  const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
  if (!h.every((x) => x - most > floor)) return { findings: [], problem: null };
  return { findings: [{ kind: 'memory', base: mean(b), head: mean(h), floor, peak: { base: peakOf(base), head: peakOf(head) } }], problem: null };
}

// A memory verdict beyond a limit: what the timed rounds decided of the row (row-signals.js).
const BEYOND = new Set(['warn', 'fail']);

/**
 * The timed rounds' own memory figure of a row, where the probe has none: a growth per query
 * the verdict already judged beyond a limit, its interval wholly above zero.
 * @param memory  the verdict row's `memory` ({base, head, difference: {estimate, low, high}, verdict})
 * @returns {findings: [{kind: 'memory', source: 'rounds', base, head, low, high}], problem} or null
 */
function roundsMemoryFindings(memory) {
  const d = memory && memory.difference;
  if (!d || !BEYOND.has(memory.verdict) || !(d.low > 0) || !finite(memory.base) || !finite(memory.head)) return null;
  return { findings: [{ kind: 'memory', source: 'rounds', base: memory.base, head: memory.head, low: d.low, high: d.high }], problem: null };
}

module.exports = { memoryFindings, roundsMemoryFindings, LEAST_BYTES, BASE_MULTIPLE };
