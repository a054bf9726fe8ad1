'use strict';
// The course of a bisection, pure: the regression between the ends confirmed, the first-parent
// commits between them searched, then the culprit measured against its parent. Which step is
// measured next, what a measured step decides, and when the bisection is over, with its status
// and message. The rule that decides a step and the search over the commits are
// core/src/bisect.js's; the builds and measurements are the cli's (cli/src/bisect.js), and so
// is what bisect.json and the progress lines say of it (cli/src/bisect-progress.js).
//
// A course: {stage: 'confirm'|'search'|'culprit', search (startBisection's state), ids (the
// microbenchmarks measured at the ends), watched (regressionAtBadEnd's, once confirmed),
// attempt (measurements of the ends so far), candidates, culprit, done: null | {status,
// message}}.
const {
  DEFAULT_REPEATS, startBisection, nextCommit, recordDecision, searchProgress, regressionAtBadEnd, decideStep,
  describeCulprit, shortCommit: short,
} = require('./bisect');

const DECISION_AT_ENDS = { regressed: 'bad', 'no-regression': 'good', undecided: 'undecided', error: 'error' };

/**
 * @param commits  oldest first, good end first, bad end last (firstParentRange)
 * @param ids      the microbenchmarks to measure at the ends
 * @param repeats  how many times an undecided measurement is repeated (the ends, a commit)
 */
function beginBisect(commits, { ids, repeats = DEFAULT_REPEATS }) {
  return { stage: 'confirm', search: startBisection(commits, { repeats }), ids, repeats, attempt: 0, watched: [],
    candidates: [], culprit: null, done: null };
}

/**
 * The step to measure next, or null when the bisection is over: which commit (head) against
 * which (base), on which microbenchmarks, and its measurement's purpose (stepMeasurement).
 * @returns {kind: 'confirm'|'midpoint'|'culprit', purpose, base, head, position, attempt, ids} | null
 */
function nextBisectStep(course) {
  if (course.done) return null;
  const { commits } = course.search;
  const good = commits[0].commit;
  const watchedIds = course.watched.map((w) => w.id);
  if (course.stage === 'confirm') {
    return { kind: 'confirm', purpose: 'confirm', base: good, head: commits[commits.length - 1].commit, position: null,
      attempt: course.attempt + 1, ids: course.ids };
  }
  if (course.stage === 'search') {
    const index = nextCommit(course.search);
    return { kind: 'midpoint', purpose: 'step', base: good, head: commits[index].commit, position: index,
      attempt: course.search.undecided[index] + 1, ids: watchedIds };
  }
  const i = course.search.culprit;
  return { kind: 'culprit', purpose: 'culprit', base: commits[i - 1].commit, head: commits[i].commit, position: i,
    attempt: 1, ids: watchedIds };
}

// Over the search, the course goes on to the culprit or ends.
function afterSearch(course) {
  const { search } = course;
  if (search.status === 'running') return { ...course, stage: 'search' };
  if (search.status === 'found') return { ...course, stage: 'culprit' };
  const candidates = search.status === 'ambiguous' ? search.candidates.map((i) => search.commits[i].commit) : [];
  return { ...course, candidates, done: { status: search.status, message: search.reason } };
}

const ended = (course, status, message) => ({ ...course, done: { status, message } });

/**
 * What one measured step decides.
 * @param step      nextBisectStep(course)
 * @param measured  {outcome: 'measured'|'error'|'build-failed', failedSide (of a build that
 *                  failed), reason (why it failed), verdict (of a measured step), run (its folder),
 *                  unexplained (the culprit's: why its explanation step explained nothing, or null)}
 * @returns {course (the next one; course.done once over), record ({decision, reason, partial}
 *          as bisect.json's step keeps them, {} when nothing was decided), news (what happened,
 *          as a progress event without its step number, or null)}
 */
function recordBisectStep(course, step, measured) {
  const { outcome, failedSide, reason, verdict } = measured;
  const { commits } = course.search;
  if (course.stage === 'confirm') {
    if (outcome === 'build-failed') return { course: ended(course, 'error', `the ${failedSide === 'base' ? 'good' : 'bad'} end ${reason}`), record: {}, news: null };
    if (outcome === 'error') return { course: ended(course, 'error', `the measurement of the ends failed: ${reason}`), record: {}, news: null };
    const at = regressionAtBadEnd(verdict, course.ids);
    const attempt = course.attempt + 1;
    const told = { record: { decision: DECISION_AT_ENDS[at.status], reason: at.reason }, news: { type: 'confirm', reason: at.reason } };
    if (at.status === 'regressed') return { course: afterSearch({ ...course, attempt, watched: at.watched }), ...told };
    if (at.status === 'undecided' && attempt <= course.repeats) return { course: { ...course, attempt }, ...told };
    const why = at.status === 'undecided' ? `the ends stayed undecided after ${attempt} measurements: ${at.reason}` : at.reason;
    return { course: ended({ ...course, attempt }, at.status, why), ...told };
  }
  if (course.stage === 'search') {
    const index = step.position;
    const commit = commits[index].commit;
    if (outcome === 'build-failed') {
      if (failedSide === 'base') return { course: ended(course, 'error', `the good end ${reason}`), record: {}, news: null };
      const search = recordDecision(course.search, index, 'skip');
      return { course: afterSearch({ ...course, search }), record: { decision: 'skip' }, news: { type: 'build-failed', commit, message: reason } };
    }
    if (outcome === 'error') return { course: ended(course, 'error', `the measurement of ${short(commit)} failed: ${reason}`), record: {}, news: null };
    const decided = decideStep(verdict, course.watched);
    const record = { decision: decided.decision, reason: decided.reason, partial: decided.tests.some((t) => t.partial) };
    if (decided.decision === 'error') {
      return { course: ended(course, 'error', `the measurement of ${short(commit)} decided nothing: ${decided.reason}`), record, news: null };
    }
    const search = recordDecision(course.search, index, decided.decision, decided.reason);
    const p = searchProgress(search);
    return { course: afterSearch({ ...course, search }), record,
      news: { type: 'decision', commit, decision: decided.decision, reason: decided.reason, progress: p, lo: commits[p.lo].commit, hi: commits[p.hi].commit } };
  }
  // The culprit against its own parent: its figures and the functions that grew, for the report.
  const culprit = describeCulprit(course.search, { verdict, watched: course.watched, run: measured.run, unexplained: measured.unexplained || null });
  if (outcome !== 'measured') culprit.notes.push(`its measurement against its parent failed (${reason}); the search itself named it`);
  const i = course.search.culprit;
  return { course: ended({ ...course, culprit }, 'found', `${short(commits[i].commit)} ${commits[i].subject}: ${course.search.reason}`), record: {}, news: null };
}

module.exports = { beginBisect, nextBisectStep, recordBisectStep };
