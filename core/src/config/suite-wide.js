'use strict';
// A suite's limits on itself as a whole (suite-wide.js): the geometric mean over its rows, and
// over each group, of rQPS and of instr/o (docs/verdicts.md, "The suite as a whole"):
//   rqps          {warn, fail}: below fail fails, below warn warns (warn >= fail)
//   instructions  {warn, fail}: above fail fails, above warn warns (warn <= fail)
//   min_rows      how many rows with figures a geometric mean needs (an integer >= 2)
// A suite file that leaves the key, or one of its keys, out gets defaults from its own rows'
// default limits: each limit's distance from 1 divided by √(rows), the spread a mean of that
// many rows has, and never closer to 1 than the shipped quick suite's (docs/verdicts.md, "The
// suite as a whole"). So a suite with loose rows is not held to a suite-wide limit its rows'
// intervals cannot decide, and the quick suite's own rows give its shipped values.
const check = require('./checks');

const DEFAULTS = Object.freeze({ rqps: { warn: 0.98, fail: 0.97 }, instructions: { warn: 1.002, fail: 1.003 }, min_rows: 3 });

// One limit brought towards 1 by √rows, rounded outwards (rQPS down to 2 decimals, instr/o up to 3).
function scaled(ratio, rows, lowerIsWorse, nearest) {
  const distance = Math.abs(Math.log(ratio)) / Math.sqrt(Math.max(1, rows));
  if (lowerIsWorse) return Math.min(Math.floor(Math.exp(-distance) * 100 + 1e-9) / 100, nearest);
  return Math.max(Math.ceil(Math.exp(distance) * 1000 - 1e-9) / 1000, nearest);
}

/**
 * The defaults of a suite that does not say: from its rows' default limits ({warn, fail,
 * instructions?}) and how many rows it has.
 */
function derivedDefaults(rowDefault, rows) {
  const pairOf = (limits, lowerIsWorse, nearest) => ({
    warn: scaled(limits.warn, rows, lowerIsWorse, nearest.warn),
    fail: scaled(limits.fail, rows, lowerIsWorse, nearest.fail),
  });
  return {
    rqps: rowDefault && Number.isFinite(rowDefault.warn) ? pairOf(rowDefault, true, DEFAULTS.rqps) : { ...DEFAULTS.rqps },
    instructions: rowDefault && rowDefault.instructions ? pairOf(rowDefault.instructions, false, DEFAULTS.instructions) : { ...DEFAULTS.instructions },
    min_rows: DEFAULTS.min_rows,
  };
}
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

/**
 * @param src         the suite file's source (checks.js)
 * @param rowDefault  the suite's default row limits (limits.default), for the defaults
 * @param rows        how many rows the suite has
 */
function loadSuiteWide(src, rowDefault = null, rows = 1) {
  const at = ['suite_wide'];
  const defaults = derivedDefaults(rowDefault, rows);
  if (check.get(src.data, at) === undefined) return defaults;
  const raw = check.mapping(src, at, { optional: ['rqps', 'instructions', 'min_rows'], what: FORM });
  return {
    rqps: raw.rqps === undefined ? defaults.rqps : pair(src, [...at, 'rqps'], true),
    instructions: raw.instructions === undefined ? defaults.instructions : pair(src, [...at, 'instructions'], false),
    min_rows: raw.min_rows === undefined ? DEFAULTS.min_rows : check.number(src, [...at, 'min_rows'], { integer: true, min: 2, what: 'an integer >= 2 (rows a suite-wide figure needs)' }),
  };
}

module.exports = { loadSuiteWide, derivedDefaults, SUITE_WIDE_DEFAULTS: DEFAULTS };
