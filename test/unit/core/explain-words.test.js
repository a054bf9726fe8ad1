'use strict';
// Every sentence of explain-words.js, pinned: reports print them as they are.
const test = require('node:test');
const assert = require('node:assert/strict');
const { findingLine, causeLine, notExplainedLine, accessWords } = require('../../../core/src/explain-words');

test('counters: whole numbers per commit or query, more or fewer, a counter no table names', () => {
  const c = (over) => findingLine({ kind: 'counters', name: 'Innodb_log_writes', one: 'a redo-log write', many: 'redo-log writes', note: null, per_commit: null, base: 1, head: 3, ...over });
  assert.equal(c({}), '2 redo-log writes per query more: Innodb_log_writes/o 1.00 → 3.00');
  assert.equal(c({ base: 3, head: 2 }), 'a redo-log write per query fewer: Innodb_log_writes/o 3.00 → 2.00');
  assert.equal(c({ per_commit: { base: 0.5, head: 1.5 } }), 'a redo-log write per commit more: Innodb_log_writes/o 1.00 → 3.00');
  assert.equal(c({ head: 1.5 }), 'more redo-log writes: Innodb_log_writes/o 1.00 → 1.50');
  assert.equal(c({ one: null, many: null, name: 'Handler_icp_match', base: 120, head: 90 }), 'Handler_icp_match per query fell: Handler_icp_match/o 120 → 90.00');
  assert.equal(c({ one: null, many: null, name: 'Handler_icp_match', base: 90, head: 1234.5 }), 'Handler_icp_match per query grew: Handler_icp_match/o 90.00 → 1,235');
});

test('waits: times and counts of waits, stages and statements', () => {
  const w = (over) => findingLine({ kind: 'waits', summary: 'waits', name: 'wait/io/file/innodb/innodb_log_file', measure: 'time', base: 0.5, head: 190.5, ...over });
  assert.equal(w({}), 'waits on wait/io/file/innodb/innodb_log_file: +190 µs/query (0.50 → 191)');
  assert.equal(w({ base: 40, head: 10 }), 'waits on wait/io/file/innodb/innodb_log_file: −30.00 µs/query (40.00 → 10.00)');
  assert.equal(w({ measure: 'count', base: 1, head: 2 }), 'more waits on wait/io/file/innodb/innodb_log_file: 1.00 → 2.00 per query');
  assert.equal(w({ summary: 'stages', name: 'stage/sql/Sending data', measure: 'count', base: 2, head: 1 }), 'fewer passes through stage/sql/Sending data: 2.00 → 1.00 per query');
  assert.equal(w({ summary: 'statements', name: 'statement/sql/select', measure: 'count', base: 1, head: 2 }), 'more runs of statement/sql/select: 1.00 → 2.00 per query');
});

test('stacks, memory and the functions that grew', () => {
  assert.equal(findingLine({ kind: 'stacks', name: 'do_command → os_event_wait', base: 0.1, head: 120 }), 'waits in do_command → os_event_wait: +120 µs/query off-CPU (0.10 → 120)');
  assert.equal(findingLine({ kind: 'stacks', name: 'x'.repeat(300), base: 0, head: 6 }), `waits in ${'x'.repeat(119)}…: +6.00 µs/query off-CPU (0.00 → 6.00)`);
  assert.equal(findingLine({ kind: 'memory', base: 10, head: 840 }), 'memory grows 830 B per query more (a leak?): 10.00 → 840 B/query resident, the buffer pool\'s new pages aside');
  assert.equal(findingLine({ kind: 'instructions', name: 'ut_delay', self_growth: 15000, inclusive_growth: 15200, ratio: 1.2 }), 'more instructions in ut_delay: +15.0k per query of its own, +15.2k with what it calls (instr/o 1.200)');
});

test('plans: every kind of change, several tables, more than three changes', () => {
  const from = { access_type: 'ref', key: 'k_1', rows: 10 };
  const to = { access_type: 'index', key: 'PRIMARY', rows: 10 };
  const plan = (changes) => findingLine({ kind: 'plans', shape: 'SELECT ?', changes });
  assert.equal(plan([{ table: 't', what: 'access_type', base: 'ref', head: 'index', from, to }]), 'the plan of `SELECT ?` changed: ref on k_1 → full index scan of PRIMARY (index)');
  assert.equal(plan([{ table: 'a', what: 'using_index', base: false, head: true, from, to: from }, { table: 'b', what: 'index_condition', base: false, head: true, from, to: from }]),
    'the plan of `SELECT ?` changed: a: covering index used; b: index condition pushdown used');
  assert.equal(plan([{ table: 't2', what: 'table', base: null, head: { access_type: 'ALL', key: null, rows: 5 } }, { table: null, what: 'operation', operation: 'temporary_table', base: false, head: true }]),
    'the plan of `SELECT ?` changed: reads t2 too (full scan (ALL)); a temporary table added');
  assert.equal(plan([{ table: 't', what: 'used_key_parts', base: 'k', head: null, from, to: from }, { table: 'u', what: 'rows', base: 10, head: 25, from, to: from }, { table: null, what: 'operation', operation: 'filesort', base: true, head: false }, { table: 'v', what: 'table', base: from, head: null }, { table: 'w', what: 'using_index', base: true, head: false, from, to: from }]),
    'the plan of `SELECT ?` changed: t: key parts k → none; u: rows 10 → 25; w: covering index no longer used; 2 more changes');
  assert.equal(accessWords(null), 'no access');
  assert.equal(accessWords({ access_type: 'eq_ref', key: null }), 'eq_ref');
});

test('the cause line when nothing explains the slowdown, and why a row was not explained', () => {
  assert.equal(causeLine({ lead: null, lookedAt: ['counters', 'waits', 'stacks', 'plans', 'memory', 'defaults'], notLooked: [] }),
    'no cause found: looked at counters, waits, stacks, plans, memory and defaults');
  assert.equal(causeLine({ lead: null, lookedAt: ['counters'], notLooked: [{ what: 'stacks', why: 'perf is not installed' }] }),
    'no cause found: looked at counters; not looked at: stacks (perf is not installed)');
  assert.equal(notExplainedLine('budget', { rows: 1 }), 'not explained: beyond the budget of 1 explained row a run (the suite\'s explain.rows)');
  assert.equal(notExplainedLine('error'), 'not explained: the explanation step failed before this row');
  assert.equal(notExplainedLine('cancelled'), 'not explained: the explanation step was cancelled');
  assert.equal(notExplainedLine('not_asked'), 'not explained: not among the rows asked for (--explain auto explains every row that is not a plain pass)');
  assert.equal(notExplainedLine('not_flagged'), 'not explained: it was not flagged when the explanation step chose its rows');
});
