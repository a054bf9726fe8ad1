'use strict';
// The words of the explanation step: one line per finding, and the line of a row's cause.
// Decisions come in made (explain/*.js, explain/cause.js); this only says them. Every sentence
// here is pinned by a test: reports print it as is.
// render/format.js (which formats counts as 43.1k, 6.38M) reads verdict.js, which reads this
// module: it is required where it is used, once both are loaded.
const count = (x) => require('./render/format').count(x);

// A shape or a frame named in a line is cut here: the report.html section shows all of it.
const SHAPE_MAX = 120;
const REASON_MAX = 200;
const NAMES_SHOWN = 3;
const VALUE_MAX = 60;

/** `text` on one line (runs of white space as one space), cut to `max` characters with …. */
const cut = (text, max) => {
  const s = String(text ?? '').replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
};
// A figure per query: whole numbers with separators from 100 on, two decimals below.
const figure = (x) => (Math.abs(x) >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(2));
const signed = (x, unit) => `${x < 0 ? '−' : '+'}${figure(Math.abs(x))} ${unit}`;
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const listed = (items) => (items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`);

// --- counters --------------------------------------------------------------------------------

// "a redo-log flush (fsync) per commit more" where the difference is a whole number of them per
// commit (per query where the windows do not count commits); else "more redo-log flushes".
function counterWords(f) {
  const up = f.head > f.base;
  const [per, unit] = f.per_commit ? [f.per_commit.head - f.per_commit.base, 'commit'] : [f.head - f.base, 'query'];
  const n = Math.round(Math.abs(per));
  if (f.one && n >= 1 && Math.abs(Math.abs(per) - n) <= 0.05) {
    if (n === 1) return `${f.one} per ${unit} ${up ? 'more' : 'fewer'}`;
    return `${n} ${f.many} per ${unit} ${up ? 'more' : 'fewer'}`;
  }
  if (f.many) return `${up ? 'more' : 'fewer'} ${f.many}`;
  return `${f.name} per query ${up ? 'grew' : 'fell'}`;
}
const counterLine = (f) => `${counterWords(f)}: ${f.name}/o ${figure(f.base)} → ${figure(f.head)}${f.note ? ` (${f.note})` : ''}`;

// --- waits (performance_schema) -----------------------------------------------------------------

function waitLine(f) {
  if (f.measure === 'time') {
    const how = f.summary === 'waits' ? `waits on ${f.name}` : `time in ${f.name}`;
    return `${how}: ${signed(f.head - f.base, 'µs/query')} (${figure(f.base)} → ${figure(f.head)})`;
  }
  const what = f.summary === 'waits' ? `waits on ${f.name}` : f.summary === 'stages' ? `passes through ${f.name}` : `runs of ${f.name}`;
  return `${f.head > f.base ? 'more' : 'fewer'} ${what}: ${figure(f.base)} → ${figure(f.head)} per query`;
}

// --- stacks (off-CPU) -----------------------------------------------------------------------------

// eu-stack's findings say in how many snapshots each side saw the wait.
const seenIn = (s) => (s ? `; seen in ${s.base[0]} of ${s.base[1]} snapshots → ${s.head[0]} of ${s.head[1]}` : '');
const stackLine = (f) => `waits in ${cut(f.name, SHAPE_MAX)}: ${signed(f.head - f.base, 'µs/query')} off-CPU (${figure(f.base)} → ${figure(f.head)}${seenIn(f.snapshots)})`;

// --- plans ----------------------------------------------------------------------------------------

const ACCESS = {
  ALL: () => 'full scan (ALL)',
  index: (key) => `full index scan of ${key} (index)`,
};
function accessWords(path) {
  if (!path || !path.access_type) return 'no access';
  const type = path.access_type;
  if (ACCESS[type]) return ACCESS[type](path.key);
  return path.key ? `${type} on ${path.key}` : type;
}
// The optimizer's rows estimate: a whole number.
const estimate = (x) => (typeof x === 'number' ? Math.round(x).toLocaleString('en-US') : '?');
const OPERATION_WORDS = { filesort: 'a filesort', temporary_table: 'a temporary table' };

// The words of one table's changes (access path, rows, the rest), in that order.
function tableChanges(changes) {
  const out = [];
  const path = changes.find((c) => c.what === 'access_type' || c.what === 'key');
  if (path) out.push(`${accessWords(path.from)} → ${accessWords(path.to)}`);
  const rows = changes.find((c) => c.what === 'rows');
  if (rows) out.push(`rows ${estimate(rows.base)} → ${estimate(rows.head)}`);
  for (const c of changes) {
    if (c.what === 'table') out.push(c.head ? `reads ${c.table} too (${accessWords(c.head)})` : `no longer reads ${c.table}`);
    if (c.what === 'used_key_parts') out.push(`key parts ${c.base ?? 'none'} → ${c.head ?? 'none'}`);
    if (c.what === 'index_condition') out.push(`index condition pushdown ${c.head ? 'used' : 'no longer used'}`);
    if (c.what === 'using_index') out.push(`covering index ${c.head ? 'used' : 'no longer used'}`);
  }
  return out;
}

function planLine(f) {
  const tables = [...new Set(f.changes.filter((c) => c.table !== null && c.what !== 'table').map((c) => c.table))];
  const parts = [];
  for (const t of tables) {
    const words = tableChanges(f.changes.filter((c) => c.table === t));
    parts.push(tables.length > 1 ? `${t}: ${words.join(', ')}` : words.join(', '));
  }
  parts.push(...tableChanges(f.changes.filter((c) => c.what === 'table')));
  for (const c of f.changes) if (c.what === 'operation') parts.push(`${OPERATION_WORDS[c.operation] || c.operation} ${c.head ? 'added' : 'dropped'}`);
  return `the plan of \`${cut(f.shape, SHAPE_MAX)}\` changed: ${parts.slice(0, NAMES_SHOWN).join('; ')}${parts.length > NAMES_SHOWN ? `; ${plural(parts.length - NAMES_SHOWN, 'more change')}` : ''}`;
}

// --- memory ---------------------------------------------------------------------------------------

const memoryLine = (f) => (f.source === 'rounds'
  ? `memory grows ${figure(f.head - f.base)} B per query more over the timed rounds (a leak?): ${figure(f.base)} → ${figure(f.head)} B/query resident, head−base [${figure(f.low)}, ${figure(f.high)}]`
  : `memory grows ${figure(f.head - f.base)} B per query more (a leak?): ${figure(f.base)} → ${figure(f.head)} B/query resident, the buffer pool's new pages aside`);

// --- defaults -------------------------------------------------------------------------------------

const f2 = (x) => x.toFixed(2);
function settingsWords(f) {
  const shown = f.set.slice(0, NAMES_SHOWN).map((v) => `${v.name} ${v.base ?? '(unset)'}`);
  if (f.set.length > NAMES_SHOWN) shown.push(plural(f.set.length - NAMES_SHOWN, 'more', 'more'));
  return shown.length ? ` (${listed(shown)})` : '';
}
// The variables that differ, where the head was not re-measured with the base's values.
function unmeasuredLine(f) {
  const value = (x) => (x === null ? '(none)' : cut(String(x), VALUE_MAX));
  const shown = f.variables.slice(0, NAMES_SHOWN).map((v) => `${v.name} ${value(v.base)} → ${value(v.head)}`);
  if (f.count > shown.length) shown.push(plural(f.count - shown.length, 'more', 'more'));
  return `${plural(f.count, 'server variable differs', 'server variables differ')} (${listed(shown)}), not re-measured with the base's values: ${cut(f.why, REASON_MAX)}`;
}
function defaultsLine(f) {
  if (f.outcome === 'unmeasured') return unmeasuredLine(f);
  const i = f.interval;
  const measured = `with the base's settings${settingsWords(f)} the head measures ${f2(i.estimate)} [${f2(i.low)}, ${f2(i.high)}]`;
  const shown = (items) => listed(items.slice(0, NAMES_SHOWN).concat(items.length > NAMES_SHOWN ? [plural(items.length - NAMES_SHOWN, 'more', 'more')] : []));
  const refused = (f.refused || []).map((r) => `${r.name} (${cut(r.reason, REASON_MAX)})`);
  const still = `${f.still_differ.length ? `; still different after the restart: ${shown(f.still_differ)}` : ''}${refused.length ? `; not set: ${shown(refused)}` : ''}`;
  const many = f.set.length !== 1;
  if (f.outcome === 'explains') return `${measured}: the changed default${many ? 's explain' : ' explains'} it${still}`;
  if (f.outcome === 'code') return `the code is slower with the same settings: ${measured}${still}`;
  return `${measured}: too few pairs to say whether the changed default${many ? 's explain' : ' explains'} it${still}`;
}

// --- instructions (callgrind, from the verdict) ---------------------------------------------------

const instructionsLine = (f) => `more instructions in ${cut(f.name, SHAPE_MAX)}: +${count(f.self_growth)} per query of its own, +${count(f.inclusive_growth)} with what it calls (instr/o ${f.ratio.toFixed(3)})`;

const LINES = { counters: counterLine, waits: waitLine, stacks: stackLine, plans: planLine, memory: memoryLine, defaults: defaultsLine, instructions: instructionsLine };

/** One finding in words. */
const findingLine = (f) => LINES[f.kind](f);

// --- the cause line -------------------------------------------------------------------------------

const unlooked = (notLooked) => notLooked.map((n) => `${n.what} (${cut(n.why, REASON_MAX)})`).join(', ');

/**
 * The line of a row's cause: its leading finding's, or what was looked at when none explains it.
 * @param lead       the leading finding or null
 * @param lookedAt   the kinds of evidence compared
 * @param notLooked  [{what, why}]: the kinds that could not be, and why
 * @param failed     {step, message} when the row's explanation failed, or null
 * @param beside     a defaults finding that does not lead (the base's settings did not bring
 *                   the head back), said after the lead, or null
 */
function causeLine({ lead, lookedAt, notLooked, failed = null, beside = null }) {
  const settings = beside ? defaultsLine(beside) : null;
  if (lead) return settings ? `${findingLine(lead)}; ${settings}` : findingLine(lead);
  const parts = [];
  if (failed) parts.push(`the explanation failed at ${cut(failed.step, REASON_MAX)} (${cut(failed.message, REASON_MAX)})`);
  parts.push(lookedAt.length ? `looked at ${listed(lookedAt)}` : 'nothing could be looked at');
  // A re-measure that did not run is said once, beside, with the variables it would have set.
  const unsaid = beside && beside.outcome === 'unmeasured' ? notLooked.filter((n) => n.what !== 'defaults') : notLooked;
  if (unsaid.length) parts.push(`not looked at: ${unlooked(unsaid)}`);
  return `${settings ? `${settings}; no other cause found` : 'no cause found'}: ${parts.join('; ')}`;
}

// Why a row that is not a plain pass has no cause.
const NOT_EXPLAINED = {
  budget: ({ rows }) => `not explained: beyond the budget of ${plural(rows, 'explained row')} a run (the suite's explain.rows)`,
  cancelled: () => 'not explained: the explanation step was cancelled',
  error: () => 'not explained: the explanation step failed before this row',
  not_asked: () => 'not explained: not among the rows asked for (--explain auto explains every row that is not a plain pass)',
  not_flagged: () => 'not explained: it was not flagged when the explanation step chose its rows',
};
const notExplainedLine = (why, figures = {}) => NOT_EXPLAINED[why](figures);

module.exports = { findingLine, causeLine, notExplainedLine, accessWords, cut };
