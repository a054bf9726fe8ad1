'use strict';
// A release sign-off's report (signoff.md, signoff.html): the decision of ../signoff.js, each
// suite's rows grouped as in the posts, the suite as a whole, the charts, the waivers. Pure.
const F = require('./format');
const { rqpsChart: mermaidChart, legend, text, code, NAME_MAX } = require('./markdown');
const { LIMITS } = require('../github-limits');
const { rqpsChart: svgChart } = require('./html');
const { esc, pageHead, scrollTable } = require('./html-base');
const { plural } = require('./scope');
const { isPre } = require('../shards');
const { learnedSignalWord } = require('../learned-limits');
const { suiteWideView } = require('./suite-wide');
const {
  signoffDecision, signoffParts, judgedItems, isWithinLimits, waiverIndex, suiteWideName, SIGNOFF_CONTEXT,
} = require('../signoff');

// A report of one suite's verdict, or of [{suite, verdict, problem}].
const partsOf = (input) => (Array.isArray(input) ? signoffParts({ suites: input }) : signoffParts({ verdict: input }));

const STATE_MARK = { success: '✅', failure: '❌', error: '💥', pending: '⏳' };
const SIGNOFF_MARKER = '<!-- perfgate:signoff -->';

// A sentence's end, unless a cut description ends it already.
const stop = (s) => (s.endsWith('…') ? s : `${s}.`);

// The posts' grouping: point queries, range queries, writes; reads once on freshly loaded
// tables (.pre) and once after the writes.
function sections(verdict) {
  const out = [];
  for (const g of F.groupsOf(verdict.benchmarks.filter((b) => !b.ahi))) {
    const pre = g.benchmarks.filter((b) => isPre(b.name));
    const post = g.benchmarks.filter((b) => !isPre(b.name));
    if (pre.length) out.push({ title: `${g.title}, before the writes (.pre)`, rows: pre });
    if (post.length) out.push({ title: pre.length ? `${g.title}, after the writes` : g.title, rows: post });
  }
  return out;
}

function rowMark(b, waived) {
  if (isWithinLimits(b.verdict)) return F.MARK[b.verdict];
  return waived.has(b.name) ? `🏳️ ${F.MARK[b.verdict]}` : F.MARK[b.verdict];
}

function markdownTable(rows, waived, instr) {
  const figures = F.figureColumns(rows);
  const out = [
    `| | microbenchmark | rQPS | 95% interval | cpu/o | cs/o |${figures.map((c) => ` ${c.header} |`).join('')}${instr ? ' instr/o |' : ''} pairs | verdict |`,
    `|:-:|:--|--:|:-:|--:|--:|${figures.map(() => '--:|').join('')}${instr ? '--:|' : ''}--:|:--|`,
  ];
  for (const b of rows) {
    const word = waived.has(b.name) && !isWithinLimits(b.verdict) ? `${b.verdict}, waived` : b.verdict;
    out.push(`| ${rowMark(b, waived)} | ${text(b.name, { max: NAME_MAX })} | ${F.estimate(b.rqps)} | ${F.interval(b.rqps)} | ${F.estimate(b.cpu_per_query)} | ${F.estimate(b.cs_per_query)} |${figures.map((c) => ` ${c.cell(b)} |`).join('')}${instr ? ` ${F.instrEstimate(b)} |` : ''} ${b.rounds.pairs} | ${word} |`);
  }
  return out.join('\n');
}

const shaOf = (side) => (side && side.sha ? String(side.sha).slice(0, 12) : '?');
// A side as the report names it: its ref, its commit, the version the run folder says it measured.
const sideText = (side, measured) => `${side && side.ref ? code(side.ref) : 'commit'} @ ${shaOf(side)}${measured && measured.version ? ` (${text(measured.version)})` : ''}`;
const sidePlain = (side, measured) => `${side && side.ref ? side.ref : 'commit'} @ ${shaOf(side)}${measured && measured.version ? ` (${measured.version})` : ''}`;
// A side measured from an installed prefix carries no commit: the report says what ran, so that
// nobody reads the pinned SHAs as what was built.
function prefixNote(sides) {
  const installed = ['head', 'base'].filter((k) => sides[k] && !sides[k].commit);
  if (!installed.length) return null;
  const what = installed.map((k) => `${k === 'head' ? 'candidate' : 'previous'} ${sides[k].version || '?'} from ${sides[k].basedir || '?'}`).join(', ');
  return `Measured installed servers, not builds of the pinned commits: ${what}.`;
}
const dateOf = (ms) => (Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 16).replace('T', ' ') : '');

// The suites with a verdict, and the sides the report names (the first suite's).
function measuredParts(parts) {
  const judged = parts.filter((p) => p.verdict);
  const sides = (judged[0] && judged[0].verdict.run && judged[0].verdict.run.sides) || {};
  return { judged, sides, items: judged.reduce((n, p) => n + judgedItems(p.suite, p.verdict).length, 0) };
}

// A section's title: the suite's name first when the sign-off has several.
const titled = (parts, part, title) => (parts.length > 1 ? `${part.suite}: ${title}` : title);

// The suite as a whole, cells of text (suiteWideView), each entry named as it is waived.
function wideRows(part) {
  const view = suiteWideView(part.verdict);
  if (!view) return null;
  return view.rows.map((r) => [r.cells[0], suiteWideName(part.suite, r.entry.group), ...r.cells.slice(2), r.entry.verdict]);
}
const WIDE_HEADER = ['', 'suite-wide', 'rQPS', '95% interval', 'instr/o', '95% interval', 'verdict'];

/**
 * signoff.md: the decision, each suite's rows grouped as in the posts, the charts, the
 * waivers. Also the bot's reply (GitHub renders the mermaid charts in comments).
 *
 * @param input   one suite's merged verdict, or [{suite, verdict, problem}] (signoffParts)
 * @param options {candidate: {ref, sha}, previous: {ref, sha}, waivers, runUrl, runFailed}
 */
function renderSignoffMarkdown(input, options = {}) {
  const { candidate = {}, previous = {}, waivers = [], runUrl = null, runFailed = null } = options;
  const parts = partsOf(input);
  const decision = signoffDecision({ suites: parts, waivers, runFailed });
  const { judged, sides, items } = measuredParts(parts);
  const out = [
    SIGNOFF_MARKER,
    `## ${STATE_MARK[decision.state]} Release sign-off: ${candidate.ref ? code(candidate.ref) : 'candidate'} against ${previous.ref ? code(previous.ref) : 'previous'} — ${decision.state}`,
    '',
    `**${text(stop(decision.description))}** Commit status \`${SIGNOFF_CONTEXT}\` on the candidate: \`${decision.state}\`.`,
    '',
    `Candidate ${sideText(candidate, sides.head)} against previous ${sideText(previous, sides.base)}${runUrl ? ` · [workflow run](${runUrl})` : ''}${parts.length > 1 ? ` · suites ${parts.map((p) => code(p.suite)).join(', ')}` : ''}`,
  ];
  if (runFailed || !judged.length) {
    out.push('', 'A sign-off succeeds only when every microbenchmark of its suites is within its limits (pass or warn) or waived; this run gave no verdict to decide from. Start it again with a new `/perf signoff` command.');
    return `${out.join('\n')}\n`;
  }
  const waived = waiverIndex(waivers);
  const note = prefixNote(sides);
  if (note) out.push('', text(note));
  if (decision.blocking.length) {
    out.push('', `**Not within limits, not waived:** ${decision.blocking.map((b) => `${code(b.id, { max: NAME_MAX })} (${b.verdict})`).join(', ')}. A maintainer may accept one with \`/perf waive <microbenchmark> -- <reason>\` here.`);
  }
  for (const part of parts) {
    if (!part.verdict) {
      out.push('', `### ${text(part.suite)}`, '', `No verdict: ${text(part.problem || 'the run left none')}.`);
      continue;
    }
    const verdict = part.verdict;
    const instr = F.hasInstructions(verdict.benchmarks);
    out.push(
      '',
      `${parts.length > 1 ? `**${text(part.suite)}** — ` : ''}${plural(verdict.benchmarks.length, 'microbenchmark')}: ${F.countsLine(verdict)}. Limits: ${F.limitsLine(verdict)}; ${F.roundsLine(verdict)}.`,
      ...F.scopeNotes(verdict).map((n) => `\n${text(n)}`),
    );
    const unstable = [...verdict.benchmarks, ...(verdict.ahi || [])].filter((b) => b.unstable);
    if (unstable.length) {
      out.push('', `**Unstable on main** (not judged by that signal until the benchmark is fixed): ${unstable.map((b) => `${code(b.id, { max: NAME_MAX })} (${text(unstableSpread(b))})`).join(', ')}.`);
    }
    const wide = wideRows(part);
    if (wide && wide.length) {
      out.push('', `### ${text(titled(parts, part, 'the suite as a whole'))}`, '', `| ${WIDE_HEADER.join(' | ')} |`, `|:-:|:--|--:|:-:|--:|:-:|:--|`);
      for (const cells of wide) out.push(`| ${cells.map((c) => text(c)).join(' | ')} |`);
    }
    for (const s of sections(verdict)) {
      out.push('', `### ${text(titled(parts, part, s.title))}`, '', markdownTable(s.rows, waived, instr));
      const chart = mermaidChart(s.rows);
      if (chart) out.push('', chart);
    }
  }
  out.push('', '### Waivers', '');
  if (!waivers.length) {
    out.push('None.');
  } else {
    out.push('| microbenchmark | its verdict | waived by | why | when (UTC) |', '|:--|:--|:--|:--|:--|');
    const verdictOf = new Map(judged.flatMap((p) => judgedItems(p.suite, p.verdict)).map((b) => [b.name, b.verdict]));
    for (const w of waiverIndex(waivers).values()) {
      out.push(`| ${text(w.microbenchmark, { max: NAME_MAX })} | ${verdictOf.get(w.microbenchmark) || 'not in this run'} | ${w.author ? `@${text(w.author)}` : '–'} | ${text(w.reason)} | ${dateOf(w.createdAt)} |`);
    }
  }
  out.push('', '### Decision', '', `${STATE_MARK[decision.state]} **${decision.state}**: ${text(stop(decision.description))} ${within(decision, items)}`);
  out.push('', `<sub>${legend(judged.flatMap((p) => p.verdict.benchmarks))} · 🏳️ waived</sub>`);
  return `${out.join('\n')}\n`;
}

// "rQPS spread <p99>% over <runs> runs of main"
function unstableSpread(b) {
  return b.unstable.signals.map((u) => `${learnedSignalWord(u.signal)} spread ${(100 * u.p99).toFixed(1)}% over ${u.runs} runs of main`).join(', ');
}

function within(decision, items) {
  return `${decision.within.length} of ${items} within limits (pass or warn), ${decision.waived.length} waived, ${decision.blocking.length} blocking.`;
}

function htmlRows(rows, waived, instr) {
  const figures = F.figureColumns(rows);
  const out = [`<tr><th></th><th>microbenchmark</th><th>rQPS</th><th>95% interval</th><th>cpu/o</th><th>cs/o</th>${figures.map((c) => `<th>${esc(c.header)}</th>`).join('')}${instr ? '<th>instr/o</th>' : ''}<th>pairs</th><th>verdict</th></tr>`];
  for (const b of rows) {
    const isWaived = waived.has(b.name) && !isWithinLimits(b.verdict);
    out.push(`<tr class="${esc(b.verdict)}${isWaived ? ' waived' : ''}" data-benchmark="${esc(b.name)}"><td>${esc(rowMark(b, waived))}</td><td>${esc(b.name)}</td><td class="n">${F.estimate(b.rqps)}</td><td class="n">${F.interval(b.rqps)}</td><td class="n">${F.estimate(b.cpu_per_query)}</td><td class="n">${F.estimate(b.cs_per_query)}</td>${figures.map((c) => `<td class="n">${esc(c.cell(b))}</td>`).join('')}${instr ? `<td class="n">${esc(F.instrEstimate(b))}</td>` : ''}<td class="n">${b.rounds.pairs}</td><td>${esc(isWaived ? `${b.verdict}, waived` : b.verdict)}</td></tr>`);
  }
  return out.join('\n');
}

/** signoff.html: the same report as one self-contained page (inline CSS and SVG, no script). */
function renderSignoffHtml(input, options = {}) {
  const { candidate = {}, previous = {}, waivers = [], runUrl = null, runFailed = null } = options;
  const parts = partsOf(input);
  const decision = signoffDecision({ suites: parts, waivers, runFailed });
  const { judged, sides, items } = measuredParts(parts);
  const color = { success: '#1a7f37', failure: '#cf222e', error: '#8250df', pending: '#9a6700' }[decision.state];
  const out = [pageHead(`perfgate sign-off ${candidate.ref || ''}: ${decision.state}`, `.badge{font-size:13px;background:${color}}tr.waived td{background:#f6f8fa}`)];
  out.push(`<h1><span class="badge" data-state="${esc(decision.state)}">${esc(decision.state)}</span> Release sign-off: ${esc(candidate.ref || 'candidate')} against ${esc(previous.ref || 'previous')}</h1>`);
  out.push(`<p><b>${esc(stop(decision.description))}</b> Commit status <code>${SIGNOFF_CONTEXT}</code> on the candidate: <code>${esc(decision.state)}</code>.</p>`);
  out.push(`<p>Candidate ${esc(sidePlain(candidate, sides.head))} against previous ${esc(sidePlain(previous, sides.base))}${runUrl ? ` · <a href="${esc(runUrl)}">workflow run</a>` : ''}${parts.length > 1 ? esc(` · suites ${parts.map((p) => p.suite).join(', ')}`) : ''}</p>`);
  if (!runFailed && judged.length) {
    const waived = waiverIndex(waivers);
    const note = prefixNote(sides);
    if (note) out.push(`<p>${esc(note)}</p>`);
    for (const part of parts) {
      if (!part.verdict) {
        out.push(`<h2 data-suite="${esc(part.suite)}">${esc(part.suite)}</h2><p>No verdict: ${esc(part.problem || 'the run left none')}.</p>`);
        continue;
      }
      const verdict = part.verdict;
      const instr = F.hasInstructions(verdict.benchmarks);
      const limits = (verdict.limits && verdict.limits.default) || { warn: 0.97, fail: 0.93 };
      out.push(`<p data-suite="${esc(part.suite)}">${esc(`${parts.length > 1 ? `${part.suite} — ` : ''}${plural(verdict.benchmarks.length, 'microbenchmark')}: ${F.countsLine(verdict)}. Limits: ${F.limitsLine(verdict)}; ${F.roundsLine(verdict)}.`)}</p>`);
      for (const n of F.scopeNotes(verdict)) out.push(`<p>${esc(n)}</p>`);
      const wide = wideRows(part);
      if (wide && wide.length) {
        const rows = [`<tr>${WIDE_HEADER.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>`, ...wide.map((cells) => `<tr class="${esc(cells.at(-1))}">${cells.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`)];
        out.push(`<h2>${esc(titled(parts, part, 'the suite as a whole'))}</h2>`, scrollTable(' data-table="suite-wide"', rows.join('\n')));
      }
      for (const s of sections(verdict)) {
        out.push(`<h2>${esc(titled(parts, part, s.title))}</h2>`, svgChart(s.rows, limits), scrollTable('', htmlRows(s.rows, waived, instr)));
      }
    }
    out.push('<h2>Waivers</h2>');
    if (!waivers.length) out.push('<p>None.</p>');
    else {
      const rows = [...waiverIndex(waivers).values()].map((w) => `<tr><td>${esc(w.microbenchmark)}</td><td>${esc(w.author ? `@${w.author}` : '–')}</td><td>${esc(w.reason)}</td><td>${esc(dateOf(w.createdAt))}</td></tr>`);
      out.push(scrollTable(' data-table="waivers"', `<tr><th>microbenchmark</th><th>waived by</th><th>why</th><th>when (UTC)</th></tr>\n${rows.join('\n')}`));
    }
    out.push(`<h2>Decision</h2><p><b>${esc(decision.state)}</b>: ${esc(stop(decision.description))} ${esc(within(decision, items))}</p>`);
  }
  out.push('</body></html>\n');
  return out.join('\n');
}

/** Both files of a sign-off report: {'signoff.md', 'signoff.html'}, and the decision. */
function renderSignoff(input, options = {}) {
  return {
    decision: signoffDecision({ suites: partsOf(input), waivers: options.waivers, runFailed: options.runFailed }),
    files: { 'signoff.md': renderSignoffMarkdown(input, options), 'signoff.html': renderSignoffHtml(input, options) },
  };
}

module.exports = { renderSignoff, renderSignoffMarkdown, renderSignoffHtml, SIGNOFF_MARKER };
