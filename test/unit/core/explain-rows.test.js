'use strict';
// Which rows the explanation step looks at: what was asked, read once (hostile text from a
// workflow input or a comment), and the rows chosen from a verdict within the suite's budget.
const test = require('node:test');
const assert = require('node:assert/strict');
const { parseExplainAsk, rowsToExplain, unknownRows } = require('../../../core/src/explain-rows');

const row = (id, verdict, couldBe = null) => ({ id, verdict, could_be: couldBe });
const VERDICT = {
  benchmarks: [
    row('point-query', 'pass'),
    row('scan_range=100', 'undecided', 'fail'),
    row('insert_range=100', 'warn'),
    row('read-only_range=10000', 'pass', 'warn'),
    row('update-index_range=100', 'fail'),
    row('update-inlist_range=100', 'error'),
  ],
};
const BUDGET = { rows: 3, seconds_per_row: 60 };

test('what can be asked', () => {
  assert.deepEqual(parseExplainAsk('auto'), { mode: 'auto', rows: [] });
  assert.deepEqual(parseExplainAsk(' all '), { mode: 'all', rows: [] });
  assert.deepEqual(parseExplainAsk('none'), { mode: 'none', rows: [] });
  assert.deepEqual(parseExplainAsk('scan_range=100, point-query,scan_range=100'), { mode: 'named', rows: ['scan_range=100', 'point-query'] });
  assert.deepEqual(parseExplainAsk('point-query.pre_range=100'), { mode: 'named', rows: ['point-query.pre_range=100'] });
});

test('what an attacker or a typo sends is refused, naming the option and the expected form', () => {
  const form = 'expected auto, all, none, or a comma-separated list of row ids (e.g. update-index_range=100,scan_range=100)';
  for (const [text, shown] of [
    ['', '""'], [',,', '",,"'], ['point-query;rm -rf /', '"point-query;rm -rf /"'], ['../../etc/passwd', '"../../etc/passwd"'],
    ['$(id)', '"$(id)"'], ['a\nb', '"a\\nb"'], [`x${'y'.repeat(200)}`, JSON.stringify(`x${'y'.repeat(200)}`).slice(0, 140)],
  ]) {
    assert.throws(() => parseExplainAsk(text, 'inputs.explain'), (e) => e.name === 'UsageError' && e.message === `inputs.explain: ${shown} is not valid; ${form}`, text);
  }
  assert.throws(() => parseExplainAsk(undefined), /--explain: "" is not valid/);
});

test('auto: every row that is not a plain pass, worst first, within the budget', () => {
  assert.deepEqual(rowsToExplain(VERDICT, BUDGET, parseExplainAsk('auto')), {
    rows: ['update-index_range=100', 'insert_range=100', 'scan_range=100'], asked: 'auto', left_out: ['read-only_range=10000'],
  });
  assert.deepEqual(rowsToExplain(VERDICT, { ...BUDGET, rows: 0 }, parseExplainAsk('auto')).rows, []);
});

test('all: every row measured, none in error; none: no row', () => {
  const all = rowsToExplain(VERDICT, { rows: 10, seconds_per_row: 60 }, parseExplainAsk('all'));
  assert.deepEqual(all.rows, ['update-index_range=100', 'insert_range=100', 'scan_range=100', 'point-query', 'read-only_range=10000']);
  assert.equal(all.asked, 'all');
  assert.deepEqual(rowsToExplain(VERDICT, BUDGET, parseExplainAsk('none')).rows, []);
});

test('named: in the order named, a row in error left out, the budget still the limit', () => {
  const ask = parseExplainAsk('point-query,update-inlist_range=100,scan_range=100,insert_range=100,update-index_range=100');
  assert.deepEqual(rowsToExplain(VERDICT, BUDGET, ask), {
    rows: ['point-query', 'scan_range=100', 'insert_range=100'], asked: 'named', left_out: ['update-index_range=100'],
  });
});

test('named rows the plan does not have are found before anything is measured', () => {
  const plan = { benchmarks: [{ id: 'point-query' }, { id: 'scan_range=100' }] };
  assert.deepEqual(unknownRows(parseExplainAsk('scan_range=100,nope'), plan), ['nope']);
  assert.deepEqual(unknownRows(parseExplainAsk('all'), plan), []);
});
