'use strict';
// Progress lines for people watching a long run: the harness's measuring (which
// microbenchmark, which side, which round of how many, the time left) and a server build
// (phase, share of ninja steps, elapsed time). Pure formatting of events.

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
function formatHarnessProgress(event, context = {}) {
  if (!event || typeof event !== 'object') return null;
  const { stage = '', firstRound = 0, ids = null } = context;
  const prefix = stage ? `(${stage}) ` : '';
  if (event.event === 'round') {
    // The harness numbers rounds across the whole run (extensions continue the numbering);
    // people want "round k of the n in this step".
    const k = Number.isInteger(event.round) ? event.round - firstRound + 1 : event.round;
    const round = Number.isInteger(event.rounds) ? `round ${k}/${event.rounds}` : `round ${k}${event.extra ? ' (more, while open)' : ''}`;
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


// --- builds: ninja's status prefix → steps done, and one human line.

// perfgate runs ninja with NINJA_STATUS set to this, so every edge line starts with it.
const NINJA_STATUS = '[%f/%t] ';
const STATUS_LINE = /^\[(\d+)\/(\d+)\] /;

// Returns {done, total} for a ninja status line, or null for any other output line.
function parseNinjaStatus(line) {
  const m = STATUS_LINE.exec(line);
  if (!m) return null;
  const done = Number(m[1]);
  const total = Number(m[2]);
  if (!(total > 0) || done > total) return null;
  return { done, total };
}

// cache: 'hit' (prefix reused), 'warm' (build tree already built once: incremental) or
// 'cold' (new build tree; ccache may still help).
function formatBuildProgress({ label, phase, done, total, elapsedSeconds, cache }) {
  const parts = [`build ${label}: ${phase}`];
  if (total > 0) parts.push(`${Math.floor((100 * done) / total)}% of ninja steps (${done}/${total})`);
  parts.push(`${formatDuration(elapsedSeconds)} elapsed`);
  parts.push(`cache ${cache}`);
  return parts.join(', ');
}

// Reports at most one line per `everySeconds`, plus every phase change: a cold build has
// thousands of steps and a log line per step would drown the rest of the output.
function progressThrottle(everySeconds) {
  let lastAt = -Infinity;
  let lastPhase = null;
  return (event, nowSeconds) => {
    const due = event.phase !== lastPhase || nowSeconds - lastAt >= everySeconds || (event.total > 0 && event.done === event.total);
    if (due) { lastAt = nowSeconds; lastPhase = event.phase; }
    return due;
  };
}

module.exports = { formatHarnessProgress, formatBuildProgress, formatDuration, NINJA_STATUS, parseNinjaStatus, progressThrottle };
