'use strict';
// The compare loop's decisions on drawn measurements, as `perfgate compare` takes them: judge,
// nextStep, each step measured by the test (`measureStep`), merged with its extension record.
const { judge } = require('../../../core/src/verdict');
const { nextStep } = require('../../../core/src/next-step');
const { mergeResults, nextRoundIndex } = require('../../../core/src/merge-results');

/**
 * @param results      the first run's results document
 * @param limits       {default: {...}} limits to judge by
 * @param budget       what the steps may measure (core's stepBudget)
 * @param measureStep  (step, earlierSteps, firstRound) -> the step's results document
 * @returns {verdict, row (the first row), steps, results}
 */
function simulateCompare({ results, limits, budget, measureStep }) {
  let verdict = judge(results, { limits });
  const spent = { extra_rounds: 0, confirmed: [], extra_windows: 0, recounted: [] };
  const steps = [];
  for (;;) {
    const step = nextStep(verdict, budget, spent);
    if (step.action === 'done') break;
    const from = nextRoundIndex(results);
    const more = measureStep(step, steps, from);
    const extension = {
      file: `results.extra-${steps.length + 1}.json`, purpose: step.action, first_round: from, rounds: step.rounds ?? 0,
      ...(step.windows ? { windows: step.windows } : {}), benchmarks: step.ids,
    };
    results = mergeResults([results, more], { extension });
    steps.push(step);
    if (step.action === 'extend') spent.extra_rounds += step.rounds;
    if (step.action === 'confirm') spent.confirmed.push(...step.ids);
    if (step.action === 'count') { spent.extra_windows += step.windows; spent.recounted.push(...step.ids); }
    if (step.action === 'recount') spent.recounted.push(...step.ids);
    verdict = judge(results, { limits });
  }
  return { verdict, row: verdict.benchmarks[0], steps, results };
}

module.exports = { simulateCompare };
