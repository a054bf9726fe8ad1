'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { judge } = require('../../../core/src/verdict');
const { renderComment, GITHUB_COMMENT_LIMIT } = require('../../../core/src/render/comment');
const { renderSummary } = require('../../../core/src/render/summary');
const { renderReport } = require('../../../core/src/render/html');
const { renderVerdictTable } = require('../../../core/src/render/table');

const CONFIG = { limits: { default: { warn: 0.97, fail: 0.93, instructions: { warn: 1.02, fail: 1.04 } } } };
const { capturedResults, loadResults } = require('../../support/captured-results');
const CAPTURED = capturedResults();
const load = (name) => loadResults(CAPTURED.find((c) => c.name === name).file);
const fixtureDirs = CAPTURED.map((c) => c.name);

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
    const groupTitles = lines.filter((l) => /^\*\*(Point queries|Range queries|Writes|AHI cells .*)\*\*$/.test(l));
    assert.ok(groupTitles.length >= 1);
    if (v.benchmarks.some((b) => b.rqps)) assert.match(md, /```mermaid\nxychart-beta horizontal\n/);
    if (v.ahi.length) assert.ok(lines.includes('**AHI gain (QPS with AHI on / off) of each side**'));
    assert.match(md, /<details><summary>Versions, builds, server options, machine, how to reproduce<\/summary>/);
    assert.match(md, /```sh\n(sysbench|# )/);
    assert.ok(md.length <= GITHUB_COMMENT_LIMIT);
  });
}

test('the reports say how the rounds of a pair were run: in turn, or both sides at the same time', () => {
  const inTurn = syntheticResults(2);
  inTurn.plan = { suite: 'quick', measure: { seconds: 2, warmup_seconds: 1, rounds: 4 } };
  const schedule = (name) => ({ ...inTurn, plan: { ...inTurn.plan, measure: { ...inTurn.plan.measure, side_schedule: name } } });
  for (const [results, how] of [[inTurn, 'the sides in turn, A B B A'], [schedule('together'), 'both sides at the same time'],
    [schedule('alternating'), 'the sides alternating every 50 ms']]) {
    const details = how;
    const v = judge(results, CONFIG);
    const md = renderComment(v);
    assert.ok(md.includes(`4 paired rounds per microbenchmark, ${how}.`), how);
    assert.ok(md.includes(`4 rounds per side, ${details}.`), details);
    assert.ok(renderReport(v).includes(`4 paired rounds per microbenchmark, ${how}.`), how);
  }
});

test('comment.md rows are pinned (real quick run, 3 rounds of 1 s on a loaded 2-core VM)', () => {
  const v = judge(load('quick-tiny'), CONFIG);
  const md = renderComment(v);
  assert.ok(md.includes('### ❔ perfgate quick: undecided'));
  assert.ok(md.includes('**Undecided: point-query: could be beyond its fail limit (rQPS 0.52 [0.15, 1.83], fail limit 0.93), points-covered-pk_range=100: could be beyond its fail limit (rQPS 1.07 [0.26, 4.43], fail limit 0.93), read-only_range=10000: could be beyond its fail limit (rQPS 0.87 [0.32, 2.37], fail limit 0.93) and 5 more; more rounds than the budget allows would decide.**'));
  assert.ok(md.includes('| ❔ | point-query | 0.52 | 0.15–1.83 | 1.55 | 1.19 | 0.36 | 1.29 | 4.78 | 3 |'));
  assert.ok(md.includes('| ✅ | random-points_range=1000 | 1.11 | 1.00–1.24 | 0.99 | 0.98 | 23.11 | 20.11 | 0.87 | 3 |'));
  // Reaching the warn limit only: a pass, marked as still open.
  assert.ok(md.includes('| ✅ | range-notcovered-si_range=100 | 1.27 | 0.94–1.71 | 0.87 | 0.83 | 9.56 | 7.96 | 0.83 | 3 |'));
  assert.ok(md.includes('To reproduce `point-query` by hand, start each server with the options above and run:'));
});

test('comment.md of the AHI suite shows each side\'s gain per cell', () => {
  const md = renderComment(judge(load('ahi-tiny'), CONFIG));
  assert.ok(md.includes('| ❔ | point-select | 2 | 0.90 | 0.71 | 0.66 | 0.51 | 0.78 | 0.03–24.21 |'));
});

test('comment.md of a run whose server failed says so and judges nothing', () => {
  const v = judge(load('side-failed'), CONFIG);
  const md = renderComment(v);
  assert.ok(md.includes('### 💥 perfgate detect: error'));
  assert.match(md, /^\*\*Error: no verdict: the base server failed \(init\): base: initializing the datadir failed \(exit code 1\): /m);
  assert.doesNotMatch(md, /```mermaid/);
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
  const v = judge(load('quick-tiny'), CONFIG);
  const md = renderSummary(v);
  assert.ok(md.startsWith('## ❔ perfgate quick: undecided\n'));
  assert.ok(md.includes('- ❔ `point-query`: could be beyond its fail limit: rQPS 0.52 [0.15, 1.83] reaches below the fail limit 0.93 after 3 pairs'));
  assert.ok(md.includes('- ✅ `range-notcovered-si_range=100`: within the fail limit; its interval still reaches the warn limit: rQPS 1.27 [0.94, 1.71] reaches below the warn limit 0.97, not the fail limit 0.93, after 3 pairs'));
  assert.equal(md.split("\n").filter((l) => /^\| (✅|⚠️|❔|❌|💥) \| /.test(l)).length, 10);
});

test('terminal table carries the verdicts and the headline', () => {
  const v = judge(load('quick-tiny'), CONFIG);
  const lines = renderVerdictTable(v).split('\n');
  assert.equal(lines[0], 'perfgate quick: head 10.11.19-MariaDB-0+deb12u1 “head” against base 10.11.18-MariaDB-0+deb12u1 “base”');
  assert.equal(lines[2], 'microbenchmark                 rQPS  95% interval  cpu/o  cs/o  p95 base  p95 head  p95 ratio  pairs  verdict');
  assert.equal(lines[3], 'point-query                    0.52     0.15–1.83   1.55  1.19      0.36      1.29       4.78      3  undecided');
  assert.equal(lines[4], 'random-points_range=1000       1.11     1.00–1.24   0.99  0.98     23.11     20.11       0.87      3  pass');
  assert.ok(lines.includes('Undecided: point-query: could be beyond its fail limit (rQPS 0.52 [0.15, 1.83], fail limit 0.93), points-covered-pk_range=100: could be beyond its fail limit (rQPS 1.07 [0.26, 4.43], fail limit 0.93), read-only_range=10000: could be beyond its fail limit (rQPS 0.87 [0.32, 2.37], fail limit 0.93) and 5 more; more rounds than the budget allows would decide.'));
  assert.ok(lines.includes('  range-notcovered-si_range=100: within the fail limit; its interval still reaches the warn limit: rQPS 1.27 [0.94, 1.71] reaches below the warn limit 0.97, not the fail limit 0.93, after 3 pairs'));
});

test('report.html is self-contained: no external URL, no script', () => {
  for (const d of fixtureDirs) {
    const html = renderReport(judge(load(d), CONFIG));
    assert.doesNotMatch(html, /<script|<link |src="http|href="http|@import/);
    const v = judge(load(d), CONFIG);
    if (v.benchmarks.some((b) => b.rqps)) assert.match(html, /<svg class="chart" data-chart="rqps"/);
    else assert.match(html, /<p>No rQPS to chart\.<\/p>/);
  }
});

test('text from results is escaped in every renderer', () => {
  const r = syntheticResults(1);
  r.benchmarks[0].id = 'a|b<script>';
  r.sides.head.label = '<img src=x onerror=alert(1)>';
  const v = judge(r, CONFIG);
  assert.doesNotMatch(renderReport(v), /<script>|<img src=x/);
  // In markdown the pipe stays in its cell and the tag is text (a backslash before the <).
  assert.ok(renderComment(v).includes('| a\\|b\\<script> |'));
  assert.ok(renderComment(v).includes('“\\<img src=x onerror=alert(1)>”'));
});

test('the reproduce block derives prepare and the head socket from the recorded command', () => {
  const { commandLines } = require('../../../core/src/render/format');
  const cmd = 'sysbench oltp_point_select --mysql-socket=/r/servers/base/mysqld.sock --mysql-db=sbtest --tables=2 run';
  const sides = { base: { options: { socket: '/r/servers/base/mysqld.sock' } }, head: { options: { socket: '/r/servers/head/mysqld.sock' } } };
  assert.deepEqual(commandLines({ command: cmd }, sides), [
    '# load the tables (once per server, after CREATE DATABASE sbtest)',
    'sysbench oltp_point_select --mysql-socket=/r/servers/base/mysqld.sock --mysql-db=sbtest --tables=2 prepare',
    '# one timed round against the base server',
    cmd,
    '# the same against the head server',
    'sysbench oltp_point_select --mysql-socket=/r/servers/head/mysqld.sock --mysql-db=sbtest --tables=2 run',
  ]);
  assert.deepEqual(commandLines({ command: 'sysbench x --time=1' }, sides), ['sysbench x --time=1']);
});

test('the details name each side\'s profile and show an option set without a value as set', () => {
  const results = load('quick-tiny');
  results.sides.head = { ...results.sides.head, flavor: 'mysql', version: '9.7.2', profile: 'mysql',
    options: { ...results.sides.head.options, disable_log_bin: null } };
  const md = renderComment(judge(results, CONFIG));
  assert.ok(md.includes('Server options (profile mariadb / mysql):'), md);
  assert.ok(md.includes('| **disable_log_bin** | – | (set, no value) |'));
  assert.ok(renderComment(judge(load('quick-tiny'), CONFIG)).includes('Server options (profile mariadb):'));
});
