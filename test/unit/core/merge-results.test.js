'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { mergeResults, nextRoundIndex } = require('../../../core/src/merge-results');
const { schemaProblem } = require('../../../core/src/schemas');

const round = (index, side, qps) => ({ index, side, qps, cpu_per_query_us: 100, cs_per_query: 1 });
const pairs = (from, count) => Array.from({ length: count }, (_, k) => [round(from + k, 'base', 1000), round(from + k, 'head', 990)]).flat();

function results(benchmarks, extra = {}) {
  return {
    schema: 'perfgate.results/v1',
    plan: { suite: 'quick', benchmarks: benchmarks.map((b) => ({ id: b.id })) },
    status: 'ok',
    machine: { cpu_model: 'x', cores: 2, memory_bytes: 1, kernel: 'k', id: 'm1' },
    sides: { base: { basedir: '/b', flavor: 'mariadb', version: '10.11.18' }, head: { basedir: '/h', flavor: 'mariadb', version: '10.11.19' } },
    started: '2026-01-01T00:00:00Z',
    finished: '2026-01-01T00:10:00Z',
    benchmarks,
    ...extra,
  };
}

const bench = (id, rounds, more = {}) => ({ id, name: id, group: 'point', status: 'ok', rounds, ...more });

test('extra rounds are appended to their benchmarks; the others are untouched', () => {
  const first = results([bench('a', pairs(0, 4)), bench('b', pairs(0, 4))]);
  assert.equal(schemaProblem('results', first), null);
  assert.equal(nextRoundIndex(first), 4);
  const extra = results([bench('b', pairs(4, 2))], { finished: '2026-01-01T00:12:00Z' });
  const extension = { file: 'results.extra-1.json', purpose: 'extend', first_round: 4, rounds: 2, benchmarks: ['b'] };
  const merged = mergeResults([first, extra], { extension });
  assert.deepEqual(merged.benchmarks[0], first.benchmarks[0]);
  assert.deepEqual(merged.benchmarks[1].rounds.map((r) => `${r.side}${r.index}`), ['base0', 'head0', 'base1', 'head1', 'base2', 'head2', 'base3', 'head3', 'base4', 'head4', 'base5', 'head5']);
  assert.equal(merged.finished, '2026-01-01T00:12:00Z');
  assert.deepEqual(merged.extensions, [extension]);
  assert.equal(merged.status, 'ok');
  assert.equal(nextRoundIndex(merged), 6);
  assert.equal(first.benchmarks[1].rounds.length, 8, 'input not modified');
  assert.equal(first.extensions, undefined);
});

test('an error in the extra rounds makes the benchmark and the run an error', () => {
  const first = results([bench('a', pairs(0, 2))]);
  const error = { side: 'head', benchmark: 'a', step: 'round', message: 'mysqld died' };
  const extra = results([bench('a', [round(2, 'base', 1000)], { status: 'error', error })], { status: 'error', errors: [error] });
  const merged = mergeResults([first, extra], { extension: { file: 'results.extra-1.json', purpose: 'confirm', first_round: 2, rounds: 4, benchmarks: ['a'] } });
  assert.equal(merged.status, 'error');
  assert.equal(merged.benchmarks[0].status, 'error');
  assert.deepEqual(merged.benchmarks[0].error, error);
  assert.deepEqual(merged.errors, [error]);
});

test('AHI counters are deltas: extra rounds add to them', () => {
  const first = results([bench('c', pairs(0, 2), { ahi_counters: { base: { adaptive_hash_searches: 10, x: 'n/a' }, head: { adaptive_hash_searches: 5 } } })]);
  const extra = results([bench('c', pairs(2, 2), { ahi_counters: { base: { adaptive_hash_searches: 3 }, head: { adaptive_hash_searches: 4 } } })]);
  const merged = mergeResults([first, extra], { extension: { file: 'results.extra-1.json', purpose: 'extend', first_round: 2, rounds: 2, benchmarks: ['c'] } });
  assert.deepEqual(merged.benchmarks[0].ahi_counters, { base: { adaptive_hash_searches: 13, x: 'n/a' }, head: { adaptive_hash_searches: 9 } });
});

test('extra results naming a benchmark the run does not have are refused', () => {
  const first = results([bench('a', pairs(0, 2))]);
  const extra = results([bench('z', pairs(2, 2))]);
  assert.throws(() => mergeResults([first, extra], { extension: { file: 'results.extra-1.json', purpose: 'extend', first_round: 2, rounds: 2, benchmarks: ['z'] } }), /results.extra-1.json has 'z', which the results it extends do not/);
});

test('instruction windows of a later count join the earlier ones, still paired by index', () => {
  const { mergeResults } = require('../../../core/src/merge-results');
  const window = (q) => ({ events: 10, queries: 10, seconds: 1, connection: { instructions: q * 10, threads: 1, per_query: q }, background: { instructions: 0, threads: 1, per_query: 0 } });
  const doc = (base, head) => ({
    schema: 'perfgate.results/v1', plan: { suite: 'quick', benchmarks: [{ id: 'p' }] }, status: 'ok', errors: [],
    machine: { cpu_model: 'x', cores: 2, memory_bytes: 1, kernel: 'k', id: 'm' },
    sides: { base: { basedir: '/b', flavor: 'mariadb', version: '1' }, head: { basedir: '/h', flavor: 'mariadb', version: '2' } },
    benchmarks: [{ id: 'p', name: 'p', group: 'point', status: 'ok', rounds: [],
      instructions: { events: 10, seed: 1, base: { windows: base.map(window), functions: { connection: [] } }, head: { windows: head.map(window), functions: { connection: [] } } } }],
  });
  const merged = mergeResults([doc([100, 101, 99], [110, 111, 109]), doc([100, 100, 100], [112, 112, 112])],
    { extension: { file: 'results.extra-1.json', purpose: 'recount', first_round: 0, rounds: 0, windows: 3, benchmarks: ['p'] } });
  const ins = merged.benchmarks[0].instructions;
  assert.equal(ins.runs, 2);
  assert.deepEqual(ins.base.windows.map((w) => w.connection.per_query), [100, 101, 99, 100, 100, 100]);
  assert.deepEqual(ins.head.windows.map((w) => w.connection.per_query), [110, 111, 109, 112, 112, 112]);
});

// Timed rounds carry an index and a repeated one is refused; windows pair by position and carry
// none. A count merged twice (a run folder's results.json, which already holds its
// results.extra-N.json, judged with that file) doubled every window: an interval as narrow as
// twice the windows counted, which can decide a row the windows leave open.
test('the same instruction windows merged twice are refused', () => {
  const window = (q, seconds) => ({ events: 10, queries: 10, seconds, connection: { instructions: q * 10, threads: 1, per_query: q }, background: { instructions: 0, threads: 1, per_query: 0 } });
  const doc = (base, head) => results([bench('p', [], {
    instructions: { events: 10, seed: 1, base: { windows: base.map((q, k) => window(q, 1.1 + k)), functions: { connection: [] } }, head: { windows: head.map((q, k) => window(q, 1.2 + k)), functions: { connection: [] } } },
  })]);
  const counted = doc([100, 101, 99], [102, 103, 101]);
  const more = doc([98, 100, 101], [104, 104, 104]);
  const once = mergeResults([counted, more], { extension: { file: 'results.extra-1.json', purpose: 'count', first_round: 0, rounds: 0, windows: 3, benchmarks: ['p'] } });
  assert.equal(once.benchmarks[0].instructions.base.windows.length, 6);
  assert.throws(() => mergeResults([once, more]), { message: `results #2: benchmark 'p' has instruction windows the results before it already hold: the same count merged twice (a run folder's results.json already holds its results.extra-N.json)` });
  assert.throws(() => mergeResults([counted, counted]), /results #2: benchmark 'p' has instruction windows the results before it already hold/);
});

test('runs of other sides are refused: a chain\'s head2 is not read as the head of a comparison of two', () => {
  const two = results([bench('a', pairs(0, 5))]);
  const chain = results([bench('a', [...pairs(5, 5), round(5, 'head2', 1000)])]);
  chain.sides = { ...chain.sides, head2: { basedir: '/h2', flavor: 'mariadb', version: '11.8.9' } };
  assert.throws(() => mergeResults([two, chain]), /key 'sides' holds base, head, head2 but .* holds base, head: only runs of the same sides can be judged together/);
  assert.throws(() => mergeResults([chain, two]), /key 'sides' holds base, head but .* holds base, head, head2/);
});

test('two builds of one version with no commit are not one server: how they were built tells them apart, not where', () => {
  const build = (cmake) => ({ version_line: 'mariadbd  Ver 10.11.18-MariaDB', compiler: 'GCC 12.2.0', cmake_options: cmake });
  const first = results([bench('a', pairs(0, 5))]);
  const other = results([bench('a', pairs(5, 5))]);
  first.sides.head.build = build({ CMAKE_BUILD_TYPE: 'RelWithDebInfo' });
  other.sides.head = { ...other.sides.head, basedir: '/opt/moved', build: build({ CMAKE_BUILD_TYPE: 'Debug' }) };
  assert.throws(() => mergeResults([first, other]),
    /key 'sides\.head\.build' is .*Debug.* but .* has .*RelWithDebInfo.*: two builds of one version; not the same head server/);
  // The same build installed elsewhere is the same server.
  other.sides.head.build = build({ CMAKE_BUILD_TYPE: 'RelWithDebInfo' });
  assert.equal(mergeResults([first, other]).benchmarks[0].rounds.length, 20);
});

// `perfgate judge --results a b` where b is a copy of a with its round indices moved past a's
// and its windows' seconds changed: counted as another run, it narrowed every interval with no
// new measurement (an A/A row went from undecided to pass that way).
test('a copy of a run, renumbered and with its windows\' seconds changed, is refused as the same measurement', () => {
  const measured = (index, side, k) => ({ index, side, started: `2026-01-01T00:00:${String(index).padStart(2, '0')}Z`, seconds: 2.0004, qps: 31474.22 + k, queries: 63006 + k, latency_ms: { avg: 0.06, p95: 0.1, max: 4.38 }, cpu_per_query_us: 46.9796 + k / 1000, cs_per_query: 1.0013 });
  const window = (k, seconds) => ({ events: 300, queries: 300, seconds, connection: { instructions: 12_900_000 + k, threads: 1, per_query: (12_900_000 + k) / 300 }, background: { instructions: 5_000 + 7 * k, threads: 7, per_query: (5_000 + 7 * k) / 300 } });
  const run = (from, seconds) => results([bench('p', [0, 1, 2].flatMap((k) => [measured(from + k, 'base', 2 * k), measured(from + k, 'head', 2 * k + 1)]), {
    instructions: { events: 300, seed: 1, base: { windows: [0, 1, 2].map((k) => window(2 * k, seconds + k)), functions: { connection: [] } }, head: { windows: [0, 1, 2].map((k) => window(2 * k + 1, seconds + k)), functions: { connection: [] } } },
  })]);
  const original = run(0, 1.1);
  const copy = run(3, 7.3);
  // Its keys written in another order are still the same figures.
  copy.benchmarks[0].rounds.forEach((r) => { r.latency_ms = { max: r.latency_ms.max, p95: r.latency_ms.p95, avg: r.latency_ms.avg }; });
  assert.throws(() => mergeResults([original, copy]), { message: "results #2: benchmark 'p' has base round 3, which measured exactly what base round 0 of the results before it measured: the same round merged twice (a copy of a run, renumbered); expected each run's results once" });

  // The rounds made different, the windows still the same count with other seconds.
  const roundsOnly = run(3, 7.3);
  roundsOnly.benchmarks[0].rounds.forEach((r) => { r.queries += 1000; });
  assert.throws(() => mergeResults([original, roundsOnly]), /results #2: benchmark 'p' has instruction windows the results before it already hold: the same count merged twice/);

  // The copied windows in another order, or with one left out, are still the same count.
  const reordered = run(3, 7.3);
  reordered.benchmarks[0].rounds.forEach((r) => { r.queries += 1000; });
  for (const side of ['base', 'head']) reordered.benchmarks[0].instructions[side].windows.reverse();
  assert.throws(() => mergeResults([original, reordered]), /the same count merged twice/);
  for (const side of ['base', 'head']) reordered.benchmarks[0].instructions[side].windows.splice(1, 1);
  assert.throws(() => mergeResults([original, reordered]), /the same count merged twice/);

  // The copied rounds pasted into the run itself, renumbered.
  const pasted = run(0, 1.1);
  pasted.benchmarks[0].rounds.push(...run(3, 1.1).benchmarks[0].rounds);
  assert.throws(() => mergeResults([pasted]), { message: "results #1: benchmark 'p' has base round 3, which measured exactly what its base round 0 measured: the same round twice; expected each round once" });

  // Another real run measures and counts other figures: it joins.
  const other = run(3, 7.3);
  other.benchmarks[0].rounds.forEach((r) => { r.queries += 1000; });
  other.benchmarks[0].instructions.base.windows.forEach((w) => { w.background.instructions += 13; });
  const merged = mergeResults([original, other]);
  assert.equal(merged.benchmarks[0].rounds.length, 12);
  assert.equal(merged.benchmarks[0].instructions.base.windows.length, 6);
});

// Counts that left client reads out are about 0.5% below those that did not on point-query
// (harness callgrind.py CLIENT_READS): windows of both in one interval would read as a change.
test('runs that counted instructions differently are refused: what they left out, the malloc they counted on', () => {
  const window = (q) => ({ events: 10, queries: 10, seconds: 1 + q / 1000, connection: { instructions: q * 10, threads: 1, per_query: q }, background: { instructions: 0, threads: 1, per_query: 0 } });
  const doc = (phase, q) => results([bench('p', [], {
    instructions: { events: 10, seed: 1, base: { windows: [window(q)], functions: { connection: [] } }, head: { windows: [window(q + 1)], functions: { connection: [] } } },
  })], { instructions: { tool: 'callgrind', windows: 1, seed: 1, seconds: 1, ...phase } });
  const jemalloc = { malloc: { name: 'jemalloc', settings: 's' } };
  const now = { ...jemalloc, left_out: ['vio_read'] };
  const extension = { file: 'results.extra-1.json', purpose: 'recount', first_round: 0, rounds: 0, windows: 1, benchmarks: ['p'] };
  assert.equal(mergeResults([doc(now, 100), doc(now, 101)], { extension }).benchmarks[0].instructions.base.windows.length, 2);
  assert.throws(() => mergeResults([doc(jemalloc, 100), doc(now, 101)], { extension }), {
    message: 'results #2: key \'instructions.left_out and instructions.malloc.name\' is ["vio_read"] on "jemalloc" but results #1 has [] on "jemalloc": instruction counts made differently are not comparable; measure both again with one perfgate',
  });
  assert.throws(() => mergeResults([doc(now, 100), doc({ ...now, malloc: { name: 'glibc', settings: 's' } }, 101)]), /is \["vio_read"\] on "glibc" but results #1 has \["vio_read"\] on "jemalloc"/);
  // A run that counted nothing (timed rounds only) joins either.
  assert.equal(mergeResults([doc(now, 100), results([bench('p', pairs(0, 2))])]).benchmarks[0].rounds.length, 4);
  for (const d of [doc(now, 100), doc(jemalloc, 100)]) assert.equal(schemaProblem('results', d), null);
});
