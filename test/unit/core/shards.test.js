'use strict';
// The split of a suite over runners (perfgate compare --shard K/N), on the shipped suites.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadThresholds } = require('../../../core/src/config/thresholds');
const { resolvePlan, extensionPlan } = require('../../../core/src/plan');
const { parseShard, shardPlan, shardOf, isPre, twinName } = require('../../../core/src/shards');
const { schemaProblem } = require('../../../core/src/schemas');
const { UsageError } = require('../../../core/src/errors');

const config = loadThresholds();
const sides = { base: { basedir: '/srv/base' }, head: { basedir: '/srv/head' } };
const planOf = (suite, overrides = {}) => resolvePlan(config, suite, overrides, sides);

// Every property the split must have, checked on one plan split into `count` shards.
function checkSplit(plan, count) {
  const shards = shardPlan(plan.benchmarks, count);
  assert.equal(shards.length, count);
  const all = plan.benchmarks.map((b) => b.id);
  const byId = new Map(plan.benchmarks.map((b) => [b.id, b]));
  // every microbenchmark in exactly one shard
  assert.deepEqual(shards.flat().sort(), [...all].sort(), `${count} shards: every id exactly once`);
  shards.forEach((ids, k) => {
    assert.ok(ids.length > 0, `shard ${k + 1}/${count} is empty`);
    // the suite's order kept inside the shard
    assert.deepEqual(ids, all.filter((id) => ids.includes(id)), `shard ${k + 1}/${count} keeps the suite's order`);
    // a .pre microbenchmark and its twin together
    for (const id of ids) {
      const b = byId.get(id);
      const twin = plan.benchmarks.find((o) => o !== b && twinName(o.name) === twinName(b.name) && o.threads === b.threads);
      if (twin) assert.ok(ids.includes(twin.id), `${id} and ${twin.id} in one shard`);
    }
    // a read the suite runs after writes has a write before it in its shard
    const firstWriteInSuite = all.findIndex((id) => byId.get(id).kind === 'write');
    for (const [at, id] of ids.entries()) {
      const postRead = byId.get(id).kind === 'read' && all.indexOf(id) > firstWriteInSuite && firstWriteInSuite >= 0;
      if (postRead) assert.ok(ids.slice(0, at).some((w) => byId.get(w).kind === 'write'), `${id} has no write before it in shard ${k + 1}/${count}`);
    }
  });
  return shards;
}

// The shipped full suite runs two thread counts; the split of its 42 microbenchmarks at one
// thread count is pinned on a plan of one (--threads 2).
const oneThreadCount = { threads: [2] };

test('the full suite at one thread count: every count from 1 to 8 keeps every rule', () => {
  const plan = planOf('full', oneThreadCount);
  assert.equal(plan.benchmarks.length, 42);
  for (let n = 1; n <= 8; n += 1) checkSplit(plan, n);
});

test('the shipped full suite (threads 1 and 4): 84 rows, every count from 1 to 16 keeps every rule, 17 is too many', () => {
  const plan = planOf('full');
  assert.equal(plan.benchmarks.length, 84);
  for (let n = 1; n <= 16; n += 1) checkSplit(plan, n);
  assert.deepEqual(shardPlan(plan.benchmarks, 4).map((s) => s.length), [21, 21, 21, 21]);
  assert.throws(() => shardOf(plan.benchmarks, 2, 17, 'full'), (err) => err instanceof UsageError
    && err.message === "--shard '2/17': suite full splits into at most 16 shards (each shard needs one of the 16 writes that run before the reads after writes); expected N <= 16");
});

test('the full suite in four shards: balanced, two writes before the reads after writes in each', () => {
  const plan = planOf('full', oneThreadCount);
  const shards = checkSplit(plan, 4);
  assert.deepEqual(shards.map((s) => s.length), [11, 11, 10, 10]);
  const kind = new Map(plan.benchmarks.map((b) => [b.id, b.kind]));
  for (const ids of shards) {
    const firstPost = ids.findIndex((id) => kind.get(id) === 'read' && !isPre(id));
    assert.ok(ids.slice(0, firstPost).filter((id) => kind.get(id) === 'write').length >= 2, ids.join(' '));
  }
  // pinned: a change of the split changes which runner measures what, so it is deliberate
  assert.deepEqual(shards[0], [
    'point-query.pre_range=100', 'read-only.pre_range=10', 'points-notcovered-pk.pre_range=100', 'range-notcovered-pk.pre_range=100',
    'update-inlist_range=100', 'update-zipf_range=100',
    'read-only_range=10', 'point-query_range=100', 'points-notcovered-pk_range=100', 'range-notcovered-pk_range=100',
    'delete_range=100',
  ]);
});

test('deterministic: the same plan gives the same split on every runner', () => {
  const a = shardPlan(planOf('full').benchmarks, 4);
  const b = shardPlan(JSON.parse(JSON.stringify(planOf('full').benchmarks)), 4);
  assert.deepEqual(a, b);
  assert.deepEqual(shardOf(planOf('full').benchmarks, 3, 4).map((x) => x.id), a[2]);
});

test('several thread counts: each count of a .pre pair stays together, counts may run apart', () => {
  const plan = planOf('full', { threads: [1, 4] });
  assert.equal(plan.benchmarks.length, 84);
  for (const n of [2, 4, 8]) checkSplit(plan, n);
});

test('quick (no reads after writes) splits down to one microbenchmark per shard', () => {
  const plan = planOf('quick');
  for (let n = 1; n <= 14; n += 1) checkSplit(plan, n);
  assert.throws(() => shardPlan(plan.benchmarks, 15, { suiteName: 'quick', asked: '1/15' }),
    { message: "--shard '1/15': suite quick splits into at most 14 shards (it has 14 microbenchmarks that can run apart); expected N <= 14" });
});

test('ahi: the AHI on and off cells of one workload and thread count run in one shard', () => {
  const plan = planOf('ahi');
  // 9 workloads x 2 AHI partition counts x AHI on/off x 2 thread counts.
  assert.equal(plan.benchmarks.length, 72);
  for (const n of [1, 2, 3, 4, 16]) {
    for (const ids of checkSplit(plan, n)) {
      for (const id of ids.filter((i) => i.includes(' ahi=off '))) assert.ok(ids.includes(id.replace(' ahi=off ', ' ahi=on ')), id);
    }
  }
  assert.throws(() => shardPlan(plan.benchmarks, 17), /splits into at most 16 shards/);
});

test('too many shards for the full suite: one line naming --shard and the most it takes', () => {
  assert.throws(() => shardOf(planOf('full', oneThreadCount).benchmarks, 2, 9, 'full'), (err) => err instanceof UsageError
    && err.message === "--shard '2/9': suite full splits into at most 8 shards (each shard needs one of the 8 writes that run before the reads after writes); expected N <= 8");
});

test('parseShard: K/N with 1 <= K <= N; anything else one line naming --shard and the form', () => {
  assert.deepEqual(parseShard('2/4'), { index: 2, count: 4 });
  assert.deepEqual(parseShard('1/1'), { index: 1, count: 1 });
  const form = 'expected --shard K/N with 1 <= K <= N, e.g. --shard 2/4';
  for (const [raw, why] of [
    ['0/4', 'shard 0 of 4 does not exist'], ['5/4', 'shard 5 of 4 does not exist'], ['a/b', 'not of the form K/N'],
    ['1/0', 'not of the form K/N'], ['2', 'not of the form K/N'], ['-1/4', 'not of the form K/N'], ['1.5/4', 'not of the form K/N'],
  ]) {
    assert.throws(() => parseShard(raw), (err) => err instanceof UsageError && err.message === `--shard '${raw}': ${why}; ${form}`, raw);
  }
});

test('a shard plan records its place in the suite, is valid by the plan schema, and extensions keep it', () => {
  const plan = planOf('full', { ...oneThreadCount, shard: { index: 2, count: 4 } });
  assert.equal(schemaProblem('plan', plan), null);
  assert.deepEqual(plan.shard, { index: 2, count: 4, suite_benchmarks: config.suites.full.benchmarks });
  assert.deepEqual(plan.benchmarks.map((b) => b.id), shardPlan(planOf('full', oneThreadCount).benchmarks, 4)[1]);
  const more = extensionPlan(plan, [plan.benchmarks[0].id], 2, 6);
  assert.deepEqual(more.shard, plan.shard);
  assert.match(schemaProblem('plan', { ...plan, shard: { index: 0, count: 4, suite_benchmarks: ['a'] } }), /shard\.index/);
});

test('.pre names and their twins', () => {
  assert.equal(twinName('point-query.pre_range=100'), 'point-query_range=100');
  assert.equal(twinName('scan.pre'), 'scan');
  assert.equal(twinName('prefix.prepared_range=1'), 'prefix.prepared_range=1');
  assert.ok(isPre('read-only.pre_range=10') && !isPre('read-only_range=10') && !isPre('x.prepared'));
});
