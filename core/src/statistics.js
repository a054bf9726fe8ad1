'use strict';
// Statistics of paired rounds. Pure functions of numbers; no I/O. Why a Student-t interval on
// log ratios, and not a bootstrap or an order-statistics interval, at the few pairs perfgate
// runs: docs/verdicts.md ("Two signals"). An outlier widens the interval rather than moving the
// decision: the row stays undecided and the compare loop measures more.

// Quantiles of the distributions come from stdlib (@stdlib/stats-base-dists-*), checked
// against scipy in test/stats/test_stats_scipy.py; the wrappers below only refuse arguments
// outside the distribution's domain (stdlib answers NaN) with a message that says which.
const tQuantile = require('@stdlib/stats-base-dists-t-quantile');
const normalQuantileOf = require('@stdlib/stats-base-dists-normal-quantile');
const chiSquareQuantileOf = require('@stdlib/stats-base-dists-chisquare-quantile');
const betaQuantile = require('@stdlib/stats-base-dists-beta-quantile');

function checkProbability(p) {
  if (!(p > 0 && p < 1)) throw new RangeError(`quantile needs 0 < p < 1, got ${p}`);
}

// The p-quantile of Student's t with df degrees of freedom (0 < p < 1, df > 0).
function studentTQuantile(p, df) {
  checkProbability(p);
  if (!(df > 0)) throw new RangeError(`Student's t needs df > 0, got ${df}`);
  return tQuantile(p, df);
}

// The p-quantile of the standard normal distribution.
function normalQuantile(p) {
  checkProbability(p);
  return normalQuantileOf(p, 0, 1);
}

// The p-quantile of the chi-square distribution with df degrees of freedom (df > 0).
function chiSquareQuantile(p, df) {
  checkProbability(p);
  if (!(df > 0)) throw new RangeError(`chi-square needs df > 0, got ${df}`);
  return chiSquareQuantileOf(p, df);
}

// Every interval a verdict gives is a 95% one.
const CONFIDENCE = 0.95;

function mean(xs) {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

// Geometric mean of positive numbers (null for none): the typical QPS of one side's rounds,
// on the same multiplicative scale as the ratios below.
function geometricMean(xs) {
  if (!xs.length) return null;
  return Math.exp(mean(xs.map(Math.log)));
}

// Sample standard deviation (n - 1 in the denominator).
function sampleSd(xs) {
  if (xs.length < 2) return NaN;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
}

// Interval for the typical ratio of n positive ratios: geometric mean and the Student-t
// interval on their logarithms, mapped back. With one ratio no interval exists (low/high
// null). With identical ratios the spread is 0 and the interval is the point itself.
function ratioInterval(ratios, confidence = CONFIDENCE) {
  const n = ratios.length;
  if (n === 0) return { n: 0, estimate: null, low: null, high: null, sd_log: null };
  for (const r of ratios) {
    if (!(r > 0) || !Number.isFinite(r)) throw new RangeError(`ratios must be positive and finite, got ${r}`);
  }
  const logs = ratios.map(Math.log);
  const m = mean(logs);
  if (n === 1) return { n, estimate: Math.exp(m), low: null, high: null, sd_log: null };
  const sd = sampleSd(logs);
  const halfWidth = studentTQuantile(0.5 + confidence / 2, n - 1) * (sd / Math.sqrt(n));
  return { n, estimate: Math.exp(m), low: Math.exp(m - halfWidth), high: Math.exp(m + halfWidth), sd_log: sd };
}

// The interval `ratioInterval` would give after `extra` more pairs, were their spread and
// centre those measured so far: whether more rounds could still narrow an interval enough to
// decide is a question of this width, not of luck. null when no spread is known yet (n < 2).
function projectedInterval(interval, extra, confidence = CONFIDENCE) {
  const { n, estimate, sd_log: sd } = interval || {};
  if (!(n >= 2) || !(sd >= 0) || !(estimate > 0) || !(extra >= 0)) return null;
  const m = Math.log(estimate);
  const size = n + extra;
  const halfWidth = studentTQuantile(0.5 + confidence / 2, size - 1) * (sd / Math.sqrt(size));
  return { n: size, estimate, low: Math.exp(m - halfWidth), high: Math.exp(m + halfWidth), sd_log: sd };
}

// The interval of paired ratios ({index, ratio}, as pairedRatios gives them) as verdicts
// record it: ratioInterval's figures, with the ratios and the pair each came from.
function pairedInterval(pairs, confidence = CONFIDENCE) {
  const i = ratioInterval(pairs.map((r) => r.ratio), confidence);
  return {
    estimate: i.estimate, low: i.low, high: i.high, n: i.n, sd_log: i.sd_log,
    ratios: pairs.map((r) => r.ratio), indices: pairs.map((r) => r.index),
  };
}

// Paired ratios head/base of one metric. Rounds pair by index: plans interleave A B B A, so
// base i and head i always run back to back, and which side goes first alternates from pair to
// pair; a position effect (the second of two runs being warmer or hotter) therefore cancels
// over an even number of pairs instead of biasing the estimate.
// We do not divide head i by the mean of the two neighbouring base rounds: neighbouring ratios
// would then share base rounds, the ratios would be correlated, and an interval that assumes
// independent ratios would come out too narrow (more false fails). Pairs missing a side or
// with a null/zero value are left out.
function pairedRatios(rounds, metric) {
  const base = new Map();
  const head = new Map();
  for (const r of rounds) (r.side === 'base' ? base : head).set(r.index, r[metric]);
  const out = [];
  for (const index of [...base.keys()].sort((a, b) => a - b)) {
    const b = base.get(index);
    const h = head.get(index);
    if (b > 0 && h > 0) out.push({ index, ratio: h / b });
  }
  return out;
}

// The interval of one metric's paired ratios head/base over timed rounds, or null when no pair
// has it on both sides.
function metricInterval(rounds, metric) {
  const pairs = pairedRatios(rounds, metric);
  return pairs.length ? pairedInterval(pairs) : null;
}

// Paired differences head − base of one metric, by round index, for a figure whose base is often
// about 0, where no ratio exists (memory growth per query: docs/verdicts.md, "Memory growth per
// query"). Pairs missing a side or a number are left out; zeros and negatives count.
function pairedDifferences(rounds, metric) {
  const base = new Map();
  const head = new Map();
  for (const r of rounds) (r.side === 'base' ? base : head).set(r.index, r[metric]);
  const isNumber = (x) => typeof x === 'number' && Number.isFinite(x);
  const out = [];
  for (const index of [...base.keys()].sort((a, b) => a - b)) {
    const b = base.get(index);
    const h = head.get(index);
    if (isNumber(b) && isNumber(h)) out.push({ index, difference: h - b });
  }
  return out;
}

// The mean of paired differences with its Student-t interval ({index, difference} as
// pairedDifferences gives them), or null for none. With one pair no interval exists (low/high
// null); with identical differences the interval is the point itself.
function differenceInterval(pairs, confidence = CONFIDENCE) {
  const n = pairs.length;
  if (!n) return null;
  const xs = pairs.map((p) => p.difference);
  const m = mean(xs);
  const out = { estimate: m, low: null, high: null, n, sd: null, differences: xs, indices: pairs.map((p) => p.index) };
  if (n === 1) return out;
  const sd = sampleSd(xs);
  const halfWidth = studentTQuantile(0.5 + confidence / 2, n - 1) * (sd / Math.sqrt(n));
  return { ...out, low: m - halfWidth, high: m + halfWidth, sd };
}

// The geometric mean of several rows' ratios, each known by its own paired interval
// ({estimate, sd_log, n}, n >= 2): the mean of their log estimates, whose variance is the sum
// of each row's own sd_log²/n over k², with a Student-t interval on Welch-Satterthwaite degrees
// of freedom. The question is about these rows, not a sample of possible benchmarks: a t over
// the rows' estimates would count their real differences as noise (docs/verdicts.md, "The
// suite as a whole").
function meanOfRowRatios(rows, confidence = CONFIDENCE) {
  const k = rows.length;
  if (!k) return null;
  for (const r of rows) {
    if (!(r.estimate > 0) || !Number.isFinite(r.estimate) || !(r.n >= 2) || !(r.sd_log >= 0) || !Number.isFinite(r.sd_log)) {
      throw new RangeError(`a row's interval needs estimate > 0, n >= 2 and a finite sd_log, got ${JSON.stringify(r)}`);
    }
  }
  const m = mean(rows.map((r) => Math.log(r.estimate)));
  const parts = rows.map((r) => ({ v: (r.sd_log * r.sd_log) / r.n, df: r.n - 1 }));
  const variance = parts.reduce((s, p) => s + p.v, 0) / (k * k);
  const out = { n: k, estimate: Math.exp(m), low: Math.exp(m), high: Math.exp(m), df: null, ratios: rows.map((r) => r.estimate) };
  if (!(variance > 0)) return out;
  const df = parts.reduce((s, p) => s + p.v, 0) ** 2 / parts.reduce((s, p) => s + (p.v * p.v) / p.df, 0);
  const halfWidth = studentTQuantile(0.5 + confidence / 2, df) * Math.sqrt(variance);
  return { ...out, low: Math.exp(m - halfWidth), high: Math.exp(m + halfWidth), df };
}

// Exact (Clopper-Pearson) one-sided upper confidence bound of a proportion seen x times in n
// trials: the p at which seeing x or fewer has probability 1 - confidence, which is the
// confidence-quantile of Beta(x + 1, n - x). Used to state how high a false-fail rate can
// still be after observing x fails in n A/A verdicts.
function binomialUpperBound(x, n, confidence = 0.95) {
  if (!(n > 0) || x < 0 || x > n) throw new RangeError(`binomialUpperBound needs 0 <= x <= n, n > 0; got x=${x}, n=${n}`);
  if (x === n) return 1;
  return betaQuantile(confidence, x + 1, n - x);
}

module.exports = {
  CONFIDENCE, binomialUpperBound, pairedInterval, meanOfRowRatios, pairedDifferences, differenceInterval,
  studentTQuantile, normalQuantile, chiSquareQuantile, mean, geometricMean, sampleSd, ratioInterval, projectedInterval, pairedRatios, metricInterval,
};
