'use strict';
// Progress lines printed while the harness measures: which microbenchmark, which side, which
// round of how many, and the time left. Pure formatting of the harness's JSON-line events.

function formatDuration(seconds) {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

function timeLeft(event) {
  return typeof event.eta_seconds === 'number' ? `  ~${formatDuration(event.eta_seconds)} left` : '';
}

// `[2/10] ` when the benchmark is one of the plan's.
function position(event, ids) {
  const i = ids ? ids.indexOf(event.benchmark) : -1;
  return i >= 0 ? `[${i + 1}/${ids.length}] ` : '';
}

/**
 * @param event    one parsed JSON line of `perfgate_harness run` stdout
 * @param context  {stage: '' | 'extra rounds' | 'confirm', firstRound: the plan's first round
 *                  index, ids: benchmark ids of the plan, in order}
 * @returns one line of text, or null for events that are not worth a line
 */
function formatProgress(event, context = {}) {
  if (!event || typeof event !== 'object') return null;
  const { stage = '', firstRound = 0, ids = null } = context;
  const prefix = stage ? `(${stage}) ` : '';
  if (event.event === 'round') {
    // The harness numbers rounds across the whole run (extensions continue the numbering);
    // people want "round k of the n in this step".
    const k = Number.isInteger(event.round) ? event.round - firstRound + 1 : event.round;
    const round = Number.isInteger(event.rounds) ? `round ${k}/${event.rounds}` : `round ${k}`;
    return `${prefix}${position(event, ids)}${event.benchmark}  ${event.side}  ${round}${timeLeft(event)}`;
  }
  if (event.event === 'phase') {
    const parts = [event.phase, event.side].filter((p) => typeof p === 'string' && p);
    if (parts.length === 0) return null;
    const bench = typeof event.benchmark === 'string' ? `${position(event, ids)}${event.benchmark}  ` : '';
    return `${prefix}${bench}${parts.join('  ')}${timeLeft(event)}`;
  }
  if (event.event === 'benchmark' && event.status === 'error') {
    return `${prefix}${position(event, ids)}${event.benchmark}  error: ${String(event.message || '').split('\n')[0]}`;
  }
  return null;
}

module.exports = { formatProgress, formatDuration };
