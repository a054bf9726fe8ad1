'use strict';
// Instructions of all threads: a regression placed in the background work the queries leave
// (purge, flushing) runs no instruction on a connection thread. What the all-threads interval
// proves counts; what it leaves open does not keep a row open (background threads also run
// work of their own that comes and goes).
const test = require('node:test');
const assert = require('node:assert/strict');
const core = require('@perfgate/core');
const { regressionAtBadEnd } = require('../../../core/src/bisect');

const LIMITS = { limits: { default: { warn: 0.97, fail: 0.93, instructions: { warn: 1.015, fail: 1.03 } } } };

// Windows of one side: [connection per query, background per query] each.
const side = (perQuery) => ({
  windows: perQuery.map(([c, g]) => ({
    events: 300, queries: 300, seconds: 1,
    connection: { instructions: Math.round(c * 300), threads: 1, per_query: c },
    background: { instructions: Math.round(g * 300), threads: 12, per_query: g },
  })),
  functions: { connection: [], background: [] },
});
const rounds = [0, 1, 2, 3, 4].flatMap((index) => [
  { index, side: 'base', qps: 1000, errors: 0, cpu_per_query_us: 100, cs_per_query: 1 },
  { index, side: 'head', qps: 1000 * [1.0, 1.002, 0.998, 1.001, 0.999][index], errors: 0, cpu_per_query_us: 100, cs_per_query: 1 },
]);
function judged(base, head) {
  const results = {
    schema: 'perfgate.results/v1', plan: { suite: 'quick' }, status: 'ok', errors: [],
    machine: { cpu_model: 'x', cores: 2, memory_bytes: 1, kernel: 'k', id: 'm' },
    sides: { base: { basedir: '/b', flavor: 'mariadb', version: '1' }, head: { basedir: '/h', flavor: 'mariadb', version: '2' } },
    benchmarks: [{ id: 'update-index_range=100', name: 'update-index_range=100', group: 'write', status: 'ok', rounds, instructions: { events: 300, seed: 1, base: side(base), head: side(head) } }],
  };
  const v = core.judge(results, LIMITS);
  assert.equal(core.schemaProblem('verdict', v), null);
  return { v, row: v.benchmarks[0] };
}

test('more purge work per query, the queries\' own instructions unchanged, fails on the instructions of all threads', () => {
  // Purge costs about as much as the query itself (update-index_range=100 at the quick scale);
  // the head's purge does 30% more.
  const { v, row } = judged(
    [[95000, 91000], [95100, 91200], [94950, 90900]],
    [[95010, 118300], [95090, 118500], [94960, 118200]],
  );
  assert.equal(row.instructions_per_query.estimate < 1.001, true);
  assert.equal(row.instructions_threads, 'all');
  assert.equal(row.instructions_verdict, 'fail');
  assert.equal(row.verdict, 'fail');
  assert.match(row.reason, /^15% more instructions per query, counting the background threads: instr\/o of all threads 1\.14\d \[1\.14\d, 1\.14\d\] lies wholly above the fail limit 1\.03; instr\/o 1\.000 \[/);
  assert.match(v.headline, /^Slower: update-index_range=100: 15% more instructions per query, counting the background threads \(instr\/o of all threads 1\.14\d \[1\.14\d, 1\.14\d\], fail limit 1\.03\)/);
  // A bisection of it watches the interval that decided.
  const bad = regressionAtBadEnd(v, ['update-index_range=100']);
  assert.equal(bad.status, 'regressed');
  assert.equal(bad.watched[0].signal, 'instructions');
  assert.ok(bad.watched[0].bad_end.estimate > 1.14);
});

test('a burst of background work in one window of an unchanged build neither warns nor keeps the row open', () => {
  // One window of three: the head's background threads ran something of their own (9% more
  // in all, as insert_range=100 once counted in an A/A pair).
  const { row } = judged(
    [[121000, 6000], [121800, 17400], [122100, 5900]],
    [[121100, 5950], [121900, 17350], [122300, 17450]],
  );
  assert.ok(row.all_threads_per_query.high > 1.03, 'the all-threads interval reaches the fail limit');
  assert.equal(row.instructions_threads, 'connection');
  assert.equal(row.instructions_verdict, 'pass');
  assert.equal(row.verdict, 'pass');
  assert.equal(row.open, false);
  assert.doesNotMatch(row.reason, /all threads/);
});

test('where the queries\' own instructions prove more, they decide and lead', () => {
  // 5% more on the connection threads; the unchanged purge dilutes all threads to 2.6%.
  const { row } = judged(
    [[95000, 91000], [95100, 91200], [94950, 90900]],
    [[99750, 91000], [99855, 91200], [99698, 90900]],
  );
  assert.equal(row.instructions_threads, 'connection');
  assert.equal(row.verdict, 'fail');
  assert.match(row.reason, /^5% more instructions per query: instr\/o 1\.050/);
});

test('where all threads decided, the functions that grew are looked for in the background threads too', () => {
  const results = (() => {
    const base = [[95000, 91000], [95100, 91200], [94950, 90900]];
    const head = [[95010, 118300], [95090, 118500], [94960, 118200]];
    const withFunctions = (s, purge) => ({ ...side(s), functions: {
      connection: [{ name: 'row_upd_sec_index_entry(upd_node_t*, que_thr_t*)', object: 'mariadbd', source: 'row0upd.cc:1826', self: 218, inclusive: 15624 }],
      background: [{ name: 'row_purge_remove_sec_if_poss(purge_node_t*, dict_index_t*, dtuple_t const*)', object: 'mariadbd', source: 'row0purge.cc:1020', self: purge, inclusive: purge + 9000 }],
    } });
    return {
      schema: 'perfgate.results/v1', plan: { suite: 'quick' }, status: 'ok', errors: [],
      machine: { cpu_model: 'x', cores: 2, memory_bytes: 1, kernel: 'k', id: 'm' },
      sides: { base: { basedir: '/b', flavor: 'mariadb', version: '1' }, head: { basedir: '/h', flavor: 'mariadb', version: '2' } },
      benchmarks: [{ id: 'update-index_range=100', name: 'update-index_range=100', group: 'write', status: 'ok', rounds, instructions: { events: 300, seed: 1, base: withFunctions(base, 400), head: withFunctions(head, 27700) } }],
    };
  })();
  const row = core.judge(results, LIMITS).benchmarks[0];
  assert.equal(row.instructions_threads, 'all');
  assert.equal(row.instructions_functions.grown[0].name, 'row_purge_remove_sec_if_poss(purge_node_t*, dict_index_t*, dtuple_t const*)');
  assert.equal(row.instructions_functions.grown[0].self_growth, 27300);
});

test('the comment leads with the figure of all threads where they decided', () => {
  const { v } = judged(
    [[95000, 91000], [95100, 91200], [94950, 90900]],
    [[95010, 118300], [95090, 118500], [94960, 118200]],
  );
  const text = core.renderComment(v);
  assert.match(text, /\*\*update-index_range=100\*\*: instr\/o of all threads 1\.14\d \(186\.0k → 213\.\dk instructions per query, functions of every thread\); the queries' own threads: instr\/o 1\.000/);
});
