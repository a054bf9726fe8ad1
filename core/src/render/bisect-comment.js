'use strict';
// A bisection (perfgate.bisect/v1) as a pull request comment: one line per decided step, the
// range still to search, and at the end the culprit with its rQPS and instr/o against its
// parent, the functions that grew most (describeCulprit's figures) and why each regressed row
// got slower (its cause, in the pull request comment's words), the full text of renderBisect
// folded under it. Pure. bisect.json came from a runner: every text taken from it
// (subjects, refs, function names, reasons) goes into a code span (markdown.js), where GitHub
// renders no markup, links or mentions.
const { renderBisect } = require('./bisect-text');
const { count } = require('./format');
const M = require('./markdown');
const { decidingInstructions } = require('../signals');
// Bisections written before perfgate.verdict/v2 say "inconclusive" for undecided.
const { outcomeWord } = require('../verdict-versions');

// A measurement's instructions figure as decided (all threads where they proved more).
const instrText = (m) => {
  const d = decidingInstructions(m);
  return d ? `${d.word} ${interval(d.interval, f3)}` : 'instr/o –';
};

const short = (sha) => String(sha).slice(0, 7);
const f2 = (x) => (typeof x === 'number' ? x.toFixed(2) : '–');
const f3 = (x) => (typeof x === 'number' ? x.toFixed(3) : '–');
const code = (text) => M.code(text, { max: M.NAME_MAX });
const cellCode = (text) => M.code(text, { max: M.NAME_MAX, table: true });

function interval(i, digits) {
  if (!i) return '–';
  return i.low === null || i.low === undefined ? digits(i.estimate) : `${digits(i.estimate)} [${digits(i.low)}, ${digits(i.high)}]`;
}

const SIGNAL_FIGURE = {
  instructions: (m) => instrText(m),
  time: (m) => `rQPS ${interval(m.rqps, f2)}`,
};

// The figures a step was decided on: the watched microbenchmarks on their signal.
function stepFigures(doc, step) {
  const rows = step.measurements || [];
  const watched = doc.watched.length ? doc.watched : rows.map((m) => ({ id: m.id, signal: m.instructions_per_query ? 'instructions' : 'time' }));
  return watched.map((w) => {
    const m = rows.find((r) => r.id === w.id);
    if (!m) return null;
    return `${watched.length > 1 ? `${code(w.id)} ` : ''}${SIGNAL_FIGURE[w.signal](m)}`;
  }).filter(Boolean).join(', ');
}

/** One line per step: "step 3: #7 (abc1234) bad: instr/o 1.310 [1.300, 1.330]". */
function bisectStepLine(doc, step) {
  const what = step.kind === 'confirm' ? `bad end \`${short(step.commit)}\` against good`
    : step.kind === 'culprit' ? `culprit \`${short(step.commit)}\` against its parent \`${short(step.against)}\``
      : `#${step.position} (\`${short(step.commit)}\`)`;
  const figures = stepFigures(doc, step);
  const state = step.outcome === 'running' ? 'measuring…' : step.outcome === 'build-failed' ? 'did not build, skipped'
    : step.kind === 'culprit' ? outcomeWord(step.verdict) || step.outcome : step.decision || step.outcome;
  return `step ${step.n}: ${what} ${state}${figures ? `: ${figures}` : ''}`;
}

/** Where the search stands: the last good and first bad commit, and how many lie between. */
function rangeLeft(doc) {
  const hi = doc.commits.findIndex((c) => c.mark === 'bad');
  if (hi < 0) return null;
  let lo = 0;
  for (let i = 0; i < hi; i++) if (doc.commits[i].mark === 'good') lo = i;
  const between = doc.commits.slice(lo + 1, hi).filter((c) => c.mark !== 'skip').length;
  return { lo, hi, between };
}

function rangeLine(doc) {
  const r = rangeLeft(doc);
  if (!r) return null;
  const at = (i) => `#${i} (\`${short(doc.commits[i].commit)}\`)`;
  if (!r.between) return `range left: ${at(r.lo)} good .. ${at(r.hi)} bad, nothing between`;
  return `range left: ${at(r.lo)} good .. ${at(r.hi)} bad, ${r.between} commit${r.between === 1 ? '' : 's'} between, at most ${Math.ceil(Math.log2(r.between + 1))} more step${r.between === 1 ? '' : 's'}`;
}

const HEADLINE = {
  running: '🔎 perfgate bisect: running',
  found: '🎯 perfgate bisect: culprit found',
  'no-regression': '✅ perfgate bisect: no regression between the ends',
  undecided: '❔ perfgate bisect: undecided',
  ambiguous: '❔ perfgate bisect: one of several commits',
  error: '💥 perfgate bisect: error',
  cancelled: '⏹️ perfgate bisect: cancelled',
};

function culpritLines(doc) {
  const c = doc.culprit;
  const lines = ['', `**Culprit:** \`${c.commit}\` ${code(c.subject)}`, `against its first parent \`${c.parent}\`${c.merge ? ' (the culprit is a merge)' : ''}:`, ''];
  lines.push('| microbenchmark | rQPS | instr/o | verdict |', '|---|---|---|---|');
  for (const m of c.measurements) lines.push(`| ${cellCode(m.id)} | ${interval(m.rqps, f2)} | ${m.instructions_threads === 'all' ? instrText(m) : interval(m.instructions_per_query, f3)} | ${M.text(outcomeWord(m.verdict))} |`);
  for (const m of c.measurements) {
    if (!m.grown || !m.grown.length) continue;
    lines.push('', `Functions whose instructions per query grew most in ${code(m.id)}:`);
    for (const f of m.grown) lines.push(`- ${code(f.name)}${f.source ? ` ${code(f.source)}` : ''}: +${count(f.self_growth)} self, +${count(f.inclusive_growth)} inclusive`);
  }
  // Each row's cause as the pull request comment says it (bisections before perfgate.verdict/v2
  // said "inconclusive" for undecided).
  const causes = M.causesSection(c.measurements.map((m) => ({ ...m, verdict: outcomeWord(m.verdict) })));
  if (causes) lines.push('', '**Why it got slower**', '', causes);
  for (const n of c.notes) lines.push('', `Note: ${code(n)}`);
  return lines;
}

/**
 * @param doc      perfgate.bisect/v1 (checked against its schema)
 * @param options  {intro: the first line under the headline (who asked, where the run is),
 *                  final: true when the run is over (the culprit and the full text follow)}
 * @returns markdown
 */
function renderBisectComment(doc, { intro = '', final = false } = {}) {
  const lines = [`### ${HEADLINE[doc.status] || `perfgate bisect: ${M.text(doc.status)}`}`, ''];
  if (intro) lines.push(intro, '');
  lines.push(`${code(doc.good.ref)} (\`${short(doc.good.commit)}\`) .. ${code(doc.bad.ref)} (\`${short(doc.bad.commit)}\`): ${doc.commits.length - 1} first-parent commits, suite ${code(doc.suite)}, ${doc.tests.map(code).join(', ')}`);
  if (doc.steps.length) {
    lines.push('');
    for (const step of doc.steps) lines.push(`- ${bisectStepLine(doc, step)}`);
  }
  const range = doc.status === 'running' ? rangeLine(doc) : null;
  if (range) lines.push('', range);
  if (doc.status === 'found' && doc.culprit) lines.push(...culpritLines(doc));
  else if (doc.status !== 'running') lines.push('', `No culprit: ${code(doc.message)}`);
  if (final) {
    lines.push('', '<details><summary>perfgate bisect output</summary>', '', M.fence([renderBisect(doc).trimEnd()]), '', '</details>');
  }
  return `${lines.join('\n')}\n`;
}

module.exports = { renderBisectComment, bisectStepLine, bisectRangeLeft: rangeLeft };
