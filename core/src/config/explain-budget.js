'use strict';
// A suite's budget for the explanation step (docs/explain.md): how many rows a run
// explains at most, and how long one row's probes may take, both sides together. Optional:
// a suite without the key gets the defaults.
const check = require('./checks');

const DEFAULT_EXPLAIN = Object.freeze({ rows: 3, seconds_per_row: 60 });
const FORM = 'explain: {rows: <the most rows a run explains>, seconds_per_row: <the time one row\'s probes may take>}';

function loadExplainBudget(src) {
  if (src.data.explain === undefined) return { ...DEFAULT_EXPLAIN };
  const at = ['explain'];
  check.mapping(src, at, { optional: ['rows', 'seconds_per_row'], what: FORM });
  const raw = src.data.explain;
  return {
    rows: raw.rows === undefined ? DEFAULT_EXPLAIN.rows : check.number(src, [...at, 'rows'], { integer: true, min: 0 }),
    seconds_per_row: raw.seconds_per_row === undefined ? DEFAULT_EXPLAIN.seconds_per_row
      : check.number(src, [...at, 'seconds_per_row'], { above: 0 }),
  };
}

module.exports = { loadExplainBudget, DEFAULT_EXPLAIN };
