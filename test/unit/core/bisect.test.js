'use strict';
// The search for the commit behind a regression, as tables: synthetic first-parent histories
// searched to the end by a loop like the cli's, with clean, noisy, never-decided and unbuildable
// commits; the first-parent range with merges; and the rule that decides a step, on verdicts
// made by judge() itself.
const test = require('node:test');
const assert = require('node:assert/strict');
const {
  parseCommitLog, firstParentRange, startBisection, nextCommit, recordDecision, searchProgress,
  regressionAtBadEnd, decideStep, stepMeasurement, configForStep, describeCulprit, summarizeMeasurement, BISECT_SCHEMA,
} = require('../../../core/src/bisect');
const { formatBisectProgress, renderBisect } = require('../../../core/src/render/bisect-text');
const { beginBisect, nextBisectStep, recordBisectStep } = require('../../../core/src/bisect-course');
const { judge } = require('../../../core/src/verdict');
const { loadThresholds } = require('../../../core/src/config/thresholds');
const { schemaProblem } = require('../../../core/src/schemas');

const sha = (n) => n.toString(16).padStart(40, '0');
const history = (n) => Array.from({ length: n }, (_, i) => ({ commit: sha(i + 1), subject: `commit ${i}`, parents: i ? [sha(i)] : [], merge: false }));

/**
 * Searches `commits` to the end. `oracle(index, attempt)` says what measuring commit `index`
 * for the `attempt`-th time decides. Returns the final state and the measurements made.
 */
function search(commits, oracle, options) {
  let state = startBisection(commits, options);
  const measured = [];
  for (let i = nextCommit(state); i !== null; i = nextCommit(state)) {
    const attempt = measured.filter((m) => m === i).length + 1;
    measured.push(i);
    assert.ok(measured.length <= 64, 'the search ends');
    state = recordDecision(state, i, oracle(i, attempt), `oracle at ${i}`);
  }
  return { state, measured };
}

const regressionAt = (culprit) => (i) => (i >= culprit ? 'bad' : 'good');

test('a clean history: every culprit position is found in at most ceil(log2(n)) measurements', () => {
  for (const size of [2, 3, 4, 9, 11, 17, 100]) {
    const commits = history(size);
    for (let culprit = 1; culprit < size; culprit++) {
      const { state, measured } = search(commits, regressionAt(culprit));
      assert.equal(state.status, 'found', `size ${size}, culprit ${culprit}`);
      assert.equal(state.culprit, culprit, `size ${size}, culprit ${culprit}`);
      assert.ok(measured.length <= Math.ceil(Math.log2(size - 1)), `size ${size}, culprit ${culprit}: ${measured.length} measurements`);
      assert.ok(measured.every((i) => i > 0 && i < size - 1), 'the ends are never measured by the search');
    }
  }
});

test('the ten-commit history of the end-to-end test: 5 good, 7 bad, 6 good → commit 7 in three steps', () => {
  const { state, measured } = search(history(11), regressionAt(7));
  assert.deepEqual(measured, [5, 7, 6]);
  assert.equal(state.culprit, 7);
  assert.equal(state.reason, `${sha(8).slice(0, 12)} is the first bad commit: its first parent ${sha(7).slice(0, 12)} is good`);
});

test('a range of one commit: the bad end is the culprit, nothing is measured', () => {
  const { state, measured } = search(history(2), () => assert.fail('nothing to measure'));
  assert.equal(state.status, 'found');
  assert.equal(state.culprit, 1);
  assert.deepEqual(measured, []);
});

test('noisy steps: an undecided commit is measured again, the answer is the same as without noise', () => {
  const commits = history(17);
  for (let culprit = 1; culprit < 17; culprit++) {
    const clean = search(commits, regressionAt(culprit));
    // Every commit is undecided on its first measurement and decided on the second.
    const noisy = search(commits, (i, attempt) => (attempt === 1 ? 'undecided' : regressionAt(culprit)(i)), { repeats: 2 });
    assert.equal(noisy.state.status, 'found');
    assert.equal(noisy.state.culprit, clean.state.culprit);
    assert.equal(noisy.measured.length, 2 * clean.measured.length, 'one repeat per commit');
    // A commit is measured again right away, never left for another.
    for (let k = 0; k < noisy.measured.length; k += 2) assert.equal(noisy.measured[k], noisy.measured[k + 1]);
  }
});

test('a commit that stays undecided stops the search after 1 + repeats measurements, naming it: never a guess', () => {
  const commits = history(11);
  for (const repeats of [0, 1, 2, 3]) {
    const { state, measured } = search(commits, (i) => (i === 7 ? 'undecided' : regressionAt(7)(i)), { repeats });
    assert.equal(state.status, 'undecided', `repeats ${repeats}`);
    assert.equal(state.culprit, null);
    assert.deepEqual(measured, [5, ...Array(repeats + 1).fill(7)]);
    assert.equal(state.reason, `${sha(8).slice(0, 12)} stayed undecided after ${repeats + 1} measurement${repeats ? 's' : ''}: oracle at 7`);
    assert.equal(nextCommit(state), null);
  }
});

test('commits that do not build are skipped; only skipped commits before the first bad one make it ambiguous', () => {
  const commits = history(11);
  const skipping = (unbuildable, culprit) => (i) => (unbuildable.includes(i) ? 'skip' : regressionAt(culprit)(i));
  // A skipped commit away from the culprit changes nothing but the path.
  let r = search(commits, skipping([5], 8));
  assert.equal(r.state.status, 'found');
  assert.equal(r.state.culprit, 8);
  // The commit right before the culprit did not build: either may be the first bad one.
  r = search(commits, skipping([6], 7));
  assert.equal(r.state.status, 'ambiguous');
  assert.deepEqual(r.state.candidates, [6, 7]);
  assert.match(r.state.reason, new RegExp(`^the first bad commit is one of ${sha(7).slice(0, 12)}, ${sha(8).slice(0, 12)}: the commit before`));
  // Every commit between the ends fails to build.
  r = search(commits, () => 'skip');
  assert.equal(r.state.status, 'ambiguous');
  assert.deepEqual(r.state.candidates, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.equal(r.measured.length, 9);
});

test('recordDecision refuses a commit outside the bounds, a decided one, or an unknown decision', () => {
  let state = startBisection(history(11));
  state = recordDecision(state, 5, 'good');
  assert.throws(() => recordDecision(state, 3, 'bad'), /not between the last good \(#5\) and the first bad \(#10\)/);
  assert.throws(() => recordDecision(state, 10, 'good'), /not between/);
  assert.throws(() => recordDecision(state, 7, 'maybe'), /expected good, bad, undecided or skip/);
  assert.deepEqual(searchProgress(state), { lo: 5, hi: 10, left: 4, stepsLeft: 3 });
  assert.throws(() => startBisection(history(1)), /at least the good and the bad commit/);
});

// --- the first-parent range -----------------------------------------------------------------

// A history with merges, newest first as `git log --first-parent` prints it:
//   g ─ a ─ M1 ─ b ─ M2 ─ bad        M1 merges the branch x1 ─ x2 (forked at g),
//    \─ x1 ─ x2 ┘       /            M2 merges y1 (forked at a)
//         a ─ y1 ──────┘
const log = (rows) => parseCommitLog(rows.map(([c, parents, s]) => `${sha(c)}\u0000${parents.map(sha).join(' ')}\u0000${s}`).join('\n') + '\n');
const G = 1;
const A = 2;
const M1 = 3;
const B = 4;
const M2 = 5;
const BAD = 6;
const X2 = 11;
const Y1 = 21;
const MERGES = [[BAD, [M2], 'bad'], [M2, [B, Y1], 'Merge y'], [B, [M1], 'b'], [M1, [A, X2], 'Merge x'], [A, [G], 'a']];

test('the first-parent range of a history with merges: every merge one step, side branches left out', () => {
  const r = firstParentRange({ good: { commit: sha(G), subject: 'g', parents: [] }, bad: { commit: sha(BAD) }, log: log(MERGES) });
  assert.equal(r.problem, undefined);
  assert.deepEqual(r.commits.map((c) => c.commit), [G, A, M1, B, M2, BAD].map(sha));
  assert.deepEqual(r.commits.map((c) => c.merge), [false, false, true, false, true, false]);
  assert.equal(r.commits[2].subject, 'Merge x');
  // The search over it treats a merge like any commit, and a culprit merge says how to go on.
  const { state } = search(r.commits, regressionAt(2));
  assert.equal(state.culprit, 2);
  const culprit = describeCulprit(state, { verdict: null, watched: [], run: 'steps/04-culprit' });
  assert.equal(culprit.merge, true);
  assert.equal(culprit.parent, sha(A));
  assert.deepEqual(culprit.notes, [`a merge: the change came in with its branch; to find the commit in it, bisect that branch: --good $(git merge-base ${sha(A).slice(0, 12)} ${sha(X2).slice(0, 12)}) --bad ${sha(X2).slice(0, 12)}`]);
});

test('the first-parent range refuses what cannot be searched, in one line naming the option', () => {
  const good = (c) => ({ commit: sha(c), subject: '', parents: [] });
  const cases = [
    ['same commit', { good: good(BAD), bad: { commit: sha(BAD) }, log: [] },
      `--good good and --bad bad are the same commit ${sha(BAD).slice(0, 12)}; expected a good commit older than the bad one`],
    ['good is not an ancestor', { good: good(99), bad: { commit: sha(BAD) }, log: [] },
      `--good good (${sha(99).slice(0, 12)}) is not an ancestor of --bad bad (${sha(BAD).slice(0, 12)}); expected the older, good commit first`],
    // x2 is an ancestor of bad (through M1) but not on its first-parent chain: git log
    // --first-parent x2..bad stops where the chain enters x2's history (after g).
    ['good on a merged branch', { good: good(X2), bad: { commit: sha(BAD) }, log: log(MERGES.slice(0, 4)) },
      `--good good (${sha(X2).slice(0, 12)}) is not on the first-parent history of --bad bad: that history leaves the good commit's ancestry at ${sha(A).slice(0, 12)}; expected a commit of bad's first-parent chain, e.g. ${sha(A).slice(0, 12)} or the merge that brought good in`],
    ['a gap in the history', { good: good(G), bad: { commit: sha(BAD) }, log: log([MERGES[0], MERGES[2]]) },
      `the first-parent history of bad is broken at ${sha(BAD).slice(0, 12)} (its first parent ${sha(M2).slice(0, 12)} is not listed); expected a complete git history (not a shallow clone)`],
  ];
  for (const [name, args, problem] of cases) assert.equal(firstParentRange(args).problem, problem, name);
});

// --- the rule that decides a step -----------------------------------------------------------

const CONFIG = { limits: { default: { warn: 0.97, fail: 0.93, instructions: { warn: 1.02, fail: 1.04 } } } };

// A results document of one microbenchmark: timed rounds with these QPS ratios (head/base) and
// instruction windows with these instr/o ratios.
function results({ qps = null, instr = null, id = 'update-index_range=100' }) {
  const bench = { id, name: id, group: 'write', status: 'ok', rounds: [] };
  if (qps) {
    bench.rounds = qps.flatMap((r, index) => [
      { index, side: 'base', qps: 1000, errors: 0, cpu_per_query_us: 100, cs_per_query: 1 },
      { index, side: 'head', qps: 1000 * r, errors: 0, cpu_per_query_us: 100 / r, cs_per_query: 1 },
    ]);
  }
  if (instr) {
    const window = (perQuery) => ({ events: 300, queries: 300, seconds: 3, connection: { instructions: perQuery * 300, threads: 1, per_query: perQuery }, background: { instructions: 0, threads: 8, per_query: 0 } });
    const fn = (name, self) => ({ name, object: 'mariadbd', source: `row0upd.cc:${name.length}`, self, inclusive: self * 2 });
    bench.instructions = {
      events: 300, seed: 1,
      base: { windows: instr.map(() => window(200000)), functions: { connection: [fn('row_upd_sec_index_entry', 1000), fn('btr_cur_search_to_nth_level', 9000)] } },
      head: { windows: instr.map((r) => window(200000 * r)), functions: { connection: [fn('row_upd_sec_index_entry', 1000 + 200000 * (instr[0] - 1)), fn('btr_cur_search_to_nth_level', 9000)] } },
    };
  }
  return {
    schema: 'perfgate.results/v1', plan: { suite: 'e2e' }, status: 'ok', errors: [],
    machine: { cpu_model: 'x', cores: 2, memory_bytes: 1, kernel: 'k', id: 'm' },
    sides: { base: { basedir: '/b', version: '10.11.18' }, head: { basedir: '/h', version: '10.11.18' } },
    benchmarks: [bench],
  };
}
const verdictOf = (r) => judge(results(r), CONFIG);
const ID = 'update-index_range=100';

test('the ends: a regression is watched on instructions when it fails there, else on time; else there is nothing to search', () => {
  let at = regressionAtBadEnd(verdictOf({ qps: [0.95, 0.97, 0.93, 0.96], instr: [1.12, 1.121, 1.119] }), [ID]);
  assert.equal(at.status, 'regressed');
  assert.deepEqual(at.watched.map((w) => [w.id, w.signal]), [[ID, 'instructions']]);
  assert.equal(at.watched[0].bad_end.estimate.toFixed(3), '1.120');
  assert.match(at.reason, /^the bad end fails update-index_range=100 on instructions \(instr\/o 1\.120 \[1\.11\d, 1\.12\d\]\)$/);
  // Time fails, instructions do not (a regression that waits: a lock, an fsync).
  at = regressionAtBadEnd(verdictOf({ qps: [0.70, 0.72, 0.71, 0.69], instr: [1.001, 1.0, 1.002] }), [ID]);
  assert.deepEqual(at.watched.map((w) => w.signal), ['time']);
  // Time alone (--metric time).
  at = regressionAtBadEnd(verdictOf({ qps: [0.70, 0.72, 0.71, 0.69] }), [ID]);
  assert.deepEqual(at.watched.map((w) => w.signal), ['time']);
  at = regressionAtBadEnd(verdictOf({ instr: [1.0, 1.001, 0.999] }), [ID]);
  assert.equal(at.status, 'no-regression');
  assert.equal(at.reason, 'the bad end is not slower than the good end beyond the fail limits on update-index_range=100: nothing to search for');
  at = regressionAtBadEnd(verdictOf({ qps: [0.9, 0.97, 0.92, 0.95] }), [ID]);
  assert.equal(at.status, 'undecided');
  assert.match(at.reason, /^whether the bad end is slower is open: update-index_range=100 \(could be beyond its fail limit: rQPS 0\.93 .* reaches below the fail limit 0\.93 after 4 pairs\)$/);
  at = regressionAtBadEnd(verdictOf({ instr: [1.1, 1.1] }), ['point-query']);
  assert.equal(at.status, 'error');
});

test('a step against the good end: beyond the fail limit is bad, within it good, straddling it undecided', () => {
  const watched = regressionAtBadEnd(verdictOf({ instr: [1.12, 1.121, 1.119] }), [ID]).watched;
  const TABLE = [
    // instr/o of the commit against good → decision, and the line bisect.json keeps
    [[1.12, 1.121, 1.119], 'bad', /^update-index_range=100 instr\/o 1\.120 \[1\.11\d, 1\.12\d\] against good lies wholly above the fail limit 1\.04$/],
    [[1.0, 1.001, 0.999], 'good', /^update-index_range=100 instr\/o 1\.000 \[0\.99\d, 1\.00\d\] against good does not reach above the fail limit 1\.04$/],
    // +3%: a change below the fail limit is not the regression being searched for.
    [[1.03, 1.031, 1.029], 'good', /does not reach above the fail limit 1\.04$/],
    [[1.02, 1.06, 1.04], 'undecided', /straddles the fail limit 1\.04$/],
    // Half the regression, clearly beyond the limit: bad, and marked as part of it.
    [[1.06, 1.061, 1.059], 'bad', /lies wholly above the fail limit 1\.04, short of the bad end's 1\.120 \[.*\]: part of the regression$/],
  ];
  for (const [instr, decision, line] of TABLE) {
    const d = decideStep(verdictOf({ instr }), watched);
    assert.equal(d.decision, decision, `instr/o ${instr}`);
    assert.match(d.reason, line);
    assert.equal(d.tests[0].partial, instr[0] === 1.06);
  }
  // Watched on time: the same rule on rQPS (lower is worse).
  const onTime = regressionAtBadEnd(verdictOf({ qps: [0.70, 0.72, 0.71, 0.69] }), [ID]).watched;
  assert.equal(decideStep(verdictOf({ qps: [0.70, 0.71, 0.72, 0.70] }), onTime).decision, 'bad');
  assert.equal(decideStep(verdictOf({ qps: [1.0, 0.99, 1.01, 1.0] }), onTime).decision, 'good');
  assert.equal(decideStep(verdictOf({ qps: [0.9, 0.97, 0.92, 0.95] }), onTime).decision, 'undecided');
  // A watched microbenchmark that was not measured decides nothing.
  assert.equal(decideStep(verdictOf({ instr: [1.0, 1.0, 1.0], id: 'point-query' }), watched).decision, 'error');
});

test('two watched microbenchmarks: bad when either is bad, good only when both are good', () => {
  const watched = [{ id: 'a', signal: 'instructions', bad_end: null }, { id: 'b', signal: 'instructions', bad_end: null }];
  const two = (ra, rb) => {
    const doc = results({ instr: ra, id: 'a' });
    doc.benchmarks.push(results({ instr: rb, id: 'b' }).benchmarks[0]);
    return judge(doc, CONFIG);
  };
  const good = [1.0, 1.0, 1.001];
  const bad = [1.1, 1.1, 1.101];
  const open = [1.02, 1.06, 1.04];
  assert.equal(decideStep(two(good, good), watched).decision, 'good');
  assert.equal(decideStep(two(bad, good), watched).decision, 'bad');
  assert.equal(decideStep(two(open, bad), watched).decision, 'bad');
  assert.equal(decideStep(two(open, good), watched).decision, 'undecided');
});

test('what a step measures: the watched signals; repeats double windows and rounds; time gets twice the extra rounds', () => {
  const config = loadThresholds();
  const suite = config.suites.quick;
  const onInstr = [{ id: ID, signal: 'instructions' }];
  assert.deepEqual(stepMeasurement({ suite, purpose: 'step', watched: onInstr, allowed: ['time', 'instructions'] }),
    { signals: ['instructions'], windows: 3, rounds: suite.measure.rounds, budget: suite.budget });
  assert.deepEqual(stepMeasurement({ suite, purpose: 'step', watched: onInstr, allowed: ['time', 'instructions'], attempt: 1 }).windows, 6);
  assert.deepEqual(stepMeasurement({ suite, purpose: 'step', watched: onInstr, allowed: ['time', 'instructions'], attempt: 5 }).windows, 12);
  const onTime = stepMeasurement({ suite, purpose: 'step', watched: [{ id: ID, signal: 'time' }], allowed: ['time'], attempt: 1, rounds: 4 });
  assert.deepEqual(onTime, { signals: ['time'], windows: 6, rounds: 8, budget: { ...suite.budget, extra_pairs: 2 * suite.budget.extra_pairs } });
  assert.deepEqual(stepMeasurement({ suite, purpose: 'confirm', allowed: ['instructions'] }).signals, ['instructions']);
  // The culprit is reported with its rQPS and, where they may be counted, its instructions.
  assert.deepEqual(stepMeasurement({ suite, purpose: 'culprit', watched: onInstr, allowed: ['instructions'] }).signals, ['time', 'instructions']);
  assert.deepEqual(stepMeasurement({ suite, purpose: 'culprit', watched: [], allowed: ['time'] }).signals, ['time']);
  const narrowed = configForStep(config, 'quick', [ID], { windows: 6 });
  assert.deepEqual(narrowed.suites.quick.benchmarks, [ID]);
  assert.equal(narrowed.suites.quick.instructions.windows, 6);
  assert.equal(config.suites.quick.instructions.windows, 3, 'the loaded config is not changed');
  assert.throws(() => configForStep(config, 'quick', ['nope']), /--tests: 'nope' not in suite quick; expected some of: point-query/);
});

test('the culprit against its parent: its figures, the functions that grew, its share of the regression', () => {
  const commits = history(11);
  const { state } = search(commits, regressionAt(7));
  const watched = regressionAtBadEnd(verdictOf({ instr: [1.12, 1.121, 1.119] }), [ID]).watched;
  const culprit = describeCulprit(state, { verdict: verdictOf({ qps: [0.9, 0.92, 0.91, 0.9], instr: [1.12, 1.12, 1.121] }), watched, run: 'steps/04-culprit' });
  assert.equal(culprit.commit, sha(8));
  assert.equal(culprit.parent, sha(7));
  assert.equal(culprit.measurements[0].rqps.estimate.toFixed(2), '0.91');
  assert.equal(culprit.measurements[0].instructions_per_query.estimate.toFixed(2), '1.12');
  assert.equal(culprit.measurements[0].grown[0].name, 'row_upd_sec_index_entry');
  assert.ok(Math.abs(culprit.share[0].share - 1) < 0.02);
  assert.deepEqual(culprit.notes, []);
  // A culprit that carries a third of the regression says so.
  const third = describeCulprit(state, { verdict: verdictOf({ instr: [1.04, 1.04, 1.041] }), watched, run: 'x' });
  assert.match(third.notes[0], /^update-index_range=100: this commit accounts for 3\d% of the regression between the ends \(on instructions\); later commits add the rest: bisect again with --good 000000000000$/);
});

test('the culprit carries each regressed row\'s cause from its explanation step, one line, or why none was found', () => {
  const commits = history(11);
  const { state } = search(commits, regressionAt(7));
  const watched = regressionAtBadEnd(verdictOf({ instr: [1.12, 1.121, 1.119] }), [ID]).watched;
  const verdict = verdictOf({ qps: [0.9, 0.92, 0.91, 0.9], instr: [1.12, 1.12, 1.121] });
  const line = `more waits on wait/io/file/innodb/innodb_data_file: +12.0 µs/query (1.00 → 13.0)\n${'x'.repeat(3000)}`;
  verdict.benchmarks[0].cause = { line, kind: 'waits', looked_at: ['counters', 'waits'], not_looked_at: [], failed: null, details: {}, plans_not_compared: [], stacks: null };
  const culprit = describeCulprit(state, { verdict, watched, run: 'steps/04-culprit' });
  // bisect.json keeps the line and its kind, the details stay in the step's verdict.json.
  assert.deepEqual(Object.keys(culprit.measurements[0].cause), ['line', 'kind']);
  assert.equal(culprit.measurements[0].cause.kind, 'waits');
  assert.equal(culprit.measurements[0].cause.line.length, 2000);
  assert.match(culprit.measurements[0].cause.line, /^more waits on wait\/io\/file\/innodb\/innodb_data_file: \+12\.0 µs\/query \(1\.00 → 13\.0\) x+…$/);
  assert.deepEqual(culprit.notes, []);
  // The steps before have no explanation: no cause.
  assert.equal('cause' in summarizeMeasurement(verdictOf({ instr: [1.12, 1.12, 1.121] }))[0], false);
  // A step that explained nothing says why, once, as a note.
  const bare = describeCulprit(state, { verdict: verdictOf({ instr: [1.12, 1.12, 1.121] }), watched, run: 'x', unexplained: 'the explanation step did not start: spawn python3 ENOENT' });
  assert.deepEqual(bare.notes, ['not explained: the explanation step did not start: spawn python3 ENOENT']);
  const course = bisectCourse(history(3), (step) => (step.kind === 'culprit' ? { ...firstBadAt(1)(step), unexplained: 'the explanation step was killed by SIGKILL' } : firstBadAt(1)(step)));
  assert.deepEqual(course.course.culprit.notes, ['not explained: the explanation step was killed by SIGKILL']);
});

test('bisect.json documents and the words: progress lines and the end, culprit last', () => {
  const commits = history(3);
  const doc = {
    schema: BISECT_SCHEMA, status: 'found', message: 'x', source: '/src', flavor: 'mariadb', recipe: '0123456789abcdef', suite: 'e2e',
    tests: [ID], signals: ['instructions'], repeats: 2,
    good: { ref: 'base', commit: sha(1), subject: 'g' }, bad: { ref: 'tip', commit: sha(3), subject: 't' },
    commits: commits.map((c, i) => ({ commit: c.commit, subject: c.subject, merge: false, mark: ['good', 'bad', 'bad'][i] })),
    watched: [{ id: ID, signal: 'instructions', bad_end: { estimate: 1.12, low: 1.11, high: 1.13, n: 3 } }],
    steps: [], culprit: null, candidates: [], builds: { built: 2, cached: 1, seconds: 40 }, measurements: 3,
    started: 'now', finished: 'later', seconds: 600,
  };
  const { state } = search(commits, regressionAt(1));
  doc.culprit = describeCulprit(state, { verdict: verdictOf({ qps: [0.9, 0.92, 0.91, 0.9], instr: [1.12, 1.12, 1.121] }), watched: doc.watched, run: 'steps/02-culprit' });
  assert.equal(schemaProblem('bisect', doc), null);
  const text = renderBisect(doc);
  const lines = text.trimEnd().split('\n');
  assert.equal(lines[lines.length - 1], `culprit: ${sha(2)}`);
  assert.match(text, /update-index_range=100: rQPS 0\.91 \[0\.89, 0\.92\], instr\/o 1\.120 \[1\.11\d, 1\.12\d\] \(fail\) against its parent/);
  assert.match(text, /grew: row_upd_sec_index_entry \(row0upd\.cc:23\) \+24\.0k self/);
  assert.match(text, /2 builds \(1 found in the cache\), 3 measurements, 10m00s/);
  assert.equal(formatBisectProgress({ type: 'decision', step: 2, commit: sha(6), decision: 'bad', reason: 'why', progress: { left: 2, stepsLeft: 2 }, lo: sha(5), hi: sha(6) }),
    `step 2: ${sha(6).slice(0, 12)} is bad: why; 2 commits left between ${sha(5).slice(0, 12)} and ${sha(6).slice(0, 12)}, at most 2 more steps`);
  assert.equal(formatBisectProgress({ type: 'range', commits: 11, good: sha(1), bad: sha(11), goodName: 'base', badName: 'tip' }),
    `10 first-parent commits from base (${sha(1).slice(0, 12)}) to tip (${sha(11).slice(0, 12)}); at most 4 steps after the ends are confirmed`);
  doc.status = 'undecided';
  doc.culprit = null;
  doc.message = 'abc stayed undecided after 3 measurements: why';
  assert.match(renderBisect(doc), /\nno culprit: abc stayed undecided after 3 measurements: why\n$/);
});

// --- the course: the ends, the search, the culprit --------------------------------------------

const BAD_END = { instr: [1.12, 1.121, 1.119] };
const GOOD_END = { instr: [1.0, 1.001, 0.999] };
const OPEN_END = { instr: [1.02, 1.06, 1.04] };
const measuredAs = (figures) => ({ outcome: 'measured', verdict: verdictOf(figures), run: 'steps/x' });

/**
 * A whole bisection as the cli runs it: `measure(step)` is what building and measuring the step
 * came to. Returns the last course, the steps measured (with what each decided) and the news.
 */
function bisectCourse(commits, measure, { ids = [ID], repeats } = {}) {
  let course = beginBisect(commits, { ids, repeats });
  const steps = [];
  const news = [];
  for (let next = nextBisectStep(course); next; next = nextBisectStep(course)) {
    assert.ok(steps.length < 64, 'the course ends');
    const decided = recordBisectStep(course, next, measure(next));
    steps.push({ ...next, ...decided.record });
    if (decided.news) news.push(decided.news);
    course = decided.course;
  }
  return { course, steps, news };
}

const firstBadAt = (culprit) => (step) => measuredAs(step.kind === 'confirm' || step.position >= culprit ? BAD_END : GOOD_END);

test('the course: the ends confirmed, three steps of the search, then the culprit against its parent', () => {
  const commits = history(11);
  const { course, steps, news } = bisectCourse(commits, firstBadAt(7));
  assert.deepEqual(steps.map((s) => [s.kind, s.position, s.base, s.head, s.decision]), [
    ['confirm', null, sha(1), sha(11), 'bad'],
    ['midpoint', 5, sha(1), sha(6), 'good'],
    ['midpoint', 7, sha(1), sha(8), 'bad'],
    ['midpoint', 6, sha(1), sha(7), 'good'],
    ['culprit', 7, sha(7), sha(8), undefined],
  ]);
  assert.deepEqual(steps.map((s) => s.ids), [[ID], [ID], [ID], [ID], [ID]]);
  assert.deepEqual(news.map((n) => n.type), ['confirm', 'decision', 'decision', 'decision']);
  assert.deepEqual([news[3].commit, news[3].lo, news[3].hi, news[3].progress.left], [sha(7), sha(7), sha(8), 0]);
  assert.deepEqual(course.done, { status: 'found', message: `${sha(8).slice(0, 12)} commit 7: ${sha(8).slice(0, 12)} is the first bad commit: its first parent ${sha(7).slice(0, 12)} is good` });
  assert.equal(course.culprit.commit, sha(8));
  assert.deepEqual(course.watched.map((w) => [w.id, w.signal]), [[ID, 'instructions']]);
  // A range of one commit: the bad end is the culprit once the ends are confirmed.
  const one = bisectCourse(history(2), firstBadAt(1));
  assert.deepEqual(one.steps.map((s) => s.kind), ['confirm', 'culprit']);
  assert.equal(one.course.done.status, 'found');
});

test('the course at the ends: measured again while open, never searched without a regression or after a failure', () => {
  const commits = history(5);
  let r = bisectCourse(commits, () => measuredAs(OPEN_END), { repeats: 2 });
  assert.deepEqual(r.steps.map((s) => [s.kind, s.attempt, s.decision]), [['confirm', 1, 'undecided'], ['confirm', 2, 'undecided'], ['confirm', 3, 'undecided']]);
  assert.equal(r.course.done.status, 'undecided');
  assert.match(r.course.done.message, /^the ends stayed undecided after 3 measurements: whether the bad end is slower is open: /);
  r = bisectCourse(commits, () => measuredAs(GOOD_END));
  assert.deepEqual(r.course.done, { status: 'no-regression', message: `the bad end is not slower than the good end beyond the fail limits on ${ID}: nothing to search for` });
  assert.deepEqual(r.news, [{ type: 'confirm', reason: r.course.done.message }]);
  r = bisectCourse(commits, () => ({ outcome: 'build-failed', failedSide: 'head', reason: 'abc did not build: x' }));
  assert.deepEqual([r.steps.length, r.news, r.course.done], [1, [], { status: 'error', message: 'the bad end abc did not build: x' }]);
  r = bisectCourse(commits, () => ({ outcome: 'build-failed', failedSide: 'base', reason: 'abc did not build: x' }));
  assert.equal(r.course.done.message, 'the good end abc did not build: x');
  r = bisectCourse(commits, () => ({ outcome: 'error', reason: 'the head server failed' }));
  assert.deepEqual(r.course.done, { status: 'error', message: 'the measurement of the ends failed: the head server failed' });
});

test('the course in the search: unbuildable commits skipped, failures and open commits end it with their reason', () => {
  const failAt = (position, failure) => (step) => (step.position === position ? failure : firstBadAt(2)(step));
  // The only commit between the ends does not build: the culprit is one of two.
  let r = bisectCourse(history(3), failAt(1, { outcome: 'build-failed', failedSide: 'head', reason: 'x did not build: y' }));
  assert.deepEqual(r.steps.map((s) => s.decision), ['bad', 'skip']);
  assert.deepEqual(r.news[1], { type: 'build-failed', commit: sha(2), message: 'x did not build: y' });
  assert.equal(r.course.done.status, 'ambiguous');
  assert.deepEqual(r.course.candidates, [sha(2), sha(3)]);
  r = bisectCourse(history(3), failAt(1, { outcome: 'build-failed', failedSide: 'base', reason: 'x did not build: y' }));
  assert.deepEqual(r.course.done, { status: 'error', message: 'the good end x did not build: y' });
  r = bisectCourse(history(3), failAt(1, { outcome: 'error', reason: 'the base server failed' }));
  assert.deepEqual(r.course.done, { status: 'error', message: `the measurement of ${sha(2).slice(0, 12)} failed: the base server failed` });
  r = bisectCourse(history(3), failAt(1, measuredAs({ ...GOOD_END, id: 'point-query' })));
  assert.equal(r.steps[1].decision, 'error');
  assert.match(r.course.done.message, new RegExp(`^the measurement of ${sha(2).slice(0, 12)} decided nothing: ${ID}: not measured`));
  // A commit that stays open is measured again, then named: never a guess.
  r = bisectCourse(history(3), failAt(1, measuredAs(OPEN_END)), { repeats: 1 });
  assert.deepEqual(r.steps.map((s) => [s.kind, s.attempt, s.decision]), [['confirm', 1, 'bad'], ['midpoint', 1, 'undecided'], ['midpoint', 2, 'undecided']]);
  assert.equal(r.course.done.status, 'undecided');
  assert.match(r.course.done.message, new RegExp(`^${sha(2).slice(0, 12)} stayed undecided after 2 measurements: `));
  // The culprit's own measurement failing leaves the search's answer, with a note.
  r = bisectCourse(history(3), (step) => (step.kind === 'culprit' ? { outcome: 'error', reason: 'no server' } : firstBadAt(1)(step)));
  assert.equal(r.course.done.status, 'found');
  assert.equal(r.course.culprit.notes.at(-1), 'its measurement against its parent failed (no server); the search itself named it');
});
