'use strict';
// The bisection engine: resolves the first-parent range between a good and a bad commit of a
// fork, confirms the regression between them, then builds and measures one commit at a time
// until the first bad one is found, and measures that one against its parent for the report,
// with the explanation step on its regressed rows (docs/explain.md).
// Every decision comes from core (the course: core/src/bisect-course.js; the rule of a step:
// core/src/bisect.js); builds go through buildSides/buildCommit and measurements through
// runComparison; what is written and told, <out>/bisect.json (rewritten whole after every
// step) and the progress events, is bisect-progress.js's. One run folder per step under
// <out>/steps/.
const fs = require('node:fs');
const path = require('node:path');
const core = require('@perfgate/core');
const { buildSides } = require('./source-build/build-sides');
const { cacheDirFrom, openSource, resolveCommit } = require('./source-build/build-commit');
const { runComparison } = require('./compare-loop');
const { writeReports, makeRunFolder } = require('./own-files');
const { BisectProgress } = require('./bisect-progress');
const { runProcessSync, Cancelled, EXIT_ON_SIGNAL, throwIfCancelled, sandboxFor } = require('./processes');

const { UsageError, BuildError, EXIT } = core;
const short = core.shortCommit;

const CULPRIT_EXPLAIN = core.parseExplainAsk('auto');
const EXIT_OF_STATUS = { found: EXIT.ok, 'no-regression': EXIT.undecided, undecided: EXIT.undecided, ambiguous: EXIT.undecided, error: EXIT.error };

function git(toplevel, args) {
  const r = runProcessSync('git', ['-C', toplevel, ...args]);
  if (r.error) throw new UsageError(`--source '${toplevel}': could not run git (${r.error.code || r.error.message})`);
  return r;
}

function commitRef(toplevel, option, ref) {
  if (!ref) throw new UsageError(`${option} is missing; expected ${option} <git ref>`);
  try {
    return resolveCommit(toplevel, ref);
  } catch (err) {
    if (err instanceof BuildError || err instanceof UsageError) {
      throw new UsageError(`${option} '${ref}': does not name a commit in ${toplevel}; expected a branch, tag or SHA of that checkout`);
    }
    throw err;
  }
}

/**
 * The commits to search (oldest first, good first, bad last) of one checkout; bad input (refs
 * that do not exist, a good commit that is not on the bad one's first-parent history) is a
 * UsageError naming the option.
 */
function resolveRange(toplevel, goodRef, badRef) {
  const good = commitRef(toplevel, '--good', goodRef);
  const bad = commitRef(toplevel, '--bad', badRef);
  const ancestor = git(toplevel, ['merge-base', '--is-ancestor', good, bad]);
  if (ancestor.status === 1 && good !== bad) {
    throw new UsageError(`--good '${goodRef}' (${short(good)}) is not an ancestor of --bad '${badRef}' (${short(bad)}); expected the older, good commit as --good`);
  }
  const format = ['--format=%H%x00%P%x00%s'];
  const log = git(toplevel, ['log', '--first-parent', ...format, `${good}..${bad}`, '--']);
  if (log.status !== 0) throw new UsageError(`--bad '${badRef}': git log failed in ${toplevel}: ${log.stderr.trim().split('\n')[0]}`);
  const [goodEntry] = core.parseCommitLog(git(toplevel, ['log', '-1', ...format, good, '--']).stdout);
  const range = core.firstParentRange({ good: goodEntry, bad: { commit: bad }, log: core.parseCommitLog(log.stdout), goodName: `'${goodRef}'`, badName: `'${badRef}'` });
  if (range.problem) throw new UsageError(range.problem);
  return range.commits;
}

/**
 * Checks everything that can be checked before anything is built: the source, the refs and
 * their range, the suite, the microbenchmarks and the options.
 * @returns {toplevel, commits, config, suite, ids, allowed}
 */
function prepareBisection({ source, good, bad, tests, suiteName, config, overrides }) {
  const suite = core.findSuite(config, suiteName);
  const narrowed = core.narrowSuite(config, suiteName, tests, '--tests');
  const ids = narrowed.suites[suiteName].benchmarks;
  if (!ids) throw new UsageError(`--suite ${suiteName}: bisect measures listed microbenchmarks; expected a suite with a benchmarks list (quick, full or your own)`);
  // A plan that cannot be made is bad input now, not after the first build.
  const placeholder = { basedir: '/', label: 'check' };
  core.resolvePlan(narrowed, suiteName, overrides, { base: placeholder, head: placeholder });
  let toplevel;
  try {
    toplevel = openSource(source);
  } catch (err) {
    // A checkout with uncommitted changes: as for compare --source, an error (4), not bad input.
    if (err instanceof BuildError) throw new UsageError(`--source '${source}': ${err.message}`, EXIT.error);
    throw err;
  }
  const commits = resolveRange(toplevel, good, bad);
  const allowed = overrides.signals || suite.measure.signals;
  return { toplevel, commits, config: narrowed, suite: narrowed.suites[suiteName], ids, allowed };
}

/**
 * One step: `next.head` against `next.base` built and measured on the step's microbenchmarks,
 * into its own run folder under <out>/steps/.
 * @returns what the step came to, for core.recordBisectStep: {outcome, failedSide, reason,
 *          verdict (of a step measured, with the causes of a culprit's rows), run, unexplained}
 */
async function buildAndMeasure(next, course, { prepared, suiteName, overrides, recipe, cacheDir, outDir, io, env, sandbox, doc }) {
  throwIfCancelled();
  const plan = core.stepMeasurement({ suite: prepared.suite, purpose: next.purpose, watched: course.watched,
    allowed: prepared.allowed, attempt: next.attempt - 1, rounds: overrides.rounds });
  const step = doc.startStep(next, plan);
  const stepDir = path.join(outDir, step.run);
  let built;
  try {
    built = await buildSides({ source: prepared.toplevel, refs: { base: next.base, head: next.head }, recipe, cacheDir, outDir: stepDir, io, env, who: 'perfgate bisect', sandbox });
  } finally {
    doc.built(step, stepDir);
  }
  doc.save();
  if (built.failure) {
    const { side, error } = built.failure;
    const reason = `${short(side === 'base' ? next.base : next.head)} did not build: ${error.message.split('\n')[0]}`;
    doc.measured(step, { outcome: 'build-failed', failed_side: side, reason });
    return { step, outcome: 'build-failed', failedSide: side, reason, verdict: null, run: step.run };
  }
  const sides = {
    base: { ...built.sides.base, label: next.kind === 'culprit' ? `parent ${short(next.base)}` : `good ${short(next.base)}` },
    head: { ...built.sides.head, label: short(next.head) },
  };
  const outcome = await runComparison({
    config: core.configForStep(prepared.config, suiteName, next.ids, { windows: plan.windows }), suiteName,
    overrides: { ...overrides, signals: plan.signals, rounds: plan.rounds },
    budget: plan.budget, sides, outDir: stepDir, judge: core.judge, io, env, sandbox,
    // Why the culprit is slower than its parent: the rows that are not a plain pass, within the suite's explain budget.
    explain: next.kind === 'culprit' ? CULPRIT_EXPLAIN : null,
  });
  if (outcome.cancelled) throw new Cancelled(outcome.cancelled);
  const { verdict } = outcome;
  if (verdict) writeReports(stepDir, verdict, { flamegraphs: outcome.flamegraphs || {} });
  const measured = Boolean(verdict && verdict.verdict !== 'error');
  const reason = measured ? null : (verdict ? verdict.headline : outcome.message);
  doc.measured(step, { outcome: measured ? 'measured' : 'error', verdict: verdict ? verdict.verdict : null,
    measurements: verdict ? core.summarizeMeasurement(verdict) : null, reason });
  return { step, outcome: step.outcome, reason, verdict: measured ? verdict : null, run: step.run, unexplained: outcome.unexplained || null };
}

/**
 * Runs one bisection: the course is core's (core.beginBisect, nextBisectStep,
 * recordBisectStep), each step built and measured here, and told by bisect-progress.js.
 * @param source      the fork's git checkout; good, bad: git refs of it
 * @param tests       microbenchmark names of the suite to measure, or null for all of them
 * @param config      loadThresholds() result; suiteName: the suite
 * @param overrides   plan overrides (measureOverrides: --metric, --seconds, …)
 * @param repeats     times an undecided commit is measured again
 * @param flavor, buildConfigs, thresholds   the build recipe, as for compare --source
 * @param outDir      the bisection's folder: bisect.json and steps/
 * @param sandbox     sandboxFor() of the search: its builds and measurements run in it (a
 *                    search of a fork's commits is untrusted: the action asks for it so)
 * @param onProgress  (event, doc) after every step: event for formatBisectProgress, doc = the
 *                    bisect.json written
 * @returns {doc, exitCode}; throws UsageError for bad input (before anything is built)
 */
async function runBisection({ source, good, bad, tests = null, config, suiteName = 'quick', overrides = {}, repeats = core.DEFAULT_BISECT_REPEATS,
  flavor = 'mariadb', buildConfigs = [], thresholds = core.SHIPPED_THRESHOLDS_DIR, outDir, io, env = process.env, onProgress = () => {},
  sandbox = sandboxFor({ env }) }) {
  const started = Date.now();
  const prepared = prepareBisection({ source, good, bad, tests, suiteName, config, overrides });
  const { toplevel, commits, ids, allowed } = prepared;
  const cacheDir = cacheDirFrom(env);
  const recipe = core.loadRecipe({ thresholdsDir: thresholds, buildConfigs, flavor, cacheDir });
  makeRunFolder(outDir);
  // An earlier bisection in this folder is replaced, never mixed with this one.
  fs.rmSync(path.join(outDir, 'steps'), { recursive: true, force: true });
  fs.rmSync(path.join(outDir, 'bisect.json'), { force: true });

  let course = core.beginBisect(commits, { ids, repeats });
  const end = (o) => ({ commit: o.commit, subject: o.subject });
  const doc = new BisectProgress({ outDir, course, started, onProgress, about: {
    source: toplevel, flavor: recipe.flavor, recipe: recipe.flagsHash.slice(0, 16), suite: suiteName, tests: ids,
    signals: [...allowed], repeats, good: { ref: good, ...end(commits[0]) }, bad: { ref: bad, ...end(commits[commits.length - 1]) },
  } });
  doc.begin();
  const context = { prepared, suiteName, overrides, recipe, cacheDir, outDir, io, env, sandbox, doc };
  try {
    for (let next = core.nextBisectStep(course); next; next = core.nextBisectStep(course)) {
      const measured = await buildAndMeasure(next, course, context);
      const decided = core.recordBisectStep(course, next, measured);
      doc.decided(measured.step, decided);
      course = decided.course;
    }
    return { doc: doc.finish(course.done.status, course.done.message), exitCode: EXIT_OF_STATUS[course.done.status] };
  } catch (err) {
    if (!(err instanceof Cancelled)) throw err;
    doc.cancelled(err.signal);
    return { doc: doc.finish('cancelled', `cancelled by ${err.signal}; nothing measured after the signal counts`), exitCode: EXIT_ON_SIGNAL[err.signal] };
  }
}

module.exports = { runBisection, resolveRange, prepareBisection };
