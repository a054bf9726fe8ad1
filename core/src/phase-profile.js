'use strict';
// Where the time of a comparison went, from the harness's progress events: each stretch of
// wall time between two events belongs to what the earlier event started (loading data, a
// server start, counting instructions, a warm-up, a timed round, a shutdown). Extra steps of
// the adaptive loop are counted by their kind. Pure: the clock is passed in.

const FIRST_RUN_PHASES = {
  init: 'load data', prepare: 'load data', 'copy data': 'load data',
  'keep loaded data': 'load data', 'restore loaded data': 'load data',
  start: 'server starts', shutdown: 'server stops',
  instructions: 'instruction windows', warmup: 'warm-ups',
};

/** The category of one progress event of the harness in a step (stage '' is the first run). */
function phaseOf(event, stage = '') {
  if (stage) return stage;
  // (more rounds on a row's own servers, asked for pair by pair, are extra rounds too)
  if (event.event === 'round') return event.extra ? 'extra rounds' : 'timed rounds';
  if (event.event === 'phase') return FIRST_RUN_PHASES[event.phase] || event.phase;
  return null;
}

/**
 * @param now  () => milliseconds
 * @returns {mark(category), stop(), totals(): [{phase, seconds}] in the order first seen,
 *          secondsIn(categories): the time spent in those so far, the current stretch too}
 */
function phaseClock(now) {
  const totals = new Map();
  let current = 'harness start';
  let since = now();
  const add = (phase, ms) => totals.set(phase, (totals.get(phase) || 0) + ms);
  return {
    mark(category) {
      if (!category) return;
      const t = now();
      add(current, t - since);
      current = category;
      since = t;
    },
    stop(category = 'judging and reports') {
      this.mark(category);
    },
    totals: () => [...totals].filter(([, ms]) => ms > 0).map(([phase, ms]) => ({ phase, seconds: ms / 1000 })),
    secondsIn(categories) {
      const running = categories.includes(current) ? now() - since : 0;
      return (categories.reduce((ms, c) => ms + (totals.get(c) || 0), 0) + running) / 1000;
    },
  };
}

/** One line: "where the time went: load data 21 s · instruction windows 96 s · … · total 301 s". */
function formatPhaseProfile(totals) {
  const total = totals.reduce((s, p) => s + p.seconds, 0);
  const parts = totals.filter((p) => p.seconds >= 0.5).map((p) => `${p.phase} ${Math.round(p.seconds)} s`);
  return `where the time went: ${parts.join(' · ')} · total ${Math.round(total)} s`;
}

module.exports = { phaseOf, phaseClock, formatPhaseProfile };
