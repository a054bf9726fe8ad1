'use strict';
// I/O per query (r/o, rKB/o, wKB/o): judged as head/base ratios with intervals, shown in every
// report; 0/0 is shown as "—", never divided.
const test = require('node:test');
const assert = require('node:assert/strict');
const { judge } = require('../../../core/src/verdict');
const { assertValid } = require('../../../core/src/schemas');
const R = require('../../../core/src/render');
const { ioCell } = require('../../../core/src/render/format');
const { capturedResults, loadResults } = require('../../support/captured-results');

const load = (name) => loadResults(capturedResults().find((c) => c.name === name).file);
const CONFIG = { limits: { default: { warn: 0.97, fail: 0.93 } } };
// 10.11.18 against 10.11.19 on this runner: point-query and update-index, 3 rounds of 3 s, the
// tables cached (2 × 1,000 rows).
const real = () => load('io-tiny');

function rounds(io) {
  return [0, 1, 2].flatMap((index) => [
    { index, side: 'base', qps: 1000, cpu_per_query_us: 50, cs_per_query: 1, ...io.base(index) },
    { index, side: 'head', qps: 1000, cpu_per_query_us: 50, cs_per_query: 1, ...io.head(index) },
  ]);
}

function synthetic(io) {
  const r = real();
  r.benchmarks = [{ ...r.benchmarks[1], rounds: rounds(io) }];
  return r;
}

const zero = { device_reads_per_query: 0, read_kb_per_query: 0, write_kb_per_query: 0, device_read_kb_per_query: 0, device_write_kb_per_query: 0 };

test('the verdict of a real run carries each I/O figure: both sides\' means and the paired ratio', () => {
  const v = judge(real(), CONFIG);
  assertValid('verdict', v, 'verdict.json');
  const [point, update] = v.benchmarks;
  // Cached point selects: mysqld read and wrote nothing on either side, so there is no ratio.
  assert.deepEqual(point.io.read_kb_per_query, { base: 0, head: 0, ratio: null });
  assert.deepEqual(point.io.write_kb_per_query, { base: 0, head: 0, ratio: null });
  // Updates write every round: the redo log and the pages flushed.
  const w = update.io.write_kb_per_query;
  assert.equal(w.ratio.n, 3);
  assert.equal(w.base.toFixed(3), '0.274');
  assert.equal(w.head.toFixed(3), '0.289');
  assert.equal(`${w.ratio.estimate.toFixed(2)} ${w.ratio.low.toFixed(2)}–${w.ratio.high.toFixed(2)}`, '1.05 0.91–1.21');
  // The device's figures are there too, for the full report.
  assert.ok(update.io.device_write_kb_per_query.base > 0);
});

test('I/O cells: a ratio, "—" when neither side did that I/O, base→head when only one did', () => {
  assert.equal(ioCell({ base: 0.27, head: 0.29, ratio: { estimate: 1.0534 } }), '1.05');
  assert.equal(ioCell({ base: 0, head: 0, ratio: null }), '—');
  assert.equal(ioCell({ base: 0, head: 0.28, ratio: null }), '0→0.28');
  assert.equal(ioCell({ base: 0.0000737, head: 0, ratio: null }), '0.000074→0');
  assert.equal(ioCell({ base: null, head: 0.5, ratio: null }), '–');
  assert.equal(ioCell(undefined), '–');
});

test('zero-I/O rounds are not divided: the ratio is null and every report shows —', () => {
  const v = judge(synthetic({ base: () => zero, head: () => zero }), CONFIG);
  const io = v.benchmarks[0].io;
  for (const figure of Object.values(io)) assert.deepEqual(figure, { base: 0, head: 0, ratio: null });
  assertValid('verdict', v, 'verdict.json');
  const row = '| ❔ | update-index_range=100 | 1.00 | 1.00–1.00 | 1.00 | 1.00 | — | — | — | 3 |';
  assert.ok(R.renderComment(v).includes(row.replace('❔', '✅')), R.renderComment(v));
  assert.ok(R.renderSummary(v).includes(row.replace('❔', '✅')));
  assert.match(R.renderVerdictTable(v), /^update-index_range=100 +1\.00 +1\.00–1\.00 +1\.00 +1\.00 +— +— +— +3 +pass$/m);
  assert.match(R.renderReport(v), /<td class="n" data-figure="read_kb_per_query" title="base 0, head 0 per query">—<\/td>/);
});

test('a head that starts reading where the base read nothing shows as 0→x, not as a missing ratio', () => {
  const v = judge(synthetic({ base: () => zero, head: () => ({ ...zero, read_kb_per_query: 0.28 }) }), CONFIG);
  assert.deepEqual(v.benchmarks[0].io.read_kb_per_query, { base: 0, head: 0.28, ratio: null });
  assert.ok(R.renderComment(v).includes('| 1.00 | 1.00 | — | 0→0.28 | — | 3 |'));
});

test('every report of a real run has the r/o, rKB/o and wKB/o columns and says what they are', () => {
  const v = judge(real(), CONFIG);
  const comment = R.renderComment(v);
  assert.ok(comment.includes('| | microbenchmark | rQPS | 95% interval | cpu/o | cs/o | r/o | rKB/o | wKB/o | p95 base | p95 head | p95 ratio | pairs |'));
  assert.ok(comment.includes('| ❔ | point-query | 1.19 | 0.48–2.97 | 0.85 | 1.00 | 2.03 | — | — | 1.93 | 1.05 | 0.44 | 3 |'));
  assert.ok(comment.includes('| ❔ | update-index_range=100 | 1.07 | 0.89–1.29 | 1.00 | 0.96 | 0.21 | 0.000074→0 | 1.05 | 1.81 | 1.55 | 0.81 | 3 |'));
  assert.ok(comment.includes('rKB/o and wKB/o = head/base KB mysqld itself read from storage and wrote per query (/proc/<pid>/io); — = neither side did that I/O'));
  assert.ok(R.renderSummary(v).includes('| ❔ | update-index_range=100 | 1.07 | 0.89–1.29 | 1.00 | 0.96 | 0.21 | 0.000074→0 | 1.05 | 1.81 | 1.55 | 0.81 | 3 |'));
  const table = R.renderVerdictTable(v).split('\n');
  assert.equal(table[2], 'microbenchmark          rQPS  95% interval  cpu/o  cs/o   r/o       rKB/o  wKB/o  p95 base  p95 head  p95 ratio  pairs  verdict');
  assert.equal(table[4], 'update-index_range=100  1.07     0.89–1.29   1.00  0.96  0.21  0.000074→0   1.05      1.81      1.55       0.81      3  undecided');
  const html = R.renderReport(v);
  assert.match(html, /<th>cs\/o<\/th><th>r\/o<\/th><th>rKB\/o<\/th><th>wKB\/o<\/th><th>device rKB\/o<\/th><th>device wKB\/o<\/th><th>p95 base<\/th><th>p95 head<\/th><th>p95 ratio<\/th><\/tr>/);
  assert.match(html, /data-figure="write_kb_per_query" title="base 0\.27, head 0\.29 per query; 95% interval 0\.91–1\.21">1\.05</);
  const signoff = R.renderSignoff(v, { candidate: { ref: 'v2', sha: 'a'.repeat(40) }, previous: { ref: 'v1', sha: 'b'.repeat(40) } });
  assert.ok(signoff.files['signoff.md'].includes('| 1.00 | 0.96 | 0.21 | 0.000074→0 | 1.05 | 1.81 | 1.55 | 0.81 | 3 | undecided |'));
  assert.match(signoff.files['signoff.html'], /<th>cs\/o<\/th><th>r\/o<\/th><th>rKB\/o<\/th><th>wKB\/o<\/th>/);
});

test('the table of a run that broke off before judging shows the I/O columns too', () => {
  const text = R.renderTerminal(real());
  assert.match(text, /^microbenchmark +rQPS +95% interval +cpu\/o +cs\/o +r\/o +rKB\/o +wKB\/o +p95 base +p95 head +p95 ratio +pairs$/m);
  assert.match(text, /^point-query +1\.19 +0\.48–2\.97 +0\.85 +1\.00 +2\.03 +— +— +1\.93 +1\.05 +0\.44 +3$/m);
});

test('results written before I/O was sampled: io is null and no report grows I/O columns', () => {
  const v = judge(load('quick-tiny'), CONFIG);
  assert.ok(v.benchmarks.every((b) => b.io === null));
  assertValid('verdict', v, 'verdict.json');
  assert.ok(R.renderComment(v).includes('| | microbenchmark | rQPS | 95% interval | cpu/o | cs/o | p95 base | p95 head | p95 ratio | pairs |'));
  assert.doesNotMatch(R.renderReport(v), /rKB\/o/);
  assert.doesNotMatch(R.renderTerminal(load('quick-tiny')), /rKB\/o/);
});

test('a suite\'s wKB/o limits decide the ratio and say why; the decision is in verdict.json', () => {
  const limits = { default: { warn: 0.97, fail: 0.93, write_kb_per_query: { warn: 1.02, fail: 1.04 } } };
  const writes = (kb) => () => ({ ...zero, write_kb_per_query: kb });
  const v = judge(synthetic({ base: writes(1), head: (i) => ({ ...zero, write_kb_per_query: [1.5, 1.52, 1.48][i] }) }), { limits });
  assertValid('verdict', v, 'verdict.json');
  const w = v.benchmarks[0].io.write_kb_per_query;
  assert.equal(w.verdict, 'fail');
  assert.equal(w.reason, 'wKB/o 1.50 [1.45, 1.55] lies wholly above the fail limit 1.04');
  assert.deepEqual(v.limits.default.write_kb_per_query, { warn: 1.02, fail: 1.04 });
  assert.match(R.renderReport(v), /<td class="n fail" data-figure="write_kb_per_query" title="base 1, head 1\.5 per query; 95% interval 1\.45–1\.55; wKB\/o 1\.50 \[1\.45, 1\.55\] lies wholly above the fail limit 1\.04">1\.50</);
  // Without limits there is no decision, only the figure.
  assert.equal(judge(synthetic({ base: writes(1), head: writes(1.5) }), CONFIG).benchmarks[0].io.write_kb_per_query.verdict, undefined);
});

test('an I/O limit with warn above fail is refused, naming the benchmark', () => {
  const limits = { default: { warn: 0.97, fail: 0.93, read_kb_per_query: { warn: 1.3, fail: 1.1 } } };
  assert.throws(() => judge(real(), { limits }), { message: "read_kb_per_query limits for 'point-query': expected {warn, fail} with 0 < warn <= fail, got {\"warn\":1.3,\"fail\":1.1}" });
});

test('p95 latency of each side and the head/base ratio, from the rounds sysbench reported', () => {
  const v = judge(real(), CONFIG);
  const p95 = v.benchmarks[0].latency_p95_ms;
  // point-query base rounds: 1.27, 1.86, 2.66 ms; head rounds: 0.34, 2.0, 0.81 ms.
  assert.equal(p95.base.toFixed(4), ((1.27 + 1.86 + 2.66) / 3).toFixed(4));
  assert.equal(p95.head.toFixed(4), ((0.34 + 2.0 + 0.81) / 3).toFixed(4));
  const geo = Math.exp((Math.log(0.34 / 1.27) + Math.log(2.0 / 1.86) + Math.log(0.81 / 2.66)) / 3);
  assert.equal(p95.ratio.estimate.toFixed(6), geo.toFixed(6));
  assert.match(R.renderReport(v), /<td class="n" data-figure="latency_p95_ms" title="base 1\.9, head 1\.1 ms; 95% interval 0\.07–3\.00">0\.44<\/td>/);
  assert.ok(R.renderComment(v).includes('p95 base, p95 head = sysbench\'s 95th percentile latency in ms, the mean of each side\'s rounds; p95 ratio = head/base, paired by round (above 1 = head slower to answer).'));
  // Rounds without latency (hand-made results) leave the columns out.
  const bare = real();
  for (const b of bare.benchmarks) for (const r of b.rounds) delete r.latency_ms;
  const w = judge(bare, CONFIG);
  assert.equal(w.benchmarks[0].latency_p95_ms, null);
  assert.doesNotMatch(R.renderComment(w), /p95/);
});
