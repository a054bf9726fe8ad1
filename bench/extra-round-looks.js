#!/usr/bin/env node
'use strict';
// Extra rounds pair by pair against steps of four, on made-up rows: how many pairs a row
// costs and what verdict it ends with, when the compare loop looks after every pair (a row's
// own servers, core.roundsNow) or after every step (core.nextStep's `extend`). Both use
// perfgate's own rule: each simulated row is a results record judged by core.judgeRow, and
// the decision to go on is core's. The pairs are drawn from a log-normal of a given centre
// (the true rQPS) and spread per pair, independent: what a machine adds beyond that (a
// process offset, drift) is the real runs' business (docs/archive/notebook-2026-11.md).
//
// --planned 6,5 adds the pair-by-pair looks after 5 planned pairs (the steps always start at
// the first number).
//
//   node bench/extra-round-looks.js [--trials 2000] [--seed 1] [--planned 6[,5…]]
const { parseArgs } = require('node:util');
const core = require('@perfgate/core');
const { seededNormals } = require('../test/support/seeded-draws');
const { record, tally } = require('./simulated-rows');

const { values: opt } = parseArgs({ options: { trials: { type: 'string', default: '2000' }, seed: { type: 'string', default: '1' }, planned: { type: 'string', default: '6' } } });
const TRIALS = Number(opt.trials);
const SUITE = { limits: { default: { warn: 0.97, fail: 0.93 } } };
// Up to 18 pairs a row in all, as the quick suite's planned and extra rounds allow.
const MOST_PAIRS = 18;
const budgetFor = (planned) => ({ extra_rounds: MOST_PAIRS - planned, step_rounds: 4, confirm_rounds: 0 });
const PLANS = opt.planned.split(',').map(Number);
if (!PLANS.length || PLANS.some((n) => !Number.isInteger(n) || n < 2)) throw new Error(`--planned ${opt.planned}: expected whole numbers of pairs, at least 2, separated by commas`);

const results = (ratios) => ({
  schema: 'perfgate.results/v1', plan: { suite: 'quick', benchmarks: [{ id: 'row' }] }, status: 'ok', errors: [],
  machine: { cpu_model: 'x', cores: 2, memory_bytes: 1, kernel: 'k', id: 'm' },
  sides: { base: { basedir: '/b', flavor: 'mariadb', version: '1' }, head: { basedir: '/h', flavor: 'mariadb', version: '1' } },
  benchmarks: [record(ratios)],
});
function pairByPair(draw, planned) {
  const ratios = draw(planned);
  const spent = { extra_rounds: 0, on_request: { row: 0 } };
  while (core.roundsNow(core.judgeRow(record(ratios), SUITE), budgetFor(planned), spent) === 1) {
    ratios.push(...draw(1));
    spent.on_request.row += 1;
  }
  return { pairs: ratios.length, row: core.judgeRow(record(ratios), SUITE) };
}

function inSteps(draw, planned) {
  const ratios = draw(planned);
  const spent = { extra_rounds: 0, confirmed: [], extra_windows: 0, recounted: [] };
  for (;;) {
    const step = core.nextStep(core.judge(results(ratios), SUITE), budgetFor(planned), spent);
    if (step.action !== 'extend') break;
    ratios.push(...draw(step.rounds));
    spent.extra_rounds += step.rounds;
  }
  return { pairs: ratios.length, row: core.judgeRow(record(ratios), SUITE) };
}

const normal = seededNormals(Number(opt.seed));
console.log(`${TRIALS} rows per case; ${PLANS.join(' or ')} planned pairs, up to ${MOST_PAIRS} in all; limits warn 0.97, fail 0.93`);
console.log('true rQPS  sd/pair  looks              mean pairs  fail  beyond warn  undecided  warn  pass (could be a warn)  pass');
for (const centre of [1.0, 0.96, 0.92, 0.85]) {
  for (const sd of [0.045, 0.09]) {
    const looks = [['steps of 4', inSteps, PLANS[0]], ...PLANS.map((n) => [PLANS.length > 1 ? `pair by pair, ${n}` : 'pair by pair', pairByPair, n])];
    for (const [name, run, planned] of looks) {
      const draw = (n) => Array.from({ length: n }, () => Math.exp(Math.log(centre) + sd * normal()));
      const { meanPairs, counts } = tally(TRIALS, () => run(draw, planned), SUITE.limits.default.warn);
      const pct = (k) => `${(100 * (counts[k] || 0) / TRIALS).toFixed(1)}%`.padStart(6);
      console.log(`${centre.toFixed(2).padEnd(9)}  ${sd.toFixed(3).padEnd(7)}  ${name.padEnd(17)}  ${meanPairs.toFixed(1).padStart(10)}  ${pct('fail')}  ${pct('beyond warn').padStart(11)}  ${pct('undecided').padStart(9)}  ${pct('warn')}  ${pct('pass (could be a warn)').padStart(22)}  ${pct('pass')}`);
    }
  }
}
