'use strict';
// A row's signals as the rule sees them (row-verdict.js): each a ratio with its interval and
// limits, and the span of verdicts the interval covers. Words are verdict-words.js's.
const { signalRange, settledVerdict, level, higher } = require('./row-verdict');

// Per-query costs are worse when higher; rQPS and the AHI gain ratio when lower.
const COSTS = new Set(['cpu', 'instructions', 'instructions_all', 'io', 'geomean_instructions']);
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
 * The time signal: rQPS, with cpu/o where the suite limits it. What cpu/o proves (a whole
 * interval beyond a limit) counts; what it leaves possible does not narrow rQPS: a
 * regression that waits instead of burning CPU shows in QPS alone, so an open rQPS interval
 * stays open whatever cpu/o says. Sets the row's cpu_verdict.
 */
function timeSignal(out, limits) {
  const rqps = signalOf('rqps', out.rqps, limits);
  if (!limits.cpu_per_query || !out.cpu_per_query) return { ...rqps, parts: [rqps] };
  const cpu = signalOf('cpu', out.cpu_per_query, limits.cpu_per_query);
  out.cpu_verdict = settledVerdict(cpu.span);
  const best = higher(rqps.best, cpu.best);
  const worst = higher(rqps.worst, best);
  const lead = cpu.best === best && rqps.best !== best ? cpu : rqps;
  return { ...lead, best, worst, parts: lead === cpu ? [cpu, rqps] : [rqps, cpu] };
}

module.exports = { signalOf, timeSignal, higherIsWorse };
