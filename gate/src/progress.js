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

// `[2/10]` when the event says where in the plan it is.
function position(event) {
  const i = event.benchmark_index;
  const n = event.benchmarks;
  return Number.isInteger(i) && Number.isInteger(n) ? `[${i + 1}/${n}] ` : '';
}

/**
 * @param event  one parsed JSON line of `perfgate_harness run` stdout
 * @param stage  what this harness run is for ('' for the planned rounds, 'extra rounds 1', 'confirm')
 * @returns one line of text, or null for events that are not worth a line
 */
function formatProgress(event, stage = '') {
  const prefix = stage ? `(${stage}) ` : '';
  if (!event || typeof event !== 'object') return null;
  if (event.event === 'round') {
    const round = Number.isInteger(event.rounds) ? `round ${event.round}/${event.rounds}` : `round ${event.round}`;
    return `${prefix}${position(event)}${event.benchmark}  ${event.side}  ${round}${timeLeft(event)}`;
  }
  if (event.event === 'phase') {
    const parts = [event.phase, event.side, event.benchmark].filter((p) => typeof p === 'string' && p);
    if (parts.length === 0) return null;
    return `${prefix}${position(event)}${parts.join('  ')}${timeLeft(event)}`;
  }
  if (event.event === 'error' && event.message) {
    return `${prefix}error${event.benchmark ? ` in ${event.benchmark}` : ''}${event.side ? ` (${event.side})` : ''}: ${event.message}`;
  }
  return null;
}

module.exports = { formatProgress, formatDuration };
