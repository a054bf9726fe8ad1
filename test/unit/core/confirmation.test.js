'use strict';
// A fail confirmed on fresh server processes: the compare loop's steps (judge, nextStep, the
// merge of each step's results) run here on drawn rounds and windows, as `perfgate compare`
// runs them. What ties to a process (memory layout, where its threads ran, a cold cache of one
// side) repeats in every round of that process, so the rounds of two pairs of processes are not
// one sample: pooled, a fail seen on one pair and not on the other could read as a pass.
const test = require('node:test');
const assert = require('node:assert/strict');
const { judge } = require('../../../core/src/verdict');
const { mergeResults } = require('../../../core/src/merge-results');
const { simulateCompare } = require('./simulated-compare');
const { resultsDoc } = require('./results-doc');
const { pooledIntervals } = require('./pooled-intervals');

const LIMITS = { default: { warn: 0.97, fail: 0.93, instructions: { warn: 1.015, fail: 1.03 } } };
const BUDGET = { extra_rounds: 6, step_rounds: 2, confirm_rounds: 4, extra_windows: 6, step_windows: 3, confirm_windows: 3 };

const doc = resultsDoc;
const rounds = (ratios, from) => ratios.flatMap((r, k) => [
  { index: from + k, side: 'base', qps: 1000, errors: 0, cpu_per_query_us: 100, cs_per_query: 1 },
  { index: from + k, side: 'head', qps: 1000 * r, errors: 0, cpu_per_query_us: 100, cs_per_query: 1 },
]);
// Every window records its own wall-clock seconds, and another run's background threads never
// run exactly the same instructions (`run`: which harness run counted it).
const windows = (perQuery, run) => perQuery.map((q, k) => ({ events: 1000, queries: 1000, seconds: 1 + run / 10 + k / 100, connection: { instructions: Math.round(q * 1000), threads: 1, per_query: q }, background: { instructions: run, threads: 8, per_query: 0 } }));
const side = (perQuery, run) => ({ windows: windows(perQuery, run), functions: { connection: [], background: [] } });
const counted = (ratios, run = 0) => ({ events: 1000, seed: 1, base: side(ratios.map(() => 40000), run), head: side(ratios.map((r) => 40000 * r), run) });

/**
 * The compare loop on one microbenchmark: `first` measures the planned run; `later(step, k)`
 * what the k-th extra step's fresh processes measure ({ratios} for rounds, {windows} for
 * instruction windows). Returns the last verdict and the steps taken.
 */
function compare(first, later) {
  const { verdict, row, steps } = simulateCompare({
    results: doc([{ id: 'a', name: 'a', group: 'point', status: 'ok', ...first }]),
    limits: LIMITS,
    budget: BUDGET,
    measureStep: (step, earlier, from) => {
      const m = later(step, earlier.length);
      const bench = { id: 'a', name: 'a', group: 'point', status: 'ok', rounds: m.ratios ? rounds(m.ratios, from) : [] };
      if (m.windows) bench.instructions = counted(m.windows, earlier.length + 1);
      return doc([bench]);
    },
  });
  return { verdict, row, steps: steps.map((s) => s.action) };
}

test('a time fail that fresh servers do not confirm ends undecided, never a pass', () => {
  // Five pairs wholly below the fail limit on the first servers; every fresh pair of servers
  // after them measures no slowdown. Pooled as one sample, the rounds read 0.96 [0.93, 0.99]:
  // a pass marked open, exit 0, a fail the gate had measured gone.
  const { verdict, row, steps } = compare(
    { rounds: rounds([0.915, 0.925, 0.92, 0.918, 0.922], 0) },
    (step) => ({ ratios: Array.from({ length: step.rounds }, (_, k) => [1.0, 1.01, 0.99, 1.005][k % 4]) }),
  );
  assert.deepEqual(steps, ['confirm', 'extend']);
  assert.equal(row.verdict, 'undecided');
  assert.equal(verdict.exit_code, 3);
  assert.equal(row.reason, 'failed on its first servers, not on fresh ones: could be beyond its fail limit: rQPS 0.96 [0.94, 0.99] reaches below the warn limit 0.97, not the fail limit 0.93, after 11 pairs; rQPS 0.92 [0.92, 0.92] lies wholly below the fail limit 0.93 before the confirming rounds on fresh servers');
  assert.equal(verdict.headline, 'Undecided: a: failed on its first servers, not on fresh ones (rQPS 0.92 [0.92, 0.92], fail limit 0.93); more rounds than the budget allows would decide.');
});

test('a time fail that fresh servers confirm stays a fail', () => {
  const { row, steps } = compare(
    { rounds: rounds([0.915, 0.925, 0.92, 0.918, 0.922], 0) },
    (step) => ({ ratios: Array.from({ length: step.rounds }, (_, k) => [0.92, 0.91, 0.925, 0.915][k % 4]) }),
  );
  assert.deepEqual(steps, ['confirm']);
  assert.equal(row.verdict, 'fail');
});

test('a time warn that only its first servers measured is not reported as a warn', () => {
  // Every round of the first servers 5% slower (a property of that pair of processes: a head
  // whose threads ran on the slower core); the fresh servers of the confirmation, no change.
  const { verdict, row, steps } = compare(
    { rounds: rounds([0.95, 0.951, 0.949, 0.95, 0.952], 0) },
    (step) => ({ ratios: Array.from({ length: step.rounds }, (_, k) => [1.0, 1.01, 0.99, 1.005][k % 4]) }),
  );
  assert.equal(steps[0], 'confirm');
  assert.notEqual(row.verdict, 'warn');
  assert.notEqual(verdict.verdict, 'warn');
  // ...nor read "within limits": the first servers' warn keeps the row open at the warn limit.
  assert.equal(row.verdict, 'pass');
  assert.equal(row.could_be, row.verdict === 'pass' ? 'warn' : 'fail');
  assert.match(row.headline_phrase, /^beyond its warn limit on its first servers, not on fresh ones \(rQPS 0\.95 \[0\.95, 0\.95\], warn limit 0\.97\)$/);
});

test('a time warn that fresh servers measure again stays a warn', () => {
  const { row, steps } = compare(
    { rounds: rounds([0.95, 0.951, 0.949, 0.95, 0.952], 0) },
    (step) => ({ ratios: Array.from({ length: step.rounds }, (_, k) => [0.951, 0.949, 0.95, 0.952][k % 4]) }),
  );
  assert.deepEqual(steps, ['confirm']);
  assert.equal(row.verdict, 'warn');
});

test('an instruction fail that a recount on fresh processes does not confirm ends undecided, never a pass', () => {
  // 4% more instructions in every window of the first processes; the recount and every later
  // count on fresh processes count no change.
  const { verdict, row, steps } = compare(
    { instructions: counted([1.041, 1.042, 1.040]) },
    (step) => ({ windows: Array.from({ length: step.windows }, (_, k) => [1.0, 1.001, 0.999][k % 3]) }),
  );
  assert.deepEqual(steps, ['recount', 'count', 'count']);
  assert.equal(row.verdict, 'undecided');
  assert.equal(verdict.exit_code, 3);
  assert.equal(row.reason, 'failed on its first servers, not on fresh ones: could be beyond its fail limit: instr/o 1.010 [0.998, 1.022] reaches above the warn limit 1.015, not the fail limit 1.03, after 12 windows; instr/o 1.041 [1.039, 1.043] lies wholly above the fail limit 1.03 before the recount on fresh servers');
  assert.equal(verdict.headline, 'Undecided: a: failed on its first servers, not on fresh ones (instr/o 1.041 [1.039, 1.043], fail limit 1.03); more instruction windows than the budget allows would decide.');
});

test('an instruction fail that a recount confirms stays a fail', () => {
  const { row, steps } = compare(
    { instructions: counted([1.041, 1.042, 1.040]) },
    (step) => ({ windows: Array.from({ length: step.windows }, (_, k) => [1.043, 1.041, 1.042][k % 3]) }),
  );
  assert.deepEqual(steps, ['recount']);
  assert.equal(row.verdict, 'fail');
});

test('an instruction warn that only one pair of processes counted is not reported as a warn', () => {
  // The first processes count 2% more in every window (heap state: a shift of the process,
  // not of the code); the fresh processes of the recount and of the counts after it, none.
  const { row, steps } = compare(
    { instructions: counted([1.021, 1.022, 1.020]) },
    (step) => ({ windows: Array.from({ length: step.windows }, (_, k) => [1.0, 1.001, 0.999][k % 3]) }),
  );
  assert.equal(steps[0], 'recount');
  assert.notEqual(row.verdict, 'warn');
  assert.equal(row.instructions_verdict, 'pass');
  // ...nor read "within limits": the first processes' warn keeps the row open at the warn limit.
  assert.equal(row.could_be, row.verdict === 'pass' ? 'warn' : 'fail');
  assert.match(row.reason, /^within the fail limit; beyond its warn limit on its first servers, not on fresh ones: .*lies wholly above the warn limit 1\.015, below the fail limit 1\.03 before the recount on fresh servers$/);
  assert.match(row.headline_phrase, /^beyond its warn limit on its first servers, not on fresh ones \(instr\/o 1\.021 \[1\.0\d\d, 1\.0\d\d\], warn limit 1\.015\)$/);
});

test('an instruction warn that fresh processes count again stays a warn', () => {
  const { row, steps } = compare(
    { instructions: counted([1.021, 1.022, 1.020]) },
    (step) => ({ windows: Array.from({ length: step.windows }, (_, k) => [1.022, 1.021, 1.020][k % 3]) }),
  );
  assert.deepEqual(steps, ['recount']);
  assert.equal(row.verdict, 'warn');
});

test('an AHI gain that fails on the first servers and not on fresh ones is undecided, never a pass', () => {
  // On the first servers the head's AHI gain was 0.92 of the base's; on the fresh servers of the
  // confirmation and of the extra rounds after it, the same as the base's. Pooled as one
  // sample: 0.98 [0.96, 1.00], a pass marked open.
  const cell = (ahi, ratios) => ({
    id: `point-select@4:${ahi}`, name: 'point-select', threads: 4, ahi, group: 'ahi', status: 'ok',
    rounds: ratios.flatMap((r, index) => [
      { index, side: 'base', qps: 1000, errors: 0, cpu_per_query_us: 100, cs_per_query: 1 },
      { index, side: 'head', qps: 1000 * r, errors: 0, cpu_per_query_us: 100, cs_per_query: 1 }]),
  });
  const fresh = [1, 1.01, 0.99, 1, 1, 1.01, 0.99, 1, 1, 1.01, 0.99, 1];
  const results = doc([cell('off', [1, 1, 1, 1, ...fresh]), cell('on', [0.92, 0.921, 0.919, 0.92, ...fresh.map((r) => r * 1.001)])]);
  results.plan.suite = 'ahi';
  const ids = ['point-select@4:off', 'point-select@4:on'];
  results.extensions = [
    { file: 'results.extra-1.json', purpose: 'confirm', first_round: 4, rounds: 4, benchmarks: ids },
    { file: 'results.extra-2.json', purpose: 'extend', first_round: 8, rounds: 8, benchmarks: ids },
  ];
  const v = judge(results, { limits: LIMITS });
  const c = v.ahi[0];
  assert.equal(c.verdict, 'undecided');
  // The on cell's own rQPS was confirmed with the same rounds, and fared alike.
  assert.equal(v.headline, 'Undecided: point-select@4:on: failed on its first servers, not on fresh ones (rQPS 0.92 [0.92, 0.92], fail limit 0.93) and point-select (4 threads) AHI gain: failed on its first servers, not on fresh ones (AHI gain ratio 0.92 [0.92, 0.92], fail limit 0.93); more rounds than the budget allows would decide.');
  assert.equal(c.reason, 'AHI gain ratio 0.98 [0.96, 1.00] reaches below the warn limit 0.97, not the fail limit 0.93, after 16 pairs; AHI gain ratio 0.92 [0.92, 0.92] lies wholly below the fail limit 0.93 before the confirming rounds on fresh servers');
});

test('a fail on the first servers is not pooled away by extra rounds another row or cell asked for', () => {
  // In a chain, or an AHI matrix whose cells are open, a failing row can be measured again by
  // an `extend` step (fresh servers) meant for the others. Pooled as one sample the rounds read
  // 0.97 [0.94, 0.99], a pass marked open; the first servers' fail must keep the row open.
  const fresh = [1, 1.01, 0.99, 1, 1, 1.01, 0.99, 1];
  const results = doc([{ id: 'a', name: 'a', group: 'point', status: 'ok', rounds: [...rounds([0.92, 0.921, 0.919, 0.92, 0.92], 0), ...rounds(fresh, 5)] }]);
  results.extensions = [{ file: 'results.extra-1.json', purpose: 'extend', first_round: 5, rounds: 8, benchmarks: ['a'] }];
  const v = judge(results, { limits: LIMITS });
  assert.equal(v.benchmarks[0].verdict, 'undecided');
  assert.match(v.benchmarks[0].reason, /^failed on its first servers, not on fresh ones: .* lies wholly below the fail limit 0\.93 before the extra rounds on fresh servers$/);
  // The same rounds without the step that put them on fresh servers are one sample of one pair.
  const pooled = doc([{ id: 'a', name: 'a', group: 'point', status: 'ok', rounds: results.benchmarks[0].rounds }]);
  assert.notEqual(judge(pooled, { limits: LIMITS }).benchmarks[0].reason.startsWith('failed on its first servers'), true);
});

test('another run joined by judge that counted extra windows itself: the first run\'s instruction fail is not pooled away', () => {
  // The first run counted 4% more in each of its 3 windows; the other run counted no change in
  // its 3 windows and in the 3 of a count step it recorded itself. The rerun record must cover
  // the other run's first windows only: counted with its own step's windows too, the guard
  // looked for the first run's windows in the wrong place and the fail read as a pass.
  const first = doc([{ id: 'a', name: 'a', group: 'point', status: 'ok', rounds: rounds([1, 1, 1, 1, 1], 0), instructions: counted([1.041, 1.042, 1.040]) }]);
  const other = doc([{ id: 'a', name: 'a', group: 'point', status: 'ok', rounds: rounds([1, 1, 1, 1, 1], 5), instructions: counted([1.0, 1.002, 0.998, 1.001, 0.999, 1.0], 1) }]);
  other.extensions = [{ file: 'results.extra-1.json', purpose: 'count', first_round: 10, rounds: 0, windows: 3, benchmarks: ['a'] }];
  const merged = mergeResults([first, other]);
  assert.deepEqual(merged.extensions.map((e) => [e.purpose, e.windows]), [['rerun', 3], ['count', 3]]);
  const v = judge([first, other], { limits: LIMITS });
  assert.equal(v.benchmarks[0].verdict, 'undecided');
  assert.match(v.benchmarks[0].reason, /instr\/o 1\.041 \[1\.039, 1\.043\] lies wholly above the fail limit 1\.03 before the windows of another run/);
  assert.equal(v.exit_code, 3);
});

// Three runs of the same comparison joined by `perfgate judge --results`, each numbering its
// rounds after the one before.
function joinedRuns(list) {
  let from = 0;
  return list.map((ratios) => {
    const d = doc([{ id: 'a', name: 'a', group: 'point', status: 'ok', rounds: rounds(ratios, from) }]);
    from += ratios.length;
    return d;
  });
}

test('a fail that only a later pair of processes measured is not pooled away either, whichever run comes first', () => {
  // Two runs at 1.00 and a third whose own rounds lie wholly below the fail limit (0.90
  // [0.89, 0.91]). Pooled as one sample: 0.97 [0.94, 0.99], a pass marked open.
  const unchanged = [1.0, 1.01, 0.99, 1.005, 0.995];
  const slower = [0.90, 0.91, 0.89, 0.905, 0.895];
  for (const order of [[unchanged, unchanged, slower], [slower, unchanged, unchanged], [unchanged, slower, unchanged]]) {
    const v = judge(joinedRuns(order), { limits: LIMITS });
    assert.equal(v.benchmarks[0].verdict, 'undecided', v.headline);
    assert.equal(v.exit_code, 3);
  }
  const v = judge(joinedRuns([unchanged, unchanged, slower]), { limits: LIMITS });
  assert.match(v.benchmarks[0].reason, /^failed in the rounds of another run, not on its other servers: .*rQPS 0\.90 \[0\.89, 0\.91\] lies wholly below the fail limit 0\.93 in the rounds of another run$/);
  assert.match(v.headline, /^Undecided: a: failed in the rounds of another run, not on its other servers \(rQPS 0\.90 \[0\.89, 0\.91\], fail limit 0\.93\)/);
});

test('a fail the fresh servers of an extra-rounds step measured keeps the row undecided', () => {
  // The first servers leave the row open (0.99 [0.96, 1.02]); the fresh servers of the extra
  // rounds measure 0.915 in both pairs, wholly below the fail limit on those processes.
  const { row, verdict, steps } = compare(
    { rounds: rounds([0.965, 1.015, 0.978, 1.002, 0.990], 0) },
    (step, k) => ({ ratios: Array.from({ length: step.rounds }, (_, j) => (k === 0 ? [0.915, 0.9151][j % 2] : 1.0)) }),
  );
  assert.equal(steps[0], 'extend');
  assert.equal(row.verdict, 'undecided', row.reason);
  assert.equal(verdict.exit_code, 3);
});

test('a time warn one run measured and another did not ends a pass marked open, never "within limits"', () => {
  // Run 1: 0.95 [0.949, 0.951], wholly below the warn limit 0.97; run 2: twenty pairs at 1.00.
  const v = judge(joinedRuns([[0.95, 0.951, 0.949, 0.95, 0.95], Array.from({ length: 20 }, (_, k) => [1.0, 1.004, 0.996, 1.002, 0.998][k % 5])]), { limits: LIMITS });
  const row = v.benchmarks[0];
  assert.equal(row.verdict, 'pass');
  assert.equal(row.could_be, row.verdict === 'pass' ? 'warn' : 'fail');
  assert.match(row.reason, /^within the fail limit; beyond its warn limit on its first servers, not on fresh ones: /);
  assert.doesNotMatch(v.headline, /^Pass: (all \\d+ comparisons within their limits|1 comparison, within its limits)/);
});

// The loop above over drawn rows: the first servers' rounds or windows and each fresh step's
// come from a true change plus a shift of their own pair of processes (what ties to a process
// repeats in all its rounds) and noise. Whatever the steps, the final row keeps the gate's
// promises: a pooled interval wholly beyond a limit is never a pass (beyond the fail limit, a
// fail), and a fail the first servers proved on their own is never cleared to a pass or a warn.
test('over drawn rows and fresh steps, no proof is pooled away', () => {
  const fc = require('fast-check');
  const { ratioInterval } = require('../../../core/src/statistics');
  const drawn = fc.record({
    timed: fc.boolean(),
    counted: fc.boolean(),
    rqps: fc.double({ min: 0.8, max: 1.05, noNaN: true }),
    instr: fc.double({ min: 0.98, max: 1.06, noNaN: true }),
    spread: fc.double({ min: 0, max: 0.15, noNaN: true }),
    instrSpread: fc.double({ min: 0, max: 0.01, noNaN: true }),
    shifts: fc.array(fc.double({ min: -0.08, max: 0.08, noNaN: true }), { minLength: 12, maxLength: 12 }),
    noise: fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: 64, maxLength: 64 }),
  }).filter((d) => d.timed || d.counted);
  fc.assert(fc.property(drawn, (d) => {
    let at = 0;
    const next = () => d.noise[at++ % d.noise.length];
    // Step k's processes (k = 0: the first servers) shift time by shifts[k], instructions by a
    // tenth of it (two processes of one build counted up to 1.1% apart).
    const ratios = (n, k) => Array.from({ length: n }, () => d.rqps * Math.exp(d.shifts[k] + d.spread * next()));
    const perWindow = (n, k) => Array.from({ length: n }, () => d.instr * Math.exp(d.shifts[k] / 10 + d.instrSpread * next()));
    const first = {
      ...(d.timed ? { rounds: rounds(ratios(5, 0), 0) } : {}),
      ...(d.counted ? { instructions: counted(perWindow(3, 0)) } : {}),
    };
    const firstRatios = first.rounds ? first.rounds.filter((r) => r.side === 'head').map((r) => r.qps / 1000) : null;
    const firstWindows = first.instructions ? first.instructions.head.windows.map((w, k) => w.connection.per_query / first.instructions.base.windows[k].connection.per_query) : null;
    const { verdict, row } = compare(first, (step, k) => (step.rounds
      ? { ratios: ratios(step.rounds, 1 + k) }
      : { windows: perWindow(step.windows, 1 + k) }));
    if (row.verdict === 'error') return;
    const L = LIMITS.default;
    const pooled = pooledIntervals(row, L);
    const why = `${row.verdict}: ${row.reason}`;
    if (pooled.beyondWarn) assert.notEqual(row.verdict, 'pass', why);
    if (pooled.beyondFail) assert.equal(row.verdict, 'fail', why);
    const own = (xs) => (xs && xs.length >= 2 ? ratioInterval(xs) : null);
    const firstTime = own(firstRatios);
    const firstInstr = own(firstWindows);
    if ((firstTime && firstTime.high < L.fail) || (firstInstr && firstInstr.low > L.instructions.fail)) {
      assert.ok(['fail', 'undecided'].includes(row.verdict), `the first servers proved a fail: ${why}`);
    }
    if (!(row.verdict === 'pass' && !row.could_be)) assert.doesNotMatch(verdict.headline, /^Pass: (all \\d+ comparisons within their limits|1 comparison, within its limits)/, verdict.headline);
  }), { seed: 20261129, numRuns: 300 });
});
