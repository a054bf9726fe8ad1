'use strict';
// Shared wording and number formats of every renderer, so that the comment, the job summary,
// the HTML report and the terminal table say the same thing the same way.
const { preNextToTwin, scopeNotes } = require('./scope');
const { IO_COLUMNS, IO_FIGURES } = require('../per-query');
const { signedBytes } = require('../verdict-words');
const { decidingInstructions } = require('../signals');
const { sideScheduleWords } = require('../side-schedules');
const { PRECEDENCE } = require('../verdict');

const MARK = { pass: '✅', warn: '⚠️', undecided: '❔', fail: '❌', error: '💥' };
const markOf = (row) => MARK[row.verdict];
const wordOf = (row) => row.verdict;
const WORD = { pass: 'pass', warn: 'warn', undecided: 'undecided', fail: 'fail', error: 'error' };
// The rows whose reason the reports list: all but a pass that could be nothing worse (a pass
// whose interval still reaches the warn limit says so in its reason).
const listsReason = (row) => row.verdict !== 'pass' || Boolean(row.could_be);
// Published rQPS tables group rows this way, reads before writes.
const GROUP_ORDER = ['point', 'range', 'write', 'ahi', 'ddl', 'tpcc'];
const GROUP_TITLE = { point: 'Point queries', range: 'Range queries', write: 'Writes', ahi: 'AHI cells', ddl: 'DDL statements', tpcc: 'TPC-C' };
const SEVERITY = PRECEDENCE;

const num = (x, digits = 2) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(digits) : '–');
const interval = (i, digits = 2) => (i && i.low !== null && i.low !== undefined ? `${num(i.low, digits)}–${num(i.high, digits)}` : '–');
const estimate = (i, digits = 2) => (i ? num(i.estimate, digits) : '–');
// instr/o ratios sit within a fraction of a percent of each other: three decimals.
const INSTR_DIGITS = 3;
const hasInstructions = (rows) => rows.some((b) => b.instructions_per_query);
// A row's instr/o cells: the figure its verdict rests on, marked where all threads decided.
function instrEstimate(b) {
  const d = decidingInstructions(b);
  if (!d) return estimate(null, INSTR_DIGITS);
  return d.threads === 'all' ? `${estimate(d.interval, INSTR_DIGITS)} (all threads)` : estimate(d.interval, INSTR_DIGITS);
}
const instrInterval = (b) => interval((decidingInstructions(b) || {}).interval || null, INSTR_DIGITS);
// The line above a row's grown functions: the figure that decided and both sides' levels of the
// queries' own threads. Where all threads decided, their functions are listed: the queries' own
// did not grow.
function functionsHeading(b) {
  const perQuery = (b.instructions && b.instructions.per_query) || {};
  const own = `${count(perQuery.base)} → ${count(perQuery.head)} instructions per query`;
  const deciding = decidingInstructions(b);
  return deciding && deciding.threads === 'all'
    ? `instr/o of all threads ${instrInterval(b)} (the queries' own threads: ${estimate(b.instructions_per_query, INSTR_DIGITS)}, ${own}); functions of every thread`
    : `instr/o ${estimate(b.instructions_per_query, INSTR_DIGITS)} (${own})`;
}

// Instructions per query as people read them: 43.1k, 6.38M.
function count(x) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return '–';
  if (x >= 1e9) return `${(x / 1e9).toFixed(2)}G`;
  if (x >= 1e6) return `${(x / 1e6).toFixed(2)}M`;
  if (x >= 1e3) return `${(x / 1e3).toFixed(1)}k`;
  return x.toFixed(0);
}
// A per-query amount as people read it: two significant digits, 0 as 0 (0.00081, 0.28, 12).
const perQuery = (x) => (typeof x === 'number' && Number.isFinite(x) ? (x === 0 ? '0' : String(Number(x.toPrecision(2)))) : '–');

// One I/O figure as a table cell: the head/base ratio; "—" when neither side did that I/O
// (0/0 is no ratio); "base→head" per query when a ratio cannot be paired, above all when only
// one side did any (0→0.28: a head that starts reading, which no ratio can show).
function ioCell(figure) {
  if (!figure) return '–';
  if (figure.ratio && typeof figure.ratio.estimate === 'number') return num(figure.ratio.estimate);
  if (figure.base === null || figure.head === null) return '–';
  if (figure.base === 0 && figure.head === 0) return '—';
  return `${perQuery(figure.base)}→${perQuery(figure.head)}`;
}

// The columns every table shows after cpu/o and cs/o: I/O per query (r/o, rKB/o, wKB/o, and
// with `{device: true}` the device's KB as well) and p95 latency of each side with the ratio.
// Each is left out when no row has it (results written before the harness sampled I/O).
function figureColumns(rows, { device = false } = {}) {
  const columns = [];
  if (rows.some((b) => b.io)) {
    for (const f of device ? IO_FIGURES : IO_COLUMNS) {
      columns.push({ header: f.label, key: f.key, figure: (b) => b.io && b.io[f.key], cell: (b) => ioCell(b.io && b.io[f.key]) });
    }
  }
  if (device) columns.push(...memoryColumns(rows));
  if (rows.some((b) => b.latency_p95_ms)) {
    const p95 = (b) => b.latency_p95_ms;
    columns.push(
      { header: 'p95 base', key: 'latency_p95_ms.base', figure: p95, cell: (b) => num(p95(b) && p95(b).base) },
      { header: 'p95 head', key: 'latency_p95_ms.head', figure: p95, cell: (b) => num(p95(b) && p95(b).head) },
      { header: 'p95 ratio', key: 'latency_p95_ms', figure: p95, cell: (b) => estimate(p95(b) && p95(b).ratio) },
    );
  }
  return columns;
}
const IO_LEGEND = 'r/o = head/base read requests per query of the device holding the datadirs (/proc/diskstats: everyone\'s I/O on it); '
  + 'rKB/o and wKB/o = head/base KB mysqld itself read from storage and wrote per query (/proc/<pid>/io); '
  + '— = neither side did that I/O; base→head = KB or requests per query of each side where no ratio pairs (one side did none)';
const LATENCY_LEGEND = 'p95 base, p95 head = sysbench\'s 95th percentile latency in ms, the mean of each side\'s rounds; p95 ratio = head/base, paired by round (above 1 = head slower to answer)';
// The sentences saying what the figure columns of `rows` are.
function figureLegend(rows) {
  const headers = new Set(figureColumns(rows).map((c) => c.header));
  return [headers.has('r/o') ? IO_LEGEND : null, headers.has('p95 ratio') ? LATENCY_LEGEND : null].filter(Boolean);
}

// Memory growth per query in bytes: +1,049 B, and resident sizes as 412 MB.
const bytesPerQuery = (x) => (typeof x === 'number' && Number.isFinite(x) ? `${signedBytes(x)} B` : '–');
const megabytes = (x) => (typeof x === 'number' && Number.isFinite(x) ? `${Math.round(x / 1048576)} MB` : '–');
// The full tables' memory columns (report.html, results.csv): bytes each side's resident memory
// grew per query and the paired difference, plain numbers for a spreadsheet; none when no row
// has the figure.
function memoryColumns(rows) {
  if (!rows.some((b) => b.memory)) return [];
  const m = (b) => b.memory;
  return [
    { header: 'mem B/o base', key: 'memory.base', figure: m, cell: (b) => num(m(b) && m(b).base, 0) },
    { header: 'mem B/o head', key: 'memory.head', figure: m, cell: (b) => num(m(b) && m(b).head, 0) },
    { header: 'mem B/o head−base', key: 'memory', figure: m, cell: (b) => num(m(b) && m(b).difference && m(b).difference.estimate, 0) },
  ];
}
const MEMORY_LEGEND = 'mem B/o = bytes mysqld\'s resident memory (VmRSS) grew per query over the timed rounds: each side\'s mean, and head−base paired by round';
// The rows whose memory growth is worth a line (core decides: per-query.js `notable`, or a
// verdict on it beyond pass): "memory growth per query head−base … (base …, head …; resident
// over the rounds: base … → … (peak …), head …)". A limit's clause is in the row's reason.
function memoryLines(rows) {
  return rows.filter((b) => b.memory && b.memory.notable).map((b) => {
    const m = b.memory;
    const d = m.difference;
    const at = d.low === null ? bytesPerQuery(d.estimate) : `${bytesPerQuery(d.estimate)} [${signedBytes(d.low)}, ${signedBytes(d.high)}]`;
    const side = (name) => `${name} ${megabytes(m.rss_before_bytes[name])} → ${megabytes(m.rss_bytes[name])} (peak ${megabytes(m.hwm_bytes[name])})`;
    return { row: b, text: `memory growth per query head−base ${at} (base ${bytesPerQuery(m.base)}, head ${bytesPerQuery(m.head)}; resident over the rounds: ${side('base')}, ${side('head')})` };
  });
}

// The rows whose instructions moved, with the functions that grew.
const changedInstructions = (rows) => rows.filter((b) => b.instructions_functions);

function groupsOf(benchmarks) {
  const groups = new Map();
  for (const b of benchmarks) {
    if (!groups.has(b.group)) groups.set(b.group, []);
    groups.get(b.group).push(b);
  }
  const known = GROUP_ORDER.filter((g) => groups.has(g));
  const other = [...groups.keys()].filter((g) => !GROUP_ORDER.includes(g));
  return [...known, ...other].map((g) => ({ group: g, title: GROUP_TITLE[g] || g, benchmarks: preNextToTwin(groups.get(g)) }));
}

function sideLine(side) {
  if (!side) return '–';
  const parts = [side.version];
  if (side.label) parts.push(`“${side.label}”`);
  if (side.commit) parts.push(`@ ${String(side.commit).slice(0, 12)}`);
  return parts.join(' ');
}

function limitsLine(verdict) {
  const d = verdict.limits && verdict.limits.default;
  const overrides = Object.keys(verdict.limits || {}).filter((k) => k !== 'default');
  if (!d) return '';
  return `warn below ${num(d.warn)}, fail below ${num(d.fail)}${overrides.length ? ` (${overrides.length} per-benchmark override${overrides.length === 1 ? '' : 's'})` : ''}${learnedWords(verdict)}`;
}

// Which rows' limits were learned from main's history (row-limits.js recorded it), and which
// rows it found unstable: "; learned from main's history for 3 rows (120–140 runs), 1 of them unstable".
function learnedWords(verdict) {
  const rows = verdict.benchmarks.filter((b) => b.limits && b.limits.source === 'learned');
  if (!rows.length) return '';
  const runs = rows.flatMap((b) => Object.values(b.limits.learned || {}).map((l) => l.runs));
  const lo = Math.min(...runs);
  const hi = Math.max(...runs);
  const unstable = rows.filter((b) => b.unstable).length;
  return `; learned from main's history for ${rows.length} row${rows.length === 1 ? '' : 's'} (${lo === hi ? lo : `${lo}–${hi}`} runs)${unstable ? `, ${unstable} of them unstable` : ''}`;
}

function roundsLine(verdict) {
  const pairs = verdict.benchmarks.map((b) => b.rounds.pairs).filter((n) => n > 0);
  if (!pairs.length) return 'no paired rounds';
  const lo = Math.min(...pairs);
  const hi = Math.max(...pairs);
  const measure = verdict.run && verdict.run.measure;
  const how = sideScheduleWords(measure && measure.side_schedule);
  return `${lo === hi ? lo : `${lo}–${hi}`} paired round${hi === 1 ? '' : 's'} per microbenchmark, ${how}`;
}

function machineLines(machine) {
  if (!machine) return [];
  const gib = machine.memory_bytes ? `${(machine.memory_bytes / 2 ** 30).toFixed(1)} GiB` : null;
  return [
    ['CPU', `${machine.cpu_model || '?'} × ${machine.cores ?? '?'} cores`],
    ['memory', gib],
    ['kernel', machine.kernel],
    ['governor', machine.governor],
    ['SMT', machine.smt],
    ['sysbench', machine.sysbench],
    ['host', machine.hostname],
    ['fingerprint', machine.id],
  ].filter(([, v]) => v !== null && v !== undefined && v !== '');
}

// Two sides' settings (server options, cmake options): one row per key, base and head side by
// side, differences first. A key named without a value (null: an option my.cnf names bare) is
// shown as set; one a side lacks stays undefined.
function sideBySide(b = {}, h = {}) {
  const shown = (options, k) => (options[k] === null ? '(set, no value)' : options[k]);
  const keys = [...new Set([...Object.keys(b), ...Object.keys(h)])];
  const rows = keys.map((k) => ({ key: k, base: shown(b, k), head: shown(h, k), differs: JSON.stringify(b[k]) !== JSON.stringify(h[k]) }));
  return [...rows.filter((r) => r.differs), ...rows.filter((r) => !r.differs)];
}

const optionRows = (sides) => sideBySide((sides.base && sides.base.options) || {}, (sides.head && sides.head.options) || {});
const buildOf = (side) => (side && side.build) || null;
// The cmake options of both sides' build records; [] when neither side has one.
const cmakeRows = (sides) => (buildOf(sides.base) && buildOf(sides.base).cmake_options) || (buildOf(sides.head) && buildOf(sides.head).cmake_options)
  ? sideBySide((buildOf(sides.base) || {}).cmake_options || {}, (buildOf(sides.head) || {}).cmake_options || {}) : [];

// The paths and port perfgate gives each side (server options) show up in its variables too
// (datadir, socket, log files named after them, lc_messages_dir under basedir, report_port):
// each side's own value is read as a placeholder, so that only what the builds themselves set
// apart remains. An instance's own identity (MariaDB's server_uid, a hash of where it runs;
// MySQL's server_uuid) is never a difference of builds either.
const SIDE_OWN = ['datadir', 'tmpdir', 'socket', 'pid_file', 'log_error', 'basedir'];
const INSTANCE_IDENTITY = new Set(['server_uid', 'server_uuid']);
function normalizer(side) {
  const options = (side && side.options) || {};
  const anchors = SIDE_OWN.filter((k) => options[k]).map((k) => [String(options[k]).replace(/\/+$/, ''), `<${k}>`])
    .sort((a, b) => b[0].length - a[0].length);
  return (name, value) => {
    if (value === null || value === undefined) return value;
    if (INSTANCE_IDENTITY.has(name)) return '<instance>';
    if (options.port !== undefined && String(value) === String(options.port)) return '<port>';
    let out = String(value);
    for (const [path, placeholder] of anchors) out = out.split(path).join(placeholder);
    return out;
  };
}
// Versions differ between any two releases; they are listed, but not named in a headline.
// build_id: MySQL's identity of the build, which two builds of one source never share.
const VERSION_VARIABLE = /^(version|version_comment|version_source_revision|innodb_version|version_compile_\w+|version_malloc_library|version_ssl_library|build_id)$/;

/**
 * SHOW GLOBAL VARIABLES that differ between the sides, by name, each side's own paths and port
 * aside: [{name, base, head, version}] (base or head undefined where a side lacks the variable);
 * null when a side's variables were not recorded.
 */
function variableRows(sides) {
  const b = sides.base && sides.base.variables;
  const h = sides.head && sides.head.variables;
  if (!b || !h) return null;
  const nb = normalizer(sides.base);
  const nh = normalizer(sides.head);
  return [...new Set([...Object.keys(b), ...Object.keys(h)])].sort()
    .filter((name) => nb(name, b[name]) !== nh(name, h[name]))
    .map((name) => ({ name, base: b[name], head: h[name], version: VERSION_VARIABLE.test(name) }));
}

// One line naming the variables that differ (the version ones counted, not named), or null.
function variablesLine(rows, max = 6) {
  if (!rows || !rows.length) return null;
  const named = rows.filter((r) => !r.version);
  const shown = named.slice(0, max).map((r) => `${r.name} (${r.base ?? 'absent'} → ${r.head ?? 'absent'})`);
  if (named.length > max) shown.push(`${named.length - max} more`);
  const versions = rows.length - named.length;
  const tail = versions ? `${shown.length ? '; and ' : ''}${versions} version variable${versions === 1 ? '' : 's'}` : '';
  return `${shown.join(', ')}${tail}`;
}

// How each side was built, as rows [label, base, head] for the details of every report, and the
// sentences saying what could not be read (one when both sides say the same).
function buildLines(sides) {
  const b = buildOf(sides.base);
  const h = buildOf(sides.head);
  if (!b && !h) return { rows: [], unknown: [] };
  const rows = [
    ['version line', b && b.version_line, h && h.version_line],
    ['compiler', (b && b.compiler) || 'not recorded', (h && h.compiler) || 'not recorded'],
  ];
  const bu = b && b.unknown;
  const hu = h && h.unknown;
  const unknown = bu && bu === hu ? [`Not known for either side: ${bu}.`] : [bu && `Not known for the base: ${bu}.`, hu && `Not known for the head: ${hu}.`].filter(Boolean);
  return { rows, unknown };
}

// The benchmark whose commands a reader most likely wants to re-run by hand: the worst one.
function reproduceTarget(verdict) {
  const withCommand = verdict.benchmarks.filter((b) => b.command || b.commands);
  if (!withCommand.length) return null;
  return [...withCommand].sort((a, b) => SEVERITY[b.verdict] - SEVERITY[a.verdict] || (a.rqps ? a.rqps.estimate : 9) - (b.rqps ? b.rqps.estimate : 9))[0];
}

// The sysbench lines to reproduce one microbenchmark: the harness records the command of a
// base round; the same script with `prepare` loads the tables, and the head is reached through
// its own socket.
function commandLines(b, sides = {}) {
  if (b.commands && typeof b.commands === 'object') return Object.entries(b.commands).map(([k, v]) => `# ${k}\n${v}`);
  if (!b.command) return [];
  const cmd = b.command;
  if (!/ run$/.test(cmd)) return [cmd];
  const db = /--mysql-db=(\S+)/.exec(cmd);
  const lines = [
    `# load the tables (once per server${db ? `, after CREATE DATABASE ${db[1]}` : ''})`,
    cmd.replace(/ run$/, ' prepare'),
    '# one timed round against the base server',
    cmd,
  ];
  const baseSocket = sides.base && sides.base.options && sides.base.options.socket;
  const headSocket = sides.head && sides.head.options && sides.head.options.socket;
  if (baseSocket && headSocket && baseSocket !== headSocket && cmd.includes(baseSocket)) {
    lines.push('# the same against the head server', cmd.split(baseSocket).join(headSocket));
  }
  return lines;
}

// What a suite's scale counts: warehouses for TPC-C, the employees table's rows for DDL
// statements, sysbench tables otherwise (docs/suites.md).
function scaleWords(scale, benchmarks = []) {
  const groups = new Set(benchmarks.map((b) => b.group));
  const n = (x, one, many) => `${x} ${x === 1 ? one : many}`;
  if (groups.size === 1 && groups.has('tpcc')) return n(scale.tables, 'warehouse', 'warehouses');
  if (groups.size === 1 && groups.has('ddl')) return `employees, ${n(scale.rows, 'row', 'rows')}`;
  return `${n(scale.tables, 'table', 'tables')} × ${scale.rows} rows`;
}

function countsLine(verdict) {
  return ['fail', 'undecided', 'warn', 'pass', 'error']
    .filter((v) => verdict.counts[v])
    .map((v) => `${verdict.counts[v]} ${WORD[v]}`)
    .join(', ');
}

module.exports = {
  MARK, markOf, wordOf, WORD, SEVERITY, listsReason, GROUP_ORDER, num, interval, estimate, INSTR_DIGITS, hasInstructions, instrEstimate, instrInterval, functionsHeading, count, perQuery, ioCell, figureColumns, figureLegend, changedInstructions, memoryLines, MEMORY_LEGEND, bytesPerQuery, groupsOf, sideLine, limitsLine, roundsLine,
  machineLines, sideBySide, optionRows, cmakeRows, buildLines, variableRows, variablesLine, reproduceTarget, commandLines, countsLine, scopeNotes, scaleWords,
};
