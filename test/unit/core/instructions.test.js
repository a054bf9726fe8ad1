'use strict';
// instr/o from a real captured run: the head does more work per query (performance_schema=ON).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const core = require('@perfgate/core');
const { grownFunctions, whereInstructionsWent, hasSymbols } = require('../../../core/src/instructions');

const RESULTS = require(path.join(__dirname, '../../fixtures/results/instructions-pfs/results.json'));
const LIMITS = { limits: { default: { warn: 0.9, fail: 0.8, instructions: { warn: 1.02, fail: 1.04 } } } };

test('paired windows give the instr/o interval; more work per query fails on instructions', () => {
  const v = core.judge(RESULTS, LIMITS);
  assert.equal(core.schemaProblem('verdict', v), null);
  const point = v.benchmarks.find((b) => b.id === 'point-query');
  const [b0, b1] = RESULTS.benchmarks[0].instructions.base.windows.map((w) => w.connection.per_query);
  const [h0, h1] = RESULTS.benchmarks[0].instructions.head.windows.map((w) => w.connection.per_query);
  assert.deepEqual(point.instructions_per_query.ratios, [h0 / b0, h1 / b1]);
  assert.ok(Math.abs(point.instructions_per_query.estimate - Math.sqrt((h0 / b0) * (h1 / b1))) < 1e-12);
  assert.equal(point.instructions_verdict, 'fail');
  assert.equal(point.verdict, 'fail');
  assert.match(point.reason, /^\d+% more instructions per query: instr\/o 1\.\d{3} \[1\.\d{3}, 1\.\d{3}\] lies wholly above the fail limit 1\.04; rQPS /);
  assert.match(v.headline, /^Fail: point-query: \d+% more instructions per query \(instr\/o 1\.\d{3} \[1\.\d{3}, 1\.\d{3}\], fail limit 1\.04\)/);
  assert.ok(point.background_per_query && point.background_per_query.n === 2);
});

test('the functions that grew are listed largest first, head minus base per query', () => {
  const instructions = RESULTS.benchmarks[0].instructions;
  const grown = grownFunctions(instructions, 5);
  assert.equal(grown.length, 5);
  for (let i = 1; i < grown.length; i++) assert.ok(grown[i - 1].self_growth >= grown[i].self_growth);
  for (const f of grown) assert.ok(Math.abs(f.self_growth - (f.head_self - f.base_self)) < 1e-9);
  assert.ok(grown[0].self_growth > 0);
  const went = whereInstructionsWent(instructions, core.judge(RESULTS, LIMITS).benchmarks[0].instructions_per_query);
  assert.equal(went.symbols, true);
  assert.equal(went.annotate, `callgrind_annotate --inclusive=yes ${instructions.head.files}/callgrind.out.*`);
});

test('a binary named mostly by address cannot be matched between builds: the report says why', () => {
  const stripped = (list) => list.map((f, i) => ({ ...f, name: `0x${(0xc00000 + i).toString(16)}` }));
  const instructions = JSON.parse(JSON.stringify(RESULTS.benchmarks[0].instructions));
  for (const side of ['base', 'head']) instructions[side].functions.connection = stripped(instructions[side].functions.connection);
  assert.equal(hasSymbols(instructions.head.functions.connection), false);
  const went = whereInstructionsWent(instructions, { estimate: 1.09 });
  assert.deepEqual(went.grown, []);
  assert.match(went.why, /^the server binary has no symbols \(stripped\)/);
  assert.equal(whereInstructionsWent(instructions, { estimate: 1.004 }), null, 'a change inside 1% lists nothing');
});

test('instructions alone (no timed rounds) are a measurement, judged on instructions', () => {
  const only = JSON.parse(JSON.stringify(RESULTS));
  only.plan.measure.signals = ['instructions'];
  for (const b of only.benchmarks) b.rounds = [];
  assert.equal(core.schemaProblem('results', only), null);
  const v = core.judge(only, LIMITS);
  for (const b of v.benchmarks) {
    assert.equal(b.time_verdict, null);
    assert.equal(b.verdict, b.instructions_verdict);
  }
  const noWindows = JSON.parse(JSON.stringify(only));
  delete noWindows.benchmarks[0].instructions;
  assert.match(core.schemaProblem('results', noWindows), /^benchmarks\[0\]/);
});

test('the reports show instr/o and where the instructions went', () => {
  const v = core.judge(RESULTS, LIMITS);
  const reports = core.renderReports(v);
  assert.match(reports['comment.md'], /\| \| microbenchmark \| rQPS \| 95% interval \| instr\/o \| 95% interval \| cpu\/o \| cs\/o \| p95 base \| p95 head \| p95 ratio \| pairs \|/);
  assert.match(reports['comment.md'], /<details><summary>Where the instructions went<\/summary>/);
  assert.match(reports['comment.md'], /\*\*point-query\*\*: instr\/o 1\.\d{3} \(\d+(\.\d)?k → \d+(\.\d)?k instructions per query\)/);
  assert.match(reports['summary.md'], /\*\*Where the instructions went\*\*/);
  assert.match(reports['report.html'], /<table data-table="grown-functions">/);
  const table = core.renderVerdictTable(v);
  assert.match(table, /^microbenchmark +rQPS +95% interval +instr\/o +95% interval +cpu\/o +cs\/o +p95 base +p95 head +p95 ratio +pairs +verdict$/m);
  assert.match(table, /^ {2}point-query: instructions grew most in /m);
});

test('a window that ran no queries, counted nothing on the queries\' threads, or has no partner makes the row an error, not a shorter interval', () => {
  const broken = (change) => {
    const results = JSON.parse(JSON.stringify(RESULTS));
    change(results.benchmarks[0].instructions);
    const point = core.judge(results, LIMITS).benchmarks[0];
    // No interval of the windows that remain is shown beside the error.
    assert.equal(point.instructions_per_query ?? null, null);
    assert.equal(point.instructions, undefined);
    return [point.verdict, point.instructions_verdict, point.reason];
  };
  // Each left out before: the other windows were judged as if it had not happened.
  assert.deepEqual(broken((i) => { Object.assign(i.head.windows[1], { queries: 0 }); i.head.windows[1].connection.per_query = null; }),
    ['error', 'error', 'head instruction window 2: sysbench completed no queries']);
  assert.deepEqual(broken((i) => { i.base.windows[0].connection.per_query = 0; }),
    ['error', 'error', "base instruction window 1: no instructions counted on the queries' own threads"]);
  assert.deepEqual(broken((i) => { i.head.windows.pop(); }),
    ['error', 'error', 'instruction windows come in pairs, but the base counted 2 and the head 1']);
  const v = (() => { const r = JSON.parse(JSON.stringify(RESULTS)); r.benchmarks[0].instructions.head.windows[0].connection.per_query = -5; return core.judge(r, LIMITS); })();
  assert.equal(v.verdict, 'error');
  assert.equal(v.exit_code, core.EXIT.error);
});
