'use strict';
// The memory_per_query limits of a suite: bytes of head − base memory growth per query, loaded
// and inherited like cpu_per_query, with errors that name the file, line and key.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { loadThresholds, limitsFor } = require('../../../core/src/config/thresholds');
const { rowLimits } = require('../../../core/src/row-limits');
const { thresholdsWith, lineOf, configErrorOf: errorOf } = require('../../support/thresholds-copy');

const replace = (from, to) => (text) => text.replace(from, to);

test('memory growth limits load in bytes, inherited from default, and reach a row\'s limits', () => {
  const dir = thresholdsWith({
    'suites/quick.yml': (text) => text
      .replace('memory_per_query: {warn: 256, fail: 512}', 'memory_per_query: {warn: 128, fail: 256}')
      .replace(/limits:\n/, 'limits:\n  insert_range=100: {memory_per_query: {fail: 4096}}\n'),
  });
  const quick = loadThresholds(dir).suites.quick;
  assert.deepEqual(quick.limits.default.memory_per_query, { warn: 128, fail: 256 });
  assert.deepEqual(limitsFor(quick, 'insert_range=100').memory_per_query, { warn: 128, fail: 4096 });
  assert.deepEqual(rowLimits(quick, { id: 'point-query', name: 'point-query' }).memory_per_query, { warn: 128, fail: 256 });
  const none = { limits: { default: { warn: 0.97, fail: 0.93 } } };
  assert.equal(rowLimits(none, { id: 'point-query', name: 'point-query' }).memory_per_query, undefined, 'no limit nobody set');
});

test('a microbenchmark may leave its memory growth unjudged with null; the default may not', () => {
  const quick = loadThresholds(thresholdsWith({
    'suites/quick.yml': (text) => text.replace(/limits:\n/, 'limits:\n  point-query: {memory_per_query: null}\n'),
  })).suites.quick;
  assert.equal(limitsFor(quick, 'point-query').memory_per_query, undefined);
  assert.deepEqual(limitsFor(quick, 'insert_range=100').memory_per_query, { warn: 256, fail: 512 });
  const shipped = loadThresholds().suites.quick;
  assert.equal(limitsFor(shipped, 'update-inlist_range=100').memory_per_query, undefined, 'too few queries a round');
  const file = 'suites/quick.yml';
  const dir = thresholdsWith({ [file]: replace('memory_per_query: {warn: 256, fail: 512}', 'memory_per_query: null') });
  assert.match(errorOf(dir), /limits\.default\.memory_per_query: .*expected memory growth per query limits \{warn, fail\}/);
});

test('bad memory growth limits name the file, line and key, the bad value and the expected form', async (t) => {
  const cases = [
    {
      name: 'memory growth warn above fail',
      edits: { 'suites/quick.yml': replace('memory_per_query: {warn: 256, fail: 512}', 'memory_per_query: {warn: 512, fail: 256}') },
      file: 'suites/quick.yml', at: 'default: {warn',
      expect: (f, l) => `${f}:${l}: limits.default.memory_per_query.warn: warn 512 is above fail 256; expected warn <= fail (memory growth per query above fail fails, above warn warns)`,
    },
    {
      name: 'memory growth limit of no bytes',
      edits: { 'suites/quick.yml': replace('memory_per_query: {warn: 256, fail: 512}', 'memory_per_query: {warn: 0, fail: 256}') },
      file: 'suites/quick.yml', at: 'default: {warn',
      expect: (f, l) => `${f}:${l}: limits.default.memory_per_query.warn: 0 is not valid; expected a number of bytes per query > 0`,
    },
    {
      name: 'memory growth limit with a unit',
      edits: { 'suites/quick.yml': replace('memory_per_query: {warn: 256, fail: 512}', 'memory_per_query: {warn: 128, fail: 1KB}') },
      file: 'suites/quick.yml', at: 'default: {warn',
      expect: (f, l) => `${f}:${l}: limits.default.memory_per_query.fail: '1KB' is not valid; expected a number of bytes per query > 0`,
    },
    {
      name: 'memory growth limit with one bound only',
      edits: { 'suites/quick.yml': replace('memory_per_query: {warn: 256, fail: 512}', 'memory_per_query: {fail: 256}') },
      file: 'suites/quick.yml', at: 'default: {warn',
      expect: (f, l) => `${f}:${l}: limits.default.memory_per_query: needs both warn and fail; expected memory_per_query: {warn: 128, fail: 256} (bytes per query)`,
    },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const dir = thresholdsWith(c.edits);
      assert.equal(errorOf(dir), c.expect(path.join(dir, c.file), lineOf(dir, c.file, c.at)));
    });
  }
});
