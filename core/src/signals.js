'use strict';
// The signals a microbenchmark's row is judged on, named as verdict items name their intervals,
// and what one signal of a judged row decided. Pure. Watching main, bisection reports and the
// regression issue read a row's signals through here, so that the key of each signal's verdict
// is written down once.
const SIGNALS = Object.freeze({
  rqps: Object.freeze({ verdictKey: 'time_verdict', word: 'rQPS' }),
  instructions_per_query: Object.freeze({ verdictKey: 'instructions_verdict', word: 'instr/o' }),
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
 * that signal was not judged. A run that counted no instructions judged time alone: its rQPS
 * verdict is the row's.
 */
function signalVerdict(item, signal) {
  const key = signalOf(signal).verdictKey;
  if (item[key]) return item[key];
  return signal === 'rqps' && !item.instructions_per_query ? item.verdict : null;
}

module.exports = { REGRESSION_SIGNALS, signalOf, signalVerdict };
