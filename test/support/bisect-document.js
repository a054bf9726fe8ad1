'use strict';
// bisect.json documents (perfgate.bisect/v1) of a ten-commit history whose 7th commit is slower
// on instructions, as `perfgate bisect` writes them after each step and at the end: what a
// bisect workflow's progress and result artifacts hold. Built by the same core functions the
// cli uses (startBisection, recordDecision, describeCulprit), the figures made up.
const core = require('@perfgate/core');

const ID = 'update-index_range=100';
const interval = (estimate, spread) => ({ estimate, low: estimate - spread, high: estimate + spread, n: 3 });

function measurement({ instr, rqps, verdict, grown = null }) {
  const row = {
    id: ID, verdict, time_verdict: 'pass', instructions_verdict: verdict, rqps: interval(rqps, 0.02),
    instructions_per_query: interval(instr, 0.01), reason: `instr/o ${instr.toFixed(3)}`,
  };
  if (grown) row.grown = grown;
  return row;
}

/**
 * @param shas     the eleven commits, good end first, bad end last (default: made-up SHAs)
 * @param culprit  the index of the first bad commit
 * @param upTo     how many steps are done (the document as it is then); null: the whole search
 * @returns the document
 */
function bisectDocument({ shas = Array.from({ length: 11 }, (_, i) => (i + 1).toString(16).padStart(40, 'c')), culprit = 7, upTo = null, goodRef = 'base', badRef = 'bisect-tip', subjects = [] } = {}) {
  const commits = shas.map((commit, i) => ({ commit, subject: subjects[i] || `commit ${i}`, parents: i ? [shas[i - 1]] : [], merge: false }));
  let state = core.startBisection(commits);
  const steps = [];
  const started = '2026-11-23T17:00:00.000Z';
  const step = (fields) => steps.push({
    n: steps.length, attempt: 1, run: `steps/${String(steps.length).padStart(2, '0')}-${fields.kind}`, signals: ['instructions'], builds: [],
    verdict: fields.decision === 'bad' ? 'fail' : 'pass', outcome: 'measured', started, seconds: 60, reason: 'made up', ...fields,
  });
  step({ kind: 'confirm', commit: shas.at(-1), against: shas[0], position: shas.length - 1, decision: 'bad', measurements: [measurement({ instr: 1.31, rqps: 0.8, verdict: 'fail' })] });
  for (let i = core.nextCommit(state); i !== null; i = core.nextCommit(state)) {
    const decision = i >= culprit ? 'bad' : 'good';
    step({ kind: 'midpoint', commit: shas[i], against: shas[0], position: i, decision, measurements: [measurement(decision === 'bad' ? { instr: 1.31, rqps: 0.81, verdict: 'fail' } : { instr: 1.0, rqps: 1.0, verdict: 'pass' })] });
    state = core.recordDecision(state, i, decision, 'made up');
  }
  const grown = [{ name: 'row_upd_sec_index_entry', source: 'row0upd.cc:2210', self_growth: 24000, inclusive_growth: 24100 }];
  const culpritRow = measurement({ instr: 1.31, rqps: 0.82, verdict: 'fail', grown });
  step({ kind: 'culprit', commit: shas[culprit], against: shas[culprit - 1], position: culprit, decision: null, verdict: 'fail', measurements: [culpritRow] });
  const all = steps.length;
  const done = upTo === null ? all : Math.min(upTo, all);
  // The marks as they were after `done` steps.
  const marks = shas.map((_, i) => (i === 0 ? 'good' : null));
  for (const s of steps.slice(0, done)) if (s.position !== null && s.kind !== 'culprit') marks[s.position] = s.decision;
  const finished = done === all;
  const doc = {
    schema: core.BISECT_SCHEMA,
    status: finished ? 'found' : 'running',
    message: finished ? `${shas[culprit].slice(0, 12)} is the first bad commit` : `step ${done}`,
    source: '/runner/_work/fork/fork', flavor: 'mariadb', recipe: '0123456789abcdef', suite: 'e2e', tests: [ID], signals: ['instructions'], repeats: 2,
    good: { ref: goodRef, commit: shas[0], subject: commits[0].subject },
    bad: { ref: badRef, commit: shas.at(-1), subject: commits.at(-1).subject },
    commits: commits.map((c, i) => ({ commit: c.commit, subject: c.subject, merge: false, mark: marks[i] })),
    watched: [{ id: ID, signal: 'instructions', bad_end: interval(1.31, 0.01) }],
    steps: steps.slice(0, done),
    culprit: finished ? { ...core.describeCulprit(state, { verdict: null, watched: [], run: steps.at(-1).run }), measurements: [culpritRow], share: [{ id: ID, signal: 'instructions', share: 1 }] } : null,
    candidates: [],
    builds: { built: 0, cached: 6, seconds: 12 },
    measurements: done,
    started,
    finished: finished ? '2026-11-23T17:10:00.000Z' : null,
    seconds: done * 60,
  };
  const problem = core.schemaProblem('bisect', doc);
  if (problem) throw new Error(`bisectDocument: ${problem}`);
  return doc;
}

module.exports = { bisectDocument, BISECT_TEST_ID: ID };
