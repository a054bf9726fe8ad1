'use strict';
// The signals a microbenchmark's row is judged on, named as verdict items name their intervals,
// and what one signal of a judged row decided. Pure. Watching main, bisection reports and the
// regression issue read a row's signals through here, so that the key of each signal's verdict
// is written down once.
// learnedKey: the signal's name in learned limits and in a row's `unstable` (learned-limits.js).
const SIGNALS = Object.freeze({
  rqps: Object.freeze({ verdictKey: 'time_verdict', word: 'rQPS', learnedKey: 'rqps' }),
  instructions_per_query: Object.freeze({ verdictKey: 'instructions_verdict', word: 'instr/o', learnedKey: 'instructions' }),
});

// The signals a regression is filed on, in the order the decisions walk them.
const REGRESSION_SIGNALS = Object.freeze(Object.keys(SIGNALS));

/** One signal's entry {verdictKey, word}, or an error naming the signals there are. */
function signalOf(name, where = 'signal') {
  const s = Object.hasOwn(SIGNALS, name) ? SIGNALS[name] : null;
  if (!s) throw new Error(`${where}: unknown signal ${JSON.stringify(name)}: expected one of ${REGRESSION_SIGNALS.join(', ')}`);
  return s;
}

/**
 * The verdict word of one signal of a judged item: 'pass', 'warn', 'fail', ..., or null when
 * that signal was not judged; 'undecided' when it is unstable on main. A run that counted no instructions judged time alone: its rQPS
 * verdict is the row's.
 */
function signalVerdict(item, signal) {
  const { verdictKey: key, learnedKey } = signalOf(signal);
  // A signal unstable on main decided nothing (judge-row.js), whatever its figure read.
  if (item.unstable && item.unstable.signals.some((u) => u.signal === learnedKey)) return 'undecided';
  if (item[key]) return item[key];
  return signal === 'rqps' && !item.instructions_per_query ? item.verdict : null;
}

/**
 * The instructions figure of a judged row that its verdict rests on: the queries' own threads'
 * (instr/o), or that of all threads where they proved more (a regression in purge or
 * flushing). Every report that shows one instructions figure for a row shows this one, so
 * that no fail stands beside a figure that did not decide it.
 * @returns {interval, threads: 'connection'|'all', word} or null when no instructions were counted
 */
function decidingInstructions(item) {
  if (item.instructions_threads === 'all' && item.all_threads_per_query) {
    return { interval: item.all_threads_per_query, threads: 'all', word: 'instr/o of all threads' };
  }
  return item.instructions_per_query ? { interval: item.instructions_per_query, threads: 'connection', word: 'instr/o' } : null;
}

/**
 * The interval a regression signal of a judged item stands on, and its word: rQPS, or the
 * instructions figure that decided (decidingInstructions). null interval: not measured.
 */
function signalFigure(item, signal) {
  const s = signalOf(signal);
  if (signal !== 'instructions_per_query') return { interval: item[signal] || null, word: s.word, threads: null };
  const d = decidingInstructions(item);
  return d ? { interval: d.interval, word: d.word, threads: d.threads } : { interval: null, word: s.word, threads: null };
}

module.exports = { REGRESSION_SIGNALS, signalOf, signalVerdict, decidingInstructions, signalFigure };
