'use strict';
// A row's signals as the rule sees them (row-verdict.js): each a ratio with its interval and
// limits, and the span of verdicts the interval covers. Words are verdict-words.js's.
const { signalRange, settledVerdict, level, higher } = require('./row-verdict');

// Per-query costs are worse when higher; rQPS and the AHI gain ratio when lower.
// memory is a difference head − base in bytes, not a ratio; higher is worse all the same.
const COSTS = new Set(['cpu', 'instructions', 'instructions_all', 'io', 'memory', 'geomean_instructions']);
const higherIsWorse = (kind) => COSTS.has(kind);

/**
 * One signal: `kind` (rqps, cpu, instructions, instructions_all, gain, io), its interval and
 * limits, the span of verdicts they place it in, and `what` where a report names it otherwise
 * than its kind does (an I/O figure's label).
 */
function signalOf(kind, interval, limits, what = null) {
  const span = signalRange(interval, limits, { higherIsWorse: higherIsWorse(kind) });
  return { kind, interval, limits, span, best: span.best, worst: span.worst, ...(what ? { what } : {}) };
}

/**
 * The time signal: rQPS, with cpu/o and memory growth per query where the suite limits them.
 * What cpu/o proves (a whole interval beyond a limit) counts; what it leaves possible does not
 * narrow rQPS: a regression that waits instead of burning CPU shows in QPS alone, so an open
 * rQPS interval stays open whatever cpu/o says. Memory growth is no stand-in for speed but a
 * regression of its own (a leak): what it proves and what it leaves possible both count, as
 * for rQPS. Sets the row's cpu_verdict, and the memory figure's verdict and reason.
 */
function timeSignal(out, limits) {
  const rqps = signalOf('rqps', out.rqps, limits);
  const cpu = limits.cpu_per_query && out.cpu_per_query ? signalOf('cpu', out.cpu_per_query, limits.cpu_per_query) : null;
  const growth = out.memory && out.memory.difference;
  const memory = limits.memory_per_query && growth ? signalOf('memory', growth, limits.memory_per_query) : null;
  if (cpu) out.cpu_verdict = settledVerdict(cpu.span);
  if (memory) {
    out.memory.verdict = settledVerdict(memory.span);
    // A verdict beyond pass on it is always worth a line in every report.
    if (out.memory.verdict !== 'pass') out.memory.notable = true;
  }
  if (!cpu && !memory) return { ...rqps, parts: [rqps] };
  // cpu/o's worst end is not counted (above); each part's counted worst breaks a tie of bests.
  const parts = [rqps, cpu, memory].filter(Boolean).map((s) => ({ s, worst: s === cpu ? s.best : s.worst }));
  const best = parts.map((p) => p.s.best).reduce(higher);
  const worst = higher(parts.map((p) => p.worst).reduce(higher), best);
  const lead = parts.reduce((a, p) => (level(p.s.best) > level(a.s.best)
    || (p.s.best === a.s.best && level(p.worst) > level(a.worst)) ? p : a)).s;
  return { ...lead, best, worst, parts: [lead, ...parts.map((p) => p.s).filter((s) => s !== lead)] };
}

module.exports = { signalOf, timeSignal, higherIsWorse };
