'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { judge } = require('../src/judge');
const { renderComment, GITHUB_COMMENT_LIMIT } = require('../src/render/comment');
const { renderSummary } = require('../src/render/summary');
const { renderReport } = require('../src/render/html');
const { renderVerdictTable } = require('../src/render/table');

const CONFIG = { limits: { default: { warn: 0.97, fail: 0.93 } } };
const FIXTURES = path.join(__dirname, '../../test/fixtures/results');
const load = (d) => JSON.parse(fs.readFileSync(path.join(FIXTURES, d, 'results.json'), 'utf8'));
const fixtureDirs = fs.readdirSync(FIXTURES).filter((d) => fs.existsSync(path.join(FIXTURES, d, 'results.json')));

function syntheticResults(count, { ratio = () => 1, group = () => 'point' } = {}) {
  return {
    schema: 'perfgate.results/v1', plan: { suite: 'full' }, status: 'ok', errors: [],
    machine: { cpu_model: 'cpu', cores: 2, memory_bytes: 2 ** 34, kernel: 'k', id: 'm' },
    sides: { base: { basedir: '/b', flavor: 'mariadb', version: '10.11.18' }, head: { basedir: '/h', flavor: 'mariadb', version: '10.11.19' } },
    benchmarks: Array.from({ length: count }, (_, k) => ({
      id: `bench-${String(k).padStart(4, '0')}_range=100`, name: `bench-${k}`, group: group(k), status: 'ok',
      command: `sysbench oltp_read_only --tables=8 --table-size=10000 run # ${k}`,
      rounds: [0, 1, 2, 3].flatMap((i) => [
        { index: i, side: 'base', qps: 1000 + i, cpu_per_query_us: 50, cs_per_query: 1 },
        { index: i, side: 'head', qps: (1000 + i) * ratio(k) * (1 + (i % 2 ? 0.004 : -0.004)), cpu_per_query_us: 50, cs_per_query: 1 },
      ]),
    })),
  };
}

for (const d of fixtureDirs) {
  test(`comment.md of fixture ${d}: marker, headline, one row per microbenchmark grouped, chart, details`, () => {
    const v = judge(load(d), CONFIG);
    const md = renderComment(v, { reportLink: 'https://example.invalid/artifact' });
    const lines = md.split('\n');
    assert.equal(lines[0], `<!-- perfgate:comment suite=${v.suite} -->`);
    assert.ok(lines.includes(`**${v.headline}**`));
    for (const b of v.benchmarks) assert.equal(lines.filter((l) => l.includes(`| ${b.id} |`) || l.includes(`| ${b.id} — `)).length, 1, b.id);
    const groupTitles = lines.filter((l) => /^\*\*(Point queries|Range queries|Writes)\*\*$/.test(l));
    assert.ok(groupTitles.length >= 1);
    assert.match(md, /```mermaid\nxychart-beta horizontal\n/);
    assert.match(md, /<details><summary>Versions, server options, machine, how to reproduce<\/summary>/);
    assert.match(md, /```sh\n(sysbench|# )/);
    assert.ok(md.length <= GITHUB_COMMENT_LIMIT);
  });
}

test('comment.md rows are pinned', () => {
  const v = judge(load('handmade'), CONFIG);
  const md = renderComment(v);
  assert.ok(md.includes('| ❌ | update-index_range=100 | 0.55 | 0.55–0.55 | 1.39 | 1.04 | 4 |'));
  assert.ok(md.includes('| ❔ | scan_range=100 | 0.95 | 0.90–1.00 | 1.05 | 1.04 | 4 |'));
  assert.ok(md.includes('### ❌ perfgate quick: fail'));
});

test('comment.md never exceeds 65,536 characters: rows are dropped, the worst kept, and it says where the full report is', () => {
  const r = syntheticResults(1500, { ratio: (k) => (k === 1234 ? 0.5 : 1) });
  const v = judge(r, CONFIG);
  assert.equal(v.verdict, 'fail');
  const full = renderComment(v, { limit: Infinity });
  assert.ok(full.length > GITHUB_COMMENT_LIMIT, `the test needs an oversized comment, got ${full.length}`);
  const md = renderComment(v, { reportLink: 'the perfgate-full artifact' });
  assert.ok(md.length <= GITHUB_COMMENT_LIMIT, `${md.length}`);
  assert.ok(md.includes('| ❌ | bench-1234_range=100 |'), 'the failing row is kept');
  const note = /_(\d+) of 1500 rows are left out to fit GitHub's comment size; the full report is the perfgate-full artifact._/.exec(md);
  assert.ok(note, 'says how many rows are left out and where the full report is');
  const rows = md.split('\n').filter((l) => /^\| (✅|❌) \| bench-/.test(l)).length;
  assert.equal(rows + Number(note[1]), 1500);
});

test('summary.md lists every row and why each non-pass verdict was given', () => {
  const v = judge(load('handmade'), CONFIG);
  const md = renderSummary(v);
  assert.ok(md.startsWith('## ❌ perfgate quick: fail\n'));
  assert.ok(md.includes('- ❌ `update-index_range=100`: rQPS 0.55 [0.55, 0.55] lies wholly below the fail limit 0.93'));
  assert.ok(md.includes('- ❔ `scan_range=100`: rQPS 0.95 [0.90, 1.00] straddles the fail limit 0.93'));
});

test('terminal table carries the verdicts and the headline', () => {
  const v = judge(load('handmade'), CONFIG);
  const text = renderVerdictTable(v);
  const lines = text.split('\n');
  assert.equal(lines[2], 'microbenchmark          rQPS  95% interval  cpu/o  cs/o  pairs  verdict');
  assert.equal(lines[3], 'point-query             1.00     0.99–1.02   1.00  1.04      4  pass');
  assert.equal(lines[5], 'update-index_range=100  0.55     0.55–0.55   1.39  1.04      4  fail');
  assert.ok(lines.includes('FAIL: Slower: update-index_range=100 45% slower (rQPS 0.55 [0.55, 0.55]); 1 undecided.'));
});

test('report.html is self-contained: no external URL, no script', () => {
  for (const d of fixtureDirs) {
    const html = renderReport(judge(load(d), CONFIG));
    assert.doesNotMatch(html, /<script|<link |src="http|href="http|@import/);
    assert.match(html, /<svg class="chart" data-chart="rqps"/);
  }
});

test('text from results is escaped in every renderer', () => {
  const r = syntheticResults(1);
  r.benchmarks[0].id = 'a|b<script>';
  r.sides.head.label = '<img src=x onerror=alert(1)>';
  const v = judge(r, CONFIG);
  assert.doesNotMatch(renderReport(v), /<script>|<img src=x/);
  assert.ok(renderComment(v).includes('| a\\|b<script> |'));
});
