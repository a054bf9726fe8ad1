'use strict';
const { formatDuration } = require('../progress');
// Progress of a long build: ninja's status prefix → steps done, and one human line.

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
function formatProgress({ label, phase, done, total, elapsedSeconds, cache }) {
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

module.exports = { NINJA_STATUS, parseNinjaStatus, formatDuration, formatProgress, progressThrottle };
