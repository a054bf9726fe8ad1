'use strict';
// Markdown pieces shared by comment.md, summary.md, the check run, the sign-off report, the
// regression issue and the bisect comment; and the one way text from a run folder enters any
// markdown perfgate writes.
const F = require('./format');
const { suiteWideView } = require('./suite-wide');

// Text from a run folder (names, reasons, versions, options, paths, error messages: anything a
// runner wrote, and a runner builds pull requests' code) enters markdown only through text() or
// code(), so that GitHub shows its characters and nothing more: no mention or team
// notification, no issue reference, no link, image, HTML, emphasis, table cell, heading, list
// or code block of its own. GitHub links @names and #numbers after rendering, where a
// backslash no longer stands: a zero-width joiner after the @ or # breaks them instead, as it
// breaks the :// and www. of automatic links.
const ZWJ = '\u200d';
// Line breaks end a table row or start a block; other control characters have no business in
// a report: each becomes a space. Bidirectional overrides reorder what a reader sees: dropped.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;
// Characters markdown gives a meaning wherever they stand (escapes, code, emphasis, HTML and
// autolinks, table cells, strikethrough, entities, GitHub's math). Brackets make a link, an
// image, a footnote or a reference only with `](`, `][` or `]:` (which defines what a bare [x]
// would link to): only such a bracket is escaped, so that [0.52, 1.37] stays as it reads.
const ACTIVE = /[\\`*<|~&$]|\](?=[([:])/g;
const ALNUM = /[A-Za-z0-9]/;
// The longest text shown from a run folder by default: a headline or a reason reads in full
// below this; the run folder keeps all of it.
const TEXT_MAX = 1000;
// A microbenchmark's, a function's or a suite's name; a headline.
const NAME_MAX = 200;
const HEADLINE_MAX = 2000;

/** `value` as one line of at most `max` characters (… when cut), never splitting a character. */
function oneLine(value, max = TEXT_MAX) {
  const s = String(value ?? '').replace(CONTROLS, ' ').replace(BIDI, '');
  if (s.length <= max) return s;
  let end = Math.max(0, max - 1);
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${s.slice(0, end)}…`;
}

/**
 * Untrusted text as inline markdown that renders as exactly its characters (on one line, cut at
 * `max`): in a paragraph, a list item, bold, or a table cell alike.
 */
function text(value, { max = TEXT_MAX } = {}) {
  let s = oneLine(value, max).trim().replace(ACTIVE, '\\$&');
  // An underscore between letters or digits (update-index_range=100) can neither open nor
  // close emphasis, and stays as it is, readable; any other is escaped.
  s = s.replace(/_/g, (m, at, all) => (ALNUM.test(all[at - 1] || '') && ALNUM.test(all[at + 1] || '') ? '_' : '\\_'));
  s = s.replace(/@/g, `@${ZWJ}`)
    .replace(/#(?=[A-Za-z0-9])/g, `#${ZWJ}`)
    .replace(/\b(GH)-(?=\d)/gi, `$1${ZWJ}-`)
    .replace(/:(?=\/\/)/g, `:${ZWJ}`)
    .replace(/\b(www)\./gi, `$1${ZWJ}.`);
  // At the start of a line these would open a heading, a quote, a list, a setext underline or
  // (in a list item) a task's check box.
  if (/^[#>+\-=[]/.test(s)) s = `\\${s}`;
  return s.replace(/^(\d+)([.)])/, '$1\\$2');
}

// A table cell of untrusted text: the same escaping as any inline text.
const cell = (value) => text(value);

/**
 * Untrusted text in a code span (one line, cut at `max`), where GitHub renders nothing: the
 * span's fence is one backtick longer than any run of backticks inside. `table`: the span sits
 * in a table cell, whose pipes must be escaped even inside code. Empty text is '–'.
 */
function code(value, { max = TEXT_MAX, table = false } = {}) {
  let s = oneLine(value, max);
  if (!s) return '–';
  // In a table a backslash before a pipe would escape the escape: a joiner keeps them apart.
  if (table) s = s.replace(/\\(?=\|)/g, `\\${ZWJ}`).replace(/\|/g, '\\|');
  const ticks = '`'.repeat(Math.max(0, ...(s.match(/`+/g) || []).map((run) => run.length)) + 1);
  const pad = /^[ `]|[ `]$/.test(s) ? ' ' : '';
  return `${ticks}${pad}${s}${pad}${ticks}`;
}

/** A fenced code block of `lines` (untrusted lines welcome): no line inside can close it. */
function fence(lines, info = '') {
  const body = lines.join('\n');
  const ticks = '`'.repeat(Math.max(3, ...(body.match(/`+/g) || []).map((run) => run.length + 1)));
  return [`${ticks}${info}`, body, ticks].join('\n');
}

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
    const name = b.verdict === 'error' ? `${text(b.id, { max: NAME_MAX })} — ${text(b.reason)}` : text(b.id, { max: NAME_MAX });
    const instrCells = instr ? ` ${F.instrEstimate(b)} | ${F.instrInterval(b)} |` : '';
    const ioCells = figures.map((c) => ` ${c.cell(b)} |`).join('');
    out.push(`| ${F.markOf(b)} | ${name} | ${F.estimate(b.rqps)} | ${F.interval(b.rqps)} |${instrCells} ${F.estimate(b.cpu_per_query)} | ${F.estimate(b.cs_per_query)} |${ioCells} ${b.rounds.pairs} |`);
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
    parts.push(`**${text(b.id, { max: NAME_MAX })}**: ${F.functionsHeading(b)}`);
    if (!w.symbols) {
      parts.push('', `Functions not named: ${text(w.why)}.`, '');
      continue;
    }
    parts.push('', '| function | source | self +/query | inclusive +/query |', '|:--|:--|--:|--:|');
    for (const f of w.grown.slice(0, top)) {
      parts.push(`| ${code(f.name, { max: NAME_MAX, table: true })} | ${text(f.source || f.object || '–', { max: NAME_MAX })} | ${F.count(f.self_growth)} | ${F.count(f.inclusive_growth)} |`);
    }
    if (w.annotate) parts.push('', `Open the last window by hand: ${code(w.annotate)}`);
    parts.push('');
  }
  return parts.join('\n').trim();
}

// Why each explained row got slower: its cause line (the verdict's benchmarks[].cause), one
// list item per row; '' when no row has one.
function causesSection(rows) {
  return rows.filter((b) => b.cause).map((b) => `- ${F.markOf(b)} ${code(b.id, { max: NAME_MAX })}: ${text(b.cause.line)}`).join('\n');
}

// Memory growth per query of the rows where it is worth a line, one list item each; '' for none.
function memorySection(rows) {
  return F.memoryLines(rows).map((m) => `- ${F.markOf(m.row)} ${code(m.row.id, { max: NAME_MAX })}: ${text(m.text)}`).join('\n');
}

function ahiTable(cells) {
  const out = [
    '| | workload | threads | rQPS AHI off | rQPS AHI on | base gain (on/off) | head gain (on/off) | gain ratio | 95% interval |',
    '|:-:|:--|--:|--:|--:|--:|--:|--:|:-:|',
  ];
  for (const c of cells) {
    out.push(`| ${F.markOf(c)} | ${text(c.name, { max: NAME_MAX })} | ${text(c.threads ?? '–')} | ${F.num(c.rqps_off)} | ${F.num(c.rqps_on)} | ${F.num(c.gain.base)} | ${F.num(c.gain.head)} | ${F.estimate(c.gain_ratio)} | ${F.interval(c.gain_ratio)} |`);
  }
  return out.join('\n');
}

// A horizontal mermaid bar chart of rQPS (GitHub renders mermaid blocks in comments).
function rqpsChart(benchmarks) {
  const bars = benchmarks.filter((b) => b.rqps && Number.isFinite(b.rqps.estimate));
  if (!bars.length) return '';
  const top = Math.max(1.2, ...bars.map((b) => b.rqps.estimate));
  // Inside the chart's fenced block nothing is markdown; a label must only stay one quoted string.
  const label = (s) => `"${oneLine(s, NAME_MAX).replace(/"/g, "'")}"`;
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
    .map((g) => `**${text(g.title)}**\n\n${benchmarkTable(g.benchmarks)}`)
    .join('\n\n');
}

function legend(rows = []) {
  const allThreads = rows.some((b) => b.instructions_threads === 'all')
    ? ' ("all threads": with the background work the queries left, purge and flushing, where that proved more on every pair of server processes)'
    : '';
  const instr = F.hasInstructions(rows) ? `instr/o = head/base instructions per query of the connection threads${allThreads}, counted under callgrind in paired windows of the same events (above 1 = head does more work); ` : '';
  const io = F.figureLegend(rows).map((sentence) => `${sentence}. `).join('');
  return `rQPS = head QPS / base QPS, the geometric mean of paired rounds; ${instr}cpu/o and cs/o = head/base mysqld CPU time and context switches per query (above 1 = head does more work). ${io}`
    + `${F.MARK.pass} pass ${F.MARK.warn} warn ${F.MARK.undecided} undecided ${F.MARK.fail} fail ${F.MARK.error} error`;
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
  return `> [!WARNING]\n> This runner may give noisy timings:\n${w.map((x) => `> - ${text(x)}`).join('\n')}`;
}

/**
 * The opening of comment.md and summary.md: the title (`heading` is '###' or '##'), the headline,
 * the sides, counts and limits, where the limits came from, scope notes, runner warnings, and
 * the grouped table of `rows` that are not AHI cells.
 */
// The suite as a whole: its table and what was left out of it ('' when the verdict has none).
function suiteWideSection(verdict) {
  const view = suiteWideView(verdict);
  if (!view) return '';
  const out = [`**${view.title}**: ${text(view.about)}`];
  if (view.rows.length) {
    out.push('', `| ${view.header.join(' | ')} |`, '|:-:|:--|--:|:-:|--:|:-:|');
    for (const r of view.rows) out.push(`| ${r.cells.map((c, i) => (i === 1 ? text(c, { max: NAME_MAX }) : c)).join(' | ')} |`);
  }
  if (view.notes.length) out.push('', `_${text(view.notes.join('; '))}._`);
  return out.join('\n');
}

function opening(verdict, rows, { heading, boldHeadline, thresholdsFrom }) {
  const sides = verdict.run.sides || {};
  const parts = [
    `${heading} ${F.MARK[verdict.verdict]} perfgate ${text(verdict.suite || '', { max: NAME_MAX })}: ${F.WORD[verdict.verdict]}`.replace(/ +:/, ':'),
    '',
    boldHeadline ? `**${text(verdict.headline, { max: HEADLINE_MAX })}**` : text(verdict.headline, { max: HEADLINE_MAX }),
    '',
    `head ${text(F.sideLine(sides.head))} against base ${text(F.sideLine(sides.base))}: ${F.countsLine(verdict)}. Limits: ${F.limitsLine(verdict)}; ${F.roundsLine(verdict)}.`,
  ];
  const wide = suiteWideSection(verdict);
  if (wide) parts.push('', wide);
  if (thresholdsFrom) parts.push('', `Limits from ${thresholdsFrom}.`);
  const notes = F.scopeNotes(verdict);
  if (notes.length) parts.push('', text(notes.join(' '), { max: HEADLINE_MAX }));
  const doctor = doctorBlock(verdict);
  if (doctor) parts.push('', doctor);
  const plain = rows.filter((b) => !b.ahi);
  if (plain.length) parts.push('', groupedTables(plain));
  return parts;
}

module.exports = {
  opening, suiteWideSection, variablesSection, benchmarkTable, ahiTable, causesSection, memorySection, rqpsChart, groupedTables, legend, doctorBlock, instructionsSection, text, code, fence, oneLine, cell, NAME_MAX, HEADLINE_MAX,
};
