'use strict';
// Results documents as an attacker or a broken harness could hand them to `perfgate judge`:
// each either ends the row or the run as an error, or is refused naming the key; none passes,
// and every verdict written is one the verdict schema accepts.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const core = require('@perfgate/core');

const RESULTS = require(path.join(__dirname, '../../fixtures/results/instructions-pfs/results.json'));
// Wide limits: the fixture's rows pass on time and instructions as they are, so that each
// change below is what turns them.
const LIMITS = { limits: { default: { warn: 0.5, fail: 0.4, instructions: { warn: 1.5, fail: 2 } } } };

function judged(change) {
  const results = JSON.parse(JSON.stringify(RESULTS));
  change(results);
  const v = core.judge(results, LIMITS);
  assert.equal(core.schemaProblem('verdict', v), null, 'the verdict written must match its schema');
  return v;
}
const rowOf = (v, id = 'point-query') => v.benchmarks.find((b) => b.id === id);

test('as measured, the fixture passes with these limits', () => {
  assert.equal(judged(() => {}).verdict, 'pass');
});

test('a cancelled run is an error, however many rounds it kept', () => {
  const v = judged((r) => { r.status = 'cancelled'; r.errors = [{ side: null, benchmark: null, step: 'cancelled', message: 'cancelled by SIGTERM; nothing measured counts' }]; });
  assert.deepEqual([v.verdict, v.exit_code], ['error', core.EXIT.error]);
  assert.match(v.headline, /the run was cancelled: cancelled by SIGTERM/);
  assert.ok(v.benchmarks.every((b) => b.verdict === 'error' && b.rqps === null && !('instructions_verdict' in b)));
});

test('a side that failed as a whole leaves every row an error with no signal\'s word, and the verdict matches its schema', () => {
  const v = judged((r) => { r.status = 'error'; r.errors = [{ side: 'head', benchmark: null, step: 'start', message: 'mysqld crashed' }]; });
  assert.equal(v.verdict, 'error');
  for (const b of v.benchmarks) {
    assert.equal(b.verdict, 'error');
    assert.match(b.reason, /the head server failed \(start\): mysqld crashed/);
    assert.equal(b.instructions_per_query, null);
    assert.equal('instructions_verdict' in b, false);
  }
});

test('a round with reconnects is an error: the connection was lost mid-round', () => {
  const v = judged((r) => { for (const x of r.benchmarks[0].rounds) if (x.side === 'head') x.reconnects = 5; });
  assert.equal(rowOf(v).verdict, 'error');
  assert.match(rowOf(v).reason, /^head round \d+: sysbench reconnected 5 times/);
});

test('a round lost on one side is an error naming it, not a shorter interval', () => {
  const dropHead = judged((r) => { const b = r.benchmarks[0]; const [gone] = b.rounds.filter((x) => x.side === 'head'); b.rounds = b.rounds.filter((x) => x !== gone); });
  assert.equal(rowOf(dropHead).verdict, 'error');
  assert.match(rowOf(dropHead).reason, /^base round \d+ has no head round/);
  const extraBase = judged((r) => { const b = r.benchmarks[0]; const base = b.rounds.find((x) => x.side === 'base'); b.rounds.push({ ...base, index: 99, queries: base.queries + 1 }); });
  assert.match(rowOf(extraBase).reason, /^base round 99 has no head round/);
});

test('a row without timed rounds in a run that planned time is an error, not a pass on instructions alone', () => {
  const v = judged((r) => { r.benchmarks[1].rounds = []; });
  assert.equal(rowOf(v, 'update-index_range=100').verdict, 'error');
  assert.match(rowOf(v, 'update-index_range=100').reason, /^no timed rounds, though the plan measures time/);
  // Where the plan counts instructions only, a row without rounds is judged on them.
  const untimed = judged((r) => { r.plan.measure.signals = ['instructions']; for (const b of r.benchmarks) b.rounds = []; });
  assert.equal(untimed.verdict, 'pass');
});

test('figures whose ratio leaves the floating-point range make the row an error, not a crash', () => {
  const v = judged((r) => { r.benchmarks[0].rounds.find((x) => x.side === 'base').qps = 1e-320; });
  assert.equal(rowOf(v).verdict, 'error');
  assert.match(rowOf(v).reason, /^figures out of range: /);
  assert.equal(v.verdict, 'error');
});

test('refused with the file and key named: a round of a side the run does not have, negative background instructions', () => {
  const results = JSON.parse(JSON.stringify(RESULTS));
  results.benchmarks[0].rounds.push({ ...results.benchmarks[0].rounds[0], side: 'head2' });
  assert.throws(() => core.judge(results, LIMITS), (err) => err instanceof core.UsageError
    && /benchmark 'point-query' has a round of side 'head2', which its key 'sides' does not hold \(base, head\)/.test(err.message));
  const negative = JSON.parse(JSON.stringify(RESULTS));
  negative.benchmarks[0].instructions.head.windows[0].background.per_query = -1e5;
  assert.match(core.schemaProblem('results', negative), /per_query/);
  // The malloc a run says it counted on, and the host's: one of two names, nothing added.
  const malloc = JSON.parse(JSON.stringify(RESULTS));
  malloc.instructions.malloc = { name: 'jemalloc', settings: 'x', library: '/usr/lib/libjemalloc.so.2' };
  malloc.machine.counted_malloc = { ...malloc.instructions.malloc };
  assert.equal(core.schemaProblem('results', malloc), null);
  malloc.instructions.malloc.name = 'tcmalloc';
  assert.match(core.schemaProblem('results', malloc), /instructions\.malloc\.name: "tcmalloc" is not valid; expected one of: jemalloc, glibc/);
  malloc.instructions.malloc.name = 'glibc';
  malloc.machine.counted_malloc.preload = '/tmp/evil.so';
  assert.match(core.schemaProblem('results', malloc), /machine\.counted_malloc/);
  // What the counts left out: names of functions, and client reads no fewer than none.
  const leftOut = JSON.parse(JSON.stringify(RESULTS));
  leftOut.instructions.left_out = ['vio_read'];
  leftOut.benchmarks[0].instructions.head.windows[0].connection.client_reads = 2101;
  assert.equal(core.schemaProblem('results', leftOut), null);
  leftOut.instructions.left_out = ['vio_read; rm -rf /'];
  assert.match(core.schemaProblem('results', leftOut), /instructions\.left_out/);
  leftOut.instructions.left_out = ['vio_read'];
  leftOut.benchmarks[0].instructions.head.windows[0].connection.client_reads = -5;
  assert.match(core.schemaProblem('results', leftOut), /client_reads/);
});

test('a cancelled run judged together with a finished one is still cancelled', () => {
  const cancelled = JSON.parse(JSON.stringify(RESULTS));
  cancelled.status = 'cancelled';
  // Another run: later round indices, and rounds that measured something of their own.
  for (const b of cancelled.benchmarks) for (const x of b.rounds) { x.index += 100; x.queries += 1; }
  for (const b of cancelled.benchmarks) delete b.instructions;
  const v = core.judge([JSON.parse(JSON.stringify(RESULTS)), cancelled], LIMITS);
  assert.equal(v.verdict, 'error');
  assert.match(v.headline, /the run was cancelled/);
});
