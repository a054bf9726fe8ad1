'use strict';
// report.html's thread counts: rQPS per thread count side by side (one column group per
// thread count, each cell with its verdict) and, per microbenchmark, an inline SVG of each
// side's QPS against threads. No script. What goes where is threadScaling's.
const F = require('./format');
const { esc, COLOR, colorOf, td, scrollTable, reasonRow } = require('./html-base');
const { threadScaling } = require('../thread-scaling');
const { threadsWord, qpsText, scalingText, SCALING_LEGEND } = require('./threads');

// One row per microbenchmark, a column group per thread count; the reasons of its cells on a
// line of their own under it.
function sideBySide(scaling) {
  const head = ['<tr><th rowspan="2">microbenchmark</th>', scaling.threads.map((t) => `<th colspan="3" data-threads="${t}">${esc(threadsWord(t))}</th>`).join(''), '</tr><tr>', scaling.threads.map(() => '<th></th><th>rQPS</th><th>95% interval</th>').join(''), '</tr>'];
  const rows = scaling.rows.map((row) => {
    const cells = row.cells.map(({ threads, benchmark: b }) => {
      if (!b) return `<td data-threads="${threads}"></td>${td('–', 'n')}${td('–', 'n')}`;
      return `<td class="mark ${esc(b.verdict)}" data-threads="${threads}" style="color:${colorOf(b.verdict)}" title="${esc(b.reason)}">${esc(F.wordOf(b))}</td>${td(F.estimate(b.rqps), `n ${b.verdict}`)}${td(F.interval(b.rqps), 'n')}`;
    });
    const reasons = row.cells.filter((c) => c.benchmark).map(({ threads, benchmark: b }) => `${threadsWord(threads)}: ${b.reason}`).join('; ');
    return `<tr data-row="${esc(row.label)}">${td(row.label)}${cells.join('')}</tr>${reasonRow(reasons, 1 + 3 * scaling.threads.length)}`;
  });
  return scrollTable(' data-table="threads"', `${head.join('')}\n${rows.join('\n')}`);
}

// QPS (y, from 0) against thread counts (x, evenly spaced: counts are usually powers of two),
// one line per side.
function scalingChart(row, threads) {
  const width = 330;
  const height = 180;
  const left = 56;
  const right = 12;
  const top = 12;
  const bottom = 34;
  const values = row.qps.flatMap((q) => [q.base, q.head]).filter((v) => typeof v === 'number' && Number.isFinite(v));
  if (!values.length) return '<p class="muted">no QPS measured</p>';
  const hi = Math.max(...values) * 1.1 || 1;
  const x = (k) => left + (threads.length === 1 ? 0.5 : k / (threads.length - 1)) * (width - left - right);
  const y = (v) => top + (1 - v / hi) * (height - top - bottom);
  const parts = [`<svg class="chart" data-chart="scaling" data-benchmark="${esc(row.label)}" role="img" aria-label="QPS against client threads of ${esc(row.label)}" viewBox="0 0 ${width} ${height}" width="100%">`];
  for (const v of [0, hi / 2, hi]) {
    parts.push(`<line x1="${left}" x2="${width - right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#eaeef2"/>`);
    parts.push(`<text x="${left - 4}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" class="tick">${Math.round(v)}</text>`);
  }
  threads.forEach((t, k) => parts.push(`<text x="${x(k).toFixed(1)}" y="${height - 18}" text-anchor="middle" class="tick">${t}</text>`));
  parts.push(`<text x="${((left + width - right) / 2).toFixed(1)}" y="${height - 4}" text-anchor="middle" class="tick">client threads</text>`);
  for (const side of ['base', 'head']) {
    const pts = row.qps.map((q, k) => ({ q, k })).filter(({ q }) => typeof q[side] === 'number' && Number.isFinite(q[side]));
    if (pts.length > 1) parts.push(`<polyline data-side="${side}" fill="none" stroke="${COLOR[side]}" stroke-width="1.5" points="${pts.map(({ q, k }) => `${x(k).toFixed(1)},${y(q[side]).toFixed(1)}`).join(' ')}"/>`);
    for (const { q, k } of pts) {
      parts.push(`<circle data-side="${side}" data-threads="${q.threads}" cx="${x(k).toFixed(1)}" cy="${y(q[side]).toFixed(1)}" r="3.5" fill="${COLOR[side]}"><title>${side} at ${esc(threadsWord(q.threads))}: ${qpsText(q[side])} QPS</title></circle>`);
    }
  }
  parts.push('</svg>');
  return parts.join('');
}

/** The thread-count sections of report.html for `rows` (judged rows): '' when they hold one thread count. */
function threadsHtml(rows) {
  const scaling = threadScaling(rows);
  if (!scaling) return '';
  const parts = [`<h2>rQPS per thread count</h2><p class="muted">Each cell is that thread count's own row, judged on its own rounds.</p>`, sideBySide(scaling)];
  parts.push(`<h2>QPS against threads</h2><p class="legend muted"><span style="background:${COLOR.base}"></span>base<span style="background:${COLOR.head}"></span>head</p><div class="grid">`);
  for (const row of scaling.rows) {
    const gain = row.scaling ? ` <span class="muted">${esc(`${row.scaling.from}→${row.scaling.to} threads: base ${scalingText(row.scaling.base)}, head ${scalingText(row.scaling.head)}`)}</span>` : '';
    parts.push(`<div class="cell"><h3>${esc(row.label)}${gain}</h3>${scalingChart(row, scaling.threads)}</div>`);
  }
  parts.push('</div>', `<p class="muted">${esc(SCALING_LEGEND)}</p>`);
  return parts.join('\n');
}

module.exports = { threadsHtml, scalingChart };
