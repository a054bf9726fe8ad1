'use strict';
// judge(results, config) -> verdict: a pure function from what the harness measured (one
// results.json, or several runs of the same plan to merge) and the limits, to the decision
// and every figure a renderer shows. Renderers read only the verdict. The rooms it draws on:
// row-limits.js (the limits of a row), judge-row.js (a row from its record), process-pairs.js
// (pooling across server processes), row-errors.js, ahi-cells.js, suite-wide.js (the suite as
// a whole), verdict-words.js.
const { EXIT } = require('./errors');
const { CONFIDENCE } = require('./statistics');
const { mergeResults, countedOf } = require('./merge-results');
const { diagnose, warnings } = require('./runner-checks');
const { rowLimits, flatLimits } = require('./row-limits');
const { judgeRecord } = require('./judge-row');
const { ahiCells, sideQps } = require('./ahi-cells');
const { errorText, failedSide, unfinishedRun, withdrawn, judgedOrOutOfRange } = require('./row-errors');
const { headline } = require('./verdict-words');
const { suiteWide } = require('./suite-wide');

const SCHEMA = 'perfgate.verdict/v2';
const VERDICTS = ['pass', 'warn', 'undecided', 'fail', 'error'];
// The run's verdict is its worst benchmark's, in this order of precedence:
//   error        a measurement failed: no figure of the run can be trusted to be complete;
//   fail         a regression whose whole interval is below the fail limit: it must be seen
//                even when other benchmarks are undecided;
//   undecided    undecided benchmarks may hide a fail, so the run cannot be called good;
//   warn, pass   decided and acceptable.
const PRECEDENCE = { error: 4, fail: 3, undecided: 2, warn: 1, pass: 0 };
const EXIT_OF = { pass: EXIT.ok, warn: EXIT.ok, fail: EXIT.fail, undecided: EXIT.undecided, error: EXIT.error };

function worst(verdicts) {
  return verdicts.reduce((w, v) => (PRECEDENCE[v] > PRECEDENCE[w] ? v : w), 'pass');
}

function judge(results, config = {}, options = {}) {
  const docs = Array.isArray(results) ? results : [results];
  const run = mergeResults(docs, { allowDifferentMachines: options.allowDifferentMachines });
  const runErrors = run.errors || [];
  const sideFailure = unfinishedRun(run) || failedSide(run);
  const timePlanned = ((run.plan && run.plan.measure && run.plan.measure.signals) || []).includes('time');
  const judged = run.benchmarks.map((b) => {
    const limits = rowLimits(config, b);
    const j = judgedOrOutOfRange(b, limits, () => judgeRecord(b, limits, runErrors, run.extensions || [], timePlanned));
    // Nothing of the row stands once a side failed as a whole: no interval and no signal's word.
    if (sideFailure && j.verdict !== 'error') withdrawn(j, sideFailure);
    return j;
  });
  const ahi = ahiCells(judged, config, run.extensions || []);
  const items = [...judged.filter((b) => !b.ahi), ...judged.filter((b) => b.ahi), ...ahi];
  let runError = sideFailure;
  if (!runError && run.status === 'error' && !judged.some((b) => b.verdict === 'error')) {
    runError = runErrors.length ? errorText(runErrors[0]) : 'the harness reported an error without details';
  }
  if (!runError && !judged.length) runError = 'the results hold no benchmarks';
  // A planned row the results do not hold was never judged: what it hides could be a fail, and
  // no headline may count the rows that are there as all of them. (A merge of some shards says
  // what shards it lacks in its own words below.)
  const planned = ((run.plan && run.plan.benchmarks) || []).map((b) => b.id);
  const judgedIds = new Set(judged.map((b) => b.id));
  // (A merge's plan lists the shards it holds, so a shard that lost a row is caught too.)
  const missing = planned.filter((id) => !judgedIds.has(id));
  if (!runError && missing.length) runError = `the results hold no rounds or windows of ${missing.length} planned microbenchmark${missing.length === 1 ? '' : 's'} (${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ` and ${missing.length - 3} more` : ''})`;
  // The suite as a whole, judged beside its rows with limits of its own (config.suite_wide: a
  // loaded suite's, or none for limits built by hand); it moves the run's verdict as a row does.
  const wide = runError ? null : suiteWide(judged, config && config.suite_wide);
  const entries = wide ? wide.entries : [];
  // A row unstable on main (no signal left to judge it) is shown, undecided, and decides nothing.
  const deciding = items.filter((b) => !(b.unstable && b.unstable.whole_row));
  // Rows but none judged: nothing was decided, which is not a pass.
  const nothingJudged = items.length && !deciding.length ? 'undecided' : 'pass';
  const measured = runError ? 'error' : worst([nothingJudged, ...entries, ...deciding].map((b) => b.verdict));
  // A merge of some shards only: what was not measured may hide a fail, so at best undecided.
  const partial = run.shards && (run.shards.missing || []).length ? run.shards : null;
  const overall = partial ? worst([measured, 'undecided']) : measured;
  const counts = Object.fromEntries(VERDICTS.map((v) => [v, items.filter((b) => b.verdict === v).length]));
  const plan = run.plan || {};
  return {
    schema: SCHEMA,
    suite: plan.suite || null,
    verdict: overall,
    exit_code: EXIT_OF[overall],
    headline: headline({ overall, measured, items: deciding, wide: entries, runError, partial, unstable: items.filter((b) => !deciding.includes(b)) }),
    confidence: CONFIDENCE,
    method: 'paired rounds (base i, head i); geometric mean of head/base with a Student-t interval on the log ratios',
    limits: flatLimits(config),
    counts,
    undecided: items.filter((b) => b.verdict === 'undecided').map((b) => b.id),
    failed: items.filter((b) => b.verdict === 'fail').map((b) => b.id),
    errors: runErrors.map(errorText),
    doctor: run.machine ? warnings(diagnose(run.machine)) : [],
    run: {
      started: run.started ?? null,
      finished: run.finished ?? null,
      merged_from: docs.length,
      machines_differ: new Set(docs.map((d) => d.machine && d.machine.id)).size > 1,
      machine: run.machine,
      sides: run.sides,
      scale: plan.scale ?? null,
      measure: plan.measure ?? null,
      profile: plan.profile ?? null,
      ...(plan.shard ? { shard: { index: plan.shard.index, count: plan.shard.count, benchmarks_in_suite: plan.shard.suite_benchmarks.length } } : {}),
      ...(run.shards ? { shards: run.shards } : {}),
      // How its instructions were counted: runs counted otherwise teach learned limits nothing.
      ...(run.instructions ? { counted: countedOf(run) } : {}),
    },
    ...(wide ? { suite_wide: { ...wide, verdict: entries.length ? worst(entries.map((e) => e.verdict)) : null } } : {}),
    benchmarks: judged,
    ahi,
  };
}

/**
 * One microbenchmark's row from its record alone, as judge() would write it in a run without
 * errors: what a harness asks about while the row's servers are still up (next-step.js,
 * roundsNow).
 * @param bench   a perfgate.results/v1 benchmark record
 * @param config  {limits} | suite, as judge() takes it
 */
function judgeRow(bench, config = {}, { timePlanned = true } = {}) {
  const limits = rowLimits(config, bench);
  return judgedOrOutOfRange(bench, limits, () => judgeRecord(bench, limits, [], [], timePlanned));
}

module.exports = { judge, judgeRow, sideQps, worst, PRECEDENCE, EXIT_OF, CONFIDENCE, VERDICT_SCHEMA: SCHEMA };
