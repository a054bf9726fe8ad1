'use strict';
// Markdown pieces shared by comment.md and summary.md.
const F = require('./format');

// Table cells must not break the table: pipes escaped, newlines flattened.
const cell = (s) => String(s ?? '').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

// instr/o columns appear when instructions were counted.
function benchmarkTable(rows) {
  const instr = F.hasInstructions(rows);
  const figures = F.figureColumns(rows);
  const ioHeader = figures.map((c) => ` ${c.header} |`).join('');
  const ioAlign = figures.map(() => '--:|').join('');
  const out = instr ? [
    `| | microbenchmark | rQPS | 95% interval | instr/o | 95% interval | cpu/o | cs/o |${ioHeader} pairs |`,
    `|:-:|:--|--:|:-:|--:|:-:|--:|--:|${ioAlign}--:|`,
  ] : [
    `| | microbenchmark | rQPS | 95% interval | cpu/o | cs/o |${ioHeader} pairs |`,
    `|:-:|:--|--:|:-:|--:|--:|${ioAlign}--:|`,
  ];
  for (const b of rows) {
    const name = b.verdict === 'error' ? `${b.id} — ${b.reason}` : b.id;
    const instrCells = instr ? ` ${F.estimate(b.instructions_per_query, F.INSTR_DIGITS)} | ${F.interval(b.instructions_per_query, F.INSTR_DIGITS)} |` : '';
    const ioCells = figures.map((c) => ` ${c.cell(b)} |`).join('');
    out.push(`| ${F.markOf(b)} | ${cell(name)} | ${F.estimate(b.rqps)} | ${F.interval(b.rqps)} |${instrCells} ${F.estimate(b.cpu_per_query)} | ${F.estimate(b.cs_per_query)} |${ioCells} ${b.rounds.pairs} |`);
  }
  return out.join('\n');
}

// Where the instructions went: per microbenchmark whose instr/o moved, the functions that grew
// most per query (head minus base), `top` of them.
function instructionsSection(rows, top) {
  const changed = F.changedInstructions(rows);
  if (!changed.length) return '';
  const parts = [];
  for (const b of changed) {
    const w = b.instructions_functions;
    const i = b.instructions_per_query;
    const perQuery = b.instructions && b.instructions.per_query;
    parts.push(`**${cell(b.id)}**: instr/o ${F.estimate(i, F.INSTR_DIGITS)} (${F.count(perQuery && perQuery.base)} → ${F.count(perQuery && perQuery.head)} instructions per query)`);
    if (!w.symbols) {
      parts.push('', `Functions not named: ${w.why}.`, '');
      continue;
    }
    parts.push('', '| function | source | self +/query | inclusive +/query |', '|:--|:--|--:|--:|');
    for (const f of w.grown.slice(0, top)) {
      parts.push(`| \`${cell(f.name)}\` | ${cell(f.source || f.object || '–')} | ${F.count(f.self_growth)} | ${F.count(f.inclusive_growth)} |`);
    }
    if (w.annotate) parts.push('', `Open the last window by hand: \`${w.annotate}\``);
    parts.push('');
  }
  return parts.join('\n').trim();
}

function ahiTable(cells) {
  const out = [
    '| | workload | threads | rQPS AHI off | rQPS AHI on | base gain (on/off) | head gain (on/off) | gain ratio | 95% interval |',
    '|:-:|:--|--:|--:|--:|--:|--:|--:|:-:|',
  ];
  for (const c of cells) {
    out.push(`| ${F.markOf(c)} | ${cell(c.name)} | ${c.threads ?? '–'} | ${F.num(c.rqps_off)} | ${F.num(c.rqps_on)} | ${F.num(c.gain.base)} | ${F.num(c.gain.head)} | ${F.estimate(c.gain_ratio)} | ${F.interval(c.gain_ratio)} |`);
  }
  return out.join('\n');
}

// A horizontal mermaid bar chart of rQPS (GitHub renders mermaid blocks in comments).
function rqpsChart(benchmarks) {
  const bars = benchmarks.filter((b) => b.rqps && Number.isFinite(b.rqps.estimate));
  if (!bars.length) return '';
  const top = Math.max(1.2, ...bars.map((b) => b.rqps.estimate));
  const label = (s) => `"${String(s).replace(/"/g, "'")}"`;
  return [
    '```mermaid',
    'xychart-beta horizontal',
    '    title "rQPS (head / base; 1.00 = same, below 1 = head slower)"',
    `    x-axis [${bars.map((b) => label(b.id)).join(', ')}]`,
    `    y-axis "rQPS" 0 --> ${Math.ceil(top * 10) / 10}`,
    `    bar [${bars.map((b) => b.rqps.estimate.toFixed(2)).join(', ')}]`,
    '```',
  ].join('\n');
}

function groupedTables(benchmarks) {
  return F.groupsOf(benchmarks.filter((b) => !b.ahi))
    .map((g) => `**${g.title}**\n\n${benchmarkTable(g.benchmarks)}`)
    .join('\n\n');
}

function legend(rows = []) {
  const instr = F.hasInstructions(rows) ? 'instr/o = head/base instructions per query of the connection threads, counted under callgrind in paired windows of the same events (above 1 = head does more work); ' : '';
  const io = F.figureLegend(rows).map((sentence) => `${sentence}. `).join('');
  return `rQPS = head QPS / base QPS, the geometric mean of paired rounds; ${instr}cpu/o and cs/o = head/base mysqld CPU time and context switches per query (above 1 = head does more work). ${io}`
    + `${F.MARK.pass} pass ${F.markOf({ verdict: 'pass', open: true })} pass, interval still reaching the warn limit ${F.MARK.warn} warn ${F.MARK.inconclusive} inconclusive ${F.MARK.fail} fail ${F.MARK.error} error`;
}

// The server variables that differ between the sides (SHOW GLOBAL VARIABLES), collapsed, with
// their names in the summary line so that they read without opening it; at most `max` rows.
function variablesSection(sides, max = Infinity) {
  const rows = F.variableRows(sides || {});
  if (!rows) return '';
  if (!rows.length) return 'Server variables (SHOW GLOBAL VARIABLES): none differ between the sides, their own paths and port aside.';
  const out = [`<details><summary>Server variables that differ (SHOW GLOBAL VARIABLES): ${cell(F.variablesLine(rows))}</summary>`, '',
    '| variable | base | head |', '|:--|:--|:--|'];
  for (const r of rows.slice(0, max)) out.push(`| ${cell(r.name)} | ${cell(r.base ?? 'absent')} | ${cell(r.head ?? 'absent')} |`);
  if (rows.length > max) out.push('', `_${rows.length - max} more in report.html._`);
  out.push('', '</details>');
  return out.join('\n');
}

function doctorBlock(verdict) {
  const w = verdict.doctor || [];
  if (!w.length) return '';
  return `> [!WARNING]\n> This runner may give noisy timings:\n${w.map((x) => `> - ${cell(x)}`).join('\n')}`;
}

/**
 * The opening of comment.md and summary.md: the title (`heading` is '###' or '##'), the headline,
 * the sides, counts and limits, where the limits came from, scope notes, runner warnings, and
 * the grouped table of `rows` that are not AHI cells.
 */
function opening(verdict, rows, { heading, boldHeadline, thresholdsFrom }) {
  const sides = verdict.run.sides || {};
  const parts = [
    `${heading} ${F.MARK[verdict.verdict]} perfgate ${verdict.suite || ''}: ${F.WORD[verdict.verdict]}`.replace(/ +:/, ':'),
    '',
    boldHeadline ? `**${verdict.headline}**` : verdict.headline,
    '',
    `head ${F.sideLine(sides.head)} against base ${F.sideLine(sides.base)}: ${F.countsLine(verdict)}. Limits: ${F.limitsLine(verdict)}; ${F.roundsLine(verdict)}.`,
  ];
  if (thresholdsFrom) parts.push('', `Limits from ${thresholdsFrom}.`);
  const notes = F.scopeNotes(verdict);
  if (notes.length) parts.push('', cell(notes.join(' ')));
  const doctor = doctorBlock(verdict);
  if (doctor) parts.push('', doctor);
  const plain = rows.filter((b) => !b.ahi);
  if (plain.length) parts.push('', groupedTables(plain));
  return parts;
}

module.exports = { opening, variablesSection, benchmarkTable, ahiTable, rqpsChart, groupedTables, legend, doctorBlock, instructionsSection, cell };
