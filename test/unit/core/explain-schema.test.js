'use strict';
// schema/explain.schema.json: the explanation step's document, read from a run folder that a
// runner building pull requests' code wrote, so every key is checked before a word of it is used.
const test = require('node:test');
const assert = require('node:assert/strict');
const { schemaProblem } = require('../../../core/src/schemas');

const side = (over = {}) => ({ counters: null, waits: null, stacks: null, memory: null, unavailable: {}, ...over });
const doc = (row = {}) => ({
  schema: 'perfgate.explain/v1', started: '2026-12-06T16:00:00Z', finished: '2026-12-06T16:01:00Z', status: 'ok',
  budget: { rows: 3, seconds_per_row: 60 },
  rows: [{ id: 'point-query', asked: 'auto', status: 'ok', seconds: 40, sides: { base: side(), head: side() }, plans: null, defaults: null, ...row }],
});
const stacks = (file) => ({ oncpu_file: null, offcpu_file: file, samples: 10, seconds: 4, offcpu_us_per_query: { clock_nanosleep: 27.3 } });

test('a minimal explain.json is valid, and every probe may be absent (null) with its reason', () => {
  assert.equal(schemaProblem('explain', doc()), null);
  assert.equal(schemaProblem('explain', doc({ sides: { base: side({ unavailable: { stacks: 'install linux-perf' } }), head: side() } })), null);
});

test('a stack file that leaves the run folder is refused, naming the key and the expected form', () => {
  for (const file of ['/etc/passwd', '../x', 'explain/../../x', 'a\\b', 'C:x', '..', 'explain/..', '']) {
    const problem = schemaProblem('explain', doc({ sides: { base: side({ stacks: stacks(file) }), head: side() } }));
    assert.match(problem, /^rows\[0\]\.sides\.base\.stacks\.offcpu_file: .*(a path relative to the run folder|must NOT have fewer)/, file);
  }
  assert.equal(schemaProblem('explain', doc({ sides: { base: side({ stacks: stacks('explain/point-query.base.offcpu.folded') }), head: side() } })), null);
});

test('a row in error names its step; unknown keys, probes and statuses are refused', () => {
  assert.equal(schemaProblem('explain', doc({ status: 'error' })), "rows[0]: missing key 'error'");
  assert.equal(schemaProblem('explain', doc({ status: 'error', error: { step: 'stacks', message: 'perf died' } })), null);
  assert.equal(schemaProblem('explain', doc({ asked: 'maybe' })), 'rows[0].asked: "maybe" is not valid; expected one of: auto, all, named');
  assert.equal(schemaProblem('explain', doc({ sides: { base: side({ unavailable: { gdb: 'x' } }), head: side() } })), 'rows[0].sides.base.unavailable.gdb: unknown key');
  assert.equal(schemaProblem('explain', { ...doc(), schema: 'perfgate.explain/v2' }), 'schema: "perfgate.explain/v2" must be equal to constant');
});
