'use strict';
// A suite's limits on itself as a whole (suite-wide.js): the geometric mean over its rows, and
// over each group, of rQPS and of instr/o (docs/verdicts.md, "The suite as a whole"):
//   rqps          {warn, fail}: below fail fails, below warn warns (warn >= fail)
//   instructions  {warn, fail}: above fail fails, above warn warns (warn <= fail)
//   min_rows      how many rows with figures a geometric mean needs (an integer >= 2)
// A suite file that leaves the key, or one of its keys, out gets these defaults: a fork's
// suite written before the key existed is gated as a shipped one is.
const check = require('./checks');

const DEFAULTS = Object.freeze({ rqps: { warn: 0.98, fail: 0.97 }, instructions: { warn: 1.005, fail: 1.01 }, min_rows: 3 });
const FORM = 'suite_wide: {rqps: {warn, fail}, instructions: {warn, fail}, min_rows: <an integer >= 2>}';
const RATIO = { above: 0, max: 2, what: 'a ratio in (0, 2]' };

// One {warn, fail} pair; `lowerIsWorse` for rQPS (warn >= fail), else warn <= fail.
function pair(src, at, lowerIsWorse) {
  check.mapping(src, at, { required: ['warn', 'fail'], what: `{warn, fail} (${FORM})` });
  const warn = check.number(src, [...at, 'warn'], RATIO);
  const fail = check.number(src, [...at, 'fail'], RATIO);
  if (lowerIsWorse && warn < fail) src.fail([...at, 'warn'], `warn ${warn} is below fail ${fail}; expected warn >= fail (the suite's rQPS below fail fails, below warn warns)`);
  if (!lowerIsWorse && warn > fail) src.fail([...at, 'warn'], `warn ${warn} is above fail ${fail}; expected warn <= fail (the suite's instr/o above fail fails, above warn warns)`);
  return { warn, fail };
}

function loadSuiteWide(src) {
  const at = ['suite_wide'];
  if (check.get(src.data, at) === undefined) return { rqps: { ...DEFAULTS.rqps }, instructions: { ...DEFAULTS.instructions }, min_rows: DEFAULTS.min_rows };
  const raw = check.mapping(src, at, { optional: ['rqps', 'instructions', 'min_rows'], what: FORM });
  return {
    rqps: raw.rqps === undefined ? { ...DEFAULTS.rqps } : pair(src, [...at, 'rqps'], true),
    instructions: raw.instructions === undefined ? { ...DEFAULTS.instructions } : pair(src, [...at, 'instructions'], false),
    min_rows: raw.min_rows === undefined ? DEFAULTS.min_rows : check.number(src, [...at, 'min_rows'], { integer: true, min: 2, what: 'an integer >= 2 (rows a suite-wide figure needs)' }),
  };
}

module.exports = { loadSuiteWide, SUITE_WIDE_DEFAULTS: DEFAULTS };
