'use strict';
// The suite as a whole (verdict.suite_wide, decided in core/src/suite-wide.js), as every report
// shows it first: one row per entry (all rows, then each group) with its geometric means and
// their intervals, the limits, and what was left out. Cells of plain text; each renderer
// escapes and lays them out.
const F = require('./format');

// The suite as a whole is judged at a fraction of a percent: three decimals for rQPS, four for
// instr/o (as its reasons give them, verdict-words.js).
const DIGITS = 3;
const INSTR_DIGITS = 4;
const HEADER = ['', 'suite-wide', 'rQPS', '95% interval', 'instr/o', '95% interval'];

/** The suite-wide part of a report, or null for a verdict without one (older, or an AHI suite). */
function suiteWideView(verdict) {
  const wide = verdict.suite_wide;
  if (!wide) return null;
  const { rqps, instructions, min_rows: minRows } = wide.limits;
  return {
    title: 'The suite as a whole',
    about: `the geometric mean over the rows, and over each group of them; limits rQPS warn below ${rqps.warn}, fail below ${rqps.fail}; instr/o warn above ${instructions.warn}, fail above ${instructions.fail}; at least ${minRows} rows`,
    header: HEADER,
    rows: wide.entries.map((e) => ({
      entry: e,
      cells: [F.markOf(e), `${e.id} (${e.rows.length})`, F.estimate(e.rqps, DIGITS), F.interval(e.rqps, DIGITS), F.estimate(e.instructions_per_query, INSTR_DIGITS), F.interval(e.instructions_per_query, INSTR_DIGITS)],
    })),
    notes: wide.notes,
  };
}

/** The suite-wide entries whose reason the reports list (as F.listsReason does for rows). */
function suiteWideReasons(verdict) {
  return verdict.suite_wide ? verdict.suite_wide.entries.filter(F.listsReason) : [];
}

module.exports = { suiteWideView, suiteWideReasons };
