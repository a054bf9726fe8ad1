'use strict';
// Finding the commit behind a regression by binary search over the first-parent commits
// between a good and a bad commit. Pure: the search state, the next commit to measure, what
// a measurement decides, and the summaries that bisect.json and the progress lines show. The
// course over them (the ends, the search, the culprit) is core/src/bisect-course.js; the
// builds and measurements themselves are the cli's (cli/src/bisect.js); the words of it are
// core/src/render/bisect-text.js's.
//
// The rule that decides a step (written down in docs/usage.md "perfgate bisect"):
//
//   * Every commit is measured against the GOOD end, on the microbenchmarks that regressed
//     between the ends, and each of them is judged by the suite's own limits on the signal the
//     regression showed on (instructions when the bad end failed on instructions, else time):
//       fail (the whole interval beyond the fail limit)  → that microbenchmark is bad here;
//       pass or warn (the interval within the fail limit) → good here;
//       undecided (the interval straddles the limit)      → undecided.
//     A commit is bad when any watched microbenchmark is bad (the regression has arrived by
//     it), good when all are good, undecided otherwise.
//   * Why against the good end: the question of a step is "has the regression arrived by this
//     commit?", which is exactly what the gate asks of a pull request (head against base, the
//     same limits), so bisect names the first commit the gate would have failed. Against the
//     bad end the question becomes "is it as slow as bad?": a commit that carries part of a
//     regression made of two steps is neither, and "no slower than bad" cannot tell "already
//     bad" from "faster than bad". Both ends would double the cost of every step (both
//     servers of a step run under callgrind at once) and add nothing when one commit is to
//     blame. The bad end's own figure (from the first measurement) is used instead to say
//     whether a bad step carries the whole regression or only part of it.
//   * Why the fail limit and not the midpoint between the ends (the square root of the bad
//     end's ratio, which has the widest margin on either side when one commit is to blame):
//     a regression that came in two halves puts a commit exactly on that midpoint, and every
//     measurement of it would straddle it. At the fail limit bisect agrees with compare.
//   * An undecided step is measured again on freshly started servers, with twice the windows
//     and rounds each time (`repeats` times at most), never guessed; still undecided, the
//     bisection stops and says which commit and why. A commit that does not build is skipped
//     (as `git bisect skip`): if only skipped commits separate the last good from the first
//     bad one, the culprit is one of them and bisect names them all.
const { narrowSuite } = require('./config/thresholds');
const { signalFigure } = require('./signals');
const { cut } = require('./explain-words');

const SCHEMA = 'perfgate.bisect/v1';
const DEFAULT_REPEATS = 2;
const MAX_SCALE = 4; // windows and rounds grow ×2 per repeat, up to this factor
const TOP_FUNCTIONS = 3;
// The longest cause line bisect.json keeps (schema/bisect.schema.json): the step's verdict.json keeps all of it.
const CAUSE_MAX = 2000;

const short = (sha) => String(sha).slice(0, 12);
const f2 = (x) => (typeof x === 'number' ? x.toFixed(2) : '–');
const f3 = (x) => (typeof x === 'number' ? x.toFixed(3) : '–');

// --- the range ------------------------------------------------------------------------------

/**
 * Parses `git log --first-parent --format=%H%x00%P%x00%s <good>..<bad>` (newest first).
 * @returns [{commit, parents, subject}]
 */
function parseCommitLog(text) {
  return String(text).split('\n').filter((l) => l.trim()).map((line) => {
    const [commit, parents = '', subject = ''] = line.split('\u0000');
    return { commit: commit.trim(), parents: parents.trim() ? parents.trim().split(/\s+/) : [], subject };
  });
}

/**
 * The commits to search, oldest first: the good end at 0, then every first-parent commit up
 * to the bad end (last). A merge commit is one step of that history: the branch it brought in
 * is not searched (a culprit merge says how to search it).
 * @param good  {commit, subject}; bad: {commit}; log: parseCommitLog of good..bad
 * @returns {commits: [{commit, subject, parents, merge}]} or {problem: one line}
 */
function firstParentRange({ good, bad, log, goodName = 'good', badName = 'bad' }) {
  if (good.commit === bad.commit) return { problem: `--good ${goodName} and --bad ${badName} are the same commit ${short(good.commit)}; expected a good commit older than the bad one` };
  if (!log.length || log[0].commit !== bad.commit) {
    return { problem: `--good ${goodName} (${short(good.commit)}) is not an ancestor of --bad ${badName} (${short(bad.commit)}); expected the older, good commit first` };
  }
  for (let i = 0; i + 1 < log.length; i++) {
    if (log[i].parents[0] !== log[i + 1].commit) {
      return { problem: `the first-parent history of ${badName} is broken at ${short(log[i].commit)} (its first parent ${short(log[i].parents[0] || 'none')} is not listed); expected a complete git history (not a shallow clone)` };
    }
  }
  const oldest = log[log.length - 1];
  if (oldest.parents[0] !== good.commit) {
    return { problem: `--good ${goodName} (${short(good.commit)}) is not on the first-parent history of --bad ${badName}: that history leaves the good commit's ancestry at ${short(oldest.parents[0] || oldest.commit)}; expected a commit of ${badName}'s first-parent chain, e.g. ${short(oldest.parents[0] || oldest.commit)} or the merge that brought ${goodName} in` };
  }
  const commits = [{ commit: good.commit, subject: good.subject || '', parents: good.parents || [], merge: (good.parents || []).length > 1 }];
  for (const c of [...log].reverse()) commits.push({ commit: c.commit, subject: c.subject, parents: c.parents, merge: c.parents.length > 1 });
  return { commits };
}

// --- the search state -----------------------------------------------------------------------

/**
 * @param commits  oldest first, good end first, bad end last (firstParentRange)
 * @param repeats  how many times an undecided commit is measured again before the search stops
 */
function startBisection(commits, { repeats = DEFAULT_REPEATS } = {}) {
  if (!Array.isArray(commits) || commits.length < 2) throw new Error('startBisection: expected at least the good and the bad commit');
  if (!Number.isInteger(repeats) || repeats < 0) throw new Error(`startBisection: repeats ${repeats}: expected an integer >= 0`);
  const marks = commits.map(() => null);
  marks[0] = 'good';
  marks[commits.length - 1] = 'bad';
  return settle({ commits, marks, undecided: commits.map(() => 0), repeats, status: 'running', culprit: null, candidates: [], reason: null });
}

// The last commit known good and the first known bad.
function bounds(state) {
  const hi = state.marks.indexOf('bad');
  let lo = 0;
  for (let i = 0; i < hi; i++) if (state.marks[i] === 'good') lo = i;
  return { lo, hi };
}

// Untested commits strictly between the bounds, nearest the middle first.
function candidatesBetween(state) {
  const { lo, hi } = bounds(state);
  const middle = (lo + hi) / 2;
  const out = [];
  for (let i = lo + 1; i < hi; i++) if (state.marks[i] === null) out.push(i);
  return out.sort((a, b) => Math.abs(a - middle) - Math.abs(b - middle) || a - b);
}

function settle(state) {
  if (state.status !== 'running') return state;
  const { lo, hi } = bounds(state);
  if (candidatesBetween(state).length) return state;
  const skipped = [];
  for (let i = lo + 1; i < hi; i++) if (state.marks[i] === 'skip') skipped.push(i);
  if (!skipped.length) {
    return { ...state, status: 'found', culprit: hi, candidates: [hi],
      reason: `${short(state.commits[hi].commit)} is the first bad commit: its first parent ${short(state.commits[lo].commit)} is good` };
  }
  const candidates = [...skipped, hi];
  return { ...state, status: 'ambiguous', culprit: null, candidates,
    reason: `the first bad commit is one of ${candidates.map((i) => short(state.commits[i].commit)).join(', ')}: ${skipped.length === 1 ? 'the commit' : 'the commits'} before ${short(state.commits[hi].commit)} did not build` };
}

/**
 * The index of the commit to measure next: an undecided one again, else the untested commit
 * nearest the middle of the bounds; null when the search is over.
 */
function nextCommit(state) {
  if (state.status !== 'running') return null;
  const candidates = candidatesBetween(state);
  const again = candidates.find((i) => state.undecided[i] > 0);
  if (again !== undefined) return again;
  return candidates.length ? candidates[0] : null;
}

/**
 * What `decision` says about commit `index`: good, bad, undecided (measure it again) or skip
 * (it cannot be built). `why` is one line for the stop reason.
 * @returns the new state (the old one is not changed)
 */
function recordDecision(state, index, decision, why = '') {
  if (state.status !== 'running') throw new Error(`recordDecision: the search is over (${state.status})`);
  const { lo, hi } = bounds(state);
  if (!(index > lo && index < hi) || state.marks[index] !== null) {
    throw new Error(`recordDecision: commit #${index} is not between the last good (#${lo}) and the first bad (#${hi}) or is decided`);
  }
  const marks = [...state.marks];
  const undecided = [...state.undecided];
  if (decision === 'good' || decision === 'bad' || decision === 'skip') {
    marks[index] = decision;
    return settle({ ...state, marks, undecided });
  }
  if (decision === 'undecided') {
    undecided[index] += 1;
    if (undecided[index] > state.repeats) {
      const times = undecided[index];
      return { ...state, marks, undecided, status: 'undecided', candidates: [],
        reason: `${short(state.commits[index].commit)} stayed undecided after ${times} measurement${times === 1 ? '' : 's'}${why ? `: ${why}` : ''}` };
    }
    return { ...state, marks, undecided };
  }
  throw new Error(`recordDecision: decision '${decision}': expected good, bad, undecided or skip`);
}

/** How far the search has come: the bounds, commits left between them, steps left at most. */
function searchProgress(state) {
  const { lo, hi } = bounds(state);
  const left = candidatesBetween(state).length;
  return { lo, hi, left, stepsLeft: left ? Math.ceil(Math.log2(left + 1)) : 0 };
}

// --- what a measurement says ----------------------------------------------------------------

const SIGNAL_VERDICT = { instructions: 'instructions_verdict', time: 'time_verdict' };
// The interval a row was judged on for a signal, and its word: rQPS, or the instructions
// figure that decided (of all threads where those did: a regression in purge).
const FIGURE_SIGNAL = { instructions: 'instructions_per_query', time: 'rqps' };
const signalInterval = (row, signal) => signalFigure(row, FIGURE_SIGNAL[signal]).interval;
const signalWord = (row, signal) => signalFigure(row, FIGURE_SIGNAL[signal]).word;

function intervalText(i, digits = f2) {
  if (!i) return '–';
  return i.low === null || i.low === undefined ? `${digits(i.estimate)}` : `${digits(i.estimate)} [${digits(i.low)}, ${digits(i.high)}]`;
}

function limitOf(row, signal) {
  return signal === 'instructions' ? row.limits && row.limits.instructions && row.limits.instructions.fail : row.limits && row.limits.fail;
}

function rowsById(verdict) {
  return new Map(((verdict && verdict.benchmarks) || []).map((b) => [b.id, b]));
}

/**
 * What the measurement of the bad end against the good end says: which microbenchmarks
 * regressed and on which signal they are to be watched (instructions when they failed there,
 * else time).
 * @param verdict  perfgate.verdict/v2 of good (base) against bad (head)
 * @param ids      the microbenchmarks measured
 * @returns {status: 'regressed'|'no-regression'|'undecided'|'error', watched: [{id, signal,
 *          bad_end}], reason}
 */
function regressionAtBadEnd(verdict, ids) {
  const rows = rowsById(verdict);
  const watched = [];
  const open = [];
  for (const id of ids) {
    const row = rows.get(id);
    if (!row || row.verdict === 'error') {
      return { status: 'error', watched: [], reason: `${id}: ${row ? row.reason : 'not measured'}` };
    }
    if (row.verdict === 'fail') {
      const signal = row.instructions_verdict === 'fail' ? 'instructions' : 'time';
      watched.push({ id, signal, bad_end: pickInterval(signalInterval(row, signal)) });
    } else if (row.verdict === 'undecided') {
      open.push(row);
    }
  }
  if (watched.length) {
    const listed = watched.map((w) => `${w.id} on ${w.signal === 'instructions' ? 'instructions' : 'time'} (${signalWord(rowsById(verdict).get(w.id), w.signal)} ${intervalText(w.bad_end, w.signal === 'instructions' ? f3 : f2)})`);
    return { status: 'regressed', watched, reason: `the bad end fails ${listed.join(', ')}` };
  }
  if (open.length) {
    return { status: 'undecided', watched: [], reason: `whether the bad end is slower is open: ${open.map((r) => `${r.id} (${r.reason})`).join('; ')}` };
  }
  return { status: 'no-regression', watched: [], reason: `the bad end is not slower than the good end beyond the fail limits on ${ids.join(', ')}: nothing to search for` };
}

function pickInterval(i) {
  return i ? { estimate: i.estimate, low: i.low, high: i.high, n: i.n } : null;
}

// A bad commit whose interval lies wholly short of the bad end's carries only part of the
// regression: more of it arrives later.
function isPartial(signal, interval, badEnd) {
  if (!interval || !badEnd || interval.low === null || badEnd.low === null) return false;
  return signal === 'instructions' ? interval.high < badEnd.low : interval.low > badEnd.high;
}

/**
 * The decision on one commit from its measurement against the good end.
 * @param verdict  perfgate.verdict/v2 of good (base) against the commit (head)
 * @param watched  regressionAtBadEnd(...).watched
 * @returns {decision: 'good'|'bad'|'undecided'|'error', reason, tests: [{id, signal, verdict,
 *          decision, interval, partial}]}
 */
function decideStep(verdict, watched) {
  const rows = rowsById(verdict);
  const tests = watched.map(({ id, signal, bad_end: badEnd }) => {
    const row = rows.get(id);
    if (!row || row.verdict === 'error') {
      return { id, signal, verdict: 'error', decision: 'error', interval: null, partial: false, reason: `${id}: ${row ? row.reason : 'not measured'}` };
    }
    const v = row[SIGNAL_VERDICT[signal]] || 'error';
    const interval = pickInterval(signalInterval(row, signal));
    const decision = { fail: 'bad', pass: 'good', warn: 'good', undecided: 'undecided' }[v] || 'error';
    const partial = decision === 'bad' && isPartial(signal, interval, badEnd);
    const limit = limitOf(row, signal);
    const what = signalWord(row, signal);
    const beyond = signal === 'instructions' ? 'above' : 'below';
    const text = `${id} ${what} ${intervalText(interval, signal === 'instructions' ? f3 : f2)} against good`;
    const reason = {
      bad: `${text} lies wholly ${beyond} the fail limit ${f2(limit)}${partial ? `, short of the bad end's ${intervalText(badEnd, signal === 'instructions' ? f3 : f2)}: part of the regression` : ''}`,
      good: `${text} does not reach ${beyond} the fail limit ${f2(limit)}`,
      // Kept open by what one pair of processes proved rather than by a wide interval: the
      // row's own reason says which.
      undecided: interval && interval.low !== null && interval.low <= limit && limit <= interval.high
        ? `${text} straddles the fail limit ${f2(limit)}`
        : `${id} is undecided on ${signal}: ${row.reason}`,
      error: `${id}: ${signal} was not measured (${row.reason})`,
    }[decision];
    return { id, signal, verdict: v, decision, interval, partial, reason };
  });
  const some = (d) => tests.filter((t) => t.decision === d);
  let decision;
  if (some('error').length) decision = 'error';
  else if (some('bad').length) decision = 'bad';
  else if (some('good').length === tests.length) decision = 'good';
  else decision = 'undecided';
  const deciding = decision === 'good' ? tests : tests.filter((t) => t.decision === decision);
  return { decision, reason: deciding.map((t) => t.reason).join('; '), tests };
}

// --- what each measurement runs -------------------------------------------------------------

const unique = (xs) => [...new Set(xs)];

/**
 * How to measure one step.
 * @param suite     the loaded suite
 * @param purpose   'confirm' (the ends), 'step' (a commit against the good end) or 'culprit'
 *                  (the culprit against its parent, for the report)
 * @param watched   the watched microbenchmarks (steps and culprit)
 * @param allowed   the signals the user allows (--metric), else the suite's
 * @param attempt   0 for the first measurement of a commit, 1… for its repeats
 * @param rounds    the rounds per side asked for (--rounds), else the suite's
 * @returns {signals, windows, rounds, budget}: windows and rounds double per repeat (up to
 *          ×4); when time decides a step, its budget has twice the suite's extra pairs
 */
function stepMeasurement({ suite, purpose, watched = [], allowed, attempt = 0, rounds = null }) {
  const scale = Math.min(2 ** attempt, MAX_SCALE);
  let signals;
  if (purpose === 'confirm') signals = [...allowed];
  else if (purpose === 'step') signals = unique(watched.map((w) => w.signal));
  // The culprit's report wants its rQPS and, where they may be counted, its instructions.
  else if (purpose === 'culprit') signals = unique(['time', ...allowed.filter((s) => s === 'instructions')]);
  else throw new Error(`stepMeasurement: purpose '${purpose}': expected confirm, step or culprit`);
  const timeDecides = purpose === 'step' ? signals.includes('time') : purpose === 'confirm' && signals.includes('time');
  const budget = { ...suite.budget };
  if (timeDecides) budget.extra_pairs = 2 * suite.budget.extra_pairs;
  return {
    signals,
    windows: suite.instructions ? suite.instructions.windows * scale : null,
    rounds: (rounds || suite.measure.rounds) * scale,
    budget,
  };
}

/** The config to measure `ids` of one suite with `windows` instruction windows. */
function configForStep(config, suiteName, ids, { windows = null } = {}) {
  const narrowed = narrowSuite(config, suiteName, ids, '--tests');
  const suite = narrowed.suites[suiteName];
  if (!windows || !suite.instructions || suite.instructions.windows === windows) return narrowed;
  return { ...narrowed, suites: { ...narrowed.suites, [suiteName]: { ...suite, instructions: { ...suite.instructions, windows } } } };
}

// --- summaries ------------------------------------------------------------------------------

/** The figures of one measurement bisect.json keeps: per microbenchmark, rQPS and instr/o. */
function summarizeMeasurement(verdict, { functions = 0 } = {}) {
  return ((verdict && verdict.benchmarks) || []).map((b) => {
    const row = {
      id: b.id,
      verdict: b.verdict,
      time_verdict: b.time_verdict ?? null,
      instructions_verdict: b.instructions_verdict ?? null,
      rqps: pickInterval(b.rqps),
      instructions_per_query: pickInterval(b.instructions_per_query),
      all_threads_per_query: pickInterval(b.all_threads_per_query),
      instructions_threads: b.instructions_threads ?? null,
      reason: b.reason,
    };
    if (functions > 0) row.grown = grownFunctions(b, functions);
    // Why it got slower, where the step's explanation looked at the row (docs/explain.md).
    if (b.cause) row.cause = { line: cut(b.cause.line, CAUSE_MAX), kind: b.cause.kind ?? null };
    return row;
  });
}

function grownFunctions(row, limit) {
  const where = row.instructions_functions;
  if (!where || !where.symbols) return [];
  // Growth in instructions per query, head minus base.
  return where.grown.slice(0, limit).map((f) => ({
    name: f.name,
    source: f.source || null,
    self_growth: f.self_growth,
    inclusive_growth: f.inclusive_growth,
  }));
}

/**
 * The culprit as bisect.json names it: the commit, its first parent, and its own figures
 * against that parent with the functions that grew most and each regressed row's cause.
 * @param verdict      the culprit (head) against its parent (base), with the causes its
 *                     explanation step found (withCauses)
 * @param unexplained  why that step explained nothing (it did not start, or left no
 *                     explain.json), or null
 */
function describeCulprit(state, { verdict, watched, run, unexplained = null }) {
  const i = state.culprit;
  const c = state.commits[i];
  const measurements = summarizeMeasurement(verdict, { functions: TOP_FUNCTIONS });
  const share = watched.map(({ id, signal, bad_end: badEnd }) => {
    const row = measurements.find((m) => m.id === id);
    const own = row && signalInterval(row, signal);
    if (!own || !badEnd || !(own.estimate > 0) || !(badEnd.estimate > 0) || Math.abs(Math.log(badEnd.estimate)) < 1e-9) return { id, signal, share: null };
    return { id, signal, share: Math.log(own.estimate) / Math.log(badEnd.estimate) };
  });
  const notes = [];
  for (const s of share) {
    if (s.share !== null && s.share < 0.5) {
      notes.push(`${s.id}: this commit accounts for ${Math.round(100 * s.share)}% of the regression between the ends (on ${s.signal}); later commits add the rest: bisect again with --good ${short(c.commit)}`);
    }
  }
  if (unexplained) notes.push(`not explained: ${unexplained}`);
  if (c.merge) {
    notes.push(`a merge: the change came in with its branch; to find the commit in it, bisect that branch: --good $(git merge-base ${short(c.parents[0])} ${short(c.parents[1])}) --bad ${short(c.parents[1])}`);
  }
  return {
    commit: c.commit,
    subject: c.subject,
    parent: state.commits[i - 1].commit,
    merge: c.merge,
    position: i,
    run,
    measurements,
    share,
    notes,
  };
}

module.exports = {
  BISECT_SCHEMA: SCHEMA, DEFAULT_REPEATS, shortCommit: short,
  parseCommitLog, firstParentRange,
  startBisection, nextCommit, recordDecision, searchProgress, bounds,
  regressionAtBadEnd, decideStep, stepMeasurement, configForStep,
  summarizeMeasurement, describeCulprit, intervalText,
};
