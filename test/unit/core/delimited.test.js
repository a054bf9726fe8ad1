'use strict';
// results.csv and results.tsv: the table to paste, one row per microbenchmark.
const test = require('node:test');
const assert = require('node:assert/strict');
const { judge } = require('../../../core/src/verdict');
const { renderReports, renderCsv, renderTsv } = require('../../../core/src/render');
const { capturedResults, loadResults } = require('../../support/captured-results');

const CONFIG = { limits: { default: { warn: 0.97, fail: 0.93 } } };
const load = (name) => loadResults(capturedResults().find((c) => c.name === name).file);

test('a real run as CSV and TSV: rQPS with its interval, cpu/o, cs/o, I/O per query, p95, verdict', () => {
  const v = judge(load('io-tiny'), CONFIG);
  assert.equal(renderCsv(v), [
    'microbenchmark,threads,rQPS,rQPS low,rQPS high,cpu/o,cs/o,r/o,rKB/o,wKB/o,device rKB/o,device wKB/o,p95 base,p95 head,p95 ratio,pairs,verdict',
    'point-query,2,1.19,0.48,2.97,0.85,1.00,2.03,—,—,7.23,26.71,1.93,1.05,0.44,3,undecided',
    'update-index_range=100,2,1.07,0.89,1.29,1.00,0.96,0.21,0.000074→0,1.05,0.06,1.34,1.81,1.55,0.81,3,undecided',
    '',
  ].join('\n'));
  assert.equal(renderTsv(v).split('\n')[1], 'point-query\t2\t1.19\t0.48\t2.97\t0.85\t1.00\t2.03\t—\t—\t7.23\t26.71\t1.93\t1.05\t0.44\t3\tundecided');
  const files = renderReports(v);
  assert.equal(files['results.csv'], renderCsv(v));
  assert.equal(files['results.tsv'], renderTsv(v));
});

test('instr/o with its interval when instructions were counted; rows in the reports\' order', () => {
  const v = judge(load('instructions-pfs'), { limits: { default: { warn: 0.97, fail: 0.93, instructions: { warn: 1.02, fail: 1.04 } } } });
  const [header, ...rows] = renderCsv(v).trimEnd().split('\n');
  assert.match(header, /^microbenchmark,threads,rQPS,rQPS low,rQPS high,instr\/o,instr\/o low,instr\/o high,instr\/o of all threads,all threads low,all threads high,instr\/o decided by,cpu\/o,cs\/o,/);
  assert.equal(rows.length, v.benchmarks.length);
  // Which figure the instructions verdict rests on, for every row that counted them.
  for (const row of rows) assert.match(row, /,(connection threads|all threads),/);
});

test('a microbenchmark name from a hostile results file cannot become a formula or break a row', () => {
  const r = load('io-tiny');
  r.benchmarks[0].id = '=HYPERLINK("https://evil.invalid","click")';
  r.benchmarks[1].id = 'a,b\tc\nd';
  const v = judge(r, CONFIG);
  const csv = renderCsv(v).split('\n');
  assert.ok(csv[1].startsWith(`"'=HYPERLINK(""https://evil.invalid"",""click"")",2,`), csv[1]);
  assert.ok(renderCsv(v).includes('"a,b\tc\nd",2,'));
  assert.ok(renderTsv(v).startsWith('microbenchmark\t'));
  assert.ok(renderTsv(v).includes('"a,b\tc\nd"\t2\t'));
  for (const cell of ['-cmd', '+cmd', '@cmd']) {
    r.benchmarks[0].id = cell;
    assert.ok(renderCsv(judge(r, CONFIG)).split('\n')[1].startsWith(`'${cell},`), cell);
  }
});
