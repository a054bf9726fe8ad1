'use strict';
// The rule that turns one microbenchmark's signals into its verdict. Pure; documented as a
// table in docs/verdicts.md and tested as one in test/unit/core/signals.test.js.
// Internal: a reader meets only the verdict (pass, warn, fail, undecided, error) and the
// row's reason in words (verdict-words.js).
//
// A signal is a ratio with a 95% interval and two limits (warn, fail). Its interval places it
// in a range of verdicts: from `best` (where the interval's better end lies) to `worst` (where
// its worse end lies). A narrow interval sits in one verdict (best = worst: the signal is
// decided); a wide one spans several. The interval proves the slowdown is at least `best`
// and says it could be as bad as `worst`.
//
// The row's range is [the worst of the bests, the worst of the worsts]:
//   - what any signal proves, the row is at least (a decided signal is never overruled by
//     another signal's luck; an interval wholly beyond a warn limit is never a pass);
//   - what any signal leaves possible, the row could still be (an open time interval is not
//     settled by unchanged instructions: a regression that only waits runs no instructions).
// A signal whose `worst` lies above the row's `best` can still change the verdict: it `needs`
// more of its own measurement (instruction windows or timed rounds), never another signal's.
// When the budget is spent, a row still open is:
//   - undecided when it could be a fail (exit 3: the gate does not pass it),
//   - a pass when at worst it could be a warn: noise alone must not warn, and its reason
//     says that its interval still reaches the warn limit.

const LEVELS = ['pass', 'warn', 'fail'];
const level = (v) => LEVELS.indexOf(v);
const higher = (a, b) => (level(a) >= level(b) ? a : b);

/**
 * Where an interval lies against its limits.
 * @param interval      {estimate, low, high} (low === null: a single sample, no interval)
 * @param limits        {warn, fail}
 * @param higherIsWorse true for per-query costs (instr/o, cpu/o), false for rQPS and gains
 * @returns {best, worst}: verdicts in 'pass' | 'warn' | 'fail'
 */
function signalRange(interval, limits, { higherIsWorse }) {
  if (!interval || interval.low === null || interval.low === undefined) return { best: 'pass', worst: 'fail' };
  const beyond = (x, limit) => (higherIsWorse ? x > limit : x < limit);
  const verdictAt = (x) => (beyond(x, limits.fail) ? 'fail' : beyond(x, limits.warn) ? 'warn' : 'pass');
  const betterEnd = higherIsWorse ? interval.low : interval.high;
  const worseEnd = higherIsWorse ? interval.high : interval.low;
  return { best: verdictAt(betterEnd), worst: verdictAt(worseEnd) };
}

/** A range's verdict once no more measurement will come. */
function settledVerdict({ best, worst }) {
  if (best === worst) return best;
  return worst === 'fail' ? 'undecided' : 'pass';
}

/**
 * @param signals {time, instructions}: each null (not measured), {error: reason}, or
 *                {best, worst} from signalRange
 * @returns {verdict, best, worst, open, needs, decidedBy}:
 *   verdict    pass | warn | fail | undecided | error, as settled now
 *   open       the row's range is not one verdict (more measurement could change it)
 *   needs      the signals whose own measurement could still change the verdict
 *   decidedBy  the signals whose `best` is the row's `best` and above pass (what proved the
 *              warn or fail), or, for an open row, the signals that leave it open
 */
function rowVerdict({ time = null, instructions = null }) {
  const measured = Object.entries({ time, instructions }).filter(([, s]) => s);
  if (!measured.length) return { verdict: 'error', best: null, worst: null, open: false, needs: [], decidedBy: [] };
  const failed = measured.filter(([, s]) => s.error);
  if (failed.length) return { verdict: 'error', best: null, worst: null, open: false, needs: [], decidedBy: failed.map(([name]) => name) };
  const best = measured.map(([, s]) => s.best).reduce(higher);
  const worst = measured.map(([, s]) => s.worst).reduce(higher);
  const needs = measured.filter(([, s]) => s.best !== s.worst && level(s.worst) > level(best)).map(([name]) => name);
  const open = best !== worst;
  const decidedBy = open
    ? needs
    : measured.filter(([, s]) => s.best === best && best !== 'pass').map(([name]) => name);
  return { verdict: settledVerdict({ best, worst }), best, worst, open, needs, decidedBy };
}

module.exports = { signalRange, settledVerdict, rowVerdict, LEVELS, level, higher };
