'use strict';
// Thread counts side by side: the pure grouping (core/src/thread-scaling.js) and what
// comment.md, summary.md and report.html show of it, on a real run of two thread counts
// (test/fixtures/results/threads-tiny: point-query and update-index_range=100 at 1 and 2
// client threads, 10.11.18 against 10.11.19, 3 pairs of 2 s each on a shared 2-core VM).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const core = require('../../../core');
const { threadScaling } = require('../../../core/src/thread-scaling');
const { loadResults } = require('../../support/captured-results');

const FIXTURES = path.join(__dirname, '../../fixtures/results');
const RESULTS = loadResults(path.join(FIXTURES, 'threads-tiny', 'results.json'));
const LIMITS = { limits: { default: { warn: 0.97, fail: 0.93 } } };
const VERDICT = core.judge(RESULTS, LIMITS);

// Each side's typical QPS computed here independently: the n-th root of the product.
function geometric(values) {
  return values.reduce((p, x) => p * x, 1) ** (1 / values.length);
}
const rawQps = (id, side) => geometric(RESULTS.benchmarks.find((b) => b.id === id).rounds.filter((r) => r.side === side).map((r) => r.qps));

// Rows made by hand: rounds of head/base = `ratio` at `qps` base QPS.
function row(name, threads, { ratio = 1, qps = 1000, ahi, group = 'point' } = {}) {
  const id = [name, ahi ? `ahi=${ahi}` : null, `threads=${threads}`].filter(Boolean).join(' ');
  const spread = [1, 1.002, 0.998, 1.001];
  return {
    id, name, group, threads, status: 'ok', ...(ahi ? { ahi } : {}),
    rounds: spread.flatMap((s, index) => [{ index, side: 'base', qps: qps * s }, { index, side: 'head', qps: qps * s * ratio }]),
  };
}
const results = (benchmarks) => ({ schema: 'perfgate.results/v1', plan: { suite: 'full' }, status: 'ok', errors: [], sides: {}, benchmarks });

test('the grouping of a real run: one row per microbenchmark, one cell per thread count, each cell the judged row itself', () => {
  const s = threadScaling(VERDICT.benchmarks);
  assert.deepEqual(s.threads, [1, 2]);
  assert.deepEqual(s.rows.map((r) => r.label), ['point-query', 'update-index_range=100']);
  for (const r of s.rows) {
    assert.deepEqual(r.cells.map((c) => c.threads), [1, 2]);
    for (const c of r.cells) {
      // The cell's verdict is the row verdict judge() gave that (microbenchmark, threads) row.
      assert.equal(c.benchmark, VERDICT.benchmarks.find((b) => b.id === `${r.name} threads=${c.threads}`));
    }
    for (const q of r.qps) {
      for (const side of ['base', 'head']) assert.ok(Math.abs(q[side] / rawQps(`${r.name} threads=${q.threads}`, side) - 1) < 1e-12, `${r.label} ${side} @${q.threads}`);
    }
    assert.equal(r.scaling.from, 1);
    assert.equal(r.scaling.to, 2);
    assert.ok(Math.abs(r.scaling.base - r.qps[1].base / r.qps[0].base) < 1e-12);
    assert.ok(Math.abs(r.scaling.head - r.qps[1].head / r.qps[0].head) < 1e-12);
  }
});

test('one thread count is no dimension: no grouping, and no thread sections in any report', () => {
  const single = core.judge(loadResults(path.join(FIXTURES, 'quick-tiny', 'results.json')), LIMITS);
  assert.equal(threadScaling(single.benchmarks), null);
  const files = core.renderReports(single);
  for (const name of ['comment.md', 'summary.md']) assert.doesNotMatch(files[name], /rQPS per thread count|QPS against threads/, name);
  assert.doesNotMatch(files['report.html'], /data-table="threads"|data-chart="scaling"/);
});

test('a regression under concurrency only: the cell at 4 threads fails, the one at 1 passes, and the head scales worse', () => {
  const v = core.judge(results([
    row('update-index_range=100', 1, { qps: 1000 }), row('update-index_range=100', 4, { qps: 2000, ratio: 0.7 }),
    row('point-query', 1, { qps: 5000 }), row('point-query', 4, { qps: 9000 }),
  ]), LIMITS);
  const s = threadScaling(v.benchmarks);
  assert.deepEqual(s.threads, [1, 4]);
  assert.deepEqual(s.rows.map((r) => [r.label, ...r.cells.map((c) => c.benchmark.verdict)]), [
    ['update-index_range=100', 'pass', 'fail'], ['point-query', 'pass', 'pass'],
  ]);
  const update = s.rows[0].scaling;
  assert.equal(update.base.toFixed(2), '2.00');
  assert.equal(update.head.toFixed(2), '1.40');
});

test('rows keep their first appearance; a thread count a row lacks is an empty cell; AHI states are rows of their own', () => {
  const v = core.judge(results([
    row('scan_range=100', 2, { group: 'range' }),
    row('point-select', 1, { ahi: 'off', group: 'ahi' }), row('point-select', 1, { ahi: 'on', group: 'ahi' }),
    row('point-select', 8, { ahi: 'off', group: 'ahi' }), row('point-select', 8, { ahi: 'on', group: 'ahi' }),
  ]), { limits: { ...LIMITS.limits, ahi_gain: { warn: 0.97, fail: 0.93 } } });
  const s = threadScaling(v.benchmarks);
  assert.deepEqual(s.threads, [1, 2, 8]);
  assert.deepEqual(s.rows.map((r) => r.label), ['scan_range=100', 'point-select ahi=off', 'point-select ahi=on']);
  const scan = s.rows[0];
  assert.deepEqual(scan.cells.map((c) => (c.benchmark ? c.benchmark.id : null)), [null, 'scan_range=100 threads=2', null]);
  assert.deepEqual(scan.qps.map((q) => q.base === null), [true, false, true]);
  assert.equal(scan.scaling, null, 'one measured thread count has no scaling');
  assert.deepEqual([s.rows[1].scaling.from, s.rows[1].scaling.to], [1, 8]);
});

// --- what the reports show ------------------------------------------------------------------

const SIDE_BY_SIDE = [
  '**rQPS per thread count (1, 2 client threads)**',
  '',
  '| microbenchmark | 1 thread | 95% interval | 2 threads | 95% interval |',
  '|:--|--:|:-:|--:|:-:|',
  '| point-query | ❔ 1.02 | 0.48–2.16 | ❔ 1.16 | 0.82–1.64 |',
  '| update-index_range=100 | ❔ 1.32 | 0.24–7.35 | ❔ 1.08 | 0.79–1.47 |',
].join('\n');
const SCALING = [
  '| microbenchmark | base QPS @1 | head QPS @1 | base QPS @2 | head QPS @2 | base 1→2 | head 1→2 |',
  '|:--|--:|--:|--:|--:|--:|--:|',
  '| point-query | 11967 | 12158 | 9655 | 11169 | ×0.81 | ×0.92 |',
  '| update-index_range=100 | 4082 | 5368 | 5182 | 5592 | ×1.27 | ×1.04 |',
  '',
  'QPS = each side\'s geometric mean over its rounds; base/head a→b = that side\'s QPS at b threads over its QPS at a threads (a head figure below the base\'s: the head gains less from more threads).',
].join('\n');

test('summary.md: rQPS per thread count side by side, then QPS against threads of both sides', () => {
  const md = core.renderSummary(VERDICT);
  assert.ok(md.includes(`${SIDE_BY_SIDE}\n\n**QPS against threads, base and head**\n\n${SCALING}\n`), md);
});

test('comment.md: the same side-by-side table, the scaling table folded', () => {
  const md = core.renderComment(VERDICT);
  assert.ok(md.includes(`${SIDE_BY_SIDE}\n\n<details><summary>QPS against threads, base and head</summary>\n\n${SCALING}\n\n</details>`), md);
});

test('comment.md cut to fit keeps the thread table to the rows it still shows', () => {
  const v = core.judge(results([
    row('update-index_range=100', 1), row('update-index_range=100', 4, { ratio: 0.7 }),
    ...Array.from({ length: 40 }, (_, k) => [row(`bench-${k}`, 1), row(`bench-${k}`, 4)]).flat(),
  ]), LIMITS);
  const full = core.renderComment(v);
  const cut = core.renderComment(v, { limit: Math.floor(full.length / 3) });
  assert.ok(cut.length <= Math.floor(full.length / 3));
  const table = cut.slice(cut.indexOf('**rQPS per thread count'), cut.indexOf('<details><summary>QPS against threads'));
  assert.match(table, /\| update-index_range=100 \| ✅ 1\.00 \| 1\.00–1\.00 \| ❌ 0\.70 \| 0\.70–0\.70 \|/);
  const shownIds = new Set(v.benchmarks.filter((b) => cut.includes(`| ${b.id} |`)).map((b) => b.name));
  const tableRows = table.split('\n').filter((l) => /^\| [a-z]/.test(l) && !l.startsWith('| microbenchmark')).map((l) => l.split(' | ')[0].slice(2));
  assert.deepEqual(new Set(tableRows), shownIds);
  assert.ok(tableRows.length < 41);
});

test('report.html: a table with a column group per thread count and each cell\'s verdict, and an SVG of QPS against threads per microbenchmark', () => {
  const html = core.renderReport(VERDICT);
  const table = html.slice(html.indexOf('<table data-table="threads">'), html.indexOf('</table>', html.indexOf('<table data-table="threads">')));
  assert.match(table, /<th colspan="3" data-threads="1">1 thread<\/th><th colspan="3" data-threads="2">2 threads<\/th>/);
  for (const b of VERDICT.benchmarks) {
    const name = b.name;
    const rowHtml = table.slice(table.indexOf(`<tr data-row="${name}">`));
    assert.match(rowHtml, new RegExp(`<td class="mark ${b.verdict}" data-threads="${b.threads}" style="color:#[0-9a-f]{6}" title="[^"]*">${b.verdict}</td><td class="n ${b.verdict}">${b.rqps.estimate.toFixed(2)}</td>`), b.id);
  }
  const s = threadScaling(VERDICT.benchmarks);
  for (const r of s.rows) {
    const start = html.indexOf(`<svg class="chart" data-chart="scaling" data-benchmark="${r.label}"`);
    assert.ok(start > 0, r.label);
    const svg = html.slice(start, html.indexOf('</svg>', start));
    for (const side of ['base', 'head']) {
      assert.match(svg, new RegExp(`<polyline data-side="${side}"`));
      for (const q of r.qps) assert.ok(svg.includes(`<title>${side} at ${q.threads} thread${q.threads === 1 ? '' : 's'}: ${q[side].toFixed(0)} QPS</title>`), `${r.label} ${side} ${q.threads}`);
    }
  }
  assert.doesNotMatch(html, /<script|src="http/);
});

test('a hostile microbenchmark name reaches the thread tables as text only', () => {
  const name = '<img src=x onerror=alert(1)>|**x** @team #1';
  const v = core.judge(results([row(name, 1), row(name, 2)]), LIMITS);
  const html = core.renderReport(v);
  assert.doesNotMatch(html, /<img src=x/);
  assert.ok(html.includes('data-benchmark="&lt;img src=x onerror=alert(1)&gt;|**x** @team #1"'));
  const md = core.renderSummary(v);
  const line = md.split('\n').find((l) => l.startsWith('| ') && l.includes('img') && l.includes('✅ 1.00'));
  assert.equal(line.split(' | ')[0], '| \\<img src=x onerror=alert(1)>\\|\\*\\*x\\*\\* @\u200dteam #\u200d1');
});
