'use strict';
// report.html: one self-contained page (inline CSS and SVG, no script, no network), readable
// offline from an artifact. Pure: verdict in, HTML out.
const F = require('./format');

const { esc, COLOR, colorOf, td, scrollTable, reasonRow, folded, pageHead } = require('./html-base');
const { threadsHtml } = require('./threads-html');
const { suiteWideView } = require('./suite-wide');
const { causesHtml } = require('./causes-html');

// rQPS of every benchmark with its interval (a forest plot), with the 1.00, warn and fail lines.
function rqpsChart(rows, limits) {
  const shown = rows.filter((b) => b.rqps && Number.isFinite(b.rqps.estimate));
  if (!shown.length) return '<p>No rQPS to chart.</p>';
  // Room for the longest name (about 6.6 px per character of the 11 px font).
  const label = Math.min(420, Math.max(160, Math.ceil(Math.max(...shown.map((b) => b.id.length)) * 6.6) + 12));
  const width = label + 530;
  const plot = width - label - 20;
  const rowH = 22;
  const top = 50;
  const height = top + shown.length * rowH + 30;
  // A log scale: ratios are multiplicative, so 0.5 and 2.0 sit equally far from 1.00. Wide
  // intervals of short runs are clipped to [1/4, 4] and end in an arrow.
  const values = shown.flatMap((b) => [b.rqps.estimate, b.rqps.low ?? b.rqps.estimate, b.rqps.high ?? b.rqps.estimate]);
  const lo = Math.max(0.25, Math.min(0.8, Math.min(...values) * 0.95));
  const hi = Math.min(4, Math.max(1.25, Math.max(...values) * 1.05));
  const x = (v) => label + ((Math.log(Math.min(Math.max(v, lo), hi)) - Math.log(lo)) / (Math.log(hi) - Math.log(lo))) * plot;
  const parts = [`<svg class="chart" data-chart="rqps" role="img" aria-label="rQPS with 95% intervals" viewBox="0 0 ${width} ${height}" width="100%">`];
  const TICKS = [0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1, 1.05, 1.1, 1.2, 1.3, 1.5, 1.75, 2, 2.5, 3, 4];
  let lastTick = -Infinity;
  for (const v of TICKS) {
    if (v < lo || v > hi || x(v) - lastTick < 34) continue;
    lastTick = x(v);
    parts.push(`<line x1="${x(v)}" x2="${x(v)}" y1="${top - 6}" y2="${height - 24}" stroke="#eaeef2"/>`);
    parts.push(`<text x="${x(v)}" y="${height - 8}" text-anchor="middle" class="tick">${v.toFixed(2)}</text>`);
  }
  const refs = [[1, '#57606a', 'same'], [limits.warn, COLOR.warn, `warn ${F.num(limits.warn)}`], [limits.fail, COLOR.fail, `fail ${F.num(limits.fail)}`]];
  // Labels on three heights: the limits are often only a few pixels apart.
  refs.forEach(([v, color, text], k) => {
    if (!(v >= lo && v <= hi)) return;
    const ly = top - 40 + k * 12;
    parts.push(`<line x1="${x(v)}" x2="${x(v)}" y1="${ly + 3}" y2="${height - 24}" stroke="${color}" stroke-dasharray="4 3"/>`);
    parts.push(`<text x="${x(v) + 3}" y="${ly}" class="ref" fill="${color}">${esc(text)}</text>`);
  });
  shown.forEach((b, k) => {
    const y = top + k * rowH + rowH / 2;
    const c = colorOf(b.verdict);
    parts.push(`<g class="bar" data-benchmark="${esc(b.id)}"><title>${esc(`${b.id}: ${b.reason}`)}</title>`);
    parts.push(`<text x="${label - 8}" y="${y + 4}" text-anchor="end" class="name">${esc(b.id)}</text>`);
    if (b.rqps.low !== null) {
      parts.push(`<line x1="${x(b.rqps.low)}" x2="${x(b.rqps.high)}" y1="${y}" y2="${y}" stroke="${c}" stroke-width="3"/>`);
      if (b.rqps.low < lo) parts.push(`<path d="M${x(lo) - 6},${y} l8,-5 v10 z" fill="${c}"/>`);
      if (b.rqps.high > hi) parts.push(`<path d="M${x(hi) + 6},${y} l-8,-5 v10 z" fill="${c}"/>`);
    }
    parts.push(`<circle cx="${x(b.rqps.estimate)}" cy="${y}" r="5" fill="${c}"/></g>`);
  });
  parts.push('</svg>');
  return parts.join('');
}

// QPS of every round of both sides in the order they ran: drift of the machine shows as both
// lines moving together, a regression as a gap between them.
function qpsChart(b) {
  const rounds = [...b.qps].sort((p, q) => {
    if (p.started && q.started && p.started !== q.started) return p.started < q.started ? -1 : 1;
    if (p.index !== q.index) return p.index - q.index;
    // Within a pair the plan alternates who goes first: base first in even pairs (A B B A).
    const first = p.index % 2 === 0 ? 'base' : 'head';
    return (p.side === first ? 0 : 1) - (q.side === first ? 0 : 1);
  });
  if (!rounds.length) return '<p class="muted">no rounds</p>';
  const width = 360;
  const height = 170;
  const left = 52;
  const bottom = 24;
  const top = 10;
  const qps = rounds.map((r) => r.qps);
  let lo = Math.min(...qps);
  let hi = Math.max(...qps);
  const pad = Math.max((hi - lo) * 0.15, hi * 0.02, 1);
  lo = Math.max(0, lo - pad);
  hi += pad;
  const x = (k) => left + (rounds.length === 1 ? (width - left - 10) / 2 : (k / (rounds.length - 1)) * (width - left - 10));
  const y = (v) => top + (1 - (v - lo) / (hi - lo)) * (height - top - bottom);
  const parts = [`<svg class="chart" data-chart="qps" data-benchmark="${esc(b.id)}" role="img" aria-label="QPS per round of ${esc(b.id)}" viewBox="0 0 ${width} ${height}" width="100%">`];
  for (const v of [lo, (lo + hi) / 2, hi]) {
    parts.push(`<line x1="${left}" x2="${width - 10}" y1="${y(v)}" y2="${y(v)}" stroke="#eaeef2"/>`);
    parts.push(`<text x="${left - 4}" y="${y(v) + 4}" text-anchor="end" class="tick">${Math.round(v)}</text>`);
  }
  for (const side of ['base', 'head']) {
    const pts = rounds.map((r, k) => ({ r, k })).filter(({ r }) => r.side === side);
    if (pts.length > 1) parts.push(`<polyline fill="none" stroke="${COLOR[side]}" stroke-width="1.5" points="${pts.map(({ r, k }) => `${x(k).toFixed(1)},${y(r.qps).toFixed(1)}`).join(' ')}"/>`);
    for (const { r, k } of pts) {
      parts.push(`<circle cx="${x(k).toFixed(1)}" cy="${y(r.qps).toFixed(1)}" r="3.5" fill="${COLOR[side]}"><title>${side} round ${r.index}: ${r.qps.toFixed(1)} QPS${r.started ? ` at ${esc(r.started)}` : ''}</title></circle>`);
    }
  }
  parts.push(`<text x="${left}" y="${height - 6}" class="tick">first round</text><text x="${width - 10}" y="${height - 6}" text-anchor="end" class="tick">last round</text>`);
  parts.push('</svg>');
  return parts.join('');
}

// A figure cell (I/O per query, p95 latency) says on hover what each side did and the ratio's
// interval, and the decision where the suite limits it.
function figureCell(b, column) {
  const figure = column.figure(b);
  const unit = column.key.startsWith('latency') ? ' ms' : ' per query';
  const title = figure ? `base ${F.perQuery(figure.base)}, head ${F.perQuery(figure.head)}${unit}${figure.ratio && figure.ratio.low !== null ? `; 95% interval ${F.interval(figure.ratio)}` : ''}${figure.reason ? `; ${figure.reason}` : ''}` : '';
  return `<td class="n${figure && figure.verdict ? ` ${figure.verdict}` : ''}" data-figure="${esc(column.key)}"${title ? ` title="${esc(title)}"` : ''}>${esc(column.cell(b))}</td>`;
}

// One row per microbenchmark with what decided it (rQPS, instr/o, pairs) and, on lines of their
// own under it, the verdict's reason in its words and the row's cause where it was explained.
function benchmarkRows(rows, instr, span) {
  const instrCells = (b) => (instr ? `${td(F.instrEstimate(b), 'n')}${td(F.instrInterval(b), 'n')}${td(F.estimate(b.background_per_query), 'n')}` : '');
  const cause = (b) => (b.cause ? reasonRow(`cause: ${b.cause.line}`, span, b.verdict) : '');
  return rows.map((b) => `<tr class="${esc(b.verdict)}">${td(F.wordOf(b), 'mark')}${td(b.id)}${td(F.estimate(b.rqps), 'n')}${td(F.interval(b.rqps), 'n')}${instrCells(b)}${td(b.rounds.pairs, 'n')}</tr>${reasonRow(b.reason, span, b.verdict)}${cause(b)}`).join('\n');
}

// The per-query figures of each row (CPU, context switches, I/O, p95 latency): what a reader
// opens to see why a row moved.
function figureRows(rows, figures) {
  return rows.map((b) => `<tr>${td(b.id)}${td(F.estimate(b.cpu_per_query), 'n')}${td(F.interval(b.cpu_per_query), 'n')}${td(F.estimate(b.cs_per_query), 'n')}${figures.map((c) => figureCell(b, c)).join('')}</tr>`).join('\n');
}

// Where the instructions went: the functions that grew most per query, and the files to open.
function instructionsSection(rows) {
  const changed = F.changedInstructions(rows);
  if (!changed.length) return '';
  const parts = ['<p class="muted">The queries\' own threads (every thread where all threads decided), per query, head minus base; from the callgrind profiles of every window.</p>'];
  for (const b of changed) {
    const w = b.instructions_functions;
    parts.push(`<h3>${esc(b.id)}: ${esc(F.functionsHeading(b))}</h3>`);
    if (!w.symbols) {
      parts.push(`<p>${esc(w.why)}.</p>`);
    } else {
      parts.push(scrollTable(' data-table="grown-functions"', `<tr><th>function</th><th>source</th><th>base self</th><th>head self</th><th>self growth</th><th>inclusive growth</th></tr>${w.grown.map((f) => `<tr>${td(f.name)}${td(f.source || f.object || '–')}${td(F.count(f.base_self), 'n')}${td(F.count(f.head_self), 'n')}${td(`+${F.count(f.self_growth)}`, 'n')}${td(`+${F.count(f.inclusive_growth)}`, 'n')}</tr>`).join('')}`));
    }
    if (w.annotate) parts.push(`<pre>${esc(w.annotate)}</pre>`);
  }
  return `<h2>Where the instructions went</h2>${folded(`Functions that grew, in ${changed.length} microbenchmark${changed.length === 1 ? '' : 's'}`, parts.join('\n'), { open: true, data: 'grown-functions' })}`;
}

// Each row's per-query figures, folded away: the decision is above, these say where it came from.
function perQuerySection(rows) {
  const figures = F.figureColumns(rows, { device: true });
  const header = `<tr><th>microbenchmark</th><th>cpu/o</th><th>cpu/o interval</th><th>cs/o</th>${figures.map((c) => `<th>${esc(c.header)}</th>`).join('')}</tr>`;
  const legend = F.figureLegend(rows);
  const device = figures.some((c) => c.key === 'device_read_kb_per_query') ? ' The device\'s rKB/o and wKB/o count everyone\'s I/O on it, the other side\'s background flushing included.' : '';
  if (figures.some((c) => c.key === 'memory')) legend.push(F.MEMORY_LEGEND);
  const note = legend.length ? `<p class="muted">${esc(`${legend.join('. ')}.${device} Hover a cell for each side's figure.`)}</p>` : '';
  return folded('Per-query figures: CPU, context switches, I/O, p95 latency', `${scrollTable(' data-table="per-query"', `${header}\n${figureRows(rows, figures)}`)}${note}`, { data: 'per-query' });
}

const sideRows = (rows) => rows.map((o) => `<tr${o.differs ? ' style="font-weight:600"' : ''}>${td(o.key)}${td(o.base ?? '–')}${td(o.head ?? '–')}</tr>`).join('');

// The servers, their builds, variables and options, the machine and how to reproduce a row:
// each folded away, for the reader who needs them.
function serversSection(verdict, sides) {
  const parts = ['<h2>Servers, builds and machine</h2>'];
  const build = F.buildLines(sides);
  const servers = ['version', 'label', 'commit', 'flavor', 'basedir'].map((key) => `<tr>${td(key)}${td(sides.base && sides.base[key])}${td(sides.head && sides.head[key])}</tr>`)
    .concat(build.rows.map(([label, b, h]) => `<tr>${td(label)}${td(b ?? '–')}${td(h ?? '–')}</tr>`));
  const notes = build.unknown.map((note) => `<p class="muted">${esc(note)}</p>`).join('');
  const cmake = F.cmakeRows(sides);
  const cmakeHtml = cmake.length ? `<h3>cmake options</h3>${scrollTable(' data-table="cmake-options"', `<tr><th>option</th><th>base</th><th>head</th></tr>${sideRows(cmake)}`)}` : '';
  parts.push(folded('Versions and build details', `${scrollTable(' data-table="servers"', `<tr><th></th><th>base</th><th>head</th></tr>${servers.join('\n')}`)}${notes}${cmakeHtml}`, { data: 'build' }));
  const variables = F.variableRows(sides);
  if (variables) {
    const table = variables.length ? scrollTable(' data-table="variables"', `<tr><th>variable</th><th>base</th><th>head</th></tr>\n${variables.map((r) => `<tr>${td(r.name)}${td(r.base ?? 'absent')}${td(r.head ?? 'absent')}</tr>`).join('')}`) : '';
    parts.push(folded(`Server variables that differ (SHOW GLOBAL VARIABLES): ${variables.length}`, `<p class="muted">${variables.length ? 'Each side\'s own paths and port aside.' : 'None, each side\'s own paths and port aside.'}</p>${table}`, { data: 'variables' }));
  }
  const options = F.optionRows(sides);
  if (options.length) parts.push(folded('Server options', scrollTable(' data-table="options"', `<tr><th>option</th><th>base</th><th>head</th></tr>${sideRows(options)}`), { data: 'options' }));
  const m = F.machineLines(verdict.run.machine);
  if (m.length) parts.push(folded('Machine', scrollTable(' data-table="machine"', m.map(([k, v]) => `<tr>${td(k)}${td(v)}</tr>`).join('')), { data: 'machine' }));
  const withCommands = verdict.benchmarks.filter((b) => b.command || b.commands);
  if (withCommands.length) {
    const commands = withCommands.map((b) => `<h3>${esc(b.id)}</h3><pre>${esc(F.commandLines(b, sides).join('\n'))}</pre>`).join('\n');
    parts.push(folded('Reproduce by hand', `<p class="muted">Start each server with the options above, then run a microbenchmark:</p>${commands}`, { data: 'reproduce' }));
  }
  return parts.join('\n');
}

// The suite as a whole, first after the headline: each entry with its reason under it.
function suiteWideHtml(verdict) {
  const view = suiteWideView(verdict);
  if (!view) return '';
  const header = `<tr>${view.header.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>`;
  const rows = view.rows.map(({ entry, cells }) => `<tr class="${esc(entry.verdict)}">${cells.map((c, i) => td(c, i === 0 ? 'mark' : i > 1 ? 'n' : '')).join('')}</tr>${reasonRow(entry.reason, view.header.length, entry.verdict)}`).join('\n');
  const table = view.rows.length ? scrollTable(' data-table="suite-wide"', `${header}\n${rows}`) : '';
  const notes = view.notes.map((n) => `<p class="scope">${esc(n)}</p>`).join('');
  return `<h2>${esc(view.title)}</h2><p class="muted">${esc(view.about)}</p>${table}${notes}`;
}

function renderReport(verdict, { flamegraphs = {} } = {}) {
  const sides = verdict.run.sides || {};
  const limits = (verdict.limits && verdict.limits.default) || { warn: 0.97, fail: 0.93 };
  const groups = F.groupsOf(verdict.benchmarks);
  const parts = [pageHead(`perfgate ${verdict.suite || ''}: ${verdict.verdict}`)];
  parts.push(`<h1><span class="badge ${esc(verdict.verdict)}">${esc(verdict.verdict)}</span> perfgate ${esc(verdict.suite || '')}: <span data-verdict="${esc(verdict.verdict)}">${esc(verdict.verdict)}</span></h1>`);
  parts.push(`<p class="headline">${esc(verdict.headline)}</p>`);
  parts.push(`<p>head <b>${esc(F.sideLine(sides.head))}</b> against base <b>${esc(F.sideLine(sides.base))}</b>: ${esc(F.countsLine(verdict))}. Limits: ${esc(F.limitsLine(verdict))}; ${esc(F.roundsLine(verdict))}.</p>`);
  const wide = suiteWideHtml(verdict);
  if (wide) parts.push(wide);
  for (const note of F.scopeNotes(verdict)) parts.push(`<p class="scope">${esc(note)}</p>`);
  if ((verdict.doctor || []).length) parts.push(`<div class="warnbox"><b>This runner may give noisy timings:</b><ul>${verdict.doctor.map((w) => `<li>${esc(w)}</li>`).join('')}</ul></div>`);
  parts.push('<h2>rQPS with 95% intervals</h2>', rqpsChart(groups.flatMap((g) => g.benchmarks), limits));
  parts.push('<h2>Microbenchmarks</h2>');
  const instr = F.hasInstructions(verdict.benchmarks);
  const instrHeader = instr ? '<th>instr/o</th><th>instr/o interval</th><th>background instr/o</th>' : '';
  const span = 5 + (instr ? 3 : 0);
  const header = `<tr><th></th><th>microbenchmark</th><th>rQPS</th><th>95% interval</th>${instrHeader}<th>pairs</th></tr>`;
  for (const g of groups) parts.push(`<h3>${esc(g.title)}</h3>${scrollTable(' data-table="benchmarks"', `${header}\n${benchmarkRows(g.benchmarks, instr, span)}`)}`);
  parts.push(perQuerySection(verdict.benchmarks));
  const byThreads = threadsHtml(verdict.benchmarks);
  if (byThreads) parts.push(byThreads);
  const causes = causesHtml(verdict.benchmarks, flamegraphs);
  if (causes) parts.push(causes);
  const went = instructionsSection(verdict.benchmarks);
  if (went) parts.push(went);
  if (verdict.ahi.length) {
    parts.push('<h2>AHI gain (QPS with AHI on / off) of each side</h2>');
    const rows = verdict.ahi.map((c) => `<tr class="${esc(c.verdict)}">${td(F.wordOf(c), 'mark')}${td(c.name)}${td(c.threads ?? '–', 'n')}${td(F.num(c.rqps_off), 'n')}${td(F.num(c.rqps_on), 'n')}${td(F.num(c.gain.base), 'n')}${td(F.num(c.gain.head), 'n')}${td(F.estimate(c.gain_ratio), 'n')}${td(F.interval(c.gain_ratio), 'n')}</tr>${reasonRow(c.reason, 9, c.verdict)}`).join('\n');
    parts.push(scrollTable(' data-table="ahi"', `<tr><th></th><th>workload</th><th>threads</th><th>rQPS AHI off</th><th>rQPS AHI on</th><th>base gain</th><th>head gain</th><th>gain ratio</th><th>95% interval</th></tr>\n${rows}`));
  }
  parts.push(`<h2>QPS per round, in the order the rounds ran</h2><p class="legend muted"><span style="background:${COLOR.base}"></span>base<span style="background:${COLOR.head}"></span>head</p><div class="grid">`);
  for (const b of verdict.benchmarks) parts.push(`<div class="cell"><h3><span class="badge ${esc(b.verdict)}">${esc(F.wordOf(b))}</span> ${esc(b.id)}</h3>${qpsChart(b)}</div>`);
  parts.push('</div>');
  parts.push(serversSection(verdict, sides));
  parts.push(`<p class="muted">Method: ${esc(verdict.method)}; ${Math.round(verdict.confidence * 100)}% intervals. Started ${esc(verdict.run.started || '?')}, finished ${esc(verdict.run.finished || '?')}.</p>`);
  parts.push('</body></html>\n');
  return parts.join('\n');
}

module.exports = { renderReport, rqpsChart };
