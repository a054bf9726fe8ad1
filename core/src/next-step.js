'use strict';
// The adaptive part of a comparison, as pure decisions. After each judgement, in order:
//   count    more instruction windows of the rows whose instructions could still change the
//            verdict (they are cheap and steady), up to budget.extra_windows per side;
//   recount  an instruction fail counted again on fresh server processes (every extension
//            starts its servers anew), so that a fail is confirmed on processes other than
//            the ones that saw it (two processes of one build can count about 1% apart);
//   extend   more timed rounds of the rows whose time could still change the verdict, up to
//            budget.extra_rounds per side;
//   confirm  a time fail re-measured once (budget.confirm_rounds) on fresh processes;
//   done.
// Each signal is decided by more of its own measurement, never by another signal: a row's
// `needs` (see row-verdict.js) names the signals that could still move its verdict.

const needing = (rows, signal) => rows.filter((b) => (b.needs || []).includes(signal)).map((b) => b.id);

/**
 * @param verdict  perfgate.verdict/v1 of everything measured so far
 * @param budget   suite budget {extra_rounds, step_rounds, confirm_rounds, extra_windows,
 *                 step_windows, confirm_windows}
 * @param spent    {extra_rounds, confirmed: [ids], extra_windows, recounted: [ids]}
 * @returns {action: 'count'|'recount', ids, windows} | {action: 'extend'|'confirm', ids, rounds}
 *          | {action: 'done', why}
 */
function nextStep(verdict, budget, spent) {
  if (verdict.verdict === 'error') return { action: 'done', why: 'the run has errors' };
  const rows = verdict.benchmarks || [];
  const extraWindows = budget.extra_windows ?? 0;
  const windowsLeft = extraWindows - (spent.extra_windows || 0);
  const recounted = spent.recounted || [];
  const count = needing(rows, 'instructions');
  if (count.length > 0 && windowsLeft > 0) {
    return { action: 'count', ids: count, windows: Math.min(budget.step_windows ?? windowsLeft, windowsLeft) };
  }
  const recount = rows.filter((b) => b.instructions_verdict === 'fail' && !recounted.includes(b.id)).map((b) => b.id);
  if (recount.length > 0 && (budget.confirm_windows ?? 0) > 0) {
    return { action: 'recount', ids: recount, windows: budget.confirm_windows };
  }
  const roundsLeft = budget.extra_rounds - spent.extra_rounds;
  const extend = [...needing(rows, 'time'), ...needing(verdict.ahi || [], 'time')];
  if (extend.length > 0 && roundsLeft > 0) {
    return { action: 'extend', ids: extend, rounds: Math.min(budget.step_rounds, roundsLeft) };
  }
  // A fail that rests on time alone is re-measured; one that instructions prove needs no
  // more rounds (they cannot change what was counted).
  const timeFailed = (id) => {
    const b = rows.find((x) => x.id === id);
    return !b || (b.time_verdict === 'fail' && b.instructions_verdict !== 'fail');
  };
  const unconfirmed = verdict.failed.filter((id) => timeFailed(id) && !spent.confirmed.includes(id));
  if (unconfirmed.length > 0 && budget.confirm_rounds > 0) {
    return { action: 'confirm', ids: unconfirmed, rounds: budget.confirm_rounds };
  }
  const open = [...rows, ...(verdict.ahi || [])].filter((b) => (b.needs || []).length > 0);
  if (open.length > 0) {
    const spentOn = [
      needing(rows, 'instructions').length ? `extra-window budget of ${extraWindows}` : null,
      needing(rows, 'time').length || needing(verdict.ahi || [], 'time').length ? `extra-round budget of ${budget.extra_rounds}` : null,
    ].filter(Boolean).join(' and ');
    return { action: 'done', why: `${spentOn} spent` };
  }
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
