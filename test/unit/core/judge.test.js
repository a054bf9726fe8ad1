'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const fs = require('node:fs');
const { judge, worst } = require('../../../core/src/verdict');
const { clause } = require('../../../core/src/verdict-words');
const { signalRange, settledVerdict } = require('../../../core/src/row-verdict');
const { UsageError } = require('../../../core/src/errors');

const LIMITS = { warn: 0.97, fail: 0.93 };
const CONFIG = { limits: { default: LIMITS } };

// Builds a results document from per-round QPS pairs in A B B A order: a compact way to state
// table cases. Captured results from real runs are checked in test/fixtures/results/.
function results(benchmarks, extra = {}) {
  return {
    schema: 'perfgate.results/v1',
    plan: { suite: 'quick', ...extra.plan, benchmarks: benchmarks.map(([id]) => ({ id })) },
    status: 'ok',
    errors: [],
    machine: { cpu_model: 'x', cores: 2, memory_bytes: 1, kernel: 'k', id: 'machine-a' },
    sides: { base: { basedir: '/b', flavor: 'mariadb', version: '10.11.18' }, head: { basedir: '/h', flavor: 'mariadb', version: '10.11.19' } },
    benchmarks: benchmarks.map(([id, pairs, more = {}]) => ({
      id, name: id, group: 'point', status: 'ok',
      rounds: pairs.flatMap(([b, h], index) => [
        { index, side: 'base', qps: b, errors: 0, cpu_per_query_us: 100, cs_per_query: 1 },
        { index, side: 'head', qps: h, errors: 0, cpu_per_query_us: 100 / (h / b), cs_per_query: 1 },
      ]),
      ...more,
    })),
    ...extra,
    plan: { suite: 'quick', ...extra.plan, benchmarks: benchmarks.map(([id]) => ({ id })) },
  };
}
const pairsOf = (ratios) => ratios.map((r) => [1000, 1000 * r]);

// Each row: ratios of the paired rounds -> verdict and the line reports print.
const TABLE = [
  ['clear pass', [1.0, 1.01, 0.99, 1.0], 'pass', 'within limits: rQPS 1.00 [0.99, 1.01] lies above the warn limit 0.97'],
  ['improvement', [1.9, 1.92, 1.88, 1.91], 'pass', 'within limits: rQPS 1.90 [1.88, 1.93] lies above the warn limit 0.97'],
  ['small slowdown', [0.95, 0.96, 0.95, 0.96], 'warn', '5% slower: rQPS 0.95 [0.95, 0.96] lies wholly below the warn limit 0.97, above the fail limit 0.93'],
  // Noise alone must not warn: an interval that only reaches the warn limit is a pass, marked open.
  ['straddles warn only', [0.96, 1.0, 0.98, 0.97], 'pass', 'within the fail limit; its interval still reaches the warn limit: rQPS 0.98 [0.95, 1.00] reaches below the warn limit 0.97, not the fail limit 0.93, after 4 pairs'],
  ['update-index regression', [0.55, 0.56, 0.54, 0.55], 'fail', '45% slower: rQPS 0.55 [0.54, 0.56] lies wholly below the fail limit 0.93'],
  ['straddles fail', [0.9, 0.97, 0.92, 0.95], 'undecided', 'could be beyond its fail limit: rQPS 0.93 [0.89, 0.99] reaches below the fail limit 0.93 after 4 pairs'],
  ['one outlier', [1.01, 0.99, 1.02, 0.62], 'undecided', 'could be beyond its fail limit: rQPS 0.89 [0.61, 1.31] reaches below the fail limit 0.93 after 4 pairs'],
  ['two rounds', [0.99, 1.01], 'undecided', 'could be beyond its fail limit: rQPS 1.00 [0.88, 1.14] reaches below the fail limit 0.93 after 2 pairs'],
  ['identical values', [1, 1, 1, 1], 'pass', 'within limits: rQPS 1.00 [1.00, 1.00] lies above the warn limit 0.97'],
  ['identical at the fail limit', [0.93, 0.93], 'warn', '7% slower: rQPS 0.93 [0.93, 0.93] lies wholly below the warn limit 0.97, above the fail limit 0.93'],
  ['wholly below warn, reaching fail', [0.92, 0.95, 0.935, 0.945, 0.93, 0.955], 'undecided', '6% slower, could be beyond its fail limit: rQPS 0.94 [0.93, 0.95] lies wholly below the warn limit 0.97 and reaches below the fail limit 0.93 after 6 pairs'],
  ['one round', [0.5], 'undecided', 'could be beyond its fail limit: rQPS 0.50 from 1 pair: an interval needs at least 2'],
];

for (const [name, ratios, verdict, line] of TABLE) {
  test(`verdict table: ${name}`, () => {
    const v = judge(results([['b', pairsOf(ratios)]]), CONFIG);
    assert.equal(v.benchmarks[0].verdict, verdict);
    assert.equal(v.benchmarks[0].reason, line);
    assert.equal(v.verdict, verdict);
  });
}

test('an interval\'s settled verdict: boundaries are pinned (fail strictly below, pass at or above warn)', () => {
  const at = (low, high) => settledVerdict(signalRange({ low, high, n: 4 }, LIMITS, { higherIsWorse: false }));
  assert.equal(at(0.5, 0.9299), 'fail');
  assert.equal(at(0.5, 0.93), 'undecided');
  assert.equal(at(0.93, 0.99), 'pass'); // open: reaches the warn limit only
  assert.equal(at(0.93, 0.969), 'warn');
  assert.equal(at(0.97, 0.99), 'pass');
  assert.equal(at(0.9299, 1.2), 'undecided');
});

test('overall verdict precedence: error > fail > undecided > warn > pass', () => {
  assert.equal(worst(['pass', 'warn']), 'warn');
  assert.equal(worst(['warn', 'undecided', 'pass']), 'undecided');
  assert.equal(worst(['undecided', 'fail']), 'fail');
  assert.equal(worst(['fail', 'error', 'pass']), 'error');
  assert.equal(worst([]), 'pass');
});

const HEADLINES = [
  ['all pass', [['a', [1, 1.01, 0.99, 1]], ['b', [1.02, 1, 1.01, 1]]], 'pass', 0,
    'Pass: all 2 comparisons within their limits.'],
  ['one fail, one undecided', [['update-index_range=100', [0.55, 0.56, 0.54, 0.55]], ['scan_range=100', [0.9, 0.97, 0.92, 0.95]], ['point-query', [1, 1, 1, 1]]], 'fail', 1,
    'Fail: update-index_range=100: 45% slower (rQPS 0.55 [0.54, 0.56], fail limit 0.93); undecided: scan_range=100: could be beyond its fail limit (rQPS 0.93 [0.89, 0.99], fail limit 0.93).'],
  ['many fails', [['a', [0.5, 0.5]], ['b', [0.6, 0.6]], ['c', [0.7, 0.7]], ['d', [0.8, 0.8]], ['e', [0.85, 0.85]]], 'fail', 1,
    'Fail: a: 50% slower (rQPS 0.50 [0.50, 0.50], fail limit 0.93), b: 40% slower (rQPS 0.60 [0.60, 0.60], fail limit 0.93), c: 30% slower (rQPS 0.70 [0.70, 0.70], fail limit 0.93) and 2 more.'],
  ['undecided', [['scan_range=100', [0.9, 0.97, 0.92, 0.95]], ['point-query', [1, 1, 1, 1]]], 'undecided', 3,
    'Undecided: scan_range=100: could be beyond its fail limit (rQPS 0.93 [0.89, 0.99], fail limit 0.93); more rounds than the budget allows would decide.'],
  ['warn', [['insert_range=100', [0.95, 0.96, 0.95, 0.96]], ['point-query', [1, 1, 1, 1]]], 'warn', 0,
    'Warn: insert_range=100: 5% slower (rQPS 0.95 [0.95, 0.96], warn limit 0.97).'],
  // The headline never says nothing got slower while an interval still reaches a limit.
  ['pass with an interval reaching the warn limit', [['insert_range=100', [0.96, 1.06, 1.0, 1.04]], ['point-query', [1, 1, 1, 1]]], 'pass', 0,
    'Pass: all 2 comparisons within their fail limits; insert_range=100: its interval still reaches the warn limit (rQPS 1.01 [0.95, 1.09], warn limit 0.97).'],
];

for (const [name, benches, verdict, exit, line] of HEADLINES) {
  test(`headline: ${name}`, () => {
    const v = judge(results(benches.map(([id, r]) => [id, pairsOf(r)])), CONFIG);
    assert.equal(v.verdict, verdict);
    assert.equal(v.exit_code, exit);
    assert.equal(v.headline, line);
  });
}

test('a benchmark with errors is "error" and the run is error', () => {
  const r = results([['point-query', pairsOf([1, 1, 1, 1])], ['insert_range=100', pairsOf([0.5, 0.5]), { status: 'error', error: { side: 'head', step: 'round', message: 'sysbench exited 1: Lost connection to server' } }]]);
  r.status = 'error';
  const v = judge(r, CONFIG);
  assert.equal(v.benchmarks[1].verdict, 'error');
  assert.equal(v.benchmarks[1].reason, 'head round: sysbench exited 1: Lost connection to server');
  assert.equal(v.benchmarks[1].rqps, null);
  assert.equal(v.verdict, 'error');
  assert.equal(v.exit_code, 4);
  assert.equal(v.headline, 'Error: no verdict for insert_range=100 (head round: sysbench exited 1: Lost connection to server): the measurement failed.');
});

test('query errors inside a round make the benchmark "error"', () => {
  const r = results([['point-query', pairsOf([1, 1, 1, 1])]]);
  r.benchmarks[0].rounds[3].errors = 12;
  const v = judge(r, CONFIG);
  assert.equal(v.benchmarks[0].verdict, 'error');
  assert.equal(v.benchmarks[0].reason, 'head round 1: sysbench reported 12 query errors');
});

test('a failed side is never judged', () => {
  const r = results([['point-query', pairsOf([1, 1, 1, 1])]]);
  r.status = 'error';
  r.errors = [{ side: 'head', benchmark: null, step: 'start', message: 'mysqld exited with code 1 before accepting connections' }];
  const v = judge(r, CONFIG);
  assert.equal(v.verdict, 'error');
  assert.equal(v.benchmarks[0].verdict, 'error');
  assert.equal(v.headline, 'Error: no verdict: the head server failed (start): mysqld exited with code 1 before accepting connections.');
});

test('results from different machines are refused unless allowed', () => {
  const a = results([['p', pairsOf([1, 1])]]);
  const b = results([['p', pairsOf([1, 1]).map((x) => x)]]);
  b.benchmarks[0].rounds.forEach((r) => { r.index += 2; });
  b.machine.id = 'machine-b';
  assert.throws(() => judge([a, b], CONFIG), (e) => e instanceof UsageError && e.exitCode === 2 &&
    e.message === `results #2: key 'machine.id' is "machine-b" but results #1 has "machine-a": timings from different machines are not comparable (pass --allow-different-machines to judge them anyway)`);
  const v = judge([a, b], CONFIG, { allowDifferentMachines: true });
  assert.equal(v.benchmarks[0].rounds.pairs, 4);
  assert.equal(v.run.machines_differ, true);
});

test('results of different suites are refused', () => {
  const a = results([['p', pairsOf([1, 1])]]);
  const b = results([['p', pairsOf([1, 1])]], { plan: { suite: 'ahi' } });
  assert.throws(() => judge([a, b], CONFIG), { message: `results #2: key 'plan.suite' is "ahi" but results #1 has "quick": different suites cannot be judged together` });
});

test('extra rounds merge into one interval; a repeated round index is refused', () => {
  const a = results([['p', pairsOf([0.9, 0.97, 0.92, 0.95])]]);
  const b = results([['p', pairsOf([0.94, 0.95, 0.94, 0.95])]]);
  b.benchmarks[0].rounds.forEach((r) => { r.index += 4; });
  const v = judge([a, b], CONFIG);
  assert.equal(v.benchmarks[0].rounds.pairs, 8);
  assert.equal(v.run.merged_from, 2);
  assert.throws(() => judge([a, a], CONFIG), { message: `results #2: its rounds of 'p' start at index 0, not after the last index 3 of the results before it; expected another run's rounds to continue the numbering (plan.measure.first_round)` });
  const twice = results([['p', pairsOf([0.9, 0.97, 1, 1])]]);
  twice.benchmarks[0].rounds.forEach((r) => { r.index %= 2; });
  assert.throws(() => judge(twice, CONFIG), { message: `results #1: benchmark 'p' has base round 0 twice; expected each side's round index once` });
});

test('another run joined by judge is other servers: a fail of the first run is not pooled away', () => {
  // Five pairs at 0.92 (a fail) and six of another run at 1.00 read 0.96 [0.94, 0.99] as one
  // sample: a pass marked open. Joined without a record of the step that measured them, the
  // later rounds are recorded as a rerun and judged like extra rounds on fresh servers.
  const first = results([['p', pairsOf([0.92, 0.921, 0.919, 0.92, 0.92])]]);
  const other = results([['p', pairsOf([1, 1.01, 0.99, 1, 1.005, 0.995])]]);
  other.benchmarks[0].rounds.forEach((r) => { r.index += 5; });
  const v = judge([first, other], CONFIG);
  assert.equal(v.benchmarks[0].verdict, 'undecided');
  assert.match(v.benchmarks[0].reason, /before the rounds of another run$/);
  const merged = require('../../../core/src/merge-results').mergeResults([first, other]);
  assert.deepEqual(merged.extensions, [{ file: 'results #2', purpose: 'rerun', first_round: 5, rounds: 6, benchmarks: ['p'] }]);
});

test('bad limits name the benchmark and the expected form', () => {
  assert.throws(() => judge(results([['p', pairsOf([1, 1])]]), { limits: { default: { warn: 0.9, fail: 0.95 } } }),
    { message: `limits for 'p': expected {warn, fail} with 0 < fail <= warn, got {"warn":0.9,"fail":0.95}` });
});

test('per-benchmark limits override the default', () => {
  const v = judge(results([['scan_range=100', pairsOf([0.9, 0.91, 0.9, 0.91])]]), { limits: { default: LIMITS, 'scan_range=100': { warn: 0.88, fail: 0.85 } } });
  assert.equal(v.benchmarks[0].verdict, 'pass');
  assert.deepEqual(v.benchmarks[0].limits, { warn: 0.88, fail: 0.85 });
});

test('cpu/o and cs/o ratios are head over base, paired by round', () => {
  const v = judge(results([['update-index_range=100', pairsOf([0.5, 0.5, 0.5, 0.5])]]), CONFIG);
  assert.ok(Math.abs(v.benchmarks[0].cpu_per_query.estimate - 2) < 1e-12);
  assert.equal(v.benchmarks[0].cs_per_query.estimate, 1);
});

test('AHI cells: each side\'s gain and a regression of the gain judged like a ratio', () => {
  // base gains 1.5x from AHI, head only 1.2x: rQPS off 1.0, rQPS on 0.8 -> gain ratio 0.8.
  const cell = (ahi, ratios) => [`point-select@4:${ahi}`, ratios.map((r) => [ahi === 'on' ? 1500 : 1000, (ahi === 'on' ? 1500 : 1000) * r]), { name: 'point-select', threads: 4, ahi, group: 'ahi' }];
  const v = judge(results([cell('off', [1, 1.01, 0.99, 1]), cell('on', [0.8, 0.81, 0.79, 0.8])], { plan: { suite: 'ahi' } }), CONFIG);
  assert.equal(v.ahi.length, 1);
  const c = v.ahi[0];
  assert.equal(c.id, 'point-select@4:ahi-gain');
  assert.ok(Math.abs(c.gain.base - 1.5) < 1e-9);
  assert.ok(Math.abs(c.gain.head - 1.2) < 0.01);
  assert.equal(c.verdict, 'fail');
  assert.equal(c.reason, 'AHI gain ratio 0.80 [0.80, 0.80] lies wholly below the fail limit 0.93');
  assert.equal(v.verdict, 'fail');
  assert.deepEqual(v.failed, ['point-select@4:on', 'point-select@4:ahi-gain']);
  assert.equal(v.headline, 'Fail: point-select@4:on: 20% slower (rQPS 0.80 [0.79, 0.81], fail limit 0.93) and point-select (4 threads) AHI gain: 20% lower (gain ratio 0.80 [0.80, 0.80], fail limit 0.93).');
});

test('a head faster in both AHI states whose gain fell is headlined "lower", not "slower"', () => {
  // rQPS off 1.20, on 1.10: the head gains less from AHI than the base (ratio 0.92) while it
  // is faster with AHI on and off.
  const cell = (ahi, ratios) => [`point-select@4:${ahi}`, ratios.map((r) => [1000, 1000 * r]), { name: 'point-select', threads: 4, ahi, group: 'ahi' }];
  const v = judge(results([cell('off', [1.20, 1.21, 1.19, 1.20]), cell('on', [1.10, 1.11, 1.09, 1.10])], { plan: { suite: 'ahi' } }), CONFIG);
  assert.equal(v.ahi[0].verdict, 'fail');
  assert.match(v.headline, /AHI gain: 8% lower \(gain ratio 0\.92/);
  assert.doesNotMatch(v.headline, /% slower/);
});

test('an AHI gain is judged by ahi_gain, else default, never by the workload\'s own rQPS limits', () => {
  const cell = (ahi, ratios) => [`point-select@4:${ahi}`, ratios.map((r) => [1000, 1000 * r]), { name: 'point-select', threads: 4, ahi, group: 'ahi' }];
  const measured = results([cell('off', [1, 1.01, 0.99, 1]), cell('on', [0.8, 0.81, 0.79, 0.8])], { plan: { suite: 'ahi' } });
  const loose = { warn: 0.5, fail: 0.4, cpu_per_query: null };
  const gainOf = (limits) => judge(measured, { limits }).ahi[0];
  // The workload's loose limit lets its cells pass; the gain still fails on default.
  let c = gainOf({ default: { warn: 0.97, fail: 0.93, cpu_per_query: null }, ahi_gain: null, byName: { 'point-select': loose } });
  assert.deepEqual(c.limits, { warn: 0.97, fail: 0.93 });
  assert.equal(c.verdict, 'fail');
  c = gainOf({ default: { warn: 0.97, fail: 0.93, cpu_per_query: null }, ahi_gain: { warn: 0.75, fail: 0.7, cpu_per_query: null }, byName: { 'point-select': loose } });
  assert.deepEqual(c.limits, { warn: 0.75, fail: 0.7 });
  assert.equal(c.verdict, 'pass');
});

test('every captured results fixture judges into a verdict valid by schema/verdict.schema.json', () => {
  const Ajv = require('ajv/dist/2020');
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(JSON.parse(fs.readFileSync(path.join(__dirname, '../../../schema/verdict.schema.json'), 'utf8')));
  const { capturedResults, loadResults } = require('../../support/captured-results');
  const found = capturedResults();
  assert.ok(found.length >= 4);
  const withInstructions = { limits: { default: { ...LIMITS, instructions: { warn: 1.02, fail: 1.04 } } } };
  for (const { name, file } of found) {
    const v = judge(loadResults(file), withInstructions);
    assert.ok(validate(JSON.parse(JSON.stringify(v))), `${name}: ${ajv.errorsText(validate.errors)}`);
  }
});

test('the clause of every span of a signal is pinned', () => {
  const i = (low, high) => ({ estimate: (low + high) / 2, low, high, n: 4 });
  const rq = (interval, best, worst) => clause('rqps', interval, LIMITS, { best, worst });
  assert.equal(rq(i(0.85, 0.95), 'warn', 'fail'), 'rQPS 0.90 [0.85, 0.95] lies wholly below the warn limit 0.97 and reaches below the fail limit 0.93 after 4 pairs');
  assert.equal(rq(i(0.85, 1.05), 'pass', 'fail'), 'rQPS 0.95 [0.85, 1.05] reaches below the fail limit 0.93 after 4 pairs');
  assert.equal(rq(i(0.95, 1.05), 'pass', 'warn'), 'rQPS 1.00 [0.95, 1.05] reaches below the warn limit 0.97, not the fail limit 0.93, after 4 pairs');
  assert.equal(rq({ n: 0 }, 'pass', 'fail'), 'rQPS: no paired pairs, nothing to compare');
  const INSTR = { warn: 1.02, fail: 1.04 };
  const ins = (interval, best, worst) => clause('instructions', interval, INSTR, { best, worst });
  assert.equal(ins(i(1.039, 1.046), 'warn', 'fail'), 'instr/o 1.042 [1.039, 1.046] lies wholly above the warn limit 1.02 and reaches above the fail limit 1.04 after 4 windows');
  assert.equal(ins(i(1.05, 1.07), 'fail', 'fail'), 'instr/o 1.060 [1.050, 1.070] lies wholly above the fail limit 1.04');
  assert.equal(ins(i(1.025, 1.035), 'warn', 'warn'), 'instr/o 1.030 [1.025, 1.035] lies wholly above the warn limit 1.02, below the fail limit 1.04');
  assert.equal(ins(i(0.99, 1.01), 'pass', 'pass'), 'instr/o 1.000 [0.990, 1.010] lies below the warn limit 1.02');
  assert.equal(ins({ estimate: 1.1, low: null, high: null, n: 1 }, 'pass', 'fail'), 'instr/o 1.100 from 1 window: an interval needs at least 2');
});

test('suite-shaped limits (default, byName, ahi_gain) from the config loader are read', () => {
  const limits = { default: { warn: 0.97, fail: 0.93, cpu_per_query: null }, ahi_gain: null, byName: { p: { warn: 0.5, fail: 0.4, cpu_per_query: null } } };
  const v = judge(results([['p', pairsOf([0.6, 0.6])], ['q', pairsOf([0.6, 0.6])]]), { limits });
  assert.deepEqual(v.benchmarks.map((b) => b.verdict), ['pass', 'fail']);
});

test('what cpu/o proves counts; what it leaves open never narrows rQPS', () => {
  const cpuLimits = { default: { warn: 0.97, fail: 0.93, cpu_per_query: { warn: 1.03, fail: 1.07 } } };
  // rQPS straddles the fail limit, CPU per query clearly up by ~11%: fail, said why.
  const noisy = results([['update-index_range=100', pairsOf([0.9, 0.97, 0.92, 0.95])]]);
  noisy.benchmarks[0].rounds.filter((r) => r.side === 'head').forEach((r) => { r.cpu_per_query_us = 111; });
  let b = judge(noisy, { limits: cpuLimits }).benchmarks[0];
  assert.equal(b.verdict, 'fail');
  assert.equal(b.reason, '11% more CPU time per query: cpu/o 1.11 [1.11, 1.11] lies wholly above the fail limit 1.07; rQPS 0.93 [0.89, 0.99] reaches below the fail limit 0.93 after 4 pairs');
  // rQPS passes, CPU per query undecided: the decided rQPS stands.
  const steady = results([['point-query', pairsOf([1, 1.01, 0.99, 1])]]);
  steady.benchmarks[0].rounds.filter((r) => r.side === 'head').forEach((r, k) => { r.cpu_per_query_us = [100, 115, 98, 104][k]; });
  b = judge(steady, { limits: cpuLimits }).benchmarks[0];
  assert.equal(b.cpu_verdict, 'undecided');
  assert.equal(b.verdict, 'pass');
  assert.equal(b.reason, 'within limits: rQPS 1.00 [0.99, 1.01] lies above the warn limit 0.97; cpu/o 1.04 [0.93, 1.17] reaches above the fail limit 1.07 after 4 pairs');
  // cpu/o unchanged does not settle an rQPS interval that reaches the fail limit.
  const open = results([['update-index_range=100', pairsOf([0.9, 0.97, 0.92, 0.95])]]);
  open.benchmarks[0].rounds.filter((r) => r.side === 'head').forEach((r) => { r.cpu_per_query_us = 100; });
  b = judge(open, { limits: cpuLimits }).benchmarks[0];
  assert.equal(b.cpu_verdict, 'pass');
  assert.equal(b.verdict, 'undecided');
});

// A round in which one side completed no query is the largest slowdown there is, not a gap:
// left out of the pairs, it let the other rounds pass a head that stalled.
test('a round with no query completed makes the benchmark "error", never a pass', () => {
  const r = results([['point-query', pairsOf([1, 1, 1, 1, 1, 1])]]);
  r.benchmarks[0].rounds.find((x) => x.side === 'head' && x.index === 1).qps = 0;
  r.benchmarks[0].rounds.find((x) => x.side === 'head' && x.index === 3).qps = 0;
  const v = judge(r, CONFIG);
  assert.equal(v.benchmarks[0].verdict, 'error');
  assert.equal(v.benchmarks[0].reason, 'head round 1: 0 QPS: no query completed in the round');
  assert.equal(v.verdict, 'error');
  const base = results([['point-query', pairsOf([1, 1, 1, 1])]]);
  base.benchmarks[0].rounds.find((x) => x.side === 'base' && x.index === 2).qps = 0;
  assert.equal(judge(base, CONFIG).benchmarks[0].reason, 'base round 2: 0 QPS: no query completed in the round');
});

test('timed rounds of which none pair make the benchmark "error", with the sides named', () => {
  const r = results([['point-query', pairsOf([1, 1, 1])]]);
  r.benchmarks[0].rounds = r.benchmarks[0].rounds.filter((x) => x.side === 'base');
  const v = judge(r, CONFIG);
  assert.equal(v.benchmarks[0].verdict, 'error');
  assert.equal(v.benchmarks[0].reason, 'no paired rounds: base rounds 0, 1, 2; head rounds none');
  assert.equal(v.headline, 'Error: no verdict for point-query (no paired rounds: base rounds 0, 1, 2; head rounds none): the measurement failed.');
});

// Instructions miss what waits (locks, I/O, fsync, sleeps): a run that counted them and timed
// nothing cannot say that nothing got slower.
test('a run judged on instructions alone says so in its headline', () => {
  const windows = (q) => q.map((x) => ({ events: 1000, queries: 1000, seconds: 1, connection: { instructions: x * 1000, threads: 1, per_query: x }, background: { instructions: 0, threads: 8, per_query: 0 } }));
  const counted = (id, head) => [id, [], { instructions: { events: 1000, seed: 1, base: { windows: windows([41000, 41010, 40990]) }, head: { windows: windows(head) } } }];
  const r = results([counted('point-query', [41000, 41010, 40990]), counted('scan_range=100', [41010, 41000, 40995])]);
  const v = judge(r, { limits: { default: { ...LIMITS, instructions: { warn: 1.015, fail: 1.03 } } } });
  assert.equal(v.verdict, 'pass');
  assert.equal(v.headline, 'Pass: all 2 comparisons within their limits, on instructions alone (time was not measured: waits, locks and I/O run no instructions).');
});

test('a planned microbenchmark the results do not hold makes the run an error, not a pass of the rest', () => {
  const r = results([['p', pairsOf([1, 1.01, 0.99, 1])], ['q', pairsOf([1, 1.01, 0.99, 1])]]);
  r.plan = { suite: 'quick', benchmarks: [{ id: 'p' }, { id: 'q' }, { id: 'insert_range=100' }] };
  const v = judge(r, CONFIG);
  assert.equal(v.verdict, 'error');
  assert.equal(v.headline, 'Error: no verdict: the results hold no rounds or windows of 1 planned microbenchmark (insert_range=100).');
  r.plan.benchmarks.pop();
  assert.equal(judge(r, CONFIG).verdict, 'pass');
});
