'use strict';
// Plans (EXPLAIN FORMAT=JSON of each statement shape on both sides) and defaults (the head
// measured again with the base's values of the variables that differ).
const test = require('node:test');
const assert = require('node:assert/strict');
const { planFindings, readPlan } = require('../../../core/src/explain/plans');
const { defaultsFindings } = require('../../../core/src/explain/defaults');
const { findingLine } = require('../../../core/src/explain-words');
const { planShapes, plans } = require('../../fixtures/explain/documents');

const RANGE = 'SELECT sum(length(c)) FROM sbtestN FORCE INDEX (k_N) WHERE k BETWEEN ? AND ?';
const clone = (x) => JSON.parse(JSON.stringify(x));

test('plans: two processes, and 10.11.18 → 10.11.19, plan all 13 shapes alike', () => {
  for (const [a, b] of [['explain_18_a', 'explain_18_b'], ['explain_18_a', 'explain_19_a'], ['explain_19_a', 'explain_18_a']]) {
    const r = planFindings(planShapes(a, b));
    assert.deepEqual({ findings: r.findings, problem: r.problem, compared: r.compared }, { findings: [], problem: null, compared: 13 }, `${a} → ${b}`);
  }
});

test('plans: the optimizer switches changed on the head (no ICP, IN lists not converted) are named per shape', () => {
  const r = planFindings(planShapes('explain_19_a', 'explain_19_opt'));
  assert.deepEqual(r.findings.map(findingLine), [
    'the plan of `SELECT id, k, c, pad FROM sbtestN FORCE INDEX (k_N) WHERE k IN (?,...)` changed: ref on k_7 → range on k_7, rows 1 → 953; no longer reads <subquery2>; no longer reads <derived3>',
    'the plan of `SELECT sum(length(c)) FROM sbtestN FORCE INDEX (k_N) WHERE k BETWEEN ? AND ?` changed: index condition pushdown no longer used',
  ]);
});

test('plans: a range read that became a full scan is named with its rows estimate', () => {
  const head = clone(plans.explain_19_a[RANGE]);
  Object.assign(head.query_block.nested_loop[0].table, { access_type: 'ALL', key: undefined, used_key_parts: undefined, index_condition: undefined, rows: 10000 });
  const shapes = { shapes: [{ shape: RANGE, sql: 'SELECT sum(length(c)) FROM sbtest7 WHERE k BETWEEN 1 AND 100', base: plans.explain_19_a[RANGE], head: JSON.parse(JSON.stringify(head)) }] };
  const [f] = planFindings(shapes).findings;
  assert.equal(findingLine(f), 'the plan of `SELECT sum(length(c)) FROM sbtestN FORCE INDEX (k_N) WHERE k BETWEEN ? AND ?` changed: range on k_7 → full scan (ALL), rows 93 → 10,000, key parts k → none, index condition pushdown no longer used');
});

test('plans: MySQL\'s EXPLAIN JSON reads as MariaDB\'s (rows examined, using_filesort, using_temporary_table)', () => {
  const mysql = { query_block: { select_id: 1, ordering_operation: { using_filesort: true, table: { table_name: 't', access_type: 'range', key: 'k_1', rows_examined_per_scan: 100, used_key_parts: ['k'] } } } };
  assert.deepEqual(readPlan(mysql), { tables: [{ table: 't', access_type: 'range', key: 'k_1', used_key_parts: 'k', using_index: false, index_condition: false, rows: 100 }], operations: ['filesort'] });
  const noSort = clone(mysql);
  noSort.query_block.ordering_operation.using_filesort = false;
  const [f] = planFindings({ shapes: [{ shape: 'S', sql: 'S', base: noSort, head: mysql }] }).findings;
  assert.equal(findingLine(f), 'the plan of `S` changed: a filesort added');
});

test('plans: rows estimates within 2× are the same plan; shapes without both plans are listed, not compared', () => {
  const base = plans.explain_19_a[RANGE];
  const head = clone(base);
  head.query_block.nested_loop[0].table.rows = 180;
  assert.deepEqual(planFindings({ shapes: [{ shape: RANGE, sql: '', base, head }] }).findings, []);
  head.query_block.nested_loop[0].table.rows = 190;
  assert.equal(planFindings({ shapes: [{ shape: RANGE, sql: '', base, head }] }).findings.length, 1);
  const r = planFindings({ shapes: [{ shape: 'A', sql: 'A', base, head: null }, { shape: 'B', sql: 'B', base: null, head: null, error: 'ERROR 1064 (42000): syntax' }] });
  assert.deepEqual(r, { findings: [], problem: 'no shape has a plan of both sides', compared: 0, not_compared: [{ shape: 'A', why: 'no plan of the head' }, { shape: 'B', why: 'ERROR 1064 (42000): syntax' }] });
  assert.equal(planFindings(null).problem, 'no statement shapes captured');
});

test('plans: a hostile EXPLAIN nested past any real plan is read to a depth, not to a crash', () => {
  let deep = { table_name: 'bottom', access_type: 'ALL' };
  for (let i = 0; i < 10000; i++) deep = { nested: deep };
  assert.deepEqual(readPlan(deep).tables, []);
});

const LIMITS = { warn: 0.97, fail: 0.93 };
// Alternating rounds: the base at 1000 QPS, the head with the base's settings at `ratios`.
const rounds = (...ratios) => ratios.flatMap((r, index) => [{ index, side: 'base', qps: 1000 }, { index, side: 'head', qps: 1000 * r }]);
const remeasure = (ratios, over = {}) => ({ variables: [{ name: 'sort_buffer_size', base: '2097152', head: '262144' }], set: ['sort_buffer_size'], still_differ: [], rounds: rounds(...ratios), ...over });

test('defaults: the base\'s settings bring the head back, leave it slower, or cannot say', () => {
  const cases = [
    [[1.0, 0.99, 1.01, 1.0, 1.0], 'explains', 'with the base\'s settings (sort_buffer_size 2097152) the head measures 1.00 [0.99, 1.01]: the changed default explains it'],
    [[0.88, 0.9, 0.89, 0.9, 0.88], 'code', 'the code is slower with the same settings: with the base\'s settings (sort_buffer_size 2097152) the head measures 0.89 [0.88, 0.90]'],
    [[0.9, 1.05, 0.95, 1.02], 'open', 'with the base\'s settings (sort_buffer_size 2097152) the head measures 0.98 [0.88, 1.09]: too few pairs to say whether the changed default explains it'],
  ];
  for (const [ratios, outcome, line] of cases) {
    const [f] = defaultsFindings(remeasure(ratios), LIMITS).findings;
    assert.equal(f.outcome, outcome);
    assert.equal(findingLine(f), line);
  }
});

test('defaults: variables that still differ are said; one pair is too few; nothing differed is no finding', () => {
  const [f] = defaultsFindings(remeasure([1, 1, 1], { set: ['a', 'b', 'c', 'd'], variables: [{ name: 'a', base: '1', head: '2' }], still_differ: ['optimizer_switch'] }), LIMITS).findings;
  assert.equal(findingLine(f), 'with the base\'s settings (a 1, b (unset), c (unset) and 1 more) the head measures 1.00 [1.00, 1.00]: the changed defaults explain it; still different after the restart: optimizer_switch');
  const [g] = defaultsFindings(remeasure([1, 1, 1], { set: ['a', 'b', 'c', 'd', 'e'], refused: ['f', 'g', 'h', 'i', 'j'].map((name) => ({ name, reason: 'r' })) }), LIMITS).findings;
  assert.match(findingLine(g), /\(a \(unset\), b \(unset\), c \(unset\) and 2 more\).*not set: f \(r\), g \(r\), h \(r\) and 2 more$/);
  const [r] = defaultsFindings(remeasure([1, 1, 1], { refused: [{ name: 'datadir', reason: 'per instance' }, { name: 'gtid_domain_id', reason: 'not settable at startup' }] }), LIMITS).findings;
  assert.equal(findingLine(r), 'with the base\'s settings (sort_buffer_size 2097152) the head measures 1.00 [1.00, 1.00]: the changed default explains it; not set: datadir (per instance) and gtid_domain_id (not settable at startup)');
  assert.deepEqual(defaultsFindings(remeasure([1]), LIMITS), { findings: [], problem: 'the re-measure with the base\'s settings has 1 pair, 2 needed' });
  assert.deepEqual(defaultsFindings(null, LIMITS), { findings: [], problem: null });
});

test('defaults: where nothing could be set, no re-measure is read and the refused say why', () => {
  const none = remeasure([1, 1, 1], { set: [], refused: [{ name: 'have_ssl', reason: 'not a server option of the head' }, { name: 'old_mode', reason: 'unknown to the head' }] });
  assert.deepEqual(defaultsFindings(none, LIMITS), { findings: [], problem: 'none of the variables that differ could be set on the head (have_ssl: not a server option of the head; old_mode: unknown to the head)' });
  const many = remeasure([], { set: [], refused: ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name, reason: 'r' })) });
  assert.match(defaultsFindings(many, LIMITS).problem, /\(a: r; b: r; c: r; 2 more\)$/);
});
