'use strict';
// Instructions of all threads: a regression placed in the background work the queries leave
// (purge, flushing) runs no instruction on a connection thread. What every pair of server
// processes proves on its own of the all-threads figure counts; what one pair alone proves
// keeps the row open and asks for a recount; what the figure leaves open does not keep a row
// open (background threads also run work of their own that comes and goes).
// The compare loop's steps (judge, nextStep, the merge of each step's results) run here as
// `perfgate compare` runs them.
const test = require('node:test');
const assert = require('node:assert/strict');
const core = require('@perfgate/core');
const { nextStep } = require('../../../core/src/next-step');
const { mergeResults, nextRoundIndex } = require('../../../core/src/merge-results');
const { resultsDoc } = require('./results-doc');
const { regressionAtBadEnd, summarizeMeasurement } = require('../../../core/src/bisect');
const { regressionIssue } = require('../../../core/src/render/regression-issue');
const { watchDecisions } = require('../../../core/src/watch');
const { calibrate } = require('../../../core/src/calibration');

const LIMITS = { default: { warn: 0.97, fail: 0.93, instructions: { warn: 1.015, fail: 1.03 } } };
const BUDGET = { extra_rounds: 0, step_rounds: 2, confirm_rounds: 0, extra_windows: 6, step_windows: 3, confirm_windows: 3 };
const ID = 'update-index_range=100';

// Windows of one side: [connection per query, background per query] each.
// Each window records its own wall-clock seconds, and another run's background threads never
// run exactly the same instructions (`run`: which harness run counted it).
const side = (perQuery, functions = { connection: [], background: [] }, run = 0) => ({
  windows: perQuery.map(([c, g], k) => ({
    events: 300, queries: 300, seconds: 1 + run / 10 + k / 100,
    connection: { instructions: Math.round(c * 300), threads: 1, per_query: c },
    background: { instructions: Math.round(g * 300) + run, threads: 12, per_query: g },
  })),
  functions,
});
// Timed rounds that settle time as a pass, so that instructions alone move the verdict.
const rounds = (from, n = 5) => Array.from({ length: n }, (_, k) => from + k).flatMap((index) => [
  { index, side: 'base', qps: 1000, errors: 0, cpu_per_query_us: 100, cs_per_query: 1 },
  { index, side: 'head', qps: 1000 * [1.0, 1.002, 0.998, 1.001, 0.999][index % 5], errors: 0, cpu_per_query_us: 100, cs_per_query: 1 },
]);
const doc = resultsDoc;
const bench = (base, head, extra = {}) => ({ id: ID, name: ID, group: 'write', status: 'ok', instructions: { events: 300, seed: 1, base: side(base, extra.baseFunctions, extra.run), head: side(head, extra.headFunctions, extra.run) } });

// Purge costs about as much as the query itself (update-index_range=100 at the quick scale).
const BASE = [[95000, 91000], [95100, 91200], [94950, 90900]];
// The head's purge does 30% more: all threads 14-15% more, the queries' own unchanged.
const SLOW_PURGE = [[95010, 118300], [95090, 118500], [94960, 118200]];
const SAME = [[95020, 91010], [95080, 91190], [94940, 90920]];

/**
 * The compare loop on one microbenchmark: the first run counts `first` (head windows against
 * BASE); every later step's fresh processes count `later(step, k)`.
 */
function compare(first, later) {
  let results = doc([{ ...bench(BASE, first), rounds: rounds(0) }]);
  let verdict = core.judge(results, { limits: LIMITS });
  const spent = { extra_rounds: 0, confirmed: [], extra_windows: 0, recounted: [] };
  const steps = [];
  for (;;) {
    const step = nextStep(verdict, BUDGET, spent);
    if (step.action === 'done') break;
    const head = later(step, steps.length);
    const from = nextRoundIndex(results);
    const extension = { file: `results.extra-${steps.length + 1}.json`, purpose: step.action, first_round: from, rounds: 0, windows: step.windows, benchmarks: step.ids };
    results = mergeResults([results, doc([{ ...bench(BASE.slice(0, step.windows), head.slice(0, step.windows), { run: steps.length + 1 }), rounds: [] }])], { extension });
    steps.push(step.action);
    if (step.action === 'count') { spent.extra_windows += step.windows; spent.recounted.push(...step.ids); }
    if (step.action === 'recount') spent.recounted.push(...step.ids);
    verdict = core.judge(results, { limits: LIMITS });
    assert.equal(core.schemaProblem('verdict', verdict), null);
  }
  return { verdict, row: verdict.benchmarks[0], steps };
}

test('more purge work per query fails on the instructions of all threads once fresh processes count it too', () => {
  const { verdict, row, steps } = compare(SLOW_PURGE, () => SLOW_PURGE);
  // The open row's first step counts more windows, on fresh processes: the second pair.
  assert.deepEqual(steps, ['count']);
  assert.ok(row.instructions_per_query.estimate < 1.001, 'the queries\' own threads run no instruction more');
  assert.equal(row.instructions_threads, 'all');
  assert.equal(row.instructions_verdict, 'fail');
  assert.equal(row.verdict, 'fail');
  assert.match(row.reason, /^15% more instructions per query, counting the background threads: instr\/o of all threads 1\.14\d \[1\.14\d, 1\.14\d\] lies wholly above the fail limit 1\.03, and on each of its 2 pairs of server processes on its own; instr\/o 1\.000 \[/);
  assert.match(verdict.headline, /^Fail: update-index_range=100: 15% more instructions per query, counting the background threads \(instr\/o of all threads 1\.14\d \[1\.14\d, 1\.14\d\], fail limit 1\.03\)/);
});

test('one pair of processes proving it is not yet a fail: the row stays open and asks for a recount', () => {
  const v = core.judge(doc([{ ...bench(BASE, SLOW_PURGE), rounds: rounds(0) }]), { limits: LIMITS });
  const row = v.benchmarks[0];
  assert.equal(row.verdict, 'undecided');
  assert.equal(row.instructions_recount, true);
  assert.equal(row.instructions_threads, 'connection');
  assert.match(row.reason, /^failed on its first servers, not yet on fresh ones: /);
  assert.match(v.headline, /update-index_range=100: failed on its first servers, not yet on fresh ones \(instr\/o of all threads 1\.14\d \[1\.14\d, 1\.14\d\], fail limit 1\.03\)/);
  // Counted again on fresh processes: by more windows while the budget lasts, else a recount.
  assert.deepEqual(nextStep(v, BUDGET, { extra_rounds: 0, confirmed: [], extra_windows: 0, recounted: [] }), { action: 'count', ids: [ID], windows: 3 });
  assert.deepEqual(nextStep(v, { ...BUDGET, extra_windows: 0 }, { extra_rounds: 0, confirmed: [], extra_windows: 0, recounted: [] }), { action: 'recount', ids: [ID], windows: 3 });
  // Without a budget for either it ends there: undecided, never a pass.
  assert.equal(nextStep(v, { ...BUDGET, confirm_windows: 0, extra_windows: 0 }, { extra_rounds: 0, confirmed: [], extra_windows: 0, recounted: [] }).action, 'done');
  assert.equal(v.exit_code, 3);
});

test('a proof of all threads that fresh processes do not repeat keeps the row undecided, and is counted again only once', () => {
  const { row, steps } = compare(SLOW_PURGE, () => SAME);
  // The extra windows are spent (fresh processes each time), then no recount on top of them.
  assert.deepEqual(steps, ['count', 'count']);
  assert.equal(row.verdict, 'undecided');
  assert.equal(row.instructions_threads, 'connection');
  assert.match(row.reason, /^failed on its first servers, not on fresh ones: .*instr\/o of all threads 1\.14\d \[1\.14\d, 1\.14\d\] lies wholly above the fail limit 1\.03 before the extra windows on fresh servers;/);
});

test('fresh processes that prove it where the first did not: still only one pair, undecided', () => {
  const { row, steps } = compare(SAME, () => SLOW_PURGE);
  // Nothing asked for a recount after the first run (all threads unchanged there), so the
  // loop never measured fresh processes: the unchanged build passes.
  assert.deepEqual(steps, []);
  assert.equal(row.verdict, 'pass');
  // Joined with a run whose processes proved it (perfgate judge --results a b): one pair only.
  const a = doc([{ ...bench(BASE, SAME), rounds: rounds(0) }]);
  const b = doc([{ ...bench(BASE, SLOW_PURGE, { run: 1 }), rounds: rounds(5) }]);
  const joined = core.judge([a, b], { limits: LIMITS }).benchmarks[0];
  assert.equal(joined.verdict, 'undecided');
  assert.match(joined.reason, /^failed in the windows of another run, not on its other servers: /);
});

test('a warn of all threads on both pairs is a warn; on one pair, a pass marked open', () => {
  // 2.5% more purge-and-query work: above the warn limit 1.015, below the fail limit 1.03.
  const WARN = BASE.map(([c, g]) => [c, g * 1.05]);
  const both = compare(WARN, () => WARN).row;
  assert.equal(both.verdict, 'warn');
  assert.equal(both.instructions_threads, 'all');
  assert.match(both.reason, /^2% more instructions per query, counting the background threads: instr\/o of all threads 1\.02\d/);
  const once = compare(WARN, () => SAME).row;
  assert.equal(once.verdict, 'pass');
  assert.equal(once.could_be, 'warn');
  assert.match(once.reason, /^within the fail limit; beyond its warn limit on its first servers, not on fresh ones: /);
});

test('a burst of background work in one window of an unchanged build neither warns nor keeps the row open', () => {
  // One window of three: the head's background threads ran something of their own (9% more
  // in all, as insert_range=100 once counted in an A/A pair).
  const base = [[121000, 6000], [121800, 17400], [122100, 5900]];
  const head = [[121100, 5950], [121900, 17350], [122300, 17450]];
  const v = core.judge(doc([{ ...bench(base, head), rounds: rounds(0) }]), { limits: LIMITS });
  const row = v.benchmarks[0];
  assert.ok(row.all_threads_per_query.high > 1.03, 'the all-threads interval reaches the fail limit');
  assert.equal(row.instructions_threads, 'connection');
  assert.equal(row.instructions_verdict, 'pass');
  assert.equal(row.verdict, 'pass');
  assert.equal(row.could_be, null);
  assert.equal(row.instructions_recount, undefined);
  assert.doesNotMatch(row.reason, /all threads/);
});

test('where the queries\' own instructions prove more, they decide and lead', () => {
  // 5% more on the connection threads; the unchanged purge dilutes all threads to 2.6%.
  const own = BASE.map(([c, g]) => [c * 1.05, g]);
  const { row } = compare(own, () => own);
  assert.equal(row.instructions_threads, 'connection');
  assert.equal(row.verdict, 'fail');
  assert.match(row.reason, /^5% more instructions per query: instr\/o 1\.050/);
});

test('where all threads decided, every report shows their figure and the functions of the background threads', () => {
  const fns = (purge) => ({
    connection: [{ name: 'row_upd_sec_index_entry(upd_node_t*, que_thr_t*)', object: 'mariadbd', source: 'row0upd.cc:1826', self: 218, inclusive: 15624 }],
    background: [{ name: 'row_purge_remove_sec_if_poss(purge_node_t*, dict_index_t*, dtuple_t const*)', object: 'mariadbd', source: 'row0purge.cc:1020', self: purge, inclusive: purge + 9000 }],
  });
  const one = (run) => bench(BASE, SLOW_PURGE, { baseFunctions: fns(400), headFunctions: fns(27700), run });
  const first = doc([{ ...one(0), rounds: rounds(0) }]);
  const again = doc([{ ...one(1), rounds: [] }]);
  const results = mergeResults([first, again], { extension: { file: 'results.extra-1.json', purpose: 'recount', first_round: 5, rounds: 0, windows: 3, benchmarks: [ID] } });
  const v = core.judge(results, { limits: LIMITS });
  const row = v.benchmarks[0];
  assert.equal(row.verdict, 'fail');
  assert.equal(row.instructions_functions.grown[0].name, 'row_purge_remove_sec_if_poss(purge_node_t*, dict_index_t*, dtuple_t const*)');
  assert.equal(row.instructions_functions.grown[0].self_growth, 27300);

  const comment = core.renderComment(v);
  assert.match(comment, /\| 1\.14\d \(all threads\) \| 1\.14\d–1\.14\d \|/);
  assert.match(comment, /\*\*update-index_range=100\*\*: instr\/o of all threads 1\.14\d–1\.14\d \(the queries' own threads: 1\.000, 95\.0k → 95\.0k instructions per query\); functions of every thread/);
  assert.match(comment, /row_purge_remove_sec_if_poss/);
  assert.match(core.renderVerdictTable(v), /1\.14\d \(all threads\)/);
  assert.match(core.renderReport(v), /<h3>update-index_range=100: instr\/o of all threads 1\.14\d–1\.14\d \(the queries(&#39;|&#x27;|') own threads: 1\.000, 95\.0k → 95\.0k instructions per query\); functions of every thread<\/h3>/);

  // A bisection of it watches the interval that decided, and says so in its lines.
  const bad = regressionAtBadEnd(v, [ID]);
  assert.equal(bad.status, 'regressed');
  assert.equal(bad.watched[0].signal, 'instructions');
  assert.ok(bad.watched[0].bad_end.estimate > 1.14);
  assert.match(bad.reason, /on instructions \(instr\/o of all threads 1\.14\d \[1\.14\d, 1\.14\d\]\)/);
  assert.match(core.renderCsv(v).split('\n')[1], /,1\.000,1\.000,1\.00\d,1\.14\d,1\.14\d,1\.14\d,all threads,/);
  const m = summarizeMeasurement(v)[0];
  assert.equal(m.instructions_threads, 'all');
  assert.ok(m.all_threads_per_query.estimate > 1.14);

  // Watching main: the regression issue's title and text name the figure that decided.
  const actions = watchDecisions({ repo: 'o/r', base: 'a'.repeat(40), head: 'b'.repeat(40), verdict: v, confirmation: v });
  const file = actions.find((a) => a.action === 'file');
  assert.equal(file.signal, 'instructions_per_query');
  assert.match(file.confirmation.remeasured, /^instr\/o of all threads 1\.14\d \[1\.14\d, 1\.14\d\]$/);
  const issue = regressionIssue({ verdict: v, benchmarkId: ID, signal: 'instructions_per_query', repo: 'o/r', lastGood: 'a'.repeat(40), firstBad: 'b'.repeat(40), dedupeKey: file.dedupeKey, confirmation: file.confirmation });
  assert.match(issue.title, /^update-index_range=100: 1\.14\d× instructions per query of all threads since bbbbbbb$/);
  assert.match(issue.body, /regressed on instr\/o of all threads: instr\/o of all threads 1\.14\d/);
});

test('calibrate does not loosen the limits of the queries\' own instructions for noisy background work', () => {
  // Steady queries; the head's background work of every window 4% above the base's, as large
  // as the queries' own: all threads count 2% more in every window of every A/A run. The
  // limits stay as tight as the queries' own spread allows: a 2% regression of the queries'
  // own threads must still fail with them.
  const runs = Array.from({ length: 4 }, (_, r) => {
    const base = [0, 1, 2].map((k) => [95000 + 7 * k + r, 95000]);
    const head = [0, 1, 2].map((k) => [95000 + 7 * k + r + [1, -2, 1][k], 95000 * 1.04]);
    return doc([{ ...bench(base, head, { run: r }), rounds: rounds(0) }]);
  });
  const suite = { suite: 'quick', measure: { rounds: 5, seconds: 2 }, instructions: { windows: 3 }, budget: BUDGET, limits: { default: LIMITS.default, byName: {} }, benchmarks: [ID] };
  const instr = calibrate(runs, suite).benchmarks[0].instructions;
  assert.ok(instr.suggested.fail <= 1.02, `fail ${instr.suggested.fail}`);
  const slower = BASE.map(([c, g]) => [c * 1.02, g]);
  const limits = { default: { ...LIMITS.default, instructions: instr.suggested } };
  const first = doc([{ ...bench(BASE, slower), rounds: rounds(0) }]);
  const again = doc([{ ...bench(BASE, slower, { run: 1 }), rounds: [] }]);
  const results = mergeResults([first, again], { extension: { file: 'results.extra-1.json', purpose: 'recount', first_round: 5, rounds: 0, windows: 3, benchmarks: [ID] } });
  assert.equal(core.judge(results, { limits }).benchmarks[0].verdict, 'fail');
});

test('a fail of all threads one pair proved and another proved only as a warn is not a warn', () => {
  // All threads 4.2% more on the first pair (a fail), 2.5% on the fresh one (a warn): every
  // pair proves a warn, one a fail. Read as a warn, exit 0, the fail would be gone.
  const FAIL = BASE.map(([c, g]) => [c, g * 1.085]);
  const WARN = BASE.map(([c, g]) => [c, g * 1.05]);
  const { verdict, row, steps } = compare(FAIL, () => WARN);
  assert.ok(steps.length >= 1);
  assert.equal(row.verdict, 'undecided');
  assert.equal(verdict.exit_code, 3);
  assert.match(row.reason, /^failed on its first servers, not on fresh ones: 3% more instructions per query, counting the background threads, could be beyond its fail limit: /);
  assert.match(verdict.headline, /failed on its first servers, not on fresh ones \(instr\/o of all threads 1\.04\d \[1\.04\d, 1\.04\d\], fail limit 1\.03\)/);
});

test('where all threads decide a warn, a fail the queries\' own threads proved on one pair is still named', () => {
  // First pair: the queries' own threads 4.2% more (a fail on that pair), background as the
  // base's. Fresh pair: the queries' own unchanged, background 5% more. All threads read
  // about 2.5% more on each pair (a warn on both).
  const first = doc([{ ...bench(BASE, BASE.map(([c, g]) => [c * 1.042, g * 1.008])), rounds: rounds(0) }]);
  const again = doc([{ ...bench(BASE, BASE.map(([c, g]) => [c, g * 1.052]), { run: 1 }), rounds: [] }]);
  const results = mergeResults([first, again], { extension: { file: 'results.extra-1.json', purpose: 'recount', first_round: 5, rounds: 0, windows: 3, benchmarks: [ID] } });
  const v = core.judge(results, { limits: LIMITS });
  const row = v.benchmarks[0];
  assert.equal(row.verdict, 'undecided');
  assert.match(v.headline, /failed on its first servers, not on fresh ones \(instr\/o 1\.04\d \[1\.04\d, 1\.04\d\], fail limit 1\.03\)/);
});

test('watching main: a re-measurement kept open by one pair\'s proof of all threads says so, not "instr/o 1.000"', () => {
  const first = doc([{ ...bench(BASE, SLOW_PURGE), rounds: rounds(0) }]);
  const again = doc([{ ...bench(BASE, SLOW_PURGE, { run: 1 }), rounds: [] }]);
  const failed = core.judge(mergeResults([first, again], { extension: { file: 'results.extra-1.json', purpose: 'recount', first_round: 5, rounds: 0, windows: 3, benchmarks: [ID] } }), { limits: LIMITS });
  assert.equal(failed.benchmarks[0].verdict, 'fail');
  // The re-measurement: one pair of processes, which proves it, and no fresh pair yet.
  const remeasured = core.judge(doc([{ ...bench(BASE, SLOW_PURGE, { run: 2 }), rounds: rounds(0) }]), { limits: LIMITS });
  assert.equal(remeasured.benchmarks[0].verdict, 'undecided');
  const actions = watchDecisions({ repo: 'o/r', base: 'a'.repeat(40), head: 'b'.repeat(40), verdict: failed, confirmation: remeasured });
  const noise = actions.find((a) => a.action === 'noise');
  assert.match(noise.reason, /neither confirmed nor ruled out by the re-measurement \(undecided: failed on its first servers, not yet on fresh ones \(instr\/o of all threads 1\.14\d/);
  assert.match(noise.reason, /^not confirmed: instr\/o of all threads 1\.14\d/);
});
