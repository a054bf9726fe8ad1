'use strict';
// The bisection engine: resolves the first-parent range between a good and a bad commit of a
// fork, confirms the regression between them, then builds and measures one commit at a time
// until the first bad one is found, and measures that one against its parent for the report.
// Every decision comes from core/src/bisect.js; builds go through buildSides/buildCommit and
// measurements through runComparison. Leaves <out>/bisect.json (rewritten whole after every
// step) and one run folder per step under <out>/steps/.
const fs = require('node:fs');
const path = require('node:path');
const core = require('@perfgate/core');
const { buildSides } = require('./source-build/build-sides');
const { cacheDirFrom, openSource, resolveCommit } = require('./source-build/build-commit');
const { runComparison } = require('./compare-loop');
const { writeDocument, writeReports, readDocument, makeRunFolder } = require('./run-folder');
const { runProcessSync, Cancelled, EXIT_ON_SIGNAL, throwIfCancelled, sandboxFor } = require('./processes');

const { UsageError, BuildError, EXIT } = core;
const short = (sha) => String(sha).slice(0, 12);

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

function buildsOf(stepDir) {
  const file = path.join(stepDir, 'build', 'builds.json');
  if (!fs.existsSync(file)) return [];
  const doc = readDocument(file, 'builds');
  return ['base', 'head'].filter((side) => doc.sides[side]).map((side) => {
    const s = doc.sides[side];
    return { commit: s.commit, cache: s.status === 'ok' ? s.cache : null, seconds: s.seconds ?? null, status: s.status, log: path.posix.join(path.relative(path.dirname(path.dirname(stepDir)), stepDir), s.log) };
  });
}

function buildCounts(steps) {
  const built = new Map();
  const seen = new Set();
  for (const s of steps) {
    for (const b of s.builds) {
      if (!b.commit || b.status !== 'ok') continue;
      seen.add(b.commit);
      if (b.cache && b.cache !== 'hit') built.set(b.commit, (built.get(b.commit) || 0) + b.seconds);
    }
  }
  return { built: built.size, cached: [...seen].filter((c) => !built.has(c)).length, seconds: Math.round([...built.values()].reduce((a, b) => a + b, 0) * 10) / 10 };
}

/**
 * Runs one bisection.
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

  let state = core.startBisection(commits, { repeats });
  const doc = {
    schema: core.BISECT_SCHEMA,
    status: 'running',
    message: 'confirming the regression between the ends',
    source: toplevel,
    flavor: recipe.flavor,
    recipe: recipe.flagsHash.slice(0, 16),
    suite: suiteName,
    tests: ids,
    signals: [...allowed],
    repeats,
    good: { ref: good, commit: commits[0].commit, subject: commits[0].subject },
    bad: { ref: bad, commit: commits[commits.length - 1].commit, subject: commits[commits.length - 1].subject },
    commits: commits.map((c) => ({ commit: c.commit, subject: c.subject, merge: c.merge, mark: null })),
    watched: [],
    steps: [],
    culprit: null,
    candidates: [],
    builds: { built: 0, cached: 0, seconds: 0 },
    measurements: 0,
    started: new Date(started).toISOString(),
    finished: null,
    seconds: 0,
  };
  const save = (event) => {
    doc.commits.forEach((c, i) => { c.mark = state.marks[i]; });
    doc.builds = buildCounts(doc.steps);
    doc.measurements = doc.steps.filter((s) => s.measurements).length;
    doc.seconds = Math.round((Date.now() - started) / 100) / 10;
    writeDocument(path.join(outDir, 'bisect.json'), 'bisect', doc);
    if (event) onProgress(event, doc);
  };
  const finish = (status, message, signal = null) => {
    doc.status = status;
    doc.message = message;
    doc.finished = new Date().toISOString();
    save({ type: 'done', status, message, builds: buildCounts(doc.steps).built, measurements: doc.steps.filter((s) => s.measurements).length, seconds: (Date.now() - started) / 1000 });
    return { doc, exitCode: signal ? EXIT_ON_SIGNAL[signal] : EXIT_OF_STATUS[status] };
  };
  save({ type: 'range', commits: commits.length, good: doc.good.commit, bad: doc.bad.commit, goodName: good, badName: bad });

  // One build-and-measure step: `head` against `base`, on the ids and signals given.
  // @returns {step (as bisect.json keeps it), verdict (in the step's run folder) | null}
  const measure = async ({ kind, base, head, position = null, attempt, purpose, measureIds }) => {
    throwIfCancelled();
    const n = doc.steps.length;
    const plan = core.stepMeasurement({ suite: prepared.suite, purpose, watched: doc.watched, allowed,
      attempt: attempt - 1, rounds: overrides.rounds });
    const name = `${String(n).padStart(2, '0')}-${kind === 'midpoint' ? short(head) : kind}${attempt > 1 ? `-${attempt}` : ''}`;
    const stepDir = path.join(outDir, 'steps', name);
    const step = { n, kind, commit: head, against: base, position, attempt, run: `steps/${name}`, signals: plan.signals,
      builds: [], measurements: null, verdict: null, outcome: 'running', decision: null, reason: null,
      started: new Date().toISOString(), seconds: 0 };
    doc.steps.push(step);
    const t0 = Date.now();
    const done = (fields) => {
      Object.assign(step, fields, { seconds: Math.round((Date.now() - t0) / 100) / 10 });
      return step;
    };
    save({ type: 'measure', step: n, kind, commit: head, against: base, position, commits: commits.length, attempt, signals: plan.signals });
    let built;
    try {
      built = await buildSides({ source: toplevel, refs: { base, head }, recipe, cacheDir, outDir: stepDir, io, env, who: 'perfgate bisect', sandbox });
    } finally {
      step.builds = buildsOf(stepDir);
    }
    save();
    if (built.failure) {
      const { side, error } = built.failure;
      return { step: done({ outcome: 'build-failed', failed_side: side, reason: `${side === 'base' ? short(base) : short(head)} did not build: ${error.message.split('\n')[0]}` }), verdict: null };
    }
    const sides = {
      base: { ...built.sides.base, label: kind === 'culprit' ? `parent ${short(base)}` : `good ${short(base)}` },
      head: { ...built.sides.head, label: short(head) },
    };
    const stepConfig = core.configForStep(prepared.config, suiteName, measureIds, { windows: plan.windows });
    const outcome = await runComparison({
      config: stepConfig, suiteName, overrides: { ...overrides, signals: plan.signals, rounds: plan.rounds },
      budget: plan.budget, sides, outDir: stepDir, judge: core.judge, io, env, sandbox,
    });
    if (outcome.cancelled) throw new Cancelled(outcome.cancelled);
    if (outcome.verdict) writeReports(stepDir, outcome.verdict);
    const verdict = outcome.verdict;
    const measured = Boolean(verdict && verdict.verdict !== 'error');
    return {
      step: done({
        outcome: measured ? 'measured' : 'error',
        verdict: verdict ? verdict.verdict : null,
        measurements: verdict ? core.summarizeMeasurement(verdict) : null,
        reason: measured ? null : (verdict ? verdict.headline : outcome.message),
      }),
      verdict: measured ? verdict : null,
    };
  };

  try {
    // 1. The ends: is the bad end slower, on which microbenchmarks and which signal?
    let confirmed = null;
    for (let attempt = 1; !confirmed; attempt++) {
      const { step, verdict } = await measure({ kind: 'confirm', base: doc.good.commit, head: doc.bad.commit, attempt, purpose: 'confirm', measureIds: ids });
      if (step.outcome === 'build-failed') {
        save();
        return finish('error', `the ${step.failed_side === 'base' ? 'good' : 'bad'} end ${step.reason}`);
      }
      if (step.outcome === 'error') {
        save();
        return finish('error', `the measurement of the ends failed: ${step.reason}`);
      }
      const at = core.regressionAtBadEnd(verdict, ids);
      step.decision = { regressed: 'bad', 'no-regression': 'good', undecided: 'undecided', error: 'error' }[at.status];
      step.reason = at.reason;
      save({ type: 'confirm', step: step.n, reason: at.reason });
      if (at.status === 'regressed') {
        confirmed = at;
      } else if (at.status === 'undecided' && attempt <= repeats) {
        continue;
      } else {
        const why = at.status === 'undecided' ? `the ends stayed undecided after ${attempt} measurements: ${at.reason}` : at.reason;
        return finish(at.status === 'error' ? 'error' : at.status, why);
      }
    }
    doc.watched = confirmed.watched;
    doc.message = 'searching';
    save();

    // 2. The search.
    for (let index = core.nextCommit(state); index !== null; index = core.nextCommit(state)) {
      const commit = commits[index].commit;
      const { step, verdict } = await measure({ kind: 'midpoint', base: doc.good.commit, head: commit, position: index,
        attempt: state.undecided[index] + 1, purpose: 'step', measureIds: doc.watched.map((w) => w.id) });
      if (step.outcome === 'build-failed') {
        if (step.failed_side === 'base') return finish('error', `the good end ${step.reason}`);
        step.decision = 'skip';
        state = core.recordDecision(state, index, 'skip');
        save({ type: 'build-failed', step: step.n, commit, message: step.reason });
        continue;
      }
      if (step.outcome === 'error') {
        save();
        return finish('error', `the measurement of ${short(commit)} failed: ${step.reason}`);
      }
      const decided = core.decideStep(verdict, doc.watched);
      step.decision = decided.decision;
      step.reason = decided.reason;
      step.partial = decided.tests.some((t) => t.partial);
      if (decided.decision === 'error') {
        save();
        return finish('error', `the measurement of ${short(commit)} decided nothing: ${decided.reason}`);
      }
      state = core.recordDecision(state, index, decided.decision, decided.reason);
      const p = core.searchProgress(state);
      save({ type: 'decision', step: step.n, commit, decision: decided.decision, reason: decided.reason, progress: p,
        lo: commits[p.lo].commit, hi: commits[p.hi].commit });
    }

    if (state.status === 'undecided') return finish('undecided', state.reason);
    if (state.status === 'ambiguous') {
      doc.candidates = state.candidates.map((i) => commits[i].commit);
      return finish('ambiguous', state.reason);
    }

    // 3. The culprit against its own parent: its rQPS, instr/o and the functions that grew.
    const culprit = commits[state.culprit].commit;
    const parent = commits[state.culprit - 1].commit;
    const { step, verdict } = await measure({ kind: 'culprit', base: parent, head: culprit, position: state.culprit, attempt: 1,
      purpose: 'culprit', measureIds: doc.watched.map((w) => w.id) });
    doc.culprit = core.describeCulprit(state, { verdict, watched: doc.watched, run: step.run });
    if (step.outcome !== 'measured') doc.culprit.notes.push(`its measurement against its parent failed (${step.reason}); the search itself named it`);
    return finish('found', `${short(culprit)} ${commits[state.culprit].subject}: ${state.reason}`);
  } catch (err) {
    if (!(err instanceof Cancelled)) throw err;
    const running = doc.steps[doc.steps.length - 1];
    if (running && running.outcome === 'running') Object.assign(running, { outcome: 'cancelled', reason: `cancelled by ${err.signal}` });
    return finish('cancelled', `cancelled by ${err.signal}; nothing measured after the signal counts`, err.signal);
  }
}

module.exports = { runBisection, resolveRange, prepareBisection };
