'use strict';
// A verdict read back from the store: one an older bot stored (perfgate.verdict/v1) reads as
// v2; one no version allows (a hand-edited or damaged row) is refused, naming the row.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { storedVerdict } = require('../../../bot/src/store/stored-verdicts');

const V1 = JSON.parse(fs.readFileSync(path.join(__dirname, '../../fixtures/verdicts/full-4-shards/verdict.json'), 'utf8'));

test('a stored v1 verdict reads as v2', () => {
  const v = storedVerdict(V1, 'the verdict of run 7');
  assert.equal(v.schema, 'perfgate.verdict/v2');
  assert.equal(v.verdict, 'undecided');
});

test('a stored verdict no version allows is refused, naming the row and the key', () => {
  assert.throws(() => storedVerdict({ ...V1, verdict: 'maybe' }, 'the verdict of run 7'),
    { name: 'StoreError', message: 'the verdict of run 7 is not a verdict perfgate wrote: verdict: "maybe" is not valid; expected one of: pass, warn, inconclusive, fail, error' });
});
