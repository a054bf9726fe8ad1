'use strict';
// report.html: one self-contained page (inline CSS and SVG, no script, no network), readable
// offline from an artifact. Pure: verdict in, HTML out.
const F = require('./format');

const { esc, COLOR } = require('./html-base');
const { threadsHtml } = require('./threads-html');

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
    const c = COLOR[b.verdict];
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

const td = (s, cls = '') => `<td${cls ? ` class="${cls}"` : ''}>${esc(s)}</td>`;

// A figure cell (I/O per query, p95 latency) says on hover what each side did and the ratio's
// interval, and the decision where the suite limits it.
function figureCell(b, column) {
  const figure = column.figure(b);
  const unit = column.key.startsWith('latency') ? ' ms' : ' per query';
  const title = figure ? `base ${F.perQuery(figure.base)}, head ${F.perQuery(figure.head)}${unit}${figure.ratio && figure.ratio.low !== null ? `; 95% interval ${F.interval(figure.ratio)}` : ''}${figure.reason ? `; ${figure.reason}` : ''}` : '';
  return `<td class="n${figure && figure.verdict ? ` ${figure.verdict}` : ''}" data-figure="${esc(column.key)}"${title ? ` title="${esc(title)}"` : ''}>${esc(column.cell(b))}</td>`;
}

function benchmarkRows(rows, instr, figures) {
  const instrCells = (b) => (instr ? `${td(F.instrEstimate(b), 'n')}${td(F.instrInterval(b), 'n')}${td(F.estimate(b.background_per_query), 'n')}` : '');
  return rows.map((b) => `<tr class="${b.verdict}">${td(F.wordOf(b), 'mark')}${td(b.id)}${td(F.estimate(b.rqps), 'n')}${td(F.interval(b.rqps), 'n')}${instrCells(b)}${td(F.estimate(b.cpu_per_query), 'n')}${td(F.interval(b.cpu_per_query), 'n')}${td(F.estimate(b.cs_per_query), 'n')}${figures.map((c) => figureCell(b, c)).join('')}${td(b.rounds.pairs, 'n')}${td(b.reason, 'why')}</tr>`).join('\n');
}

// Where the instructions went: the functions that grew most per query, and the files to open.
function instructionsSection(rows) {
  const changed = F.changedInstructions(rows);
  if (!changed.length) return '';
  const parts = ['<h2>Where the instructions went</h2><p class="muted">The queries\' own threads (every thread where all threads decided), per query, head minus base; from the callgrind profiles of every window.</p>'];
  for (const b of changed) {
    const w = b.instructions_functions;
    parts.push(`<h3>${esc(b.id)}: ${esc(F.functionsHeading(b))}</h3>`);
    if (!w.symbols) {
      parts.push(`<p>${esc(w.why)}.</p>`);
    } else {
      parts.push('<table data-table="grown-functions"><tr><th>function</th><th>source</th><th>base self</th><th>head self</th><th>self growth</th><th>inclusive growth</th></tr>');
      parts.push(w.grown.map((f) => `<tr>${td(f.name)}${td(f.source || f.object || '–')}${td(F.count(f.base_self), 'n')}${td(F.count(f.head_self), 'n')}${td(`+${F.count(f.self_growth)}`, 'n')}${td(`+${F.count(f.inclusive_growth)}`, 'n')}</tr>`).join(''));
      parts.push('</table>');
    }
    if (w.annotate) parts.push(`<pre>${esc(w.annotate)}</pre>`);
  }
  return parts.join('\n');
}

// The opening of every report page, up to <body>: one style for all of them.
function pageHead(title) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328;max-width:1100px;margin:24px auto;padding:0 16px}
h1{font-size:22px;margin:0 0 6px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
.headline{font-size:16px;font-weight:600}.muted{color:#57606a}
table{border-collapse:collapse;margin:6px 0 12px;font-variant-numeric:tabular-nums}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
td.n{text-align:right}td.n.fail{color:${COLOR.fail};font-weight:600}td.n.warn{color:${COLOR.warn}}td.why{color:#57606a;font-size:12px}th{background:#f6f8fa}
tr.fail td.mark{color:${COLOR.fail}}tr.warn td.mark{color:${COLOR.warn}}tr.pass td.mark{color:${COLOR.pass}}tr.undecided td.mark{color:${COLOR.undecided}}tr.error td.mark{color:${COLOR.error}}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(330px,1fr));gap:14px}.cell{border:1px solid #d0d7de;border-radius:6px;padding:8px}
.cell h3{margin:0 0 4px;font-size:13px}svg text{font:11px system-ui,sans-serif;fill:#1f2328}svg text.tick{fill:#57606a;font-size:10px}svg text.ref{font-size:10px}
.legend span{display:inline-block;width:10px;height:10px;border-radius:50%;margin:0 4px 0 12px}
td.mark{font-weight:600}.badge{display:inline-block;color:#fff;border-radius:10px;padding:0 8px;font-size:12px;vertical-align:middle}
.badge.pass{background:${COLOR.pass}}.badge.warn{background:${COLOR.warn}}.badge.undecided{background:${COLOR.undecided}}.badge.fail{background:${COLOR.fail}}.badge.error{background:${COLOR.error}}
pre{background:#f6f8fa;padding:8px;overflow-x:auto;font-size:12px}.warnbox{border-left:4px solid ${COLOR.warn};background:#fff8c5;padding:6px 10px}
</style></head><body>`;
}

function renderReport(verdict) {
  const sides = verdict.run.sides || {};
  const limits = (verdict.limits && verdict.limits.default) || { warn: 0.97, fail: 0.93 };
  const groups = F.groupsOf(verdict.benchmarks);
  const parts = [pageHead(`perfgate ${verdict.suite || ''}: ${verdict.verdict}`)];
  parts.push(`<h1><span class="badge ${esc(verdict.verdict)}">${esc(verdict.verdict)}</span> perfgate ${esc(verdict.suite || '')}: <span data-verdict="${esc(verdict.verdict)}">${esc(verdict.verdict)}</span></h1>`);
  parts.push(`<p class="headline">${esc(verdict.headline)}</p>`);
  parts.push(`<p>head <b>${esc(F.sideLine(sides.head))}</b> against base <b>${esc(F.sideLine(sides.base))}</b>: ${esc(F.countsLine(verdict))}. Limits: ${esc(F.limitsLine(verdict))}; ${esc(F.roundsLine(verdict))}.</p>`);
  for (const note of F.scopeNotes(verdict)) parts.push(`<p class="scope">${esc(note)}</p>`);
  if ((verdict.doctor || []).length) parts.push(`<div class="warnbox"><b>This runner may give noisy timings:</b><ul>${verdict.doctor.map((w) => `<li>${esc(w)}</li>`).join('')}</ul></div>`);
  parts.push('<h2>rQPS with 95% intervals</h2>', rqpsChart(groups.flatMap((g) => g.benchmarks), limits));
  parts.push('<h2>Microbenchmarks</h2>');
  const instr = F.hasInstructions(verdict.benchmarks);
  const instrHeader = instr ? '<th>instr/o</th><th>instr/o interval</th><th>background instr/o</th>' : '';
  const figures = F.figureColumns(verdict.benchmarks, { device: true });
  const header = `<tr><th></th><th>microbenchmark</th><th>rQPS</th><th>95% interval</th>${instrHeader}<th>cpu/o</th><th>cpu/o interval</th><th>cs/o</th>${figures.map((c) => `<th>${esc(c.header)}</th>`).join('')}<th>pairs</th><th>why</th></tr>`;
  for (const g of groups) parts.push(`<h3>${esc(g.title)}</h3><table>${header}\n${benchmarkRows(g.benchmarks, instr, figures)}</table>`);
  const legend = F.figureLegend(verdict.benchmarks);
  const device = figures.some((c) => c.key === 'device_read_kb_per_query') ? ' The device\'s rKB/o and wKB/o count everyone\'s I/O on it, the other side\'s background flushing included.' : '';
  if (legend.length) parts.push(`<p class="muted">${esc(`${legend.join('. ')}.${device} Hover a cell for each side's figure.`)}</p>`);
  const byThreads = threadsHtml(verdict.benchmarks);
  if (byThreads) parts.push(byThreads);
  const went = instructionsSection(verdict.benchmarks);
  if (went) parts.push(went);
  if (verdict.ahi.length) {
    parts.push('<h2>AHI gain (QPS with AHI on / off) of each side</h2><table><tr><th></th><th>workload</th><th>threads</th><th>rQPS AHI off</th><th>rQPS AHI on</th><th>base gain</th><th>head gain</th><th>gain ratio</th><th>95% interval</th><th>why</th></tr>');
    parts.push(verdict.ahi.map((c) => `<tr class="${c.verdict}">${td(c.verdict, 'mark')}${td(c.name)}${td(c.threads ?? '–', 'n')}${td(F.num(c.rqps_off), 'n')}${td(F.num(c.rqps_on), 'n')}${td(F.num(c.gain.base), 'n')}${td(F.num(c.gain.head), 'n')}${td(F.estimate(c.gain_ratio), 'n')}${td(F.interval(c.gain_ratio), 'n')}${td(c.reason, 'why')}</tr>`).join('\n'));
    parts.push('</table>');
  }
  parts.push(`<h2>QPS per round, in the order the rounds ran</h2><p class="legend muted"><span style="background:${COLOR.base}"></span>base<span style="background:${COLOR.head}"></span>head</p><div class="grid">`);
  for (const b of verdict.benchmarks) parts.push(`<div class="cell"><h3><span class="badge ${b.verdict}">${b.verdict}</span> ${esc(b.id)}</h3>${qpsChart(b)}</div>`);
  parts.push('</div>');
  parts.push('<h2>Servers</h2><table><tr><th></th><th>base</th><th>head</th></tr>');
  for (const key of ['version', 'label', 'commit', 'flavor', 'basedir']) parts.push(`<tr>${td(key)}${td(sides.base && sides.base[key])}${td(sides.head && sides.head[key])}</tr>`);
  const build = F.buildLines(sides);
  for (const [label, b, h] of build.rows) parts.push(`<tr>${td(label)}${td(b ?? '–')}${td(h ?? '–')}</tr>`);
  parts.push('</table>');
  for (const note of build.unknown) parts.push(`<p class="muted">${esc(note)}</p>`);
  const cmake = F.cmakeRows(sides);
  if (cmake.length) {
    parts.push('<h3>cmake options</h3><table data-table="cmake-options"><tr><th>option</th><th>base</th><th>head</th></tr>');
    parts.push(cmake.map((o) => `<tr${o.differs ? ' style="font-weight:600"' : ''}>${td(o.key)}${td(o.base ?? '–')}${td(o.head ?? '–')}</tr>`).join(''));
    parts.push('</table>');
  }
  const variables = F.variableRows(sides);
  if (variables) {
    parts.push(`<h3>Server variables that differ (SHOW GLOBAL VARIABLES)</h3><p class="muted">${variables.length ? 'Each side\'s own paths and port aside.' : 'None, each side\'s own paths and port aside.'}</p>`);
    if (variables.length) {
      parts.push('<table data-table="variables"><tr><th>variable</th><th>base</th><th>head</th></tr>');
      parts.push(variables.map((r) => `<tr>${td(r.name)}${td(r.base ?? 'absent')}${td(r.head ?? 'absent')}</tr>`).join(''));
      parts.push('</table>');
    }
  }
  const options = F.optionRows(sides);
  if (options.length) {
    parts.push('<h3>Server options</h3><table><tr><th>option</th><th>base</th><th>head</th></tr>');
    parts.push(options.map((o) => `<tr${o.differs ? ' style="font-weight:600"' : ''}>${td(o.key)}${td(o.base ?? '–')}${td(o.head ?? '–')}</tr>`).join(''));
    parts.push('</table>');
  }
  const m = F.machineLines(verdict.run.machine);
  if (m.length) parts.push(`<h2>Machine</h2><table>${m.map(([k, v]) => `<tr>${td(k)}${td(v)}</tr>`).join('')}</table>`);
  const withCommands = verdict.benchmarks.filter((b) => b.command || b.commands);
  if (withCommands.length) {
    parts.push('<h2>Reproduce by hand</h2><p class="muted">Start each server with the options above, then run a microbenchmark:</p>');
    for (const b of withCommands) parts.push(`<h3>${esc(b.id)}</h3><pre>${esc(F.commandLines(b, sides).join('\n'))}</pre>`);
  }
  parts.push(`<p class="muted">Method: ${esc(verdict.method)}; ${Math.round(verdict.confidence * 100)}% intervals. Started ${esc(verdict.run.started || '?')}, finished ${esc(verdict.run.finished || '?')}.</p>`);
  parts.push('</body></html>\n');
  return parts.join('\n');
}

module.exports = { renderReport, rqpsChart, pageHead, esc, td };
