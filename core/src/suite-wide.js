'use strict';
// The suite as a whole: the geometric mean over its rows of rQPS and of instr/o, for
// all rows and for each group (point, range, write: the catalogue's group of each
// microbenchmark, carried by every row), each with an interval made from the rows' own paired
// intervals (statistics.js meanOfRowRatios) and judged against the suite's own limits
// (`suite_wide` in the suite file) by the rule of a row (row-verdict.js). So a change spread
// thin over many rows is decided when no row alone can be (docs/verdicts.md, "The suite as a
// whole").
const { meanOfRowRatios } = require('./statistics');
const { signalOf } = require('./row-signals');
const { rowVerdict } = require('./row-verdict');
const { explain, listed } = require('./verdict-words');

const GROUPS = ['point', 'range', 'write'];

const hasInterval = (i) => Boolean(i) && i.n >= 2 && i.low !== null && Number.isFinite(i.sd_log);
// Every row with an interval counts, undecided ones too: a row is undecided when its interval
// reaches the fail limit, so leaving those out would leave out the slowest rows and move the
// mean towards a pass (docs/verdicts.md). An error has no figure to trust.
// A signal unstable on main (judge-row.js) is left out: its spread between runs is in no interval.
const stable = (b, signal) => !(b.unstable && b.unstable.signals.some((u) => u.signal === signal));
const rqpsOf = (b) => (stable(b, 'rqps') ? b.rqps : null);
const instructionsOf = (b) => (stable(b, 'instructions') ? b.instructions_per_query : null);
const counts = (b) => b.verdict !== 'error' && (hasInterval(rqpsOf(b)) || hasInterval(instructionsOf(b)));
const whyLeftOut = (b) => (b.verdict === 'error' ? 'error' : b.unstable ? 'unstable on main' : 'no interval');
const rowsWord = (n) => `${n} row${n === 1 ? '' : 's'} with figures`;

// One signal's geometric mean over `rows`, or null when fewer than min_rows have an interval.
function meanOver(rows, pick, minRows) {
  const intervals = rows.map(pick).filter(hasInterval);
  return intervals.length >= minRows ? meanOfRowRatios(intervals) : null;
}

// One entry (all rows, or one group), judged as a row is, or null when too few rows have figures.
function judgeEntry(id, group, rows, limits) {
  const rqps = meanOver(rows, rqpsOf, limits.min_rows);
  const instructions = meanOver(rows, instructionsOf, limits.min_rows);
  if (!rqps && !instructions) return null;
  const time = rqps ? signalOf('geomean_rqps', rqps, limits.rqps, `rQPS over ${rqps.n} rows`) : null;
  const counted = instructions ? signalOf('geomean_instructions', instructions, limits.instructions, `instr/o over ${instructions.n} rows`) : null;
  const row = rowVerdict({ time, instructions: counted });
  const told = explain(row, [time, counted].filter(Boolean));
  return {
    id,
    group,
    rows: rows.map((b) => b.id),
    rqps,
    instructions_per_query: instructions,
    verdict: row.verdict,
    could_be: row.open ? row.worst : null,
    needs: row.needs,
    reason: told.reason,
    headline_phrase: told.phrase,
  };
}

/**
 * The suite-wide entries of a verdict, or null when the suite sets no suite-wide limits or has
 * no rows (an AHI suite's cells are not rows of a group).
 * @param judged  the verdict's rows (judge-row.js)
 * @param limits  {rqps: {warn, fail}, instructions: {warn, fail}, min_rows} (config/suite-wide.js)
 * @returns {limits, entries, left_out: [{id, verdict}], notes: [sentence]}
 */
function suiteWide(judged, limits) {
  const rows = judged.filter((b) => !b.ahi);
  if (!limits || !rows.length) return null;
  const counted = rows.filter(counts);
  const left = rows.filter((b) => !counts(b));
  const notes = [];
  if (left.length) notes.push(`left out of the suite-wide figures: ${listed(left, (b) => `${b.id} (${whyLeftOut(b)})`, 5)}`);
  const entries = [];
  const whole = judgeEntry('all rows', null, counted, limits);
  if (whole) entries.push(whole);
  else notes.push(`the suite as a whole is not judged: ${rowsWord(counted.length)}, it needs at least ${limits.min_rows}`);
  // A group is judged on its own only beside others: one group alone is the whole suite.
  const groups = GROUPS.filter((g) => counted.some((b) => b.group === g));
  if (groups.length > 1) {
    for (const g of groups) {
      const members = counted.filter((b) => b.group === g);
      const entry = judgeEntry(`${g} rows`, g, members, limits);
      if (entry) entries.push(entry);
      else notes.push(`${g} rows are not judged on their own: ${rowsWord(members.length)}, a group needs at least ${limits.min_rows}`);
    }
  }
  return { limits, entries, left_out: left.map((b) => ({ id: b.id, verdict: b.verdict })), notes };
}

module.exports = { suiteWide, SUITE_WIDE_GROUPS: GROUPS };
