'use strict';
// The adaptive part of a comparison, as pure decisions: after each judgement, either measure
// more rounds of the undecided microbenchmarks (up to budget.extra_rounds per side), or
// re-measure the failing ones once (budget.confirm_rounds) so that a fail is reported only when
// it still holds with the fresh rounds added, or stop.

/**
 * @param verdict  perfgate.verdict/v1 of everything measured so far
 * @param budget   suite budget {extra_rounds, step_rounds, confirm_rounds}
 * @param spent    {extra_rounds: rounds per side already spent on extension, confirmed: [ids]}
 * @returns {action: 'extend'|'confirm', ids, rounds} | {action: 'done', why}
 */
function nextStep(verdict, budget, spent) {
  if (verdict.verdict === 'error') return { action: 'done', why: 'the run has errors' };
  const left = budget.extra_rounds - spent.extra_rounds;
  if (verdict.inconclusive.length > 0 && left > 0) {
    return { action: 'extend', ids: [...verdict.inconclusive], rounds: Math.min(budget.step_rounds, left) };
  }
  // Only a time fail is re-measured: instruction windows repeat within a fraction of a percent,
  // and more timed rounds cannot change what they counted.
  const timeFailed = (id) => {
    const b = (verdict.benchmarks || []).find((x) => x.id === id);
    return !b || b.time_verdict === 'fail';
  };
  const unconfirmed = verdict.failed.filter((id) => timeFailed(id) && !spent.confirmed.includes(id));
  if (unconfirmed.length > 0 && budget.confirm_rounds > 0) {
    return { action: 'confirm', ids: unconfirmed, rounds: budget.confirm_rounds };
  }
  if (verdict.inconclusive.length > 0) return { action: 'done', why: `extra-round budget of ${budget.extra_rounds} spent` };
  return { action: 'done', why: 'every microbenchmark is decided' };
}

// Verdict ids name plan benchmarks, or AHI gain cells that stand for the on and off
// benchmarks of one workload and thread count: both must be measured again.
function planIdsFor(ids, verdict, plan) {
  const wanted = new Set();
  for (const id of ids) {
    if (plan.benchmarks.some((b) => b.id === id)) {
      wanted.add(id);
      continue;
    }
    const cell = (verdict.ahi || []).find((c) => c.id === id);
    if (!cell) throw new Error(`verdict names '${id}', which is neither a plan benchmark nor an AHI cell`);
    for (const b of plan.benchmarks) if (b.name === cell.name && b.threads === cell.threads) wanted.add(b.id);
  }
  // Plan order, so that reads still run before writes.
  return plan.benchmarks.filter((b) => wanted.has(b.id)).map((b) => b.id);
}

module.exports = { nextStep, planIdsFor };
