'use strict';
// A pass never gets easier: every case of test/support/rule-history.js (every captured results
// file, runs joined, drawn runs with steps on fresh servers, each under a grid of limits) judged
// by the rule as it is, against what the rule of e3340e2 made of it (frozen in
// test/fixtures/rule-history/ by scripts/freeze-rule-history.js). Nothing that failed, warned
// or stayed undecided then passes now; a pass whose interval still reached the warn limit does
// not become a pass that claims nothing of the kind; no run's exit code gets kinder.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { judge } = require('../../../core/src/verdict');
const { ruleCases, FROZEN } = require('../../support/rule-history');

// How hard a verdict is on the head: a pass that could still be a warn is above a pass. The
// frozen words are e3340e2's ('inconclusive' is undecided; '+': its intervals were open).
const LEVEL = { pass: 0, 'pass+': 0.5, warn: 1, inconclusive: 2, 'inconclusive+': 2, undecided: 2, fail: 3 };
const levelOfRow = (b) => (b.verdict === 'pass' && b.could_be ? 0.5 : LEVEL[b.verdict]);

function problems(frozen, verdict) {
  const out = [];
  if (LEVEL[verdict.verdict] < LEVEL[frozen.verdict] || (frozen.verdict === 'error') !== (verdict.verdict === 'error')) {
    out.push(`the run: ${frozen.verdict} (exit ${frozen.exit_code}) then, ${verdict.verdict} (exit ${verdict.exit_code}) now: ${verdict.headline}`);
  }
  const now = new Map([...verdict.benchmarks, ...verdict.ahi].map((b) => [b.id, b]));
  for (const [id, then] of Object.entries(frozen.rows)) {
    const row = now.get(id);
    if (!row) {
      out.push(`${id}: ${then} then, not judged now`);
    } else if ((then === 'error') !== (row.verdict === 'error') || levelOfRow(row) < LEVEL[then]) {
      out.push(`${id}: ${then} then, ${row.verdict}${row.could_be ? ` (could be ${row.could_be})` : ''} now: ${row.reason}`);
    }
  }
  return out;
}

test('no case that failed, warned or stayed undecided under the rule of e3340e2 passes now', () => {
  const frozen = JSON.parse(fs.readFileSync(FROZEN, 'utf8')).cases;
  const cases = ruleCases();
  assert.equal(cases.length, Object.keys(frozen).length, 'the cases differ from those frozen: run node scripts/freeze-rule-history.js');
  const found = [];
  const levels = new Set();
  for (const c of cases) {
    const then = frozen[c.id];
    assert.ok(then, `${c.id}: not frozen: run node scripts/freeze-rule-history.js`);
    let verdict;
    try {
      verdict = judge(c.docs.length === 1 ? c.docs[0] : c.docs, c.config);
    } catch (err) {
      if (!then.refused) found.push(`${c.id}: judged then, refused now: ${err.message}`);
      continue;
    }
    if (then.refused) {
      found.push(`${c.id}: refused then (${then.refused}), judged now`);
      continue;
    }
    for (const row of Object.values(then.rows)) levels.add(row);
    found.push(...problems(then, verdict).map((p) => `${c.id}: ${p}`));
  }
  // The frozen cases hold every outcome the old rule had, or the check proves little.
  for (const word of ['pass', 'pass+', 'warn', 'inconclusive+', 'fail', 'error']) assert.ok(levels.has(word), `no frozen row was ${word}`);
  assert.deepEqual(found.slice(0, 10), [], `${found.length} of ${cases.length} cases judged easier than under the rule of e3340e2`);
});
