'use strict';
// A chain of versions against one base: each head judged by the one judge() on its own view
// of the results, and the chain table in the posts' layout (comment, summary, HTML, CSV, TSV).
const test = require('node:test');
const assert = require('node:assert/strict');
const core = require('../../../core');
const { headView } = require('../../../core/src/chain');

const CONFIG = { limits: { default: { warn: 0.97, fail: 0.93 } } };
const { chainResults, captured } = require('../../support/chain-results');

test('each head of a chain is judged exactly as the head of a two-sided comparison', () => {
  const r = chainResults();
  const chain = core.judgeChain(r, CONFIG);
  const twoSided = core.judge(captured(), CONFIG);
  assert.deepEqual(chain.heads[0].verdict, twoSided);
  assert.deepEqual(chain.heads.map((h) => h.side), ['head', 'head2']);
  assert.equal(chain.heads[1].verdict.run.sides.head.version, '11.8.9-MariaDB');
  assert.equal(chain.heads[1].verdict.benchmarks[0].rqps.estimate.toFixed(3), (twoSided.benchmarks[0].rqps.estimate / 2).toFixed(3));
  // The view holds the base's rounds and that head's, renamed head; nothing of the other heads.
  const view = headView(r, 'head2');
  assert.deepEqual([...new Set(view.benchmarks[0].rounds.map((x) => x.side))], ['base', 'head']);
  assert.deepEqual(Object.keys(view.sides), ['base', 'head']);
});

test('the chain\'s verdict and exit code are its worst head\'s; the headline names each column', () => {
  const chain = core.judgeChain(chainResults(), CONFIG);
  assert.deepEqual(chain.heads.map((h) => h.verdict.verdict), ['undecided', 'fail']);
  assert.equal(chain.verdict, 'fail');
  assert.equal(chain.exit_code, core.EXIT.fail);
  assert.match(chain.headline, /^col-1 \(10\.11\.19-MariaDB-0\+deb12u1\): Undecided: .* col-2 \(11\.8\.9-MariaDB\): Fail: /);
  assert.equal(core.schemaProblem('chain', chain), null);
});

test('the chain table: one row per microbenchmark, one column per version, grouped as every report', () => {
  const table = core.chainTable(core.judgeChain(chainResults(), CONFIG));
  assert.deepEqual(table.columns.map((c) => [c.name, c.side, c.server.version, c.verdict]),
    [['col-1', 'head', '10.11.19-MariaDB-0+deb12u1', 'undecided'], ['col-2', 'head2', '11.8.9-MariaDB', 'fail']]);
  assert.deepEqual(table.groups.map((g) => [g.title, g.rows.map((row) => row.id)]),
    [['Point queries', ['point-query']], ['Writes', ['update-index_range=100']]]);
  assert.deepEqual(table.figures.map((f) => f.label), ['r/o', 'rKB/o', 'wKB/o']);
  assert.equal(table.p95, true);
  assert.deepEqual(table.groups.map((g) => g.rows[0].cells.map((c) => c.verdict)), [['undecided', 'undecided'], ['undecided', 'fail']]);
});

test('chain.csv and chain.tsv: the columns of every version, r/o, rKB/o, wKB/o and p95 among them', () => {
  const chain = core.judgeChain(chainResults(), CONFIG);
  const files = core.renderChainReports(chain);
  assert.deepEqual(Object.keys(files), ['comment.md', 'summary.md', 'report.html', 'chain.csv', 'chain.tsv']);
  const [header, point, update, end] = files['chain.csv'].split('\n');
  const col = (n, version) => [`${n} ${version} rQPS`, `${n} ${version} rQPS low`, `${n} ${version} rQPS high`, `${n} ${version} verdict`,
    `${n} ${version} r/o`, `${n} ${version} rKB/o`, `${n} ${version} wKB/o`, `${n} ${version} p95 ms`];
  assert.deepEqual(header.split(','), ['microbenchmark', 'threads', 'base p95 ms',
    ...col('col-1', '10.11.19-MariaDB-0+deb12u1 “10.11.19”'), ...col('col-2', '11.8.9-MariaDB “head2”')]);
  // The figures of col-1 are those of the two-sided results.csv; col-2 is half as fast and
  // reads twice as much.
  assert.equal(point, 'point-query,2,1.93,1.19,0.48,2.97,undecided,2.03,—,—,1.05,0.60,0.24,1.49,undecided,4.07,—,—,2.10');
  assert.equal(update, 'update-index_range=100,2,1.81,1.07,0.89,1.29,undecided,0.21,0.000074→0,1.05,1.55,0.54,0.44,0.65,fail,0.42,0.000074→0,1.05,3.11');
  assert.equal(end, '');
  assert.equal(files['chain.tsv'].split('\n')[1], point.split(',').join('\t'));
});

test('comment.md and summary.md in the posts\' layout: "Throughput relative to", col-1, col-2, rQPS with its interval', () => {
  const chain = core.judgeChain(chainResults(), CONFIG);
  const { 'comment.md': comment, 'summary.md': summary } = core.renderChainReports(chain);
  const lines = comment.split('\n');
  assert.equal(lines[0], core.commentMarker('quick'));
  assert.equal(lines[1], '### ❌ perfgate quick: chain of 2 versions: fail');
  assert.equal(lines[3], 'Throughput relative to: base 10\\.11.18-MariaDB-0+deb12u1 “10.11.18”');
  assert.match(lines[5], /^- col-1: 10\\\.11\.19-MariaDB-0\+deb12u1 “10\.11\.19” — ❔ undecided: Undecided: /);
  assert.match(lines[6], /^- col-2: 11\\\.8\.9-MariaDB “head2” — ❌ fail: Fail: update-index_range=100: 46% slower /);
  assert.ok(comment.includes('**Writes**\n\n| microbenchmark | col-1 | col-2 |\n|:--|--:|--:|\n| update-index_range=100 | ❔ 1.07 (0.89–1.29) | ❌ 0.54 (0.44–0.65) |'), comment);
  assert.ok(comment.includes('**r/o, relative to the base**\n\n| microbenchmark | col-1 | col-2 |\n|:--|--:|--:|\n| point-query | 2.03 | 4.07 |'));
  assert.ok(comment.includes('**p95 latency (ms)**\n\n| microbenchmark | base | col-1 | col-2 |\n|:--|--:|--:|--:|\n| point-query | 1.93 | 1.05 | 2.10 |'));
  assert.ok(summary.startsWith('## ❌ perfgate quick: chain of 2 versions: fail\n'));
  assert.match(summary, /\*\*Why \(col-2\)\*\*\n\n- ❔ `point-query`: could be beyond its fail limit: rQPS 0\.60 .*\n- ❌ `update-index_range=100`: 46% slower: rQPS 0\.54 /);
  assert.ok(comment.includes('p95 latency = sysbench\'s 95th percentile latency in ms, the mean of each version\'s rounds.'));
});

test('report.html: the chain table, one chart per group with a line per microbenchmark and version, links to each version\'s report', () => {
  const html = core.renderChainReports(core.judgeChain(chainResults(), CONFIG))['report.html'];
  assert.equal((html.match(/<svg class="chart" data-chart="rqps"/g) || []).length, 2);
  assert.ok(html.includes('data-benchmark="point-query · col-1"') && html.includes('data-benchmark="point-query · col-2"'));
  assert.ok(html.includes('<a href="heads/head2/report.html">'));
  assert.ok(html.includes('<th>r/o col-1</th><th>r/o col-2</th>'));
  assert.ok(html.includes('<th>p95 ms base</th><th>p95 ms col-1</th><th>p95 ms col-2</th>'));
});

test('a version name from a hostile results file stays text in every report', () => {
  const r = chainResults();
  r.sides.head2.version = '<img src=x onerror=alert(1)>|@team #1';
  const files = core.renderChainReports(core.judgeChain(r, CONFIG));
  assert.ok(!files['report.html'].includes('<img'));
  assert.ok(!/[^\\]\|@team/.test(files['comment.md'].split('\n')[6]));
  assert.ok(!files['comment.md'].includes('@team'), 'a mention is broken by a joiner');
});

test('the next step of a chain: the earliest action any head needs, for the rows every head needs it for', () => {
  const r = chainResults();
  const chain = core.judgeChain(r, CONFIG);
  const budget = { extra_rounds: 4, step_rounds: 2, confirm_rounds: 3 };
  const step = core.chainStep(chain, budget, { extra_rounds: 0, confirmed: [] }, r.plan);
  // col-1 leaves both rows open on time; col-2 too: one extension of both rows, on every side.
  assert.deepEqual(step, { action: 'extend', ids: ['point-query', 'update-index_range=100'], plan_ids: ['point-query', 'update-index_range=100'], rounds: 2 });
  const spent = core.chainStep(chain, budget, { extra_rounds: 4, confirmed: [] }, r.plan);
  assert.equal(spent.action, 'confirm');
  assert.deepEqual(spent.ids, chain.heads[1].verdict.failed);
  const done = core.chainStep(chain, budget, { extra_rounds: 4, confirmed: spent.ids }, r.plan);
  assert.equal(done.action, 'done');
});

test('bad heads are refused naming --head: the base again, a head twice, more than the limit', () => {
  const side = (basedir) => ({ basedir });
  assert.deepEqual(Object.keys(core.chainSides(side('/a'), [side('/b'), side('/c')], 'basedir')), ['base', 'head', 'head2']);
  assert.throws(() => core.chainSides(side('/a'), [side('/b'), side('/a')], 'basedir'),
    { name: 'UsageError', message: "--head '/a': the same basedir as --base; expected a version other than the base" });
  assert.throws(() => core.chainSides(side('/a'), [side('/b'), side('/c'), side('/b')], 'basedir'),
    { message: "--head '/b': given twice (head 1 and head 3); expected each version once" });
  assert.throws(() => core.chainSides(side('/a'), ['/1', '/2', '/3', '/4', '/5', '/6'].map(side), 'basedir'),
    { message: '--head: 6 heads given; expected at most 5 (every head is a server running beside the others, and every round runs on each of them)' });
});
