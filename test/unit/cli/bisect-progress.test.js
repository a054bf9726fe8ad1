'use strict';
// What a bisection writes and tells as it goes (cli/src/bisect-progress.js), driven through
// core's course with made-up measurements: bisect.json after every change and valid against
// its schema, one event per change in the order the action and the bot read them, and the
// regression watched only once the step that confirmed it has been told.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const core = require('@perfgate/core');
const { BisectProgress } = require('../../../cli/src/bisect-progress');
const { schemaProblem } = require('../../../core/src/schemas');

const ID = 'update-index_range=100';
const sha = (n) => n.toString(16).padStart(40, 'a');
const commits = [1, 2, 3].map((n, i) => ({ commit: sha(n), subject: `commit ${i}`, parents: i ? [sha(n - 1)] : [], merge: false }));
const WATCHED = [{ id: ID, signal: 'instructions', bad_end: { estimate: 1.12, low: 1.11, high: 1.13, n: 3 } }];

test('bisect.json and the events of a bisection, step by step, each document valid', (t) => {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-bisect-progress-'));
  t.after(() => fs.rmSync(outDir, { recursive: true, force: true }));
  const told = [];
  let course = core.beginBisect(commits, { ids: [ID] });
  const progress = new BisectProgress({ outDir, course, started: Date.now(), onProgress: (event, doc) => told.push([event, structuredClone(doc)]),
    about: { source: '/src', flavor: 'mariadb', recipe: '0123456789abcdef', suite: 'quick', tests: [ID], signals: ['instructions'], repeats: 2,
      good: { ref: 'base', commit: sha(1), subject: 'commit 0' }, bad: { ref: 'tip', commit: sha(3), subject: 'commit 2' } } });
  const written = () => JSON.parse(fs.readFileSync(path.join(outDir, 'bisect.json'), 'utf8'));
  progress.begin();
  assert.deepEqual(told[0][0], { type: 'range', commits: 3, good: sha(1), bad: sha(3), goodName: 'base', badName: 'tip' });

  // The ends, confirmed: told first as they were, then the search watches the regression.
  let next = core.nextBisectStep(course);
  let step = progress.startStep(next, { signals: ['instructions'] });
  assert.equal(step.run, 'steps/00-confirm');
  assert.deepEqual(told[1][0], { type: 'measure', step: 0, kind: 'confirm', commit: sha(3), against: sha(1), position: null, commits: 3, attempt: 1, signals: ['instructions'] });
  progress.built(step, path.join(outDir, step.run));
  progress.measured(step, { outcome: 'measured', verdict: 'fail', measurements: [], reason: null });
  course = { ...course, stage: 'search', watched: WATCHED };
  progress.decided(step, { course, record: { decision: 'bad', reason: 'it fails' }, news: { type: 'confirm', reason: 'it fails' } });
  const [confirmed, then] = told[2];
  assert.deepEqual(confirmed, { type: 'confirm', step: 0, reason: 'it fails' });
  assert.deepEqual([then.watched, then.message, then.steps[0].decision], [[], 'confirming the regression between the ends', 'bad']);
  assert.deepEqual([written().watched, written().message], [WATCHED, 'searching']);
  assert.equal(schemaProblem('bisect', written()), null);

  // A commit of the search that does not build: skipped, its mark in the document.
  next = core.nextBisectStep(course);
  step = progress.startStep(next, { signals: ['instructions'] });
  assert.equal(step.run, `steps/01-${sha(2).slice(0, 12)}`);
  progress.measured(step, { outcome: 'build-failed', failed_side: 'head', reason: 'x did not build: y' });
  course = { ...course, search: core.recordDecision(course.search, 1, 'skip') };
  progress.decided(step, { course, record: { decision: 'skip' }, news: { type: 'build-failed', commit: sha(2), message: 'x did not build: y' } });
  assert.deepEqual(told[4][0], { type: 'build-failed', step: 1, commit: sha(2), message: 'x did not build: y' });
  assert.deepEqual(written().commits.map((c) => c.mark), ['good', 'skip', 'bad']);

  // The end: the candidates the course names, and one last event.
  course = { ...course, candidates: [sha(2), sha(3)] };
  progress.decided(step, { course, record: {}, news: null });
  const doc = progress.finish('ambiguous', 'the first bad commit is one of two');
  assert.equal(told.length, 6);
  assert.deepEqual({ ...told[5][0], seconds: 0 }, { type: 'done', status: 'ambiguous', message: 'the first bad commit is one of two', builds: 0, measurements: 1, seconds: 0 });
  assert.deepEqual(written(), JSON.parse(JSON.stringify(doc)));
  assert.deepEqual([doc.status, doc.candidates, doc.culprit], ['ambiguous', [sha(2), sha(3)], null]);
  assert.equal(schemaProblem('bisect', doc), null);
});

test('a step cancelled while it runs says so; a finished one keeps its outcome', (t) => {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-bisect-progress-'));
  t.after(() => fs.rmSync(outDir, { recursive: true, force: true }));
  const course = core.beginBisect(commits, { ids: [ID] });
  const progress = new BisectProgress({ outDir, course, onProgress: () => {},
    about: { source: '/src', flavor: 'mariadb', recipe: '0123456789abcdef', suite: 'quick', tests: [ID], signals: ['time'], repeats: 2,
      good: { ref: 'base', commit: sha(1), subject: 'commit 0' }, bad: { ref: 'tip', commit: sha(3), subject: 'commit 2' } } });
  const step = progress.startStep(core.nextBisectStep(course), { signals: ['time'] });
  progress.cancelled('SIGTERM');
  assert.deepEqual([step.outcome, step.reason], ['cancelled', 'cancelled by SIGTERM']);
  const doc = progress.finish('cancelled', 'cancelled by SIGTERM; nothing measured after the signal counts');
  assert.equal(schemaProblem('bisect', doc), null);
  progress.measured(step, { outcome: 'measured' });
  progress.cancelled('SIGINT');
  assert.equal(step.outcome, 'measured');
});
