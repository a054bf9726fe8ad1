'use strict';
// Limits learned from main's history (docs/verdicts.md#limits-learned-from-main): the rule with
// its floors, caps, too few runs and unstable rows; the learned file as the loader reads it;
// a pull request judged with it; learned from 120 drawn runs of main and from the ten real ones.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const core = require('../../../core/src');
const { thresholdsWith, lineOf, configErrorOf } = require('../../support/thresholds-copy');
const { mainRun, mainRuns } = require('../../support/main-runs');

const QUICK = core.findSuite(core.loadThresholds(), 'quick');
// n distances spread evenly up to `top` (distance = |ln ratio|), as rQPS ratios below 1 or instr/o above.
const spread = (n, top, signal = 'rqps') => Array.from({ length: n }, (_, i) => Math.exp((signal === 'rqps' ? -1 : 1) * top * (i + 1) / n));

test('the rule: fail at 1.5 × the 99th percentile, warn at it, within floors and caps', () => {
  // 100 distances up to 4%: the 99th is 3.96%; fail e^-0.0594 = 0.942 → 0.94, warn e^-0.0396 = 0.961 → 0.96.
  assert.deepEqual(core.learnSignal(spread(100, 0.04), 'rqps'), { runs: 100, enough: true, p99: 0.0404, unstable: false, warn: 0.96, fail: 0.94 });
  // Up to 6%: the 99th 5.94%; fail e^-0.0891 = 0.915 → 0.91, warn e^-0.0594 = 0.942 → 0.94.
  assert.deepEqual(core.learnSignal(spread(100, 0.06), 'rqps'), { runs: 100, enough: true, p99: 0.0612, unstable: false, warn: 0.94, fail: 0.91 });
  // instr/o up to 2%: the 99th 1.98%; fail e^0.0297 = 1.0301 → 1.031 (rounded up), warn 1.02.
  assert.deepEqual(core.learnSignal(spread(100, 0.02, 'instructions'), 'instructions'), { runs: 100, enough: true, p99: 0.02, unstable: false, warn: 1.02, fail: 1.031 });
  // A quiet row is never held tighter than calibrate's floors (warn 0.99 / 1.003, fail a gap of 0.02 / 0.004 beyond).
  assert.deepEqual(core.learnSignal(spread(150, 0.001), 'rqps'), { runs: 150, enough: true, p99: 0.001, unstable: false, warn: 0.99, fail: 0.97 });
  assert.deepEqual(core.learnSignal(spread(150, 0.0002, 'instructions'), 'instructions'), { runs: 150, enough: true, p99: 0.0002, unstable: false, warn: 1.003, fail: 1.007 });
  // Up to 10.9%: the 99th 10.79%, warn capped at 0.90, fail e^-0.1619 = 0.8506 → 0.85, just within the cap.
  assert.deepEqual(core.learnSignal(spread(100, 0.109), 'rqps'), { runs: 100, enough: true, p99: 0.1139, unstable: false, warn: 0.9, fail: 0.85 });
  // Beyond the fail cap (1.5 × 11.88% > ln(1/0.85)): unstable, no limits.
  assert.deepEqual(core.learnSignal(spread(100, 0.12), 'rqps'), { runs: 100, enough: true, p99: 0.1261, unstable: true });
  // instr/o: 1.5 × 2.97% is beyond ln(1.04).
  assert.equal(core.learnSignal(spread(100, 0.03, 'instructions'), 'instructions').unstable, true);
  assert.equal(core.learnSignal(spread(100, 0.025, 'instructions'), 'instructions').unstable, false);
});

test('the rule: fewer than 100 runs learn nothing; one change among 100 runs does not move it', () => {
  assert.deepEqual(core.learnSignal(spread(99, 0.04), 'rqps'), { runs: 99, enough: false, largest: 0.0408 });
  assert.deepEqual(core.learnSignal([], 'rqps'), { runs: 0, enough: false, largest: null });
  // Figures that are not ratios count for nothing.
  assert.equal(core.learnSignal([...spread(99, 0.04), NaN, 0, -1, Infinity], 'rqps').runs, 99);
  const quiet = spread(99, 0.01);
  // The 100th run is a 30% step: the 99th percentile is the quiet runs' largest.
  assert.equal(core.learnSignal([...quiet, 0.7], 'rqps').warn, 0.99);
  // Two such runs among 100 reach the 99th percentile: the row reads unstable.
  assert.equal(core.learnSignal([...quiet.slice(1), 0.7, 0.7], 'rqps').unstable, true);
});

const LEARNED = `suite: quick
runner: sim-2c
runs: 120
limits:
  point-query:
    rqps: {warn: 0.99, fail: 0.97, runs: 120, p99: 0.01}
  update-index_range=100:
    instructions: {warn: 1.005, fail: 1.01, runs: 120, p99: 0.002}
  scan_range=100:
    rqps: {unstable: true, runs: 120, p99: 0.142}
`;

test('learned/<suite>.yml is read into the suite; a suite without one has none', () => {
  const dir = thresholdsWith({ 'learned/quick.yml': LEARNED });
  const { suites } = core.loadThresholds(dir);
  assert.equal(suites.full.learned, null);
  assert.deepEqual(suites.quick.learned.byName, {
    'point-query': { rqps: { warn: 0.99, fail: 0.97, runs: 120, p99: 0.01 } },
    'update-index_range=100': { instructions: { warn: 1.005, fail: 1.01, runs: 120, p99: 0.002 } },
    'scan_range=100': { rqps: { unstable: true, runs: 120, p99: 0.142 } },
  });
  assert.equal(suites.quick.learned.runner, 'sim-2c');
  assert.equal(QUICK.learned, null, 'the shipped thresholds learn nothing');
});

test('a bad learned file: one line naming the file, the key and what is expected', () => {
  const file = 'learned/quick.yml';
  const bad = (edit, needle, message) => {
    const dir = thresholdsWith({ [file]: edit(LEARNED) });
    const where = `${path.join(dir, file)}:${lineOf(dir, file, needle)}`;
    assert.equal(configErrorOf(dir), `${where}: ${message}`);
  };
  bad((t) => t.replace('point-query:', 'no-such-row:'), 'no-such-row', "limits.no-such-row: 'no-such-row' is not a row of suite quick; expected one of: "
    + `${QUICK.names.join(', ')}, or one of those followed by ' threads=<n>'`);
  bad((t) => t.replace('fail: 0.97, runs: 120', 'fail: 0.97, runs: 50'), 'runs: 50', 'limits.point-query.rqps.runs: 50 is not valid; expected an integer >= 100 (the runs of main the rule needs)');
  bad((t) => t.replace('warn: 0.99, fail: 0.97', 'warn: 0.99, fail: 0.5'), 'fail: 0.5', "limits.point-query.rqps.fail: 0.5 is not valid; expected a ratio from 0.85 to 1 (calibrate's cap on rQPS)");
  bad((t) => t.replace('warn: 1.005, fail: 1.01', 'warn: 1.005, fail: 1.2'), 'fail: 1.2', "limits.update-index_range=100.instructions.fail: 1.2 is not valid; expected a ratio from 1 to 1.04 (calibrate's cap on instr/o)");
  // cpu/o has no calibration: its own cap, and a file cannot loosen it past that.
  bad((t) => t.replace('    rqps: {warn: 0.99, fail: 0.97, runs: 120, p99: 0.01}', '    rqps: {warn: 0.99, fail: 0.97, runs: 120, p99: 0.01}\n    cpu: {warn: 1.1, fail: 2, runs: 120, p99: 0.05}'), 'fail: 2,', "limits.point-query.cpu.fail: 2 is not valid; expected a ratio from 1 to 1.25 (the learning rule's cap on cpu/o)");
  bad((t) => t.replace('warn: 0.99, fail: 0.97', 'warn: 0.97, fail: 0.99'), 'warn: 0.97', 'limits.point-query.rqps.fail: fail 0.99 is nearer 1 than warn 0.97; expected rQPS fail beyond warn');
  bad((t) => t.replace('unstable: true,', 'unstable: true, warn: 0.9,'), 'unstable', 'limits.scan_range=100.rqps: an unstable row has no limits; expected {warn, fail, runs, p99} or {unstable: true, runs, p99}');
  bad((t) => t.replace('rqps: {unstable', 'rpqs: {unstable'), 'rpqs', 'limits.scan_range=100.rpqs: unknown key; expected one of: rqps, instructions, cpu');
  bad((t) => t.replace('suite: quick', 'suite: full'), 'suite: full', "suite: 'full' differs from the file name; expected 'quick'");
  const orphan = thresholdsWith({ 'learned/nosuch.yml': LEARNED });
  assert.match(configErrorOf(orphan), /learned\/nosuch\.yml: no suites\/nosuch\.yml beside it; expected learned limits of one of: .*quick/);
});

test('a pull request judged with learned limits: tighter where main is quiet, an unstable row decides nothing', () => {
  const suite = core.findSuite(core.loadThresholds(thresholdsWith({ 'learned/quick.yml': LEARNED })), 'quick');
  // point-query 4% slower: a warn by the suite's limits (0.97 / 0.93), a fail by the learned ones.
  const slower = mainRun(7, { rqps: { 'point-query': 0.96, 'scan_range=100': 0.8 } });
  const bySuite = core.judge(slower, QUICK);
  const byLearned = core.judge(slower, suite);
  const row = (v, id) => v.benchmarks.find((b) => b.id === id);
  assert.equal(row(bySuite, 'point-query').verdict, 'warn');
  assert.equal(row(byLearned, 'point-query').verdict, 'fail');
  assert.deepEqual(row(byLearned, 'point-query').limits, { warn: 0.99, fail: 0.97, instructions: QUICK.limits.default.instructions, memory_per_query: QUICK.limits.default.memory_per_query, source: 'learned', learned: { rqps: { runs: 120, p99: 0.01 } } });
  assert.equal(row(byLearned, 'update-index_range=100').limits.source, 'learned', 'its instr/o limits are learned, its rQPS limits the suite\'s');
  assert.equal(row(byLearned, 'update-index_range=100').limits.warn, QUICK.limits.default.warn);
  // scan_range=100 20% slower: a fail by the suite's limits; unstable on main, undecided and not counted.
  assert.equal(row(bySuite, 'scan_range=100').verdict, 'fail');
  const scan = row(byLearned, 'scan_range=100');
  assert.equal(scan.verdict, 'undecided');
  assert.match(scan.reason, /^unstable: its rQPS spread on main is 14\.2% \(99th percentile of 120 runs\): rQPS 0\.\d\d \[/);
  assert.deepEqual(scan.unstable, { signals: [{ signal: 'rqps', runs: 120, p99: 0.142 }], whole_row: true });
  assert.deepEqual(byLearned.failed, ['point-query']);
  assert.equal(core.schemaProblem('verdict', byLearned), null);
  // Alone, the unstable row fails nothing: the run passes and says which row was not judged.
  const onlyUnstable = core.judge(mainRun(7, { rqps: { 'scan_range=100': 0.8 } }), suite);
  assert.equal(onlyUnstable.verdict, 'pass', onlyUnstable.headline);
  assert.equal(onlyUnstable.exit_code, 0);
  assert.match(onlyUnstable.headline, /^Pass: all 2 comparisons within their (fail )?limits[^.]*(\.\d+[^.]*)*\. Not judged, unstable on main: scan_range=100: its rQPS spread on main is 14\.2% \(99th percentile of 120 runs\)\.$/);
  assert.match(onlyUnstable.suite_wide.notes.join('; '), /left out of the suite-wide figures: scan_range=100 \(unstable on main\)/);
  // The reports say which limits were learned; they do not decide.
  const comment = core.renderComment(byLearned);
  assert.match(comment, /Limits: warn below 0\.97, fail below 0\.93 \(2 per-benchmark overrides\); learned from main's history for 3 rows \(120 runs\), 1 of them unstable;/);
  assert.match(comment, /Not judged, unstable on main: scan_range=100: its rQPS spread on main is 14\.2%/);
  assert.doesNotMatch(core.renderComment(bySuite), /learned from main/);
  // The sign-off lists it: undecided, it still blocks a release until waived.
  const signoff = core.renderSignoff(byLearned, { candidate: { ref: 'v2' }, previous: { ref: 'v1' }, waivers: [] });
  assert.match(signoff.files['signoff.md'], /\*\*Unstable on main\*\* \(not judged by that signal until the benchmark is fixed\): `scan_range=100` \(rQPS spread 14\.2% over 120 runs of main\)\./);
  assert.deepEqual(signoff.decision.blocking.map((b) => b.id).sort(), ['point-query', 'scan_range=100']);
});

test('learned from 120 drawn runs of main: the quiet row tighter, the noisy one looser within the caps, the unstable one named', () => {
  const verdicts = mainRuns(120).map((r) => core.judge(r, QUICK));
  // Runs of another runner class are left out: the last run's class is the one learned.
  const other = mainRuns(5, { hardwareClass: 'other-4c' }).map((r) => core.judge(r, QUICK));
  const { series, runner, runs, leftOut } = core.seriesFromVerdicts([...other, ...verdicts], { suite: 'quick' });
  assert.deepEqual({ runner, runs, leftOut }, { runner: 'sim-2c', runs: 120, leftOut: 5 });
  // So are runs counted on another malloc than the last one's (glibc's before jemalloc came).
  const onJemalloc = (v) => ({ ...v, run: { ...v.run, machine: { ...v.run.machine, counted_malloc: { name: 'jemalloc', settings: 's' } } } });
  const moved = core.seriesFromVerdicts([...verdicts, ...verdicts.slice(0, 7).map(onJemalloc)], { suite: 'quick' });
  assert.deepEqual([moved.runs, moved.leftOut], [7, 120]);
  // And runs whose counts left client reads out are not learned with runs that counted them.
  const readsOut = (v) => ({ ...onJemalloc(v), run: { ...onJemalloc(v).run, counted: { left_out: ['vio_read'], malloc: 'jemalloc' } } });
  const now = core.seriesFromVerdicts([...verdicts.slice(0, 7).map(onJemalloc), ...verdicts.slice(0, 5).map(readsOut)], { suite: 'quick' });
  assert.deepEqual([now.runs, now.leftOut], [5, 7]);
  const learned = core.learnLimits(series);
  const q = learned['point-query'].rqps;
  const u = learned['update-index_range=100'].rqps;
  assert.ok(q.enough && !q.unstable && q.warn > QUICK.limits.default.warn && q.fail > QUICK.limits.default.fail, JSON.stringify(q));
  assert.ok(u.enough && !u.unstable && u.fail < QUICK.limits.default.fail && u.fail >= 0.85, JSON.stringify(u));
  assert.equal(learned['scan_range=100'].rqps.unstable, true);
  // The 99th percentile, counted here from the verdicts' own estimates.
  const estimates = verdicts.map((v) => v.benchmarks.find((b) => b.id === 'update-index_range=100').rqps.estimate);
  const distances = estimates.map((e) => Math.abs(Math.log(e))).sort((a, b) => a - b);
  assert.equal(u.p99, Number(Math.expm1(distances[118]).toFixed(4)));
  // The file written from them is the file the loader reads.
  const text = core.learnedFileText({ suite: 'quick', learned, runner, runs });
  const read = core.checkLearnedText(text, 'learned/quick.yml', QUICK);
  assert.deepEqual(read.byName['scan_range=100'], { rqps: { unstable: true, runs: 120, p99: learned['scan_range=100'].rqps.p99 } });
  assert.deepEqual(read.byName['point-query'].rqps, { warn: q.warn, fail: q.fail, runs: 120, p99: q.p99 });
});

test('the ten real runs of main: too few to learn from, the suite\'s limits stand', () => {
  const dir = path.join(__dirname, '../../fixtures/main-history');
  const results = fs.readdirSync(dir).filter((f) => /^aa-instructions-\d+\.json$/.test(f)).sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
  const verdicts = results.map((r) => core.judge(r, QUICK));
  const { series, runs } = core.seriesFromVerdicts(verdicts, { suite: 'quick' });
  assert.equal(runs, 10);
  const learned = core.learnLimits(series);
  // Every row the runs measured (the ten rows the quick suite had then), each a row of the suite.
  const measured = [...new Set(results.flatMap((r) => r.benchmarks.map((bench) => bench.id)))].sort();
  assert.equal(measured.length, 10);
  assert.deepEqual(Object.keys(learned).sort(), measured);
  assert.ok(measured.every((id) => QUICK.benchmarks.includes(id)), measured.join(', '));
  for (const [id, { rqps, instructions }] of Object.entries(learned)) {
    assert.equal(rqps, undefined, `${id}: instructions only, no timed rounds`);
    assert.equal(instructions.enough, false);
    assert.equal(instructions.runs, 10);
    // A/A instruction ratios of real runs: within half a percent of 1.
    assert.ok(instructions.largest < 0.005, `${id}: ${instructions.largest}`);
  }
  assert.match(core.learnedFileText({ suite: 'quick', learned, runner: 'x', runs }), /\nlimits: \{\}\n$/);
});

test('watching main files nothing on a signal unstable on main', () => {
  const suite = core.findSuite(core.loadThresholds(thresholdsWith({ 'learned/quick.yml': LEARNED })), 'quick');
  const slower = mainRun(7, { rqps: { 'scan_range=100': 0.8 } });
  const decide = (verdict) => core.watchDecisions({ repo: 'o/r', base: 'a'.repeat(40), head: 'b'.repeat(40), verdict })
    .filter((a) => a.benchKey === 'scan_range=100').map((a) => `${a.action} ${a.signal}`);
  assert.deepEqual(decide(core.judge(slower, QUICK)), ['confirm rqps'], 'a fail by the suite\'s limits is re-measured');
  const judged = core.judge(slower, suite);
  assert.equal(judged.benchmarks.find((b) => b.id === 'scan_range=100').time_verdict, 'fail', 'its figure still reads as it did');
  assert.equal(core.signalVerdict(judged.benchmarks.find((b) => b.id === 'scan_range=100'), 'rqps'), 'undecided');
  assert.deepEqual(decide(judged), []);
});

test('cpu/o is learned where a row is judged by it, and replaces only a cpu/o limit the suite sets', () => {
  // Its own floors and caps: up to 4% → warn 1.0404 → 1.05, fail e^0.0594 → 1.07 (rounded out); beyond
  // 1.5 × p99 = ln 1.25 unstable; a quiet row no tighter than 1.02 / 1.04.
  assert.deepEqual(core.learnSignal(spread(100, 0.04, 'cpu'), 'cpu'), { runs: 100, enough: true, p99: 0.0404, unstable: false, warn: 1.05, fail: 1.07 });
  assert.deepEqual(core.learnSignal(spread(100, 0.001, 'cpu'), 'cpu'), { runs: 100, enough: true, p99: 0.001, unstable: false, warn: 1.02, fail: 1.04 });
  assert.equal(core.learnSignal(spread(100, 0.16, 'cpu'), 'cpu').unstable, true);

  const rows = { 'point-query': { group: 'point', between: 0.004, cpuBetween: 0.005 }, 'scan_range=100': { group: 'range', between: 0.004, cpuBetween: 0.2 } };
  const withCpu = thresholdsWith({ 'suites/quick.yml': (t) => t.replace('memory_per_query: {warn: 256, fail: 512}}', 'memory_per_query: {warn: 256, fail: 512}, cpu_per_query: {warn: 1.05, fail: 1.10}}') });
  const cpuSuite = core.findSuite(core.loadThresholds(withCpu), 'quick');
  const runs = mainRuns(120, { rows });
  // Judged without a cpu/o limit (the quick suite as shipped), no row has cpu/o to learn.
  assert.deepEqual(Object.keys(core.seriesFromVerdicts(runs.map((r) => core.judge(r, QUICK)), { suite: 'quick' }).series['point-query']), ['rqps']);
  const learned = core.learnLimits(core.seriesFromVerdicts(runs.map((r) => core.judge(r, cpuSuite)), { suite: 'quick' }).series);
  const quiet = learned['point-query'].cpu;
  assert.ok(quiet.enough && !quiet.unstable && quiet.warn === 1.02 && quiet.fail === 1.04, JSON.stringify(quiet));
  assert.equal(learned['scan_range=100'].cpu.unstable, true);

  // The learned file, read back and judged with: point-query's cpu/o at 1.06 warns by the
  // suite's 1.05 / 1.10 and fails by the learned 1.02 / 1.04; scan_range's cpu/o, unstable on
  // main, is not judged (said in its reason); a suite without a cpu/o limit gains none.
  const text = core.learnedFileText({ suite: 'quick', learned, runner: 'sim-2c', runs: 120 });
  const learnedSuite = core.findSuite(core.loadThresholds(thresholdsWith({ 'suites/quick.yml': fs.readFileSync(path.join(withCpu, 'suites/quick.yml'), 'utf8'), 'learned/quick.yml': text })), 'quick');
  const slower = mainRun(7, { rows: { 'point-query': rows['point-query'], 'scan_range=100': { group: 'range', between: 0.004 } }, cpu: { 'point-query': 1.06, 'scan_range=100': 1.3 } });
  const row = (v, id) => v.benchmarks.find((b) => b.id === id);
  const bySuite = core.judge(slower, cpuSuite);
  const byLearned = core.judge(slower, learnedSuite);
  assert.equal(row(bySuite, 'point-query').cpu_verdict, 'warn');
  assert.equal(row(byLearned, 'point-query').cpu_verdict, 'fail');
  assert.deepEqual(row(byLearned, 'point-query').limits.cpu_per_query, { warn: 1.02, fail: 1.04 });
  assert.deepEqual(row(byLearned, 'point-query').limits.learned.cpu, { runs: 120, p99: quiet.p99 });
  assert.equal(row(bySuite, 'scan_range=100').cpu_verdict, 'fail');
  const scan = row(byLearned, 'scan_range=100');
  assert.equal(scan.limits.cpu_per_query, null);
  // Not judged by cpu/o (a 30% step passes it), listed as unstable beside the other signals,
  // and its cpu/o reads undecided: main's later runs still learn it (no limit coming back).
  assert.equal(scan.cpu_verdict, 'undecided');
  assert.equal(scan.verdict, 'pass');
  assert.deepEqual(scan.unstable, { signals: [{ signal: 'cpu', runs: 120, p99: learned['scan_range=100'].cpu.p99 }], whole_row: false });
  assert.match(scan.reason, /; unstable: its cpu\/o spread on main is \d+\.\d% \(99th percentile of 120 runs\), not judged by it$/);
  assert.equal(core.schemaProblem('verdict', byLearned), null);
  const later = core.seriesFromVerdicts(mainRuns(3, { rows }).map((r) => core.judge(r, learnedSuite)), { suite: 'quick' }).series;
  assert.equal(later['scan_range=100'].cpu.length, 3);
  const shipped = core.findSuite(core.loadThresholds(thresholdsWith({ 'learned/quick.yml': text })), 'quick');
  const plain = row(core.judge(slower, shipped), 'point-query');
  assert.equal(plain.limits.cpu_per_query, undefined);
  assert.equal(plain.limits.learned.cpu, undefined);
});

test('a verdict records how its run counted instructions, which learning compares', () => {
  const fixture = path.join(__dirname, '../../fixtures/aa-jemalloc/aa-quick-1.json');
  const doc = JSON.parse(fs.readFileSync(fixture, 'utf8'));
  assert.deepEqual(core.judge(doc, QUICK).run.counted, { left_out: [], malloc: 'jemalloc' });
  doc.instructions.left_out = ['vio_read'];
  const v = core.judge(doc, QUICK);
  assert.deepEqual(v.run.counted, { left_out: ['vio_read'], malloc: 'jemalloc' });
  assert.equal(core.schemaProblem('verdict', v), null);
  delete doc.instructions;
  assert.equal('counted' in core.judge(doc, QUICK).run, false);
});
