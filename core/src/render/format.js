'use strict';
// Shared wording and number formats of every renderer, so that the comment, the job summary,
// the HTML report and the terminal table say the same thing the same way.
const { preNextToTwin, scopeNotes } = require('./scope');

const MARK = { pass: '✅', warn: '⚠️', inconclusive: '❔', fail: '❌', error: '💥' };
const WORD = { pass: 'pass', warn: 'warn', inconclusive: 'inconclusive', fail: 'fail', error: 'error' };
// Published rQPS tables group rows this way, reads before writes.
const GROUP_ORDER = ['point', 'range', 'write', 'ahi'];
const GROUP_TITLE = { point: 'Point queries', range: 'Range queries', write: 'Writes', ahi: 'AHI cells' };
const SEVERITY = { error: 4, fail: 3, inconclusive: 2, warn: 1, pass: 0 };

const num = (x, digits = 2) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(digits) : '–');
const interval = (i, digits = 2) => (i && i.low !== null && i.low !== undefined ? `${num(i.low, digits)}–${num(i.high, digits)}` : '–');
const estimate = (i, digits = 2) => (i ? num(i.estimate, digits) : '–');
// instr/o ratios sit within a fraction of a percent of each other: three decimals.
const INSTR_DIGITS = 3;
const hasInstructions = (rows) => rows.some((b) => b.instructions_per_query);
// Instructions per query as people read them: 43.1k, 6.38M.
function count(x) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return '–';
  if (x >= 1e9) return `${(x / 1e9).toFixed(2)}G`;
  if (x >= 1e6) return `${(x / 1e6).toFixed(2)}M`;
  if (x >= 1e3) return `${(x / 1e3).toFixed(1)}k`;
  return x.toFixed(0);
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
  return `warn below ${num(d.warn)}, fail below ${num(d.fail)}${overrides.length ? ` (${overrides.length} per-benchmark override${overrides.length === 1 ? '' : 's'})` : ''}`;
}

function roundsLine(verdict) {
  const pairs = verdict.benchmarks.map((b) => b.rounds.pairs).filter((n) => n > 0);
  if (!pairs.length) return 'no paired rounds';
  const lo = Math.min(...pairs);
  const hi = Math.max(...pairs);
  return `${lo === hi ? lo : `${lo}–${hi}`} paired round${hi === 1 ? '' : 's'} per microbenchmark, interleaved A B B A`;
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
    ['host', machine.hostname],
    ['fingerprint', machine.id],
  ].filter(([, v]) => v !== null && v !== undefined && v !== '');
}

// Server options: one row per option, base and head side by side, differences first.
// An option my.cnf names without a value (null) is shown as set; one a side lacks stays undefined.
function optionRows(sides) {
  const b = (sides.base && sides.base.options) || {};
  const h = (sides.head && sides.head.options) || {};
  const shown = (options, k) => (options[k] === null ? '(set, no value)' : options[k]);
  const keys = [...new Set([...Object.keys(b), ...Object.keys(h)])];
  const rows = keys.map((k) => ({ key: k, base: shown(b, k), head: shown(h, k), differs: JSON.stringify(b[k]) !== JSON.stringify(h[k]) }));
  return [...rows.filter((r) => r.differs), ...rows.filter((r) => !r.differs)];
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

function countsLine(verdict) {
  return ['fail', 'inconclusive', 'warn', 'pass', 'error']
    .filter((v) => verdict.counts[v])
    .map((v) => `${verdict.counts[v]} ${WORD[v]}`)
    .join(', ');
}

module.exports = {
  MARK, WORD, SEVERITY, GROUP_ORDER, num, interval, estimate, INSTR_DIGITS, hasInstructions, count, changedInstructions, groupsOf, sideLine, limitsLine, roundsLine,
  machineLines, optionRows, reproduceTarget, commandLines, countsLine, scopeNotes,
};
