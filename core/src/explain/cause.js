'use strict';
// A row's cause: every kind of evidence's findings (explain/*.js), the one that leads by the
// precedence below, and the row's line in words (explain-words.js). Pure. The explanation
// never changes a row's verdict: withCauses adds `cause` and nothing else.
// How causes are decided: docs/explain.md.
const { counterFindings } = require('./counters');
const { waitFindings } = require('./waits');
const { stackFindings } = require('./stacks');
const { planFindings } = require('./plans');
const { memoryFindings, roundsMemoryFindings } = require('./memory');
const { defaultsFindings } = require('./defaults');
const { mean } = require('./windows');
const words = require('../explain-words');
const { flagged } = require('../explain-rows');

const PS_PER_US = 1e6;

// The kinds of evidence in the order they are looked at and listed ("looked at …").
const KINDS = ['counters', 'waits', 'stacks', 'plans', 'memory', 'defaults'];

// Which finding leads when several kinds found one: the first rule that picks one. A plan that
// changed explains every figure after it; defaults that bring the head back explain the rest;
// an fsync or a storage write is named before the waits it causes, a wait (named by its
// instrument) before the off-CPU frames under it, and the functions that grew last, since
// every cause above also costs instructions. Only work that grew leads: less work done is no
// cause of a slowdown (it stays in the details).
const PRECEDENCE = Object.freeze([
  { kind: 'plans', pick: (f) => f.plans[0] },
  { kind: 'defaults', pick: (f) => f.defaults.find((d) => d.outcome === 'explains') },
  { kind: 'counters', pick: (f) => f.counters.find((c) => c.group === 'io' && c.head > c.base) },
  { kind: 'waits', pick: (f) => leadWait(f.waits) },
  { kind: 'stacks', pick: (f) => f.stacks[0] },
  { kind: 'memory', pick: (f) => f.memory[0] },
  { kind: 'counters', pick: (f) => f.counters.find((c) => c.group === 'work' && c.head > c.base) },
  { kind: 'instructions', pick: (f) => f.instructions[0] },
]);

// A wait names a cause where its time grew (a stage's or a wait instrument's, not a statement's,
// which only restates the slowdown); a count that grew where no time did.
function leadWait(found) {
  const grew = found.filter((w) => w.cause && w.head > w.base);
  const byGrowth = (x, y) => (y.head - y.base) - (x.head - x.base);
  return grew.filter((w) => w.measure === 'time').sort(byGrowth)[0] || grew.filter((w) => w.measure === 'count').sort(byGrowth)[0];
}

// The head's time per query in µs, for the off-CPU floor: its statements' time where
// performance_schema measured it, else the recorded window's wall time per query.
function headLatencyUs(head) {
  const windows = ((head.waits && head.waits.windows) || []).filter((w) => w.queries > 0);
  if (windows.length) {
    const per = windows.map((w) => Object.values(w.statements || {}).reduce((s, x) => s + x.ps, 0) / w.queries / PS_PER_US);
    if (per.every((x) => x > 0)) return mean(per);
  }
  const s = head.stacks;
  return s && s.queries > 0 && s.seconds > 0 ? (s.seconds * 1e6) / s.queries : null;
}

// The functions that grew, from the verdict's own callgrind figures (instr/o grew).
function instructionFindings(benchmark) {
  const w = benchmark.instructions_functions;
  const ratio = benchmark.instructions_per_query && benchmark.instructions_per_query.estimate;
  if (!w || !w.symbols || !(ratio > 1)) return [];
  return w.grown.filter((g) => g.self_growth > 0).slice(0, 1).map((g) => ({ kind: 'instructions', name: g.name, self_growth: g.self_growth, inclusive_growth: g.inclusive_growth, ratio }));
}

// The counter windows of a side: the explanation step's, else those taken around the
// instruction windows (results.json: instructions.<side>.windows[].counters).
function counterWindows(side, measured, which) {
  if (side.counters) return side.counters.windows;
  const windows = measured && measured.instructions && measured.instructions[which] && measured.instructions[which].windows;
  const taken = (windows || []).map((w) => w.counters).filter((c) => c && c.deltas);
  return taken.length ? taken : null;
}

/**
 * Every kind's findings for one explained row.
 * @param row        the row of explain.json (perfgate.explain/v1 rows[])
 * @param benchmark  the verdict's row (limits, instructions_functions)
 * @param measured   results.json's benchmark of the row, or null
 * @returns {findings: {kind: [finding]}, looked_at: [kind], not_looked_at: [{what, why}]}
 */
function rowFindings(row, benchmark, measured = null) {
  const { base, head } = row.sides;
  const findings = {};
  const lookedAt = [];
  const notLooked = [];
  const unavailable = (kind) => base.unavailable[kind] || head.unavailable[kind] || null;
  const take = (kind, result) => {
    findings[kind] = result.findings;
    const why = result.problem && unavailable(kind) ? unavailable(kind) : result.problem;
    if (why) notLooked.push({ what: kind, why });
    else lookedAt.push(kind);
  };
  const counters = { base: counterWindows(base, measured, 'base'), head: counterWindows(head, measured, 'head') };
  take('counters', counters.base && counters.head ? counterFindings(counters.base, counters.head) : { findings: [], problem: unavailable('counters') || 'no counter windows of both sides' });
  take('waits', base.waits && head.waits ? waitFindings(base.waits.windows, head.waits.windows) : { findings: [], problem: unavailable('waits') || 'no performance_schema windows of both sides' });
  take('stacks', base.stacks && head.stacks ? stackFindings(base.stacks, head.stacks, { headLatencyUs: headLatencyUs(head) }) : { findings: [], problem: unavailable('stacks') || 'no off-CPU stacks of both sides' });
  const plans = planFindings(row.plans);
  take('plans', row.plans ? plans : { findings: [], problem: unavailable('plans') || 'no statement shapes captured' });
  // Without the probe's windows, the timed rounds' memory figure where the verdict judged it
  // beyond a limit: the rounds measured it on the same servers (docs/explain.md).
  const probed = base.memory && head.memory ? memoryFindings(base.memory, head.memory) : null;
  take('memory', (probed && probed.findings.length ? probed : roundsMemoryFindings(benchmark.memory)) || probed
    || { findings: [], problem: unavailable('memory') || 'no memory windows of both sides' });
  // Defaults are looked at only where the sides' variables differ; where they differ and the
  // re-measure could not run, the sides say why.
  const defaults = row.defaults ? defaultsFindings(row.defaults, benchmark.limits) : { findings: [], problem: unavailable('defaults') };
  findings.defaults = defaults.findings;
  if (defaults.problem) notLooked.push({ what: 'defaults', why: defaults.problem });
  else if (row.defaults) lookedAt.push('defaults');
  findings.instructions = instructionFindings(benchmark);
  return { findings, looked_at: lookedAt, not_looked_at: notLooked, plans_not_compared: plans.not_compared };
}

/** The leading finding by PRECEDENCE, or null. */
function leadOf(findings) {
  for (const rule of PRECEDENCE) {
    const lead = rule.pick(findings);
    if (lead) return lead;
  }
  return null;
}

// A finding with its words, as a report prints it.
const said = (f) => ({ ...f, line: words.findingLine(f) });

/**
 * The cause of one explained row: {line, kind: the leading finding's kind or null, looked_at,
 * not_looked_at, failed, details: {kind: [finding with its line]}, stacks: {base, head} folded
 * files or null}.
 */
function causeOf(row, benchmark, measured = null) {
  const { findings, looked_at: lookedAt, not_looked_at: notLooked, plans_not_compared: planGaps } = rowFindings(row, benchmark, measured);
  const lead = leadOf(findings);
  const failed = row.status === 'error' ? row.error : null;
  // Defaults that do not bring the head back are said beside the cause that leads.
  const settled = findings.defaults.find((d) => d.outcome !== 'explains');
  const line = words.causeLine({ lead, lookedAt, notLooked, failed, beside: settled || null });
  const details = {};
  for (const kind of [...KINDS, 'instructions']) details[kind] = findings[kind].map(said);
  const files = (side) => row.sides[side].stacks && row.sides[side].stacks.offcpu_file;
  return {
    line,
    kind: lead ? lead.kind : null,
    looked_at: lookedAt,
    not_looked_at: notLooked,
    failed,
    details,
    plans_not_compared: planGaps,
    stacks: files('base') && files('head') ? { base: files('base'), head: files('head') } : null,
  };
}

// Why a flagged row has no row in explain.json: the step stopped, the rows were named, the
// budget was spent, or the row was not flagged when the step chose (judged again since).
function whyNotExplained(doc) {
  if (doc.status !== 'ok') return doc.status;
  if (doc.rows.some((r) => r.asked === 'named')) return 'not_asked';
  return doc.rows.length >= doc.budget.rows ? 'budget' : 'not_flagged';
}

// The rows that are not a plain pass: a fail, a warn, an undecided or error row, a pass open at a limit.

/**
 * The verdict with `cause` on every row explain.json explains, and on every flagged row it
 * does not, why not. Rows keep every other key as they were: never a verdict changed.
 * @param verdict     perfgate.verdict/v2
 * @param explainDoc  perfgate.explain/v1 as readExplain accepted it, or null (returned as is)
 * @param results     perfgate.results/v1 of the run, for counter windows taken around the instruction windows
 */
function withCauses(verdict, explainDoc, { results = null } = {}) {
  if (!explainDoc) return verdict;
  const rows = new Map(explainDoc.rows.map((r) => [r.id, r]));
  const measured = new Map(((results && results.benchmarks) || []).map((b) => [b.id, b]));
  const explained = explainDoc.rows.length;
  const benchmarks = verdict.benchmarks.map((b) => {
    const row = rows.get(b.id);
    if (row) return { ...b, cause: causeOf(row, b, measured.get(b.id) || null) };
    if (!flagged(b)) return b;
    const why = whyNotExplained(explainDoc);
    return { ...b, cause: { line: words.notExplainedLine(why, { rows: explainDoc.budget.rows, explained }), kind: null, looked_at: [], not_looked_at: [], failed: null, details: null, plans_not_compared: [], stacks: null } };
  });
  return { ...verdict, benchmarks };
}

module.exports = { withCauses, causeOf, rowFindings, leadOf, PRECEDENCE, KINDS };
