'use strict';
// report.html's "Why it got slower": per explained row its cause line, what was and was not
// looked at, every finding by kind with its figures (counters, waits, off-CPU stacks, plan
// changes, memory, defaults, functions that grew), and the differential flame graph of its
// off-CPU stacks as an image. Pure: the verdict's causes in, HTML out; decisions are
// explain/cause.js's. How causes are decided: docs/explain.md.
const F = require('./format');
const { esc, td, scrollTable, folded } = require('./html-base');
const { svgDataUrl } = require('./flamegraph');

const KIND_TITLES = Object.freeze({
  plans: 'Plans that changed',
  defaults: 'The head with the base\'s settings',
  counters: 'Work counters per query (base → head)',
  waits: 'performance_schema waits per query (base → head)',
  stacks: 'Off-CPU waits per query (base → head)',
  memory: 'Memory',
  instructions: 'Functions that grew',
});

// A figure per query as the tables show it.
const figure = (x) => (typeof x === 'number' ? F.perQuery(x) : '–');

// The table of one kind's findings: the line, and base and head where the finding has them.
function findingsTable(kind, findings) {
  const figures = findings.some((f) => typeof f.base === 'number' && typeof f.head === 'number');
  const head = `<tr><th>finding</th>${figures ? '<th>base</th><th>head</th>' : ''}</tr>`;
  const rows = findings.map((f) => `<tr>${td(f.line)}${figures ? `${td(figure(f.base), 'n')}${td(figure(f.head), 'n')}` : ''}</tr>`).join('');
  return `<h4>${esc(KIND_TITLES[kind] || kind)}</h4>${scrollTable(` data-table="cause-${esc(kind)}"`, `${head}${rows}`)}`;
}

function flamegraphHtml(b, graph) {
  if (!b.cause.stacks) return '';
  if (!graph) return '';
  if (graph.problem) return `<p class="muted" data-flamegraph="missing">Differential flame graph not drawn: ${esc(graph.problem)}.</p>`;
  return `<h4>Differential flame graph of the off-CPU stacks</h4><p class="muted">Head against base, widths by the head's µs off-CPU; red grew, blue shrank. Also in the run folder as ${esc(graph.file)}.</p>`
    + `<img data-flamegraph="${esc(b.id)}" alt="${esc(`differential flame graph of ${b.id}`)}" style="max-width:100%" src="${svgDataUrl(graph.svg)}">`;
}

function rowHtml(b, graph) {
  const c = b.cause;
  const parts = [`<h3><span class="badge ${esc(b.verdict)}">${esc(F.wordOf(b))}</span> ${esc(b.id)}</h3>`, `<p data-cause="${esc(b.id)}"><b>${esc(c.line)}</b></p>`];
  if (c.looked_at.length || c.not_looked_at.length) {
    const looked = c.looked_at.length ? `Looked at: ${c.looked_at.join(', ')}.` : '';
    const not = c.not_looked_at.map((n) => `${n.what} (${n.why})`).join('; ');
    parts.push(`<p class="muted">${esc(`${looked}${not ? ` Not looked at: ${not}.` : ''}`.trim())}</p>`);
  }
  for (const [kind, findings] of Object.entries(c.details || {})) if (findings.length) parts.push(findingsTable(kind, findings));
  if (c.plans_not_compared.length) parts.push(`<p class="muted">${esc(`Plans not compared: ${c.plans_not_compared.map((p) => `${p.shape} (${p.why})`).join('; ')}.`)}</p>`);
  parts.push(flamegraphHtml(b, graph));
  return parts.join('\n');
}

/** The section, or '' when no row has a cause. `flamegraphs`: row id → {svg, file} | {problem}. */
function causesHtml(rows, flamegraphs = {}) {
  const explained = rows.filter((b) => b.cause);
  if (!explained.length) return '';
  const body = explained.map((b) => rowHtml(b, Object.hasOwn(flamegraphs, b.id) ? flamegraphs[b.id] : null)).join('\n');
  return `<h2>Why it got slower</h2>${folded(`Causes of ${explained.length} row${explained.length === 1 ? '' : 's'}, with the figures that show them`, body, { open: true, data: 'causes' })}`;
}

module.exports = { causesHtml };
