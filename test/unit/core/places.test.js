'use strict';
// Steps on fresh servers run the builds in reversed places (core/src/places.js): a cost that
// goes with a side's place (its folder, datadir set-up, turn) must not be confirmed as a
// regression of the build that happened to run there.
const test = require('node:test');
const assert = require('node:assert/strict');
const { reversedPlaces, stepPlaces, planInPlaces, resultsFromPlaces, filesToOwnFolders, eventFromPlaces } = require('../../../core/src/places');
const { simulateCompare } = require('./simulated-compare');
const { assertValid } = require('../../../core/src/schemas');
const { resultsDoc } = require('./results-doc');

const LIMITS = { default: { warn: 0.97, fail: 0.93 } };
const BUDGET = { extra_rounds: 6, step_rounds: 2, confirm_rounds: 6, extra_windows: 0, step_windows: 0, confirm_windows: 0 };

test('reversed places: the order of the sides turned round, a chain\'s middle head in its own', () => {
  assert.deepEqual(reversedPlaces(['base', 'head']), { base: 'head', head: 'base' });
  assert.deepEqual(reversedPlaces(['base', 'head', 'head2']), { base: 'head2', head: 'head', head2: 'base' });
});

test('each unit of step alternates its places, the first step of it reversed', () => {
  const sides = ['base', 'head'];
  const rounds = (action) => ({ action, ids: ['a'], rounds: 2 });
  const windows = (action) => ({ action, ids: ['a'], windows: 3 });
  assert.deepEqual(stepPlaces(rounds('confirm'), [], sides), { base: 'head', head: 'base' });
  assert.equal(stepPlaces(rounds('extend'), [rounds('confirm')], sides), null);
  assert.deepEqual(stepPlaces(rounds('extend'), [rounds('confirm'), rounds('extend')], sides), { base: 'head', head: 'base' });
  // Windows pair with windows: a recount after a confirmation is still the first of its kind.
  assert.deepEqual(stepPlaces(windows('recount'), [rounds('confirm')], sides), { base: 'head', head: 'base' });
  assert.equal(stepPlaces(windows('count'), [rounds('confirm'), windows('recount')], sides), null);
});

test('a plan in places holds each build where it runs; places that lose a side are refused', () => {
  const plan = { schema: 'perfgate.plan/v1', sides: { base: { basedir: '/b', label: 'old' }, head: { basedir: '/h', label: 'new' } }, benchmarks: [] };
  const moved = planInPlaces(plan, { base: 'head', head: 'base' });
  assert.deepEqual(moved.sides, { base: { basedir: '/h', label: 'new' }, head: { basedir: '/b', label: 'old' } });
  assert.deepEqual(Object.keys(moved.sides), ['base', 'head']);
  assert.deepEqual(plan.sides.base, { basedir: '/b', label: 'old' }, 'the plan given is not changed');
  assert.throws(() => planInPlaces(plan, { base: 'head', head: 'head' }), /do not put each of the plan's sides/);
  assert.throws(() => planInPlaces(plan, { base: 'head' }), /do not put each/);
});

const counted = (perQuery) => ({
  windows: [{ events: 10, queries: 10, seconds: 1, connection: { instructions: perQuery * 10, threads: 1, per_query: perQuery }, background: { instructions: 0, threads: 8, per_query: 0 } }],
  functions: { connection: [], background: [] },
});

// What the harness writes for a run in reversed places: its sides, rounds, windows and errors
// are named by place.
function placedDoc() {
  const doc = resultsDoc([{
    id: 'a', name: 'a', group: 'write', status: 'ok',
    rounds: [
      { index: 4, side: 'base', qps: 1100, cpu_per_query_us: 90, cs_per_query: 1 },
      { index: 4, side: 'head', qps: 1000, cpu_per_query_us: 100, cs_per_query: 1 },
    ],
    ahi_counters: { base: { searches: 7 }, head: { searches: 3 } },
    instructions: { events: 10, seed: 1, runs: 1, base: counted(2), head: counted(1) },
  }]);
  // The head build (version 2) ran in the base's place.
  doc.sides = { base: { basedir: '/h', flavor: 'mariadb', version: '2' }, head: { basedir: '/b', flavor: 'mariadb', version: '1' } };
  doc.plan.sides = { base: { basedir: '/h' }, head: { basedir: '/b' } };
  doc.errors = [{ side: 'base', benchmark: 'a', step: 'round', message: 'base: sysbench exited 1' }, { side: null, message: 'internal' }];
  return doc;
}

test('results from reversed places name every side by the build that ran there', () => {
  const doc = resultsFromPlaces(placedDoc(), { base: 'head', head: 'base' });
  assert.deepEqual(doc.places, { base: 'head', head: 'base' });
  assert.deepEqual(Object.keys(doc.sides), ['base', 'head']);
  assert.equal(doc.sides.base.version, '1');
  assert.equal(doc.sides.head.version, '2');
  assert.equal(doc.plan.sides.base.basedir, '/b');
  const b = doc.benchmarks[0];
  // The head build's round (it ran in the base's place) is the head's.
  assert.deepEqual(b.rounds.map((r) => [r.side, r.qps]), [['head', 1100], ['base', 1000]]);
  assert.deepEqual(b.ahi_counters, { base: { searches: 3 }, head: { searches: 7 } });
  assert.equal(b.instructions.base.windows[0].connection.per_query, 1);
  assert.equal(b.instructions.head.windows[0].connection.per_query, 2);
  assert.deepEqual([b.instructions.events, b.instructions.seed, b.instructions.runs], [10, 1, 1]);
  assert.equal(doc.errors[0].side, 'head');
  assert.equal(doc.errors[0].message, "base: sysbench exited 1 (the head server, run in the base's place)");
  assert.deepEqual(doc.errors[1], { side: null, message: 'internal' });
  assertValid('results', doc, 'results in places');
  // Own places: nothing moves and no `places` is recorded.
  const own = resultsFromPlaces(placedDoc(), { base: 'base', head: 'head' });
  assert.equal(own.places, undefined);
  assert.deepEqual(own.benchmarks[0].rounds, placedDoc().benchmarks[0].rounds);
  assert.throws(() => resultsFromPlaces(placedDoc(), { base: 'head', head: 'base', head2: 'head2' }), /do not put each of the results's sides/);
});

test('each build\'s callgrind files go to its own folder; a path that leaves its place\'s folder is not moved', () => {
  const places = { base: 'head', head: 'base' };
  const doc = resultsFromPlaces(placedDoc(), places);
  doc.benchmarks[0].instructions.base.files = 'servers/head/callgrind/a.last';
  doc.benchmarks[0].instructions.head.files = 'servers/base/callgrind/a.last';
  const { results, moves } = filesToOwnFolders(doc, places);
  assert.deepEqual(moves, [{ from: 'servers/head/callgrind/a.last', to: 'servers/base/callgrind/a.last' }, { from: 'servers/base/callgrind/a.last', to: 'servers/head/callgrind/a.last' }]);
  assert.equal(results.benchmarks[0].instructions.head.files, 'servers/head/callgrind/a.last');
  assert.equal(results.benchmarks[0].instructions.base.files, 'servers/base/callgrind/a.last');
  for (const hostile of ['servers/base/../../../etc', '/servers/base/x', 'elsewhere/a.last']) {
    doc.benchmarks[0].instructions.head.files = hostile;
    const out = filesToOwnFolders(doc, places);
    assert.equal(out.results.benchmarks[0].instructions.head.files, hostile);
    assert.ok(!out.moves.some((m) => m.from === hostile), hostile);
  }
});

test('a progress event names the build, also for a step of both sides', () => {
  const places = { base: 'head', head: 'base' };
  assert.equal(eventFromPlaces({ event: 'round', side: 'head' }, places).side, 'base');
  assert.equal(eventFromPlaces({ event: 'phase', side: 'base, head' }, places).side, 'head, base');
  assert.deepEqual(eventFromPlaces({ event: 'done' }, places), { event: 'done' });
  assert.deepEqual(eventFromPlaces({ event: 'round', side: 'head' }, null), { event: 'round', side: 'head' });
});

/**
 * The compare loop on one microbenchmark on a machine where the head's place costs `placeCost`
 * of a side's QPS and the head build runs at `headSpeed` of the base build. Each step's rounds
 * are measured in the places stepPlaces gives (or the builds' own ones when `keepPlaces`),
 * written as the harness writes them (by place) and turned back by resultsFromPlaces.
 */
function compareOnPlaces({ headSpeed, placeCost, keepPlaces = false, pairs = 6 }) {
  const jitter = [1.0, 1.004, 0.996, 1.002, 0.998, 1.001];
  const speed = { base: 1, head: headSpeed };
  const costOf = { base: 1, head: placeCost };
  const measureIn = (places, from, n) => {
    const rounds = [];
    for (let k = 0; k < n; k++) {
      for (const build of ['base', 'head']) {
        const place = places[build];
        rounds.push({ index: from + k, side: place, qps: 1000 * speed[build] * costOf[place] * jitter[(k + (build === 'head' ? 3 : 0)) % 6], cpu_per_query_us: 100, cs_per_query: 1 });
      }
    }
    const doc = resultsDoc([{ id: 'a', name: 'a', group: 'write', status: 'ok', rounds }]);
    const builds = doc.sides;
    doc.sides = Object.fromEntries(Object.entries(places).map(([build, place]) => [place, builds[build]]));
    return resultsFromPlaces(doc, places);
  };
  const own = { base: 'base', head: 'head' };
  const { row, steps, results } = simulateCompare({
    results: measureIn(own, 0, pairs),
    limits: LIMITS,
    budget: BUDGET,
    measureStep: (step, earlier, from) => measureIn((!keepPlaces && stepPlaces(step, earlier, ['base', 'head'])) || own, from, step.rounds),
  });
  return { row, steps: steps.map((s) => s.action), results };
}

test('a place that costs 12% does not fail an unchanged build: the confirmation runs it in the other place', () => {
  for (const placeCost of [0.88, 0.9, 0.92]) {
    // Kept in their places, the fresh servers repeat what the place cost: a fail of nothing.
    assert.equal(compareOnPlaces({ headSpeed: 1, placeCost, keepPlaces: true }).row.verdict, 'fail', `place cost ${placeCost}, places kept`);
    const { row, steps, results } = compareOnPlaces({ headSpeed: 1, placeCost });
    assert.equal(steps[0], 'confirm');
    assert.notEqual(row.verdict, 'fail', `place cost ${placeCost}`);
    assert.notEqual(row.verdict, 'warn', `place cost ${placeCost}`);
    assert.deepEqual(results.extensions[0].places, { base: 'head', head: 'base' });
  }
});

test('a real slowdown still fails when the confirmation runs the builds in each other\'s places', () => {
  // The head build slower by 10% or 15%, with or without a place that costs 3%.
  for (const headSpeed of [0.9, 0.85]) {
    for (const placeCost of [1, 0.97]) {
      const { row, steps } = compareOnPlaces({ headSpeed, placeCost });
      assert.equal(steps[0], 'confirm');
      assert.equal(row.verdict, 'fail', `head ${headSpeed}, place cost ${placeCost}`);
    }
  }
});
