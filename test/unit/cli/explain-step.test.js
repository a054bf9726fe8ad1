'use strict';
// The explanation step as the comparison runs it: the harness asked for the chosen rows with
// the suite's budget, and what it leaves read as hostile input. A harness (stood in for by a
// script) that fails, or writes an explain.json that breaks its schema, leaves the verdict as
// judged and says why.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { explainStep } = require('../../../cli/src/explain-step');
const { scratchDir } = require('../../support/scratch-dir');

const VERDICT = { benchmarks: [{ id: 'point-query', verdict: 'pass', could_be: null }, { id: 'update-index_range=100', verdict: 'fail', could_be: null }] };
const SUITE = { explain: { rows: 3, seconds_per_row: 60 } };
const PLAN = { sides: { base: { basedir: '/b' }, head: { basedir: '/h' } } };
const side = { counters: null, waits: null, stacks: null, memory: null, unavailable: {} };
const GOOD = {
  schema: 'perfgate.explain/v1', started: '2026-12-06T17:00:00+00:00', finished: '2026-12-06T17:01:00+00:00', status: 'ok',
  budget: { rows: 3, seconds_per_row: 60 },
  rows: [{ id: 'update-index_range=100', asked: 'auto', status: 'ok', seconds: 50, sides: { base: side, head: side }, plans: null, defaults: null }],
};

// A stand-in for the interpreter: records its arguments, writes `doc` as explain.json, exits `code`.
function fakeHarness(dir, doc, code = 0) {
  const fake = path.join(dir, 'python');
  const body = doc === null ? '' : `cat > "${path.join(dir, 'explain.json')}" <<'JSON'\n${typeof doc === 'string' ? doc : JSON.stringify(doc)}\nJSON\n`;
  const progress = `echo '{"event": "phase", "phase": "explain waits", "benchmark": "update-index_range=100", "side": "head"}'`;
  fs.writeFileSync(fake, `#!/bin/sh\necho "$@" > "${path.join(dir, 'args')}"\n${progress}\n${body}exit ${code}\n`, { mode: 0o755 });
  return fake;
}

async function step(doc, code = 0, ask = { mode: 'auto', rows: [] }) {
  const dir = scratchDir('perfgate-explain-');
  const err = [];
  const outcome = await explainStep({
    verdict: VERDICT, plan: PLAN, suite: SUITE, ask, outDir: dir, sandboxed: false,
    io: { stderr: { write: (s) => err.push(s) } }, env: { ...process.env, PERFGATE_PYTHON: fakeHarness(dir, doc, code) },
  });
  const args = fs.existsSync(path.join(dir, 'args')) ? fs.readFileSync(path.join(dir, 'args'), 'utf8').trim() : null;
  return { ...outcome, stderr: err.join(''), args, dir };
}

test('the rows auto chooses go to the harness with the suite\'s budget; explain.json is read back', async () => {
  const r = await step(GOOD);
  assert.equal(r.args, `-m perfgate_harness explain --plan ${path.join(r.dir, 'plan.json')} --out ${r.dir} --rows update-index_range=100 --asked auto --budget-rows 3 --seconds-per-row 60`);
  assert.deepEqual(r.explain, GOOD);
  assert.equal(r.message, null);
  assert.equal(r.stderr, 'perfgate compare: explaining update-index_range=100 on fresh servers\n'
    + 'perfgate compare: explain update-index_range=100: waits (head)\n');
});

test('no row to explain: the harness is not started', async () => {
  const r = await step(GOOD, 0, { mode: 'none', rows: [] });
  assert.deepEqual([r.explain, r.message, r.args, r.stderr], [null, null, null, '']);
});

test('a row in error is said in one line', async () => {
  const failed = { ...GOOD, rows: [{ ...GOOD.rows[0], status: 'error', error: { step: 'waits', message: 'head server killed by signal SIGKILL\nlog tail' } }] };
  const r = await step(failed);
  assert.equal(r.message, 'the explanation of update-index_range=100 failed at waits: head server killed by signal SIGKILL');
});

test('a harness that dies or writes a broken explain.json leaves the verdict as judged and says why', async () => {
  const died = await step(null, 9);
  assert.deepEqual([died.explain, died.message], [null, 'the explanation step exited with code 9 without explain.json; the verdict stands as judged']);
  const hostile = await step({ ...GOOD, rows: [{ ...GOOD.rows[0], sides: { base: { ...side, stacks: { oncpu_file: '/etc/passwd', offcpu_file: null, samples: 1, seconds: 1, offcpu_us_per_query: {} } }, head: side } }] });
  assert.equal(hostile.explain, null);
  assert.match(hostile.message, /explain\.json: rows\[0\]\.sides\.base\.stacks\.oncpu_file: "\/etc\/passwd" must match pattern .*no leading .*; the verdict stands as judged$/);
  const notJson = await step('{"schema": ');
  assert.equal(notJson.explain, null);
  assert.match(notJson.message, /explain\.json is not JSON .*expected a document valid by schema\/explain\.schema\.json; the verdict stands as judged$/);
});
