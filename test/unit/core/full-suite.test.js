'use strict';
// The full suite against the posts it comes from (context/000_…): the 42 names of their rQPS
// tables, run as the posts run them, and every `.pre` name the same microbenchmark as its twin.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadThresholds } = require('../../../core/src/config/thresholds');

const config = loadThresholds();
const full = config.suites.full;

// The rows of the posts' rQPS tables, in the tables' order.
const POSTS = [
  'hot-points_range=100',
  'point-query.pre_range=100', 'point-query_range=100',
  'points-covered-pk.pre_range=100', 'points-covered-pk_range=100',
  'points-covered-si.pre_range=100', 'points-covered-si_range=100',
  'points-notcovered-pk.pre_range=100', 'points-notcovered-pk_range=100',
  'points-notcovered-si.pre_range=100', 'points-notcovered-si_range=100',
  'random-points.pre_range=1000', 'random-points.pre_range=100', 'random-points.pre_range=10',
  'random-points_range=1000', 'random-points_range=100', 'random-points_range=10',
  'range-covered-pk.pre_range=100', 'range-covered-pk_range=100',
  'range-covered-si.pre_range=100', 'range-covered-si_range=100',
  'range-notcovered-pk.pre_range=100', 'range-notcovered-pk_range=100',
  'range-notcovered-si.pre_range=100', 'range-notcovered-si_range=100',
  'read-only.pre_range=10000', 'read-only.pre_range=100', 'read-only.pre_range=10',
  'read-only_range=10000', 'read-only_range=100', 'read-only_range=10',
  'scan_range=100',
  'delete_range=100', 'insert_range=100', 'read-write_range=100', 'read-write_range=10',
  'update-index_range=100', 'update-inlist_range=100', 'update-nonindex_range=100',
  'update-one_range=100', 'update-zipf_range=100', 'write-only_range=10000',
];
// The posts group their rows as point, range and write; the write rows are kind write.
const FIRST_WRITE_ROW = POSTS.indexOf('delete_range=100');
const FIRST_RANGE_ROW = POSTS.indexOf('range-covered-pk.pre_range=100');

const isPre = (name) => name.includes('.pre_');
const twinOf = (name) => name.replace('.pre_', '_');

test('full lists the 42 names of the posts, each once', () => {
  assert.equal(POSTS.length, 42);
  assert.deepEqual([...full.benchmarks].sort(), [...POSTS].sort());
});

test('catalogue groups and kinds follow the posts: point rows, range rows, then write rows', () => {
  POSTS.forEach((name, row) => {
    const entry = config.catalogue[name];
    const group = row >= FIRST_WRITE_ROW ? 'write' : row >= FIRST_RANGE_ROW ? 'range' : 'point';
    assert.equal(entry.group, group, name);
    assert.equal(entry.kind, group === 'write' ? 'write' : 'read', name);
  });
});

test('a .pre name is the same microbenchmark as its twin: script, options, shape', () => {
  const pre = full.benchmarks.filter(isPre);
  assert.equal(pre.length, 15);
  for (const name of pre) {
    const { name: _a, ...entry } = config.catalogue[name];
    const { name: _b, ...twin } = config.catalogue[twinOf(name)];
    assert.deepEqual(entry, twin, name);
  }
});

test('full runs .pre reads, then the writes, then their twins, then delete and insert', () => {
  const order = full.benchmarks;
  const at = (name) => order.indexOf(name);
  const writes = order.filter((n) => config.catalogue[n].kind === 'write' && !['delete_range=100', 'insert_range=100'].includes(n));
  const firstWrite = Math.min(...writes.map(at));
  const lastWrite = Math.max(...writes.map(at));
  for (const name of order.filter(isPre)) {
    assert.ok(at(name) < firstWrite, `${name} runs after a write`);
    assert.ok(at(twinOf(name)) > lastWrite, `${twinOf(name)} runs before the last write`);
  }
  assert.ok(at('hot-points_range=100') > lastWrite && at('scan_range=100') > lastWrite);
  assert.deepEqual(order.slice(-2), ['delete_range=100', 'insert_range=100']);
});
