'use strict';
// What makes a row, or a whole run, an error rather than a verdict, each with the reason a
// report shows. A measurement that went wrong is never judged as if the rest were all of it:
// a lost round or window, a stalled side, a crashed server or a cancelled run leave no figure
// to be read as a result.

function errorText(e) {
  if (!e) return 'failed';
  const where = [e.side, e.step].filter(Boolean).join(' ');
  return where ? `${where}: ${e.message}` : e.message;
}

// Rounds pair by index: a base round without its head round (or the reverse) is a round lost,
// and judging the others as if it had not happened would pass a head that lost its slowest.
function unpairedRound(rounds) {
  const indices = (side) => new Set(rounds.filter((r) => r.side === side).map((r) => r.index));
  const [base, head] = [indices('base'), indices('head')];
  if (!base.size || !head.size) return null;
  const lone = [...base].find((i) => !head.has(i));
  if (lone !== undefined) return `base round ${lone} has no head round; rounds are measured in pairs`;
  const loneHead = [...head].find((i) => !base.has(i));
  return loneHead !== undefined ? `head round ${loneHead} has no base round; rounds are measured in pairs` : null;
}

/**
 * Why a benchmark's record cannot be judged, before any figure of it is: the harness's own
 * error, a round with query errors or a reconnect, a round that completed no query, a round
 * without its partner, or no timed round in a run that times. null when none.
 */
function recordProblem(bench, runErrors, timePlanned) {
  const rounds = bench.rounds || [];
  const benchErrors = runErrors.filter((e) => e.benchmark === bench.id);
  if (bench.status === 'error' || bench.error || benchErrors.length) return errorText(bench.error || benchErrors[0]);
  const r = rounds.find((x) => x.errors > 0 || x.reconnects > 0);
  if (r) {
    // A reconnect is a connection lost mid-round: the server crashed or restarted.
    return r.errors > 0
      ? `${r.side} round ${r.index}: sysbench reported ${r.errors} query error${r.errors === 1 ? '' : 's'}`
      : `${r.side} round ${r.index}: sysbench reconnected ${r.reconnects} time${r.reconnects === 1 ? '' : 's'}: connections were lost during the round`;
  }
  // A round that completed no query is the largest slowdown there is, not a missing figure:
  // left out of the pairs (as a null cpu/o is), it would let the other rounds pass a head
  // that stalled.
  const stalled = rounds.find((x) => !(x.qps > 0));
  if (stalled) return `${stalled.side} round ${stalled.index}: ${stalled.qps} QPS: no query completed in the round`;
  const unpaired = unpairedRound(rounds);
  if (unpaired) return unpaired;
  if (timePlanned && rounds.length === 0) return 'no timed rounds, though the plan measures time (measure.signals); a time regression would go unseen';
  return null;
}

// Rounds of one side only (or of no common index): nothing to compare, and no interval to show.
function noPairs(rounds) {
  const indicesOf = (side) => rounds.filter((r) => r.side === side).map((r) => r.index).sort((a, b) => a - b).join(', ') || 'none';
  return `no paired rounds: base rounds ${indicesOf('base')}; head rounds ${indicesOf('head')}`;
}

// A window that ran no queries, or counted nothing on the queries' own threads, or a side with
// a window the other lacks, measured something other than the benchmark: leaving it out would
// judge the rest as if it had not happened, so the row is an error, as a round with 0 QPS is.
function brokenWindow(instructions) {
  const { base, head } = instructions;
  if (base.windows.length !== head.windows.length) {
    return `instruction windows come in pairs, but the base counted ${base.windows.length} and the head ${head.windows.length}`;
  }
  for (const [side, { windows }] of [['base', base], ['head', head]]) {
    const at = windows.findIndex((w) => !(w.queries > 0));
    if (at >= 0) return `${side} instruction window ${at + 1}: sysbench completed no queries`;
    const empty = windows.findIndex((w) => !(w.connection.per_query > 0));
    if (empty >= 0) return `${side} instruction window ${empty + 1}: no instructions counted on the queries' own threads`;
  }
  return null;
}

// A side that failed as a whole (its server did not start, prepare failed, it crashed between
// benchmarks) leaves nothing to compare: the run is an error, never a verdict.
// (In merged shards such an error carries its shard and concerns that shard's rows only.)
function failedSide(results) {
  const e = (results.errors || []).find((x) => x.side && !x.benchmark && !x.shard);
  return e ? `the ${e.side} server failed${e.step ? ` (${e.step})` : ''}: ${e.message}` : null;
}

// A run the harness did not finish is no measurement, whatever rounds it kept.
function unfinishedRun(run) {
  if (run.status === 'cancelled') {
    const why = (run.errors || []).find((e) => e.step === 'cancelled');
    return `the run was cancelled${why ? `: ${why.message}` : ''}; a cancelled run carries no verdict`;
  }
  return null;
}

// A row whose figures cannot stand (its side failed as a whole): an error, with no interval and
// no signal's word left to be read as a result.
function withdrawn(row, reason) {
  Object.assign(row, { verdict: 'error', reason, rqps: null, time_verdict: null, could_be: null, needs: [] });
  for (const key of ['instructions_verdict', 'instructions_threads', 'instructions_recount', 'decided_by', 'headline_phrase']) delete row[key];
  for (const key of ['instructions_per_query', 'all_threads_per_query', 'background_per_query']) if (key in row) row[key] = null;
  return row;
}

// Figures so small or large that a head/base ratio leaves the floating-point range (1e-320 QPS)
// were not measured by a harness: the row is an error naming them, not a crash of the judge.
function judgedOrOutOfRange(bench, limits, judgeRecord) {
  try {
    return judgeRecord();
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    const row = { id: bench.id, name: bench.name, group: bench.group, threads: bench.threads ?? null, ahi: bench.ahi ?? null, limits,
      rounds: { base: 0, head: 0, pairs: 0 }, cpu_per_query: null, cs_per_query: null, qps: [] };
    return withdrawn(row, `figures out of range: ${err.message}; expected figures a measurement gives`);
  }
}

module.exports = { errorText, recordProblem, noPairs, brokenWindow, failedSide, unfinishedRun, withdrawn, judgedOrOutOfRange };
