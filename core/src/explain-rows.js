'use strict';
// Which rows the explanation step looks at (docs/explain.md): what was asked
// (--explain, the action's `explain` input, /perf why) read once, then the rows chosen from a
// verdict within the suite's explain budget. Pure.
const { UsageError } = require('./errors');

const MODES = ['auto', 'all', 'none'];
const FORM = 'auto, all, none, or a comma-separated list of row ids (e.g. update-index_range=100,scan_range=100)';
// A row id as results.json names it: what a suite's benchmark names and their .pre / threads= / range= forms hold.
const ROW_ID = /^[A-Za-z0-9][A-Za-z0-9_.=+-]{0,127}$/;
// Worst first, so that a budget of fewer rows than asked keeps the ones that matter most.
const ORDER = { fail: 0, warn: 1, undecided: 2, pass: 3 };

/**
 * @param text    what the user gave (`--explain`, the action input), untrusted
 * @param option  how the user gave it, for the error message
 * @returns {mode: 'auto'|'all'|'none'|'named', rows: [id]}
 */
function parseExplainAsk(text, option = '--explain') {
  const value = String(text ?? '').trim();
  if (MODES.includes(value)) return { mode: value, rows: [] };
  const rows = value.split(',').map((r) => r.trim()).filter(Boolean);
  const bad = rows.find((r) => !ROW_ID.test(r));
  if (rows.length === 0 || bad !== undefined) {
    const shown = JSON.stringify(bad === undefined ? value : bad).slice(0, 140);
    throw new UsageError(`${option}: ${shown} is not valid; expected ${FORM}`);
  }
  return { mode: 'named', rows: [...new Set(rows)] };
}

/** The named rows a plan does not have: checked before anything is measured. */
function unknownRows(ask, plan) {
  const known = new Set(plan.benchmarks.map((b) => b.id));
  return ask.mode === 'named' ? ask.rows.filter((r) => !known.has(r)) : [];
}

// A row that is not a plain pass: a fail or warn, an undecided row, or a pass whose interval
// still reaches the warn limit. A row in error measured nothing a probe could explain.
const flagged = (b) => b.verdict !== 'error' && (b.verdict !== 'pass' || Boolean(b.could_be));

/**
 * @param verdict  perfgate.verdict/v2 (its benchmarks)
 * @param budget   the suite's explain budget {rows, seconds_per_row}
 * @param ask      parseExplainAsk()
 * @returns {rows: [id], asked: 'auto'|'all'|'named', left_out: [id]} — left_out: chosen but
 *          beyond budget.rows
 */
function rowsToExplain(verdict, budget, ask) {
  const rows = (verdict.benchmarks || []).filter((b) => b.verdict !== 'error');
  let chosen;
  if (ask.mode === 'none') chosen = [];
  else if (ask.mode === 'named') chosen = ask.rows.filter((id) => rows.some((b) => b.id === id));
  else {
    const picked = ask.mode === 'all' ? rows : rows.filter(flagged);
    chosen = picked.map((b, i) => [b, i]).sort(([a, i], [b, j]) => (ORDER[a.verdict] ?? 4) - (ORDER[b.verdict] ?? 4) || i - j)
      .map(([b]) => b.id);
  }
  return { rows: chosen.slice(0, budget.rows), asked: ask.mode === 'none' ? 'auto' : ask.mode, left_out: chosen.slice(budget.rows) };
}

module.exports = { parseExplainAsk, rowsToExplain, unknownRows, flagged, EXPLAIN_FORM: FORM };
