'use strict';
// Limits learned from main's own history (docs/verdicts.md#limits-learned-from-main). Each run
// of main measures a commit against the one before it, so the judged ratios of those runs are
// main against itself: how far they read from 1 is the spread a row shows with no change worth
// gating. Per row and signal (rQPS, instr/o, and cpu/o where the row is judged by it):
//   p99   the 99th percentile (nearest rank) of |ln ratio| over the runs of one runner class;
//   fail  1.5 × p99 beyond 1, warn p99 beyond 1 (ClickHouse's rule for its A/A differences);
//   floors and caps are calibrate's (calibration.js RULES): never tighter than its floors, never
//         looser than its caps, fail at least its gap beyond warn;
//   unstable  1.5 × p99 lies beyond the fail cap: no limit a gate can use keeps main's own runs
//         quiet, so the row is not judged by that signal (judge-row.js) until its benchmark is fixed.
// Fewer than MIN_RUNS runs learn nothing: the suite's (or calibrate's) limits stand.
// Pure: figures in, limits and the learned file's text out.
const { Document } = require('yaml');
const { RULES, roundOut, toRatio, toDistance } = require('./calibration');

const LEARN = Object.freeze({ min_runs: 100, quantile: 0.99, fail_factor: 1.5 });
// cpu/o has no calibration: its floors and caps are its own, as wide as the DDL suites' shipped
// cpu/o limits (1.05/1.10) and a little beyond (docs/verdicts.md#limits-learned-from-main).
const CPU_RULE = Object.freeze({ word: 'cpu/o', worse: 1, digits: 2, warnFloor: 1.02, warnCap: 1.15, gap: 0.02, failCap: 1.25 });
// The learned file's signal keys, the verdict's figure of each, and calibrate's rule of each.
// cpu/o is learned only where the row was judged by it (its suite limits cpu/o: cpu_verdict),
// and replaces only such a limit: learning adds no signal a suite does not gate on.
const SIGNALS = Object.freeze({
  rqps: { figure: 'rqps', rule: RULES.time, word: 'rQPS' },
  instructions: { figure: 'instructions_per_query', rule: RULES.instructions, word: 'instr/o' },
  cpu: { figure: 'cpu_per_query', rule: CPU_RULE, word: 'cpu/o', judgedBy: 'cpu_verdict', capOf: 'the learning rule\'s cap' },
});

// Nearest-rank quantile: with 100 runs the 99th smallest, never a value between two runs.
function nearestRank(sorted, q) {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

/**
 * What main's runs say of one signal of one row.
 * @param ratios  the judged head/base estimates of main's runs (each commit against the one before)
 * @returns {runs, enough: false, largest} | {runs, enough: true, p99, unstable: true} | {runs, enough: true, p99, unstable: false, warn, fail}
 *          p99 as a share (0.012 = 1.2%)
 */
function learnSignal(ratios, signal, { minRuns = LEARN.min_runs } = {}) {
  const { rule } = SIGNALS[signal];
  const distances = ratios.filter((r) => Number.isFinite(r) && r > 0).map((r) => Math.abs(Math.log(r))).sort((a, b) => a - b);
  const runs = distances.length;
  // Too few to learn from; the largest spread seen is still worth showing.
  if (runs < minRuns) return { runs, enough: false, largest: runs ? Number(Math.expm1(distances.at(-1)).toFixed(4)) : null };
  const p = nearestRank(distances, LEARN.quantile);
  const p99 = Number(Math.expm1(p).toFixed(4));
  const failCap = toDistance(rule.failCap, rule);
  if (LEARN.fail_factor * p > failCap) return { runs, enough: true, p99, unstable: true };
  const warnDistance = Math.min(Math.max(p, toDistance(rule.warnFloor, rule)), toDistance(rule.warnCap, rule));
  const warn = roundOut(toRatio(warnDistance, rule), rule);
  const gapped = toDistance(warn + rule.worse * rule.gap, rule);
  const failDistance = Math.min(Math.max(LEARN.fail_factor * p, gapped), failCap);
  return { runs, enough: true, p99, unstable: false, warn, fail: roundOut(toRatio(failDistance, rule), rule) };
}

/**
 * @param series  {<row id>: {rqps: [ratio], instructions: [ratio]}}
 * @returns {<row id>: {rqps?, instructions?}} each as learnSignal says
 */
function learnLimits(series, options = {}) {
  const out = {};
  for (const [id, bySignal] of Object.entries(series)) {
    for (const signal of Object.keys(SIGNALS)) {
      if (bySignal[signal] && bySignal[signal].length) (out[id] ||= {})[signal] = learnSignal(bySignal[signal], signal, options);
    }
  }
  return out;
}

const machineOf = (verdict) => (verdict.run && verdict.run.machine) || {};
const runnerOf = (verdict) => machineOf(verdict).hardware_class || machineOf(verdict).id || null;
// How a run counted instructions: the malloc counted servers ran on (harness counted_malloc.py;
// two processes count further apart on glibc's than on jemalloc) and what the counts left out
// (client reads, whose waits come with timing): runs counted one way teach nothing of another's spread.
const countedAs = (verdict) => JSON.stringify([(machineOf(verdict).counted_malloc || {}).name || null,
  (verdict.run && verdict.run.counted && verdict.run.counted.left_out) || []]);

/**
 * The series of main's runs from their verdicts (perfgate.verdict/v2), oldest first: only
 * those of `suite` and of the runner class, counted malloc and left-out functions of the last
 * one (timings of two classes do not compare, nor instruction counts made two ways); rows in
 * error give no figure.
 * @returns {series, runner, runs, leftOut}
 */
function seriesFromVerdicts(verdicts, { suite = null } = {}) {
  const ofSuite = verdicts.filter((v) => !suite || v.suite === suite);
  const last = ofSuite.at(-1);
  const runner = last ? runnerOf(last) : null;
  const used = ofSuite.filter((v) => runnerOf(v) === runner && countedAs(v) === countedAs(last));
  const series = {};
  for (const v of used) {
    const add = (id, signal, estimate) => {
      if (Number.isFinite(estimate) && estimate > 0) ((series[id] ||= {})[signal] ||= []).push(estimate);
    };
    for (const b of v.benchmarks || []) {
      if (b.verdict === 'error') continue;
      for (const [signal, { figure, judgedBy }] of Object.entries(SIGNALS)) {
        if (judgedBy && !b[judgedBy]) continue;
        add(b.id, signal, b[figure] && b[figure].estimate);
      }
    }
    // An AHI gain cell is judged on the head's gain against the base's, a ratio like rQPS.
    for (const c of v.ahi || []) if (c.verdict !== 'error') add(c.id, 'rqps', c.gain_ratio && c.gain_ratio.estimate);
  }
  return { series, runner, runs: used.length, leftOut: verdicts.length - used.length };
}

/**
 * The learned file (thresholds/learned/<suite>.yml, read by config/learned-limits.js): the rows
 * and signals with enough runs, each {warn, fail, runs, p99} or {unstable: true, runs, p99}.
 */
function learnedFileText({ suite, learned, runner, runs }) {
  const limits = {};
  for (const [id, bySignal] of Object.entries(learned)) {
    for (const [signal, l] of Object.entries(bySignal)) {
      if (!l.enough) continue;
      (limits[id] ||= {})[signal] = l.unstable ? { unstable: true, runs: l.runs, p99: l.p99 } : { warn: l.warn, fail: l.fail, runs: l.runs, p99: l.p99 };
    }
  }
  const doc = new Document({ suite, runner: runner ?? 'unknown', runs, limits });
  doc.commentBefore = ` Limits learned from main's history (perfgate limits learn, or the bot's dashboard): fail 1.5 ×
 the 99th percentile of main's runs against themselves, within calibrate's floors and caps
 (docs/verdicts.md#limits-learned-from-main).`;
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

const learnedSignalWord = (signal) => SIGNALS[signal].word;

module.exports = { learnSignal, learnLimits, seriesFromVerdicts, learnedFileText, learnedSignalWord, LEARN, LEARNED_SIGNALS: SIGNALS };
