#!/usr/bin/env node
'use strict';
// How far from the estimate a projection's centre may lie before a row's extra rounds stop:
// rows of independent log-normal pairs (a true rQPS and a spread per pair), 5 planned pairs,
// then one more at a time while core.judgeRow says time could still move the verdict and
// core.timeCouldChange, with a margin of 0, 0.5 or 1 standard error of the pairs so far, says
// the rounds left could move it; at most 18 pairs, the quick suite's limits. Prints the mean
// pairs a row costs and the shares of its verdicts; the shipped margin is
// core.PROJECTION_MARGIN_SE. What a machine adds beyond independent pairs (a process offset,
// drift) is the real runs' business (docs/archive/notebook-2026-11.md).
//
//   node bench/projection-margin.js [--trials 2000] [--seed 11] [--margins 0,0.5,1]
const { parseArgs } = require('node:util');
const core = require('@perfgate/core');
const { seededNormals } = require('../test/support/seeded-draws');
const { record, tally } = require('./simulated-rows');

const { values: opt } = parseArgs({ options: { trials: { type: 'string', default: '2000' }, seed: { type: 'string', default: '11' }, margins: { type: 'string', default: '0,0.5,1' } } });
const TRIALS = Number(opt.trials);
const MARGINS = opt.margins.split(',').map(Number);
if (!(TRIALS > 0) || MARGINS.some((m) => !(m >= 0))) throw new Error(`--trials ${opt.trials} --margins ${opt.margins}: expected a positive count and margins >= 0 separated by commas`);
const LIMITS = { warn: 0.97, fail: 0.93 };
const SUITE = { limits: { default: LIMITS } };
const PLANNED = 5;
const MOST_PAIRS = 18;

function measureRow(draw, margin) {
  const ratios = draw(PLANNED);
  for (;;) {
    const row = core.judgeRow(record(ratios), SUITE);
    const left = MOST_PAIRS - ratios.length;
    if (!row.needs.includes('time') || left <= 0 || !core.timeCouldChange(row, left, margin)) return { pairs: ratios.length, row };
    ratios.push(...draw(1));
  }
}

const normal = seededNormals(Number(opt.seed));
const OUTCOMES = ['fail', 'beyond warn', 'undecided', 'warn', 'pass (could be a warn)', 'pass'];
console.log(`${TRIALS} rows per case; ${PLANNED} planned pairs, up to ${MOST_PAIRS}; limits warn ${LIMITS.warn}, fail ${LIMITS.fail}; shipped margin ${core.PROJECTION_MARGIN_SE} se`);
console.log(`true rQPS  sd/pair  margin  mean pairs  ${OUTCOMES.join('  ')}`);
for (const [centre, sd] of [[1, 0.06], [1, 0.1], [0.95, 0.09], [0.94, 0.09], [0.92, 0.09], [0.85, 0.14], [0.8, 0.14]]) {
  for (const margin of MARGINS) {
    const draw = (n) => Array.from({ length: n }, () => Math.exp(Math.log(centre) + sd * normal()));
    const { meanPairs, counts } = tally(TRIALS, () => measureRow(draw, margin), LIMITS.warn);
    const shares = OUTCOMES.map((o) => `${(100 * (counts[o] || 0) / TRIALS).toFixed(1)}%`.padStart(o.length));
    console.log(`${centre.toFixed(2).padEnd(9)}  ${sd.toFixed(3).padEnd(7)}  ${String(margin).padEnd(6)}  ${meanPairs.toFixed(1).padStart(10)}  ${shares.join('  ')}`);
  }
}
