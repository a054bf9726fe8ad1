'use strict';
// What every kind of evidence of the explanation step judges its windows by: a figure per
// query in each window, and whether base and head lie apart by more than a floor. Two sides
// running the same events must do the same work; a difference counts only where no window of
// one side comes near any window of the other and the gap is beyond what A/A pairs showed
// (docs/explain.md#the-rules). Pure.
const { mean } = require('../statistics');

const finite = (x) => typeof x === 'number' && Number.isFinite(x);

/**
 * The per-query value of `pick(window)` in every window that ran queries; null when a window
 * lacks the figure (a counter one build does not have is compared nowhere).
 */
function perQuery(windows, pick) {
  const usable = (windows || []).filter((w) => w && w.queries > 0);
  const values = usable.map((w) => pick(w)).map((v, i) => (finite(v) ? v / usable[i].queries : null));
  return values.some((v) => v === null) ? null : values;
}

/**
 * The gap between two sides' ranges of values (each side's min–max), when they do not overlap
 * and it exceeds `floor`; else null. Positive whichever side is higher.
 */
function gapBeyond(base, head, floor) {
  const gap = Math.max(Math.min(...head) - Math.max(...base), Math.min(...base) - Math.max(...head));
  return gap > floor ? gap : null;
}

/** The floor of a figure: a share of the larger side's mean, never below an absolute amount. */
const floorOf = (base, head, share, least) => Math.max(share * Math.max(Math.abs(mean(base)), Math.abs(mean(head))), least);

/**
 * base and head compared on one figure: {base, head (means), gap, floor} when they lie apart
 * beyond max(share × the larger mean, least, ...more), else null.
 */
function differs(base, head, { share, least, more = 0 }) {
  if (!base || !head || !base.length || !head.length) return null;
  const floor = Math.max(floorOf(base, head, share, least), more);
  const gap = gapBeyond(base, head, floor);
  return gap === null ? null : { base: mean(base), head: mean(head), gap, floor };
}

module.exports = { perQuery, gapBeyond, differs, finite, mean };
