'use strict';
// Verdicts of older runs (perfgate.verdict/v1: in run folders, artifacts and the bot's history)
// are read as v2 at the one boundary, core/src/verdict-versions.js: "inconclusive" becomes
// undecided, an `open` pass a pass that could still be a warn. Anything else is refused by the
// schema of the version it claims, as any document from outside is.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { readVerdict, outcomeWord } = require('../../../core/src/verdict-versions');
const { schemaProblem } = require('../../../core/src/schemas');

const FIXTURES = path.join(__dirname, '../../fixtures/verdicts');
const captured = (name) => JSON.parse(fs.readFileSync(path.join(FIXTURES, name, 'verdict.json'), 'utf8'));

test('a captured v1 verdict reads as a valid v2 one: undecided for inconclusive, counted and listed so', () => {
  const v1 = captured('full-4-shards');
  assert.equal(v1.schema, 'perfgate.verdict/v1');
  const { verdict, problem } = readVerdict(v1);
  assert.equal(problem, undefined);
  assert.equal(schemaProblem('verdict', verdict), null);
  assert.equal(verdict.schema, 'perfgate.verdict/v2');
  assert.equal(verdict.verdict, 'undecided');
  assert.equal(verdict.counts.undecided, v1.counts.inconclusive);
  assert.equal('inconclusive' in verdict.counts, false);
  assert.deepEqual(verdict.undecided, v1.inconclusive);
  const words = new Set([...verdict.benchmarks, ...verdict.ahi].flatMap((b) => [b.verdict, b.time_verdict, b.instructions_verdict]));
  assert.equal(words.has('inconclusive'), false);
  for (const b of verdict.benchmarks) assert.equal('open' in b, false, b.id);
  // The run's own words are its record: reasons and the headline stay as they were written.
  assert.equal(verdict.headline, v1.headline);
});

test('a v1 pass marked open reads as a pass that could still be a warn; an open inconclusive row could be a fail', () => {
  const v1 = captured('full-4-shards');
  const pass = v1.benchmarks.findIndex((b) => b.verdict === 'pass');
  const undecided = v1.benchmarks.findIndex((b) => b.verdict === 'inconclusive');
  v1.benchmarks[pass] = { ...v1.benchmarks[pass], open: true };
  v1.benchmarks[undecided] = { ...v1.benchmarks[undecided], open: true, time_verdict: 'inconclusive' };
  const { verdict } = readVerdict(v1);
  assert.equal(verdict.benchmarks[pass].verdict, 'pass');
  assert.equal(verdict.benchmarks[pass].could_be, 'warn');
  assert.equal(verdict.benchmarks[undecided].could_be, 'fail');
  assert.equal(verdict.benchmarks[undecided].time_verdict, 'undecided');
  assert.equal(schemaProblem('verdict', verdict), null);
});

test('a v2 verdict reads as it is', () => {
  const { verdict } = readVerdict(captured('full-4-shards'));
  assert.equal(readVerdict(verdict).verdict, verdict);
});

test('what no version of the schema allows is refused, naming the key', () => {
  const v1 = captured('full-4-shards');
  assert.equal(readVerdict({ ...v1, verdict: 'undecided' }).problem, 'verdict: "undecided" is not valid; expected one of: pass, warn, inconclusive, fail, error');
  const { verdict } = readVerdict(v1);
  assert.equal(readVerdict({ ...verdict, verdict: 'inconclusive' }).problem, 'verdict: "inconclusive" is not valid; expected one of: pass, warn, undecided, fail, error');
  assert.match(readVerdict({ ...v1, injected: '<script>' }).problem, /^injected: unknown key/);
  assert.equal(readVerdict({ ...v1, schema: 'perfgate.verdict/v9' }).problem, 'schema: "perfgate.verdict/v9" is not valid; expected one of: perfgate.verdict/v2, perfgate.verdict/v1');
  assert.match(readVerdict(null).problem, /^\(top level\): /);
  assert.match(readVerdict([v1]).problem, /^\(top level\): /);
});

test('a verdict word of any version as v2 says it', () => {
  assert.deepEqual(['pass', 'warn', 'inconclusive', 'undecided', 'fail', 'error', null].map(outcomeWord), ['pass', 'warn', 'undecided', 'undecided', 'fail', 'error', null]);
});
