'use strict';
// The adaptive part of a comparison, as pure decisions (docs/usage.md, "Adaptive rounds and
// windows"). While a row's servers are still up after its planned rounds, `roundsNow` says
// whether it gets one more pair there and then. After each judgement of a whole run, in order:
//   count    more instruction windows of the rows whose instructions could still change the
//            verdict (they are cheap and steady);
//   recount  an instruction fail or warn counted again on fresh server processes: two
//            processes of one build can count apart, and noise alone must not warn;
//   extend   more timed rounds where the rounds left could move the interval past a limit it
//            straddles (timeCouldChange);
//   confirm  a time fail or warn measured again on fresh servers;
//   done.
// A fail or warn the fresh processes do not repeat is not cleared by them either
// (process-pairs.js). Each signal is decided by more of its own measurement, never by another
// signal's: a row's `needs` (row-verdict.js) names the signals that could still move it.

const { projectedInterval } = require('./statistics');
const { signalRange, LEVELS } = require('./row-verdict');

// The extra rounds a row has left: the budget, less the steps' rounds (every row of a step
// gets them) and the pairs it was given on its own servers (spent.on_request, by row id).
const roundsLeftFor = (row, budget, spent) =>
  budget.extra_rounds - (spent.extra_rounds || 0) - ((spent.on_request || {})[row.id] || 0);

const needing = (rows, signal) => rows.filter((b) => (b.needs || []).includes(signal)).map((b) => b.id);

// How far from the estimate, in standard errors of the pairs measured so far, the centre of a
// projection may lie: after a few pairs the centre is itself uncertain, and a projection at the
// estimate alone stops rows that more pairs would decide (bench/projection-margin.js;
// docs/measurements.md, "A projection's centre").
const PROJECTION_MARGIN_SE = 0.5;

// The fewest pairs one batch on fresh servers measures (a confirmation, or a step of extra
// rounds): each pair of processes is judged on its own as well as pooled, and a t interval of
// fewer pairs is too wide to prove anything (t(0.975, 5) = 2.57, t(0.975, 3) = 3.18).
const FRESH_BATCH_MIN = 6;

/**
 * What a suite's budget ({extra_pairs, minutes}, config/budget.js) lets the adaptive steps
 * measure, for a plan of `rounds` timed pairs and `windows` instruction windows per side (null:
 * none counted). The rules, as docs/usage.md ("Budget") states them:
 *   - a batch on fresh servers is max(rounds, 6) pairs; a time fail or warn is confirmed by one
 *     batch (fewer when extra_pairs is smaller), the rest of extra_pairs narrows open rows:
 *     pair by pair on the row's own servers, then in steps of a batch;
 *   - instructions: a count on fresh processes is `windows` more windows per side; a row whose
 *     instructions are open gets at most two, one whose instructions fail or warn one to
 *     confirm it (a count to narrow, being on fresh processes, confirms too);
 *   - narrowing (extra rounds and windows) stops once `minutes` of it were spent; a
 *     confirmation always runs, so that no fail or warn goes unconfirmed for lack of time.
 */
function stepBudget({ extra_pairs: pairs, minutes }, { rounds, windows = null }) {
  const batch = Math.max(rounds, FRESH_BATCH_MIN);
  const confirm = Math.min(pairs, batch);
  const narrowing = pairs - confirm;
  return {
    extra_rounds: narrowing,
    step_rounds: Math.max(1, Math.min(batch, narrowing)),
    confirm_rounds: confirm,
    extra_windows: windows ? 2 * windows : 0,
    step_windows: windows || 0,
    confirm_windows: windows || 0,
    seconds: 60 * minutes,
  };
}

// Whether narrowing may go on: the budget's wall time not yet spent (none set: no limit).
const timeLeft = (budget, spent) => !(budget.seconds >= 0) || (spent.seconds || 0) < budget.seconds;

/**
 * Whether `rounds` more pairs could move a row's time interval to another span of verdicts:
 * the interval as it would be after them, with the spread measured so far and a centre at the
 * estimate or `marginSe` standard errors either side of it, against the row's limits. Rows
 * (rQPS) and AHI cells (their gain ratio) alike; a row with too few pairs to know its spread
 * could always change.
 */
function timeCouldChange(row, rounds, marginSe = PROJECTION_MARGIN_SE) {
  const interval = row.gain_ratio || row.rqps;
  if (!projectedInterval(interval, rounds) || !row.limits) return true;
  const now = signalRange(interval, row.limits, { higherIsWorse: false });
  const shift = marginSe * (interval.sd_log / Math.sqrt(interval.n));
  return [-shift, 0, shift].some((s) => {
    const then = signalRange(projectedInterval({ ...interval, estimate: interval.estimate * Math.exp(s) }, rounds), row.limits, { higherIsWorse: false });
    return now.best !== then.best || now.worst !== then.worst;
  });
}

/**
 * Whether a row gets one more pair now, on the servers that measured its planned rounds: when
 * its time could still change its verdict with the rounds it has left. One pair at a time, so
 * that a row stops at the pair that decides it rather than at the end of a step, at no cost in
 * what it decides (bench/extra-round-looks.js). An AHI row is measured further as part of its
 * cell (on and off together), by the steps.
 * @param row    judgeRow() of the benchmark's record so far
 * @param budget stepBudget(suite budget, plan)
 * @param spent  {extra_rounds, on_request: {id: pairs}} as nextStep takes it
 * @returns 0 or 1
 */
function roundsNow(row, budget, spent = {}) {
  if (row.ahi || !(row.needs || []).includes('time') || !timeLeft(budget, spent)) return 0;
  const left = roundsLeftFor(row, budget, spent);
  return left > 0 && timeCouldChange(row, left) ? 1 : 0;
}

/**
 * @param verdict  perfgate.verdict/v2 of everything measured so far
 * @param budget   stepBudget(suite budget, plan): {extra_rounds, step_rounds, confirm_rounds,
 *                 extra_windows, step_windows, confirm_windows, seconds}
 * @param spent    {extra_rounds, confirmed: [ids], extra_windows, recounted: [ids],
 *                 on_request: {id: pairs given on the row's own servers (roundsNow)},
 *                 seconds: wall time narrowing took so far}
 * @returns {action: 'count'|'recount', ids, windows} | {action: 'extend'|'confirm', ids, rounds}
 *          | {action: 'done', why}
 */
function nextStep(verdict, budget, spent) {
  if (verdict.verdict === 'error') return { action: 'done', why: 'the run has errors' };
  const rows = verdict.benchmarks || [];
  const extraWindows = budget.extra_windows ?? 0;
  const windowsLeft = extraWindows - (spent.extra_windows || 0);
  const recounted = spent.recounted || [];
  const narrowing = timeLeft(budget, spent);
  const count = needing(rows, 'instructions');
  if (count.length > 0 && windowsLeft > 0 && narrowing) {
    return { action: 'count', ids: count, windows: Math.min(budget.step_windows ?? windowsLeft, windowsLeft) };
  }
  // Also a row whose instructions of all threads one pair of processes proved beyond a limit:
  // they stand only once a fresh pair proves it too (process-pairs.js, withAllThreads).
  const recount = rows.filter((b) => (['fail', 'warn'].includes(b.instructions_verdict) || b.instructions_recount) && !recounted.includes(b.id)).map((b) => b.id);
  if (recount.length > 0 && (budget.confirm_windows ?? 0) > 0) {
    return { action: 'recount', ids: recount, windows: budget.confirm_windows };
  }
  const left = (b) => roundsLeftFor(b, budget, spent);
  const timeOpen = [...rows, ...(verdict.ahi || [])].filter((b) => (b.needs || []).includes('time'));
  const extendable = narrowing ? timeOpen.filter((b) => left(b) > 0 && timeCouldChange(b, left(b))) : [];
  if (extendable.length > 0) {
    // Every row of a step gets its rounds: no more than the one with the fewest left may take.
    const fewestLeft = Math.min(...extendable.map(left));
    return { action: 'extend', ids: extendable.map((b) => b.id), rounds: Math.min(budget.step_rounds, fewestLeft) };
  }
  // A fail or warn that rests on time alone is re-measured on fresh servers: what ties to one
  // pair of processes (a slower core, one side's cache) repeats in every round of it, and noise
  // alone must not warn. One that instructions prove needs no more rounds (they cannot change
  // what was counted). An AHI gain cell is time alone.
  const items = [...rows, ...(verdict.ahi || [])];
  const restsOnTime = (id) => {
    const b = items.find((x) => x.id === id);
    if (!b || b.time_verdict === undefined) return true;
    return b.time_verdict === b.verdict && LEVELS.indexOf(b.instructions_verdict) < LEVELS.indexOf(b.verdict);
  };
  const beyond = [...new Set([...verdict.failed, ...items.filter((b) => b.verdict === 'warn').map((b) => b.id)])];
  const unconfirmed = beyond.filter((id) => restsOnTime(id) && !spent.confirmed.includes(id));
  if (unconfirmed.length > 0 && budget.confirm_rounds > 0) {
    return { action: 'confirm', ids: unconfirmed, rounds: budget.confirm_rounds };
  }
  const open = [...rows, ...(verdict.ahi || [])].filter((b) => (b.needs || []).length > 0);
  if (open.length > 0) {
    const withRoundsLeft = timeOpen.filter((b) => left(b) > 0);
    if (!narrowing) return { action: 'done', why: `the budget's ${budget.seconds / 60} minutes of extra measurement are spent` };
    const spentOn = [
      needing(rows, 'instructions').length ? `extra-window budget of ${extraWindows}` : null,
      timeOpen.length > withRoundsLeft.length ? `extra-round budget of ${budget.extra_rounds}` : null,
    ].filter(Boolean).join(' and ');
    const lefts = [...new Set(withRoundsLeft.map(left))];
    const roundsWords = lefts.length === 1 ? `${lefts[0]} extra round${lefts[0] === 1 ? '' : 's'}` : 'extra rounds';
    const futile = withRoundsLeft.length
      ? `the ${roundsWords} left could not close ${withRoundsLeft.length === 1 ? 'the open time interval' : `the ${withRoundsLeft.length} open time intervals`} at the spread measured`
      : null;
    return { action: 'done', why: [spentOn ? `${spentOn} spent` : null, futile].filter(Boolean).join('; ') };
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

module.exports = { nextStep, roundsNow, planIdsFor, timeCouldChange, stepBudget, PROJECTION_MARGIN_SE };
