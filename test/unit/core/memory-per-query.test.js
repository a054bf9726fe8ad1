'use strict';
// Memory growth per query: each side's mean and the paired difference head − base in bytes,
// shown everywhere it is worth a line, and a signal that moves a row's verdict where the suite
// sets memory_per_query limits (docs/verdicts.md, "Memory growth per query").
const test = require('node:test');
const assert = require('node:assert/strict');
const { judge } = require('../../../core/src/verdict');
const { assertValid } = require('../../../core/src/schemas');
const { pairedDifferences, differenceInterval, studentTQuantile } = require('../../../core/src/statistics');
const { memoryFigure } = require('../../../core/src/per-query');
const { clause } = require('../../../core/src/verdict-words');
const R = require('../../../core/src/render');
const { resultsDoc } = require('./results-doc');

const MB = 1024 * 1024;
// Six pairs of rounds of 5,000 queries; QPS and CPU the same on both sides, so only memory can
// move the row. `growth(side, index)` is the side's bytes per query in that round.
function rounds(growth, qps = () => 5000) {
  return [0, 1, 2, 3, 4, 5].flatMap((index) => ['base', 'head'].map((side) => ({
    index, side, qps: qps(side, index), cpu_per_query_us: 40, cs_per_query: 1, queries: 5000,
    rss_before_bytes: 200 * MB + index * 10 * MB, rss_bytes: 200 * MB + index * 10 * MB + Math.round(growth(side, index) * 5000),
    hwm_bytes: 300 * MB, memory_growth_per_query: growth(side, index),
  })));
}
const doc = (growth, qps) => resultsDoc([{ id: 'point-query', name: 'point-query', group: 'point', status: 'ok', rounds: rounds(growth, qps) }]);
const LIMITS = { warn: 0.97, fail: 0.93 };
const withMemory = { limits: { default: { ...LIMITS, memory_per_query: { warn: 128, fail: 256 } } } };
const without = { limits: { default: LIMITS } };
// A leak of 1 KiB per query on the head, a few bytes of noise on either side.
const noise = [3, -2, 5, 0, -4, 1];
const leak = (side, i) => (side === 'head' ? 1024 + noise[i] : noise[(i + 2) % 6]);
const same = (side, i) => (side === 'head' ? noise[i] : noise[(i + 3) % 6]);

test('paired differences: head − base by round index, zeros and negatives kept, pairs missing a side left out', () => {
  const r = [
    { index: 0, side: 'base', m: 0 }, { index: 0, side: 'head', m: 1024 },
    { index: 1, side: 'base', m: 10 }, { index: 1, side: 'head', m: -6 },
    { index: 2, side: 'base', m: 4 }, { index: 3, side: 'head', m: 7 }, { index: 4, side: 'base', m: null }, { index: 4, side: 'head', m: 3 },
  ];
  assert.deepEqual(pairedDifferences(r, 'm'), [{ index: 0, difference: 1024 }, { index: 1, difference: -16 }]);
});

test('the difference interval is the mean with a Student-t half width; one pair gives none', () => {
  const i = differenceInterval([1000, 1010, 1030, 1020].map((difference, index) => ({ index, difference })));
  const sd = Math.sqrt(((-15) ** 2 + (-5) ** 2 + 15 ** 2 + 5 ** 2) / 3);
  const half = studentTQuantile(0.975, 3) * sd / 2;
  assert.equal(i.estimate, 1015);
  assert.ok(Math.abs(i.low - (1015 - half)) < 1e-9 && Math.abs(i.high - (1015 + half)) < 1e-9);
  assert.equal(i.n, 4);
  assert.deepEqual(differenceInterval([{ index: 0, difference: 5 }]), { estimate: 5, low: null, high: null, n: 1, sd: null, differences: [5], indices: [0] });
  assert.equal(differenceInterval([]), null);
});

test('the memory figure: means of each side, the paired difference, resident and peak after the last round', () => {
  const m = memoryFigure(rounds(leak));
  assert.ok(Math.abs(m.head - 1024.5) < 1e-9, `head mean ${m.head}`);
  assert.ok(Math.abs(m.difference.estimate - 1024) < 1e-9);
  assert.ok(m.difference.low > 1000 && m.difference.high < 1050);
  assert.deepEqual(m.rss_before_bytes, { base: 200 * MB, head: 200 * MB });
  assert.deepEqual(m.rss_bytes, { base: 250 * MB + Math.round(noise[1] * 5000), head: 250 * MB + Math.round((1024 + noise[5]) * 5000) });
  assert.deepEqual(m.hwm_bytes, { base: 300 * MB, head: 300 * MB });
  assert.equal(m.notable, true);
  assert.equal(memoryFigure(rounds(same)).notable, false, 'a few bytes either way are not worth a line');
  assert.equal(memoryFigure([{ index: 0, side: 'base', qps: 1 }]), null, 'results written before memory was sampled');
});

test('without limits the figure is shown only: a leak with equal QPS passes', () => {
  const v = judge(doc(leak), without);
  assertValid('verdict', v, 'verdict.json');
  const [row] = v.benchmarks;
  assert.equal(row.verdict, 'pass');
  assert.equal(row.memory.verdict, undefined);
  assert.ok(row.memory.difference.estimate > 1000);
});

test('with limits a leak fails its row, and the reason and headline say memory', () => {
  const v = judge(doc(leak), withMemory);
  assertValid('verdict', v, 'verdict.json');
  const [row] = v.benchmarks;
  assert.equal(row.verdict, 'fail');
  assert.equal(row.memory.verdict, 'fail');
  assert.deepEqual(row.decided_by, ['time']);
  assert.match(row.reason, /^memory grows 1,024 B more per query: memory growth per query \+1,024 B \[\+1,0\d\d, \+1,0\d\d\] lies wholly above the fail limit 256 B; rQPS 1\.00/);
  assert.match(v.headline, /^Fail: point-query: memory grows 1,024 B more per query \(memory growth per query \+1,024 B \[.*\], fail limit 256 B\)\.$/);
  assert.equal(v.exit_code, 1);
});

test('with limits an unchanged build passes, and a slower one still fails on rQPS', () => {
  assert.equal(judge(doc(same), withMemory).benchmarks[0].verdict, 'pass');
  const slower = judge(doc(same, (side) => (side === 'head' ? 4000 : 5000)), withMemory).benchmarks[0];
  assert.equal(slower.verdict, 'fail');
  assert.match(slower.reason, /^20% slower: rQPS 0\.80/);
});

test('an interval between the limits warns; one reaching the fail limit leaves the row undecided', () => {
  const warn = judge(doc((side, i) => (side === 'head' ? 190 + noise[i] : 0)), withMemory).benchmarks[0];
  assert.equal(warn.verdict, 'warn');
  assert.match(warn.reason, /lies wholly above the warn limit 128 B, below the fail limit 256 B/);
  const wide = [0, 500, 100, 450, 20, 400];
  const open = judge(doc((side, i) => (side === 'head' ? wide[i] : 0)), withMemory).benchmarks[0];
  assert.equal(open.verdict, 'undecided');
  assert.deepEqual(open.needs, ['time'], 'more rounds narrow it');
  assert.match(open.reason, /memory growth per query \+245 B \[.*\] reaches above the fail limit 256 B after 6 pairs/);
});

test('clause words of memory: signed bytes with thousands marked, limits with their unit', () => {
  const i = { estimate: 1049.4, low: 1010.2, high: 1090, n: 6 };
  assert.equal(clause('memory', i, { warn: 128, fail: 256 }, { best: 'fail', worst: 'fail' }),
    'memory growth per query +1,049 B [+1,010, +1,090] lies wholly above the fail limit 256 B');
  assert.equal(clause('memory', { estimate: -12, low: -30, high: 6, n: 6 }, { warn: 128, fail: 2048 }, { best: 'pass', worst: 'pass' }),
    'memory growth per query -12 B [-30, +6] lies below the warn limit 128 B');
  assert.equal(clause('memory', { estimate: 900, low: null, high: null, n: 1 }, { warn: 128, fail: 256 }, { best: 'pass', worst: 'fail' }),
    'memory growth per query +900 B from 1 pair: an interval needs at least 2');
});

test('reports show a leak\'s memory line; a row that grows like its base shows none', () => {
  const v = judge(doc(leak), without);
  const line = /point-query: memory growth per query head−base \+1,024 B \[\+1,0\d\d, \+1,0\d\d\] \(base \+1 B, head \+1,025 B; resident over the rounds: base 200 MB → 250 MB \(peak 300 MB\), head 200 MB → 255 MB \(peak 300 MB\)\)/;
  assert.match(R.renderVerdictTable(v), line);
  assert.match(R.renderComment(v), /\*\*Memory growth per query\*\*\n\n- ✅ `point-query`: memory growth per query head−base \+1,024 B/);
  const html = R.renderReport(v);
  assert.match(html, /<th>mem B\/o head−base<\/th>/);
  assert.match(html, /data-figure="memory"[^>]*>1024</);
  const csv = R.renderCsv(v).split('\n');
  assert.match(csv[0], /,mem B\/o base,mem B\/o head,mem B\/o head−base,pairs,verdict$/);
  assert.match(csv[1], /,1,1025,1024,6,pass$/);
  const quiet = judge(doc(same), without);
  for (const text of [R.renderVerdictTable(quiet), R.renderComment(quiet)]) assert.doesNotMatch(text, /memory growth per query/);
  const failed = judge(doc(leak), withMemory);
  const lines = R.renderVerdictTable(failed).split('\n');
  assert.ok(lines.some((l) => /^  point-query: memory grows 1,024 B more per query: memory growth per query \+1,024 B .* lies wholly above the fail limit 256 B/.test(l)));
  assert.ok(lines.some((l) => /^  point-query: memory growth per query head−base \+1,024 B/.test(l)));
});
