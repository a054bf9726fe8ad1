'use strict';
// What a bisection says as it goes: <out>/bisect.json, rewritten whole after every step, and
// one progress event per change (core.formatBisectProgress words them; the action uploads
// bisect.json at the events that end a step). The course it tells of is core's
// (core/src/bisect-course.js); the builds and measurements are cli/src/bisect.js's.
const fs = require('node:fs');
const path = require('node:path');
const core = require('@perfgate/core');
const { writeDocument, readDocument } = require('./own-files');

const RUNNING_MESSAGE = { confirm: 'confirming the regression between the ends', search: 'searching', culprit: 'searching' };

// The builds of one step as bisect.json keeps them, from the step's builds.json.
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

const seconds = (since) => Math.round((Date.now() - since) / 100) / 10;

class BisectProgress {
  /**
   * @param course      core.beginBisect(...)
   * @param started     Date.now() when the bisection started
   * @param about       what bisect.json says of the search before it starts: source, flavor,
   *                    recipe, suite, tests, signals, repeats, good and bad ({ref, commit, subject})
   * @param onProgress  (event, doc) after every change told
   */
  constructor({ outDir, course, about, started = Date.now(), onProgress }) {
    this.file = path.join(outDir, 'bisect.json');
    this.onProgress = onProgress;
    this.started = started;
    this.doc = {
      schema: core.BISECT_SCHEMA,
      status: 'running',
      message: RUNNING_MESSAGE.confirm,
      ...about,
      commits: course.search.commits.map((c) => ({ commit: c.commit, subject: c.subject, merge: c.merge, mark: null })),
      watched: [],
      steps: [],
      culprit: null,
      candidates: [],
      builds: { built: 0, cached: 0, seconds: 0 },
      measurements: 0,
      started: new Date(this.started).toISOString(),
      finished: null,
      seconds: 0,
    };
    this.course = course;
  }

  // Written whole, then told (when there is an event).
  save(event = null) {
    const { doc } = this;
    doc.commits.forEach((c, i) => { c.mark = this.course.search.marks[i]; });
    doc.builds = buildCounts(doc.steps);
    doc.measurements = doc.steps.filter((s) => s.measurements).length;
    doc.seconds = seconds(this.started);
    writeDocument(this.file, 'bisect', doc);
    if (event) this.onProgress(event, doc);
  }

  begin() {
    const { doc } = this;
    this.save({ type: 'range', commits: doc.commits.length, good: doc.good.commit, bad: doc.bad.commit, goodName: doc.good.ref, badName: doc.bad.ref });
  }

  /**
   * A step about to be built and measured (next: core.nextBisectStep; plan: stepMeasurement);
   * its run folder is <out>/<step.run>.
   */
  startStep(next, plan) {
    const { doc } = this;
    const n = doc.steps.length;
    const name = `${String(n).padStart(2, '0')}-${next.kind === 'midpoint' ? core.shortCommit(next.head) : next.kind}${next.attempt > 1 ? `-${next.attempt}` : ''}`;
    const step = { n, kind: next.kind, commit: next.head, against: next.base, position: next.position, attempt: next.attempt,
      run: `steps/${name}`, signals: plan.signals, builds: [], measurements: null, verdict: null, outcome: 'running',
      decision: null, reason: null, started: new Date().toISOString(), seconds: 0 };
    doc.steps.push(step);
    this.t0 = Date.now();
    this.save({ type: 'measure', step: n, kind: next.kind, commit: next.head, against: next.base, position: next.position,
      commits: doc.commits.length, attempt: next.attempt, signals: plan.signals });
    return step;
  }

  built(step, stepDir) {
    step.builds = buildsOf(stepDir);
  }

  /** What the step's build and measurement came to (outcome, verdict, measurements, reason). */
  measured(step, fields) {
    Object.assign(step, fields, { seconds: seconds(this.t0) });
  }

  /** What the step decided (core.recordBisectStep), told; then the course as it goes on. */
  decided(step, { course, record, news }) {
    Object.assign(step, record);
    this.course = course;
    this.save(news && { type: news.type, step: step.n, ...news });
    if (!course.done && course.watched.length && !this.doc.watched.length) {
      // The regression confirmed: the search watches it from now on.
      this.doc.watched = course.watched;
      this.doc.message = RUNNING_MESSAGE[course.stage];
      this.save();
    }
  }

  /** The end, told: found, no-regression, undecided, ambiguous, error or cancelled. */
  finish(status, message) {
    const { doc, course } = this;
    doc.candidates = course.candidates;
    doc.culprit = course.culprit;
    doc.status = status;
    doc.message = message;
    doc.finished = new Date().toISOString();
    this.save({ type: 'done', status, message, builds: buildCounts(doc.steps).built, measurements: doc.steps.filter((s) => s.measurements).length, seconds: (Date.now() - this.started) / 1000 });
    return doc;
  }

  /** The step running when a signal came, marked as cancelled. */
  cancelled(signal) {
    const running = this.doc.steps[this.doc.steps.length - 1];
    if (running && running.outcome === 'running') Object.assign(running, { outcome: 'cancelled', reason: `cancelled by ${signal}` });
  }
}

module.exports = { BisectProgress };
