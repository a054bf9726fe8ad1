'use strict';
// results.csv and results.tsv: the verdict as a table to paste into a spreadsheet or a blog
// post, as the posts publish theirs. One row per microbenchmark, in the reports' order, with
// the same figures the other tables show. Pure: verdict in, text out.
const { stringify } = require('csv-stringify/sync');
const F = require('./format');

function tableRows(verdict) {
  const rows = F.groupsOf(verdict.benchmarks).flatMap((g) => g.benchmarks);
  const instr = F.hasInstructions(rows);
  const figures = F.figureColumns(rows, { device: true });
  const lowHigh = (i, digits) => (i && i.low !== null && i.low !== undefined ? [F.num(i.low, digits), F.num(i.high, digits)] : ['–', '–']);
  const header = ['microbenchmark', 'threads', 'rQPS', 'rQPS low', 'rQPS high',
    ...(instr ? ['instr/o', 'instr/o low', 'instr/o high', 'instr/o of all threads', 'all threads low', 'all threads high', 'instr/o decided by'] : []),
    'cpu/o', 'cs/o', ...figures.map((c) => c.header), 'pairs', 'verdict'];
  const body = rows.map((b) => [
    b.id, b.threads ?? '–', F.estimate(b.rqps), ...lowHigh(b.rqps, 2),
    ...(instr ? [F.estimate(b.instructions_per_query, F.INSTR_DIGITS), ...lowHigh(b.instructions_per_query, F.INSTR_DIGITS),
      F.estimate(b.all_threads_per_query, F.INSTR_DIGITS), ...lowHigh(b.all_threads_per_query, F.INSTR_DIGITS),
      b.instructions_threads === 'all' ? 'all threads' : b.instructions_per_query ? 'connection threads' : '–'] : []),
    F.estimate(b.cpu_per_query), F.estimate(b.cs_per_query), ...figures.map((c) => c.cell(b)), b.rounds.pairs, b.verdict,
  ]);
  return [header, ...body];
}

// The results come from a run folder, which anyone may hand in: a cell that starts like a
// formula (=, +, -, @) is written with a leading ' so that a spreadsheet shows it as text.
// The one writer of every delimited table (the chain's too).
const delimited = (rows, delimiter) => stringify(rows, { delimiter, escape_formulas: true, record_delimiter: 'unix' });

const renderCsv = (verdict) => delimited(tableRows(verdict), ',');
const renderTsv = (verdict) => delimited(tableRows(verdict), '\t');

module.exports = { renderCsv, renderTsv, delimited };
