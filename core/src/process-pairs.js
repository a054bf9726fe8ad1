'use strict';
// A signal measured on more than one pair of server processes: pooled, and each pair judged on
// its own. What ties to a process (memory layout, where its threads ran, a cold cache of one
// side) repeats in every round of it, so the rounds of two pairs of processes are not one
// sample, and an interval that pools them as one cannot clear what one pair measured.
const { level, higher } = require('./row-verdict');
const { signalOf } = require('./row-signals');
const { whereInstructionsWent } = require('./instructions');

// The steps that measured a signal on fresh processes: timed rounds, or instruction windows
// (`rerun`: the rounds or windows of another run of the comparison, joined by perfgate judge).
const STEP_PURPOSES = { rounds: ['extend', 'confirm', 'rerun'], windows: ['count', 'recount', 'rerun'] };

/**
 * The stretches of rounds (or windows) each pair of server processes measured: the first
 * servers', then each fresh step's. Each: {unit, steps (the fresh steps of the signal in
 * order), at (which of them begins it, -1 for the first servers), from, until (the steps that
 * begin and end it, null at the ends)}. Without fresh steps: the first servers' only, which
 * no fresh pair has measured yet.
 */
function pairsOfProcesses(extensions, unit, ids) {
  const steps = extensions.filter((e) => STEP_PURPOSES[unit].includes(e.purpose) && ids.every((id) => e.benchmarks.includes(id)));
  if (!steps.length) return [{ unit, steps, at: -1, from: null, until: null }];
  return [
    { unit, steps, at: -1, from: null, until: steps[0] },
    ...steps.map((e, k) => ({ unit, steps, at: k, from: e, until: steps[k + 1] || null })),
  ];
}

// Whether round `index` belongs to a stretch: from its first step's first round up to the next
// step's (every step continues the numbering).
function inStretch(index, { from, until }) {
  return (!from || index >= from.first_round) && (!until || index < until.first_round);
}

// The windows of one side a stretch counted. Windows pair by position and every step counts
// as many on each side, appended in order: the steps' windows are the last ones, the first
// servers' those before them.
function windowsOfStretch(windows, { steps, at }) {
  const counted = (list) => list.reduce((n, e) => n + (e.windows || 0), 0);
  const firstEnd = Math.max(0, windows.length - counted(steps));
  if (at < 0) return windows.slice(0, firstEnd);
  const begin = firstEnd + counted(steps.slice(0, at));
  return windows.slice(begin, begin + (steps[at].windows || 0));
}

/**
 * What each pair of server processes measured of one signal on its own, as `judgeOwn(stretch)`
 * judges it. Returns the worst a pair proved (a fail before a warn; the earliest of equals)
 * as {own, stretch}, or null when no pair proved a warn or fail or no fresh step measured the
 * signal (its pooled interval is then all there is).
 *
 * Extra rounds come after open rows and confirming rounds after fails, but in a chain, an AHI
 * matrix, or runs joined by perfgate judge, a row can be measured again whatever it showed,
 * and a pair of fresh processes can see what the first did not: no pair's proof may be pooled
 * away by the others.
 */
function worstPairOfProcesses(stretches, judgeOwn) {
  if (stretches.length < 2) return null;
  let seen = null;
  for (const stretch of stretches) {
    const own = judgeOwn(stretch);
    if (!own || own.best === 'pass') continue;
    if (!seen || level(own.best) > level(seen.own.best)) seen = { own, stretch };
  }
  return seen;
}

/**
 * A signal as it stands: `now` from every round (or window) pooled, `seen` the worst one pair
 * proved on its own:
 *   - a fail the other processes do not repeat stays possible until the pooled interval lies
 *     beyond the fail limit too;
 *   - a warn they do not repeat keeps the warn possible: noise alone must not warn, nor may a
 *     measured warn read "within limits".
 * `unconfirmed` is that pair's own signal, with the stretch it measured.
 */
function unconfirmed(now, seen) {
  if (!seen || level(now.best) >= level(seen.own.best)) return now;
  const shown = { ...seen.own, stretch: seen.stretch };
  const worst = higher(now.worst, seen.own.best);
  return { ...now, worst, unconfirmed: shown, parts: [...(now.parts || [now]), shown] };
}

/**
 * The instructions signal: the queries' own threads, with those of all threads where they
 * prove more. A regression placed in background work (purge, flushing) runs no instruction
 * on a connection thread, while on update-index_range=100 the purge the queries leave costs
 * about as much as the queries themselves. But background threads also run work of their own
 * that comes and goes, so their figure only ever proves, and only what every pair of server
 * processes proves on its own counts: chance must strike twice. What one pair proved beyond
 * that, of either figure, keeps the row open to it (`unconfirmed`); a proof of all threads
 * that no other pair repeats asks for a count on fresh processes (out.instructions_recount).
 *
 * @param connection      the queries' own signal, every window pooled
 * @param connectionSeen  the worst one pair proved of it (worstPairOfProcesses), or null
 * @param pairs           each pair of processes that counted windows: its stretch with its own
 *                        instructionFigures as `figures`, the first servers first
 */
function withAllThreads(connection, connectionSeen, out, measured, limits, pairs) {
  const own = out.all_threads_per_query ? pairs.filter((p) => p.figures.all).map((p) => ({ ...p, signal: signalOf('instructions_all', p.figures.all, limits) })) : [];
  const proved = own.length >= 2 ? own.map((p) => p.signal.best).reduce((a, b) => (level(a) <= level(b) ? a : b)) : 'pass';
  let signal = connection;
  if (level(proved) > level(connection.best)) {
    const pooled = signalOf('instructions_all', out.all_threads_per_query, limits);
    const worst = higher(connection.worst, proved);
    const each = { ...pooled, onEachOf: own.length };
    out.instructions_threads = 'all';
    out.instructions_functions = whereInstructionsWent(measured, out.all_threads_per_query, 10, ['connection', 'background']);
    signal = { ...each, best: proved, worst, parts: [each, connection] };
  }
  if (connectionSeen) signal = unconfirmed(signal, connectionSeen);
  const seen = own.reduce((a, p) => (!a || level(p.signal.best) > level(a.signal.best) ? p : a), null);
  const shown = Math.max(level(signal.best), signal.unconfirmed ? level(signal.unconfirmed.best) : 0);
  if (!seen || level(seen.signal.best) <= shown) return signal;
  out.instructions_recount = true;
  return unconfirmed(signal, { own: seen.signal, stretch: seen });
}

module.exports = { pairsOfProcesses, inStretch, windowsOfStretch, worstPairOfProcesses, unconfirmed, withAllThreads };
