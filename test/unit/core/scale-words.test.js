'use strict';
// The comment's "Scale and timing" line counts what the suite's scale counts: sysbench tables,
// the employees table's rows (DDL statements) or TPC-C warehouses.
const test = require('node:test');
const assert = require('node:assert/strict');
const { judge } = require('../../../core/src/verdict');
const R = require('../../../core/src/render');
const F = require('../../../core/src/render/format');
const { capturedResults, loadResults } = require('../../support/captured-results');

test('the scale in words: tables, the employees rows, warehouses', () => {
  assert.equal(F.scaleWords({ tables: 8, rows: 10000 }, [{ group: 'point' }, { group: 'write' }]), '8 tables × 10000 rows');
  assert.equal(F.scaleWords({ tables: 1, rows: 100000 }, [{ group: 'ddl' }, { group: 'ddl' }]), 'employees, 100000 rows');
  assert.equal(F.scaleWords({ tables: 1, rows: 100000 }, [{ group: 'tpcc' }]), '1 warehouse');
  assert.equal(F.scaleWords({ tables: 4, rows: 100000 }, [{ group: 'tpcc' }]), '4 warehouses');
  assert.equal(F.scaleWords({ tables: 1, rows: 500 }, []), '1 table × 500 rows');
});

test('a TPC-C run\'s comment says warehouses, a microbenchmark run\'s says tables', () => {
  const r = loadResults(capturedResults().find((c) => c.name === 'io-tiny').file);
  const config = { limits: { default: { warn: 0.97, fail: 0.93 } } };
  const tables = R.renderComment(judge(r, config));
  assert.match(tables, /Scale and timing: \d+ tables? × \d+ rows;/);
  const tpcc = { ...r, plan: { ...r.plan, scale: { tables: 1, rows: 100000 } }, benchmarks: r.benchmarks.map((b) => ({ ...b, group: 'tpcc' })) };
  assert.match(R.renderComment(judge(tpcc, config)), /Scale and timing: 1 warehouse;/);
});
