'use strict';
// The terminal table of a verdict: one row per microbenchmark with rQPS, its interval, the
// cpu/o and cs/o ratios, I/O per query (r/o, rKB/o, wKB/o) and the verdict, then the headline. Plain text, no colour codes, so it
// reads the same in a terminal, a CI log and a test.
const F = require('./format');
const { suiteWideView, suiteWideReasons } = require('./suite-wide');
const { oneLine } = require('./markdown');

function pad(rows, header) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i === 0 || i === cells.length - 1 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)];
}

// Why each explained row got slower (docs/explain.md), a line per row; its text holds what a
// pull request's server wrote (a statement, stack frames): one line, no control character
// reaches a terminal.
const causeLines = (rows) => rows.filter((b) => b.cause).map((b) => `  ${oneLine(b.id, 200)}: cause: ${oneLine(b.cause.line, 400)}`);

function renderVerdictTable(verdict) {
  const instr = F.hasInstructions(verdict.benchmarks);
  const figures = F.figureColumns(verdict.benchmarks);
  const header = ['microbenchmark', 'rQPS', '95% interval', ...(instr ? ['instr/o', '95% interval'] : []), 'cpu/o', 'cs/o', ...figures.map((c) => c.header), 'pairs', 'verdict'];
  const rows = [];
  for (const g of F.groupsOf(verdict.benchmarks)) {
    for (const b of g.benchmarks) {
      const instrCells = instr ? [F.instrEstimate(b), F.instrInterval(b)] : [];
      rows.push([b.id, F.estimate(b.rqps), F.interval(b.rqps), ...instrCells, F.estimate(b.cpu_per_query), F.estimate(b.cs_per_query), ...figures.map((c) => c.cell(b)), b.rounds.pairs, F.wordOf(b)]);
    }
  }
  // The suite as a whole first, then the rows.
  const view = suiteWideView(verdict);
  const lines = view && view.rows.length ? [...pad(view.rows.map((r) => [...r.cells.slice(1), F.wordOf(r.entry)]), [...view.header.slice(1), 'verdict']), ''] : [];
  lines.push(...pad(rows, header));
  if (verdict.ahi.length) {
    lines.push('', ...pad(verdict.ahi.map((c) => [
      `${c.name} @${c.threads}`, F.num(c.rqps_off), F.num(c.rqps_on), F.num(c.gain.base), F.num(c.gain.head), F.estimate(c.gain_ratio), F.interval(c.gain_ratio), F.wordOf(c),
    ]), ['AHI cell', 'rQPS off', 'rQPS on', 'base gain', 'head gain', 'gain ratio', '95% interval', 'verdict']));
  }
  const sides = verdict.run.sides || {};
  const title = `perfgate ${verdict.suite || ''}: head ${F.sideLine(sides.head)} against base ${F.sideLine(sides.base)}`;
  // One line each; a long error message (a command line, a log excerpt) is cut: verdict.json
  // and the reports keep it whole.
  const cut = (s) => (s.length > 400 ? `${s.slice(0, 399)}…` : s);
  const why = [...suiteWideReasons(verdict), ...[...verdict.benchmarks, ...verdict.ahi].filter(F.listsReason)].map((b) => cut(`  ${b.id}: ${b.reason}`));
  if (view) why.push(...view.notes.map((n) => cut(`  suite-wide: ${n}`)));
  why.push(...causeLines(verdict.benchmarks));
  // Memory growth per query where it is worth a line (core decides which rows).
  why.push(...F.memoryLines(verdict.benchmarks).map((m) => cut(`  ${m.row.id}: ${m.text}`)));
  // The functions that grew most, three per microbenchmark whose instructions moved.
  for (const b of F.changedInstructions(verdict.benchmarks)) {
    const w = b.instructions_functions;
    why.push(w.symbols
      ? `  ${b.id}: instructions grew most in ${w.grown.slice(0, 3).map((f) => `${f.name} (+${F.count(f.self_growth)} self, +${F.count(f.inclusive_growth)} inclusive per query)`).join(', ') || 'no function'}`
      : `  ${b.id}: functions not named (stripped binary)`);
  }
  const variables = F.variablesLine(F.variableRows(sides));
  if (variables) why.push(`server variables that differ: ${variables}`);
  return [title, ...F.scopeNotes(verdict), '', ...lines, '', verdict.headline, ...why, ...(verdict.doctor || []).map((w) => `runner warning: ${w}`)].join('\n') + '\n';
}

module.exports = { renderVerdictTable, causeLines };
