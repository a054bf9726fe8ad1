'use strict';
// Statistics of paired rounds. Pure functions of numbers; no I/O.
//
// Why a t-interval on log ratios (and not a bootstrap or an order-statistics interval):
// - perfgate runs few rounds (4 pairs by default, up to ~10 with extra rounds). An exact
//   distribution-free interval for the median of n ratios is [min, max] at best, and that
//   covers the median with probability 1 - 2·0.5^n: 87.5% for n = 4, so a 95% interval does
//   not exist below n = 6; every default run would be "inconclusive".
// - A percentile bootstrap on 4–6 values covers far less than its nominal 95% (it cannot
//   reach beyond the sample's min and max, and underestimates the spread by about
//   sqrt((n-1)/n)); narrow intervals mean false "fail" verdicts in A/A runs, which is the
//   error users punish most.
// - Ratios of throughputs are multiplicative: log(head/base) is symmetric around 0 when
//   nothing changed, and round-to-round noise of QPS is close to log-normal. Student's t on
//   the logs is exact under that model, honest about small n (t(0.975, 3) = 3.18 widens
//   the interval instead of pretending), and its estimate, the geometric mean of the
//   ratios, treats 0.5 and 2.0 as equally far from 1.
// An outlier widens the interval (the standard deviation grows) rather than moving the
// decision: the verdict becomes inconclusive and the compare loop measures more rounds.

// ln Γ(x) for x > 0 (Lanczos approximation, g = 7, n = 9; about 15 significant digits).
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
  -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
  1.5056327351493116e-7,
];
function logGamma(x) {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const z = x - 1;
  let a = LANCZOS[0];
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i] / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

// Continued fraction of the incomplete beta function, evaluated by the modified Lentz method.
function betaContinuedFraction(a, b, x) {
  const TINY = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 500; m++) {
    const m2 = 2 * m;
    let num = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + num * d; if (Math.abs(d) < TINY) d = TINY;
    c = 1 + num / c; if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d; h *= d * c;
    num = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + num * d; if (Math.abs(d) < TINY) d = TINY;
    c = 1 + num / c; if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-15) break;
  }
  return h;
}

// Regularized incomplete beta I_x(a, b).
function incompleteBeta(x, a, b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  // The continued fraction converges fast only for x < (a+1)/(a+b+2); use the symmetry otherwise.
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(a, b, x)) / a;
  return 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

// P(T <= t) for Student's t with df degrees of freedom.
function studentTCdf(t, df) {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

// The p-quantile of Student's t (0 < p < 1), by bisection on the CDF: slow-ish but simple and
// accurate to ~1e-12, and it is called a handful of times per verdict.
function studentTQuantile(p, df) {
  if (!(p > 0 && p < 1)) throw new RangeError(`quantile needs 0 < p < 1, got ${p}`);
  if (!(df > 0)) throw new RangeError(`Student's t needs df > 0, got ${df}`);
  if (p === 0.5) return 0;
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  let lo = 0;
  let hi = 1;
  while (studentTCdf(hi, df) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-13 * Math.max(1, hi); i++) {
    const mid = (lo + hi) / 2;
    if (studentTCdf(mid, df) < p) lo = mid; else hi = mid;
  }
  return (lo + hi) / 2;
}

function mean(xs) {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
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
function ratioInterval(ratios, confidence = 0.95) {
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

// Exact (Clopper-Pearson) one-sided upper confidence bound of a proportion seen x times in n
// trials: the p at which seeing x or fewer has probability 1 - confidence. Used to state how
// high a false-fail rate can still be after observing x fails in n A/A verdicts.
function binomialUpperBound(x, n, confidence = 0.95) {
  if (!(n > 0) || x < 0 || x > n) throw new RangeError(`binomialUpperBound needs 0 <= x <= n, n > 0; got x=${x}, n=${n}`);
  if (x === n) return 1;
  let lo = x / n;
  let hi = 1;
  for (let i = 0; i < 200 && hi - lo > 1e-14; i++) {
    const mid = (lo + hi) / 2;
    // P(X <= x | p = mid) = 1 - I_mid(x + 1, n - x)
    if (1 - incompleteBeta(mid, x + 1, n - x) > 1 - confidence) lo = mid; else hi = mid;
  }
  return (lo + hi) / 2;
}

module.exports = {
  binomialUpperBound,
  logGamma, incompleteBeta, studentTCdf, studentTQuantile, mean, sampleSd, ratioInterval, pairedRatios,
};
