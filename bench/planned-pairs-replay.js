#!/usr/bin/env node
'use strict';
// What fewer planned pairs would have done on real runs: for every row of the given run
// folders, the rounds measured on its first servers are cut to the first K pairs and judged
// (core.judgeRow); when core.roundsNow then says "no more" the row would have stopped at K,
// with that verdict. A row that would go on is measured as it really was from there (its
// looks after pair K+1, K+2, … are the run's own). Prints how many rows stop at K, the pairs
// saved, and every row whose verdict would differ. Extension steps (fresh servers) are left
// out on both sides of the comparison.
//
//   node bench/planned-pairs-replay.js --planned 5 runs/demo runs/variants/*
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const core = require('@perfgate/core');

const { values: opt, positionals: dirs } = parseArgs({ allowPositionals: true, options: { planned: { type: 'string', default: '5' } } });
const K = Number(opt.planned);
if (!Number.isInteger(K) || K < 2) throw new Error(`--planned ${opt.planned}: expected a whole number of pairs, at least 2`);
const suite = core.loadThresholds().suites.quick;
const tag = (row) => `${row.verdict}${row.verdict === 'pass' && row.could_be ? ' (could be a warn)' : ''}`;
const shown = (row) => (row.rqps ? `${row.rqps.estimate.toFixed(3)} [${row.rqps.low.toFixed(3)}, ${row.rqps.high.toFixed(3)}]` : '-');

let rows = 0;
let stopped = 0;
let measured = 0;
let withK = 0;
const changed = [];
for (const dir of dirs) {
  const file = path.join(dir, 'results.json');
  if (!fs.existsSync(file)) continue;
  const run = JSON.parse(fs.readFileSync(file, 'utf8'));
  const firstExtension = Math.min(...(run.extensions || []).map((e) => e.first_round), Infinity);
  for (const bench of run.benchmarks) {
    const rounds = (bench.rounds || []).filter((r) => r.index < firstExtension);
    const indices = [...new Set(rounds.map((r) => r.index))].sort((a, b) => a - b);
    if (bench.status !== 'ok' || bench.ahi || indices.length < K) continue;
    rows += 1;
    measured += indices.length;
    const first = { ...bench, rounds };
    const cut = { ...bench, rounds: rounds.filter((r) => r.index < indices[0] + K) };
    const atK = core.judgeRow(cut, suite);
    const goesOn = core.roundsNow(atK, core.stepBudget(suite.budget, { rounds: suite.measure.rounds }), { extra_rounds: 0, on_request: {} }) > 0;
    withK += goesOn ? indices.length : K;
    if (goesOn) continue;
    stopped += 1;
    const real = core.judgeRow(first, suite);
    if (tag(atK) !== tag(real)) changed.push(`${path.basename(dir)} ${bench.id}: ${K} pairs ${tag(atK)} ${shown(atK)}; ${indices.length} pairs ${tag(real)} ${shown(real)}`);
  }
}
console.log(`${rows} rows; ${K} planned pairs: ${stopped} stop there; pairs on first servers ${measured} -> ${withK}; verdicts that differ: ${changed.length}`);
for (const line of changed) console.log(`  ${line}`);
