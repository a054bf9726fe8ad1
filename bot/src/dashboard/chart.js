'use strict';
// One series of main as an inline SVG chart: x is the position on main (main_seq), y the value.
// Ratios (head/base) use a log scale, since 0.5 and 2.0 are equally far from 1.00, and show
// their 95% intervals; absolute values (QPS, instructions per query) use a linear one. Change
// points are vertical marks between the last commit before the move and the first after it.
// Pure: data in, SVG text out; every label is escaped.
const { esc, webLink } = require('./html');

const WIDTH = 900;
const HEIGHT = 240;
const LEFT = 70;
const RIGHT = 16;
const TOP = 22;
const BOTTOM = 30;
const COLOR = { point: '#0969da', interval: '#54aeff', trend: '#57606a', change: '#cf222e', grid: '#eaeef2', reference: '#57606a' };

const RATIO_TICKS = [0.25, 0.5, 0.75, 0.8, 0.9, 0.95, 0.98, 0.99, 1.01, 1.02, 1.05, 1.1, 1.25, 1.5, 2, 3, 4];
const finite = (v) => typeof v === 'number' && Number.isFinite(v);

// About `count` round steps covering [lo, hi].
function niceStep(span, count) {
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) || raw;
}

function yScale(kind, values) {
  if (kind === 'ratio') {
    // Ratios around 1: the 1.00 line is always in view; very wide intervals are clipped.
    let lo = Math.max(0.25, Math.min(0.98, ...values) / 1.01);
    let hi = Math.min(4, Math.max(1.02, ...values) * 1.01);
    if (hi / lo < 1.04) {
      lo /= 1.02;
      hi *= 1.02;
    }
    const span = Math.log(hi) - Math.log(lo);
    const at = (v) => TOP + (1 - (Math.log(Math.min(Math.max(v, lo), hi)) - Math.log(lo)) / span) * (HEIGHT - TOP - BOTTOM);
    // Ticks from a list of round ratios, at least 18 px apart on the log scale.
    const candidates = [...RATIO_TICKS, ...Array.from({ length: 9 }, (_, k) => 1 + (k - 4) * niceStep(hi - lo, 6))]
      .filter((t) => t >= lo && t <= hi).sort((a, b) => a - b);
    const ticks = [];
    for (const t of [1, ...candidates]) {
      if (ticks.every((u) => Math.abs(at(u) - at(t)) >= 18)) ticks.push(t);
    }
    return { at, lo, hi, ticks: ticks.sort((a, b) => a - b) };
  }
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  const pad = Math.max((hi - lo) * 0.1, Math.abs(hi) * 0.01, 1e-9);
  lo -= pad;
  hi += pad;
  const at = (v) => TOP + (1 - (v - lo) / (hi - lo)) * (HEIGHT - TOP - BOTTOM);
  const step = niceStep(hi - lo, 4);
  const ticks = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi; t += step) ticks.push(t);
  return { at, lo, hi, ticks };
}

const px = (v) => v.toFixed(1);

/**
 * @param chart {key, title, kind: 'ratio' | 'absolute', format(value) -> text,
 *               points: [{seq, value, low?, high?, label, href?}],
 *               changePoints: [{seq, label, href?}]}
 * @returns the SVG, or a short paragraph when there is nothing to chart
 */
function seriesChart({ key, title, kind, format, points, changePoints = [] }) {
  const shown = points.filter((p) => finite(p.value) && Number.isInteger(p.seq));
  if (!shown.length) return `<p class="muted" data-chart-empty="${esc(key)}">No ${esc(title)} on main in this window.</p>`;
  const seqs = [...shown.map((p) => p.seq), ...changePoints.map((c) => c.seq)];
  const first = Math.min(...seqs) - 0.5;
  const last = Math.max(...seqs) + 0.5;
  const x = (seq) => LEFT + ((seq - first) / (last - first)) * (WIDTH - LEFT - RIGHT);
  const values = shown.flatMap((p) => (kind === 'ratio' ? [p.value, p.low, p.high].filter(finite) : [p.value]));
  const y = yScale(kind, values);

  const parts = [`<svg class="chart" data-chart="${esc(key)}" role="img" aria-label="${esc(title)} by commit on main" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%">`];
  for (const t of y.ticks) {
    parts.push(`<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${px(y.at(t))}" y2="${px(y.at(t))}" stroke="${COLOR.grid}"/>`);
    parts.push(`<text x="${LEFT - 6}" y="${px(y.at(t) + 4)}" text-anchor="end" class="tick">${esc(format(t))}</text>`);
  }
  if (kind === 'ratio') {
    parts.push(`<line class="reference" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${px(y.at(1))}" y2="${px(y.at(1))}" stroke="${COLOR.reference}" stroke-dasharray="4 3"/>`);
  }
  const xStep = Math.max(1, niceStep(last - first, 8));
  for (let s = Math.ceil(first / xStep) * xStep; s <= last; s += xStep) {
    parts.push(`<text x="${px(x(s))}" y="${HEIGHT - 10}" text-anchor="middle" class="tick">#${s}</text>`);
  }

  for (const c of changePoints) {
    const at = px(x(c.seq - 0.5));
    const mark = `<line x1="${at}" x2="${at}" y1="${TOP - 4}" y2="${HEIGHT - BOTTOM}" stroke="${COLOR.change}" stroke-width="2" stroke-dasharray="6 3"/>`
      + `<path d="M${at},${TOP - 4} l-6,-10 h12 z" fill="${COLOR.change}"/><title>${esc(c.label)}</title>`;
    const href = webLink(c.href);
    parts.push(`<g class="change-point" data-seq="${c.seq}">${href ? `<a href="${esc(href)}">${mark}</a>` : mark}</g>`);
  }

  // The trend: the geometric mean of each commit's points.
  const bySeq = new Map();
  for (const p of shown) bySeq.set(p.seq, [...(bySeq.get(p.seq) || []), p.value]);
  const trend = [...bySeq.entries()].sort((a, b) => a[0] - b[0])
    .map(([seq, vs]) => [seq, Math.exp(vs.reduce((s, v) => s + Math.log(v), 0) / vs.length)]);
  if (trend.length > 1) {
    parts.push(`<polyline class="trend" fill="none" stroke="${COLOR.trend}" stroke-width="1.2" points="${trend.map(([seq, v]) => `${px(x(seq))},${px(y.at(v))}`).join(' ')}"/>`);
  }

  for (const p of shown) {
    const cx = px(x(p.seq));
    let mark = '';
    if (kind === 'ratio' && finite(p.low) && finite(p.high)) {
      mark += `<line x1="${cx}" x2="${cx}" y1="${px(y.at(p.high))}" y2="${px(y.at(p.low))}" stroke="${COLOR.interval}" stroke-width="2"/>`;
    }
    mark += `<circle class="point" cx="${cx}" cy="${px(y.at(p.value))}" r="3.5" fill="${COLOR.point}"><title>${esc(p.label)}</title></circle>`;
    const href = webLink(p.href);
    parts.push(href ? `<a href="${esc(href)}">${mark}</a>` : mark);
  }
  parts.push('</svg>');
  return parts.join('');
}

module.exports = { seriesChart };
