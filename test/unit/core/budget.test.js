'use strict';
// A suite's budget is two knobs (extra_pairs, minutes); what the adaptive steps may measure is
// derived from them by the rules docs/usage.md ("Budget") states, and the minutes bound the
// narrowing of open rows, never the confirmation of a fail or warn.
const test = require('node:test');
const assert = require('node:assert/strict');
const fc = require('fast-check');
const path = require('node:path');
const { stepBudget, nextStep, roundsNow } = require('../../../core/src/next-step');
const { loadThresholds } = require('../../../core/src/config/thresholds');

const windowsOf = (suite) => (suite.measure.signals.includes('instructions') ? suite.instructions.windows : null);
const derived = (suite) => stepBudget(suite.budget, { rounds: suite.measure.rounds, windows: windowsOf(suite) });

test('what the shipped suites\' budgets let the steps measure', () => {
  const shipped = loadThresholds().suites;
  const e2e = loadThresholds(path.join(__dirname, '../../e2e/thresholds')).suites.e2e;
  const table = Object.fromEntries([...Object.entries(shipped), ['e2e', e2e]].map(([name, suite]) => [name, derived(suite)]));
  assert.deepEqual(table, {
    // 13 pairs to narrow (on the row's own servers, then in steps of 6), 6 to confirm, as the
    // suite had before it had two knobs; two counts of 3 windows and a recount of 3.
    quick: { extra_rounds: 13, step_rounds: 6, confirm_rounds: 6, extra_windows: 6, step_windows: 3, confirm_windows: 3, seconds: 300 },
    full: { extra_rounds: 0, step_rounds: 1, confirm_rounds: 0, extra_windows: 0, step_windows: 0, confirm_windows: 0, seconds: 600 },
    ahi: { extra_rounds: 4, step_rounds: 4, confirm_rounds: 6, extra_windows: 0, step_windows: 0, confirm_windows: 0, seconds: 3600 },
    'ahi-quick': { extra_rounds: 4, step_rounds: 4, confirm_rounds: 6, extra_windows: 0, step_windows: 0, confirm_windows: 0, seconds: 300 },
    // DDL statements: every round is on a fresh server already, so the budget goes to pairs.
    // Instructions counted too: a recount on fresh servers, or more windows where a short statement's count is open.
    'ddl-quick': { extra_rounds: 6, step_rounds: 6, confirm_rounds: 6, extra_windows: 6, step_windows: 3, confirm_windows: 3, seconds: 240 },
    // Sixteen threads queueing spread far more than one: as many pairs to narrow as to confirm.
    'contention-quick': { extra_rounds: 6, step_rounds: 6, confirm_rounds: 6, extra_windows: 0, step_windows: 0, confirm_windows: 0, seconds: 240 },
    // TPC-C: a round is a restart on a fresh copy and 20 s of the mix; most pairs confirm.
    tpcc: { extra_rounds: 2, step_rounds: 2, confirm_rounds: 6, extra_windows: 0, step_windows: 0, confirm_windows: 0, seconds: 120 },
    ddl: { extra_rounds: 4, step_rounds: 4, confirm_rounds: 6, extra_windows: 0, step_windows: 0, confirm_windows: 0, seconds: 900 },
    e2e: { extra_rounds: 4, step_rounds: 4, confirm_rounds: 6, extra_windows: 6, step_windows: 3, confirm_windows: 3, seconds: 300 },
  });
  // The full suite counted with --metric both (a release sign-off) still counts open
  // instructions again, as it did.
  assert.deepEqual(stepBudget(shipped.full.budget, { rounds: 6, windows: 3 }).extra_windows, 6);
});

test('the rules: a row gets extra_pairs at most, a confirmation is one batch of max(rounds, 6), windows count in batches of their own', () => {
  fc.assert(fc.property(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 2, max: 40 }), fc.option(fc.integer({ min: 1, max: 9 }), { nil: null }), fc.double({ min: 0, max: 120, noNaN: true }),
    (pairs, rounds, windows, minutes) => {
      const b = stepBudget({ extra_pairs: pairs, minutes }, { rounds, windows });
      assert.equal(b.extra_rounds + b.confirm_rounds, pairs);
      assert.equal(b.confirm_rounds, Math.min(pairs, Math.max(rounds, 6)));
      assert.ok(b.step_rounds >= 1 && b.step_rounds <= Math.max(1, b.extra_rounds));
      assert.deepEqual([b.extra_windows, b.step_windows, b.confirm_windows], windows ? [2 * windows, windows, windows] : [0, 0, 0]);
      assert.equal(b.seconds, 60 * minutes);
    }), { seed: 20261207, numRuns: 300 });
});

// A verdict of one open row and one whose time fails, as nextStep reads it.
const OPEN_TIME = { id: 'scan_range=100', verdict: 'undecided', needs: ['time'], time_verdict: 'undecided', instructions_verdict: null };
const OPEN_INSTR = { id: 'point-query', verdict: 'undecided', needs: ['instructions'], time_verdict: 'pass', instructions_verdict: 'undecided' };
const TIME_FAIL = { id: 'update-index_range=100', verdict: 'fail', needs: [], time_verdict: 'fail', instructions_verdict: 'pass' };
const INSTR_WARN = { id: 'insert_range=100', verdict: 'warn', needs: [], time_verdict: 'pass', instructions_verdict: 'warn' };
const verdictOf = (rows) => ({ verdict: 'fail', benchmarks: rows, ahi: [], failed: rows.filter((b) => b.verdict === 'fail').map((b) => b.id) });
const fresh = { extra_rounds: 0, confirmed: [], extra_windows: 0, recounted: [], on_request: {} };
const QUICK = { extra_pairs: 19, minutes: 5 };

test('once the minutes are spent, open rows get no more rounds or windows; fails and warns are still confirmed', () => {
  const budget = stepBudget(QUICK, { rounds: 5, windows: 3 });
  const v = verdictOf([OPEN_TIME, OPEN_INSTR, TIME_FAIL, INSTR_WARN]);
  assert.equal(nextStep(v, budget, { ...fresh, seconds: 299 }).action, 'count');
  assert.deepEqual(nextStep(v, budget, { ...fresh, seconds: 300 }), { action: 'recount', ids: ['insert_range=100'], windows: 3 });
  const recounted = { ...fresh, seconds: 300, recounted: ['insert_range=100'] };
  assert.deepEqual(nextStep(v, budget, recounted), { action: 'confirm', ids: ['update-index_range=100'], rounds: 6 });
  assert.deepEqual(nextStep(v, budget, { ...recounted, confirmed: ['update-index_range=100'] }),
    { action: 'done', why: 'the budget\'s 5 minutes of extra measurement are spent' });
  // Nor a pair more on a row's own servers.
  const open = { ...OPEN_TIME, ahi: null, rqps: null, limits: { warn: 0.97, fail: 0.93 } };
  assert.equal(roundsNow(open, budget, { ...fresh, seconds: 120 }), 1);
  assert.equal(roundsNow(open, budget, { ...fresh, seconds: 300 }), 0);
});
