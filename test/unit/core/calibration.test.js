'use strict';
// perfgate calibrate's limits per microbenchmark from A/A runs: the method on real captured A/A
// runs (test/fixtures/main-history: ten pairs of freshly started 10.11.18 servers, instructions
// counted; test/fixtures/results/aa-quick-noise.json: one pair, timed rounds), on drawn data
// whose spread is known, and the suite file it writes, loaded back by the config loader.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const core = require('../../../core');
const { calibrate, renderCalibration, suggestedSuiteText, suggestedLimitsText, METHOD } = require('../../../core/src/calibration');
const { studentTQuantile } = require('../../../core/src/statistics');
const { schemaProblem } = require('../../../core/src/schemas');
const { capturedResults, loadResults } = require('../../support/captured-results');

const FIXTURES = path.join(__dirname, '../../fixtures');
const QUICK = core.loadThresholds().suites.quick;
const QUICK_TEXT = fs.readFileSync(path.join(core.SHIPPED_THRESHOLDS_DIR, 'suites', 'quick.yml'), 'utf8');
const aaInstructions = (n) => Array.from({ length: n }, (_, i) => loadResults(path.join(FIXTURES, 'main-history', `aa-instructions-${i}.json`)));
const AA_TIME = loadResults(path.join(FIXTURES, 'results', 'aa-quick-noise.json'));
const { seededNormals } = require('../../support/seeded-draws');
const row = (cal, id) => cal.benchmarks.find((b) => b.id === id);

// --- drawn A/A runs whose spread is known ----------------------------------------------------

const normals = seededNormals;

// One pair of servers counting instructions: its processes differ by a factor exp(between·z),
// each window by exp(within·z) around that.
function instructionWindows(draw, windows, within, between) {
  const offset = between * draw();
  const side = (shift) => ({
    windows: Array.from({ length: windows }, () => ({
      connection: { per_query: 40000 * Math.exp(shift + within * draw()) },
      background: { per_query: 30 },
    })),
  });
  return { events: 2300, seed: 1, base: side(0), head: side(offset) };
}

function drawnRun(draw, { windows = 3, within, between, rounds = 0, qpsWithin = 0.05 }) {
  const timed = [];
  for (let i = 0; i < rounds; i++) {
    for (const side of ['base', 'head']) timed.push({ side, index: i, qps: 10000 * Math.exp(qpsWithin * draw()), cpu_per_query_us: 50 });
  }
  const results = JSON.parse(JSON.stringify(aaInstructions(1)[0]));
  results.benchmarks = [{ ...results.benchmarks[0], rounds: timed, instructions: instructionWindows(draw, windows, within, between) }];
  return results;
}

const POINT_ONLY = { ...QUICK, benchmarks: ['point-query'] };

test('instr/o limits sit above the spread between processes, not only the spread of one process\'s windows', () => {
  const draw = normals(7);
  // Windows repeat within 0.05%; two processes differ by 0.5% (sd): as on writes here.
  const runs = Array.from({ length: 10 }, () => drawnRun(draw, { within: 0.0005, between: 0.005 }));
  const withProcesses = row(calibrate(runs, POINT_ONLY), 'point-query').instructions;
  // The same windows, but every pair's processes counted alike: the within spread alone.
  const sameProcess = runs.map((r) => {
    const copy = JSON.parse(JSON.stringify(r));
    const { head, base } = copy.benchmarks[0].instructions;
    const shift = Math.exp(Math.log(head.windows[0].connection.per_query / base.windows[0].connection.per_query));
    for (const w of head.windows) w.connection.per_query /= shift;
    return copy;
  });
  const withinOnly = row(calibrate(sameProcess, POINT_ONLY), 'point-query').instructions;
  assert.ok(withProcesses.between_sd > 0.003, `between ${withProcesses.between_sd}`);
  // z(0.99) × 0.5% alone is 1.16%: warn lies beyond it, and beyond every pair's estimate.
  assert.ok(withProcesses.suggested.warn > 1.0116, JSON.stringify(withProcesses.suggested));
  for (const e of withProcesses.estimates) assert.ok(Math.max(e, 1 / e) < withProcesses.suggested.warn);
  assert.ok(withinOnly.suggested.warn < withProcesses.suggested.warn - 0.005, `${withinOnly.suggested.warn} vs ${withProcesses.suggested.warn}`);
});

test('drawn A/A rows with the calibrated spread are judged warn at most about 1% of the time, fail never, at every size the budget allows', () => {
  const draw = normals(11);
  const spread = { within: 0.0005, between: 0.003 };
  const cal = calibrate(Array.from({ length: 10 }, () => drawnRun(draw, spread)), POINT_ONLY);
  const { warn, fail } = row(cal, 'point-query').instructions.suggested;
  // The quick suite's rows count 3 windows, and up to 3 + 6 extra + 3 confirming ones.
  assert.deepEqual(row(cal, 'point-query').instructions.sizes, { from: 3, to: 12 });
  for (const windows of [3, 12]) {
    const judged = { warn: 0, fail: 0 };
    const n = 4000;
    for (let k = 0; k < n; k++) {
      const w = instructionWindows(draw, windows, spread.within, spread.between);
      const logs = w.head.windows.map((h, i) => Math.log(h.connection.per_query / w.base.windows[i].connection.per_query));
      const m = logs.reduce((s, x) => s + x, 0) / windows;
      const sd = Math.sqrt(logs.reduce((s, x) => s + (x - m) ** 2, 0) / (windows - 1));
      // A row is judged beyond a limit when its whole interval is (docs/verdicts.md).
      const low = Math.exp(m - studentTQuantile(0.975, windows - 1) * sd / Math.sqrt(windows));
      if (low > warn) judged.warn++;
      if (low > fail) judged.fail++;
    }
    assert.ok(judged.warn / n <= 0.02, `${windows} windows: ${judged.warn} of ${n} A/A rows wholly above warn ${warn}`);
    assert.ok(judged.fail / n <= 0.002, `${windows} windows: ${judged.fail} of ${n} A/A rows wholly above fail ${fail}`);
  }
});

test('rQPS limits are not widened by the noise the interval already covers: A/A rows stay quiet, a 15% slower row fails', () => {
  // Ten pairs on a runner whose rounds spread by 5% and whose processes agree.
  const draw = normals(13);
  const runs = Array.from({ length: 10 }, () => drawnRun(draw, { within: 0.0005, between: 0, rounds: 10, qpsWithin: 0.05 }));
  const time = row(calibrate(runs, POINT_ONLY), 'point-query').time;
  // From the suite's rounds to those plus every extra pair of its budget.
  const { rounds } = POINT_ONLY.measure;
  assert.deepEqual(time.sizes, { from: rounds, to: rounds + POINT_ONLY.budget.extra_pairs });
  assert.ok(time.suggested.warn >= 0.93 && time.suggested.fail >= 0.9, JSON.stringify(time.suggested));
  const { warn, fail } = time.suggested;
  const rowOf = (rounds, slower) => {
    const logs = Array.from({ length: rounds }, () => Math.log(slower) + 0.05 * draw() - 0.05 * draw());
    const m = logs.reduce((a, x) => a + x, 0) / rounds;
    const sd = Math.sqrt(logs.reduce((a, x) => a + (x - m) ** 2, 0) / (rounds - 1));
    return Math.exp(m + studentTQuantile(0.975, rounds - 1) * sd / Math.sqrt(rounds));
  };
  for (const n of [time.sizes.from, time.sizes.to]) {
    const highs = Array.from({ length: 4000 }, () => rowOf(n, 1));
    assert.ok(highs.filter((high) => high < warn).length / 4000 <= 0.02, `${n} rounds: A/A rows wholly below warn ${warn}`);
    assert.ok(highs.filter((high) => high < fail).length / 4000 <= 0.002, `${n} rounds: A/A rows wholly below fail ${fail}`);
  }
  const slow = Array.from({ length: 1000 }, () => rowOf(time.sizes.to, 0.85));
  assert.ok(slow.filter((high) => high < fail).length / 1000 >= 0.95, 'a 15% slower row fails once the budget is spent');
});

test('fewer pairs of servers give wider limits: the spreads are taken at their upper confidence bound', () => {
  const draw = normals(3);
  const three = Array.from({ length: 3 }, () => drawnRun(draw, { within: 0.001, between: 0.003 }));
  const twelve = [...three, ...three, ...three, ...three];
  const few = row(calibrate(three, POINT_ONLY), 'point-query').instructions;
  const many = row(calibrate(twelve, POINT_ONLY), 'point-query').instructions;
  assert.ok(Math.abs(few.between_sd - many.between_sd) < 1e-12 || few.between_sd > many.between_sd);
  assert.ok(few.spread > many.spread && few.suggested.warn > many.suggested.warn, `${few.suggested.warn} vs ${many.suggested.warn}`);
});

test('limits stop at their floors where A/A is steady, at their caps where it is too noisy, fail a gap beyond warn', () => {
  const draw = normals(5);
  const steady = row(calibrate(Array.from({ length: 10 }, () => drawnRun(draw, { within: 0.00001, between: 0.00001, rounds: 8, qpsWithin: 0.001 })), POINT_ONLY), 'point-query');
  assert.deepEqual(steady.instructions.suggested, { warn: 1.003, fail: 1.007 });
  assert.deepEqual(steady.instructions.bound, { warn: 'floor', fail: 'gap' });
  assert.deepEqual(steady.time.suggested, { warn: 0.99, fail: 0.97 });
  assert.deepEqual(steady.time.bound, { warn: 'floor', fail: 'gap' });
  const noisy = row(calibrate([drawnRun(draw, { within: 0.05, between: 0.05, rounds: 8, qpsWithin: 0.3 })], POINT_ONLY), 'point-query');
  assert.deepEqual(noisy.time.suggested, { warn: 0.9, fail: 0.85 });
  assert.deepEqual(noisy.time.bound, { warn: 'cap', fail: 'cap' });
  assert.deepEqual(noisy.instructions.suggested, { warn: 1.02, fail: 1.04 });
});

test('ten real A/A pairs: tight instr/o limits on reads, wider on the writes whose processes differ', () => {
  const cal = calibrate(aaInstructions(10), QUICK);
  assert.equal(schemaProblem('calibration', cal), null);
  assert.equal(cal.pairs, 10);
  assert.deepEqual(cal.at, { rounds: QUICK.measure.rounds, windows: 3 });
  const instr = Object.fromEntries(cal.benchmarks.map((b) => [b.id, b.instructions]));
  // point-query repeats within ±0.2%: its limits are well inside the shipped 1.02 / 1.04.
  assert.ok(instr['point-query'].suggested.warn <= 1.01 && instr['point-query'].suggested.fail <= 1.015, JSON.stringify(instr['point-query'].suggested));
  for (const id of ['scan_range=100', 'read-only_range=10000', 'range-notcovered-si_range=100']) assert.deepEqual(instr[id].suggested, { warn: 1.003, fail: 1.007 }, id);
  // update-inlist's processes counted up to 0.5% apart: its limits are the widest.
  const widest = Object.entries(instr).sort((a, b) => b[1].suggested.warn - a[1].suggested.warn)[0][0];
  assert.equal(widest, 'update-inlist_range=100');
  for (const [id, s] of Object.entries(instr)) {
    assert.ok(s.suggested.warn >= Math.max(...s.estimates.map((e) => Math.max(e, 1 / e))), id);
    assert.ok(s.suggested.warn < s.suggested.fail && s.suggested.fail <= 1.04, id);
  }
  // No time was measured: no rQPS suggestion, the rQPS limits stay the suite's.
  assert.ok(cal.benchmarks.every((b) => b.time === null));
  assert.deepEqual(cal.suggested['point-query'], { instructions: instr['point-query'].suggested });
});

test('a real noisy A/A run gives wide rQPS limits, capped so that a 15% slowdown still fails', () => {
  const cal = calibrate([AA_TIME], QUICK);
  const time = Object.fromEntries(cal.benchmarks.map((b) => [b.id, b.time]));
  assert.equal(time['insert_range=100'].pairs, 1);
  assert.ok(time['point-query'].within_sd > 0.25);
  for (const [id, t] of Object.entries(time)) {
    assert.ok(t.suggested.warn <= 0.97 && t.suggested.fail < t.suggested.warn, id);
    assert.ok(t.suggested.warn >= 0.9 && t.suggested.fail >= 0.85, id);
  }
  assert.deepEqual(time['point-query'].bound, { warn: 'cap', fail: 'cap' });
});

test('calibrate() of every captured results file, alone, is valid by schema/calibration.schema.json and renders every row', () => {
  for (const { name, file } of capturedResults()) {
    const results = loadResults(file);
    if (!results.plan || results.plan.suite !== 'quick') continue;
    const cal = calibrate([results], QUICK);
    assert.equal(schemaProblem('calibration', cal), null, name);
    const text = renderCalibration(cal);
    for (const b of cal.benchmarks.filter((x) => x.time || x.instructions)) assert.match(text, new RegExp(`^${b.id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `, 'm'), name);
  }
});

test('what calibrate prints: both tables, the method in one legend, the limits as a suite fragment, the A/A verdicts', () => {
  const cal = calibrate([...aaInstructions(2), AA_TIME], QUICK);
  const text = renderCalibration(cal);
  assert.ok(text.startsWith('perfgate calibrate: 10.11.18-MariaDB-0+deb12u1 against itself, suite quick: 3 pairs of freshly started servers; limits for 5 rounds per side and 3 instruction windows\n'));
  assert.match(text, /\nrQPS \(timed rounds\):\n\nmicrobenchmark +A\/A rQPS per pair +min–max +within +between +±95% at 5 +warn +fail +caught as warn \/ fail +limited by\n/);
  assert.match(text, /\ninstr\/o \(connection threads, paired windows\):\n/);
  assert.match(text, /\npoint-query +1\.001 1\.001 +0\.999–1\.002 .* 1\.0\d\d +1\.0\d\d +\+\d\.\d\d% \/ \+\d\.\d\d% +(warn floor, )?fail gap\n/);
  assert.ok(text.includes('±95%: reach of an A/A interval at the suite\'s size. warn: A/A rows are judged warn (the whole interval beyond it) at most 1% of the time, fail 0.1%,\nat every size the suite\'s budget lets a row reach'));
  assert.ok(text.includes('\nSuggested limits per microbenchmark (suite file format):\n\nlimits:\n  point-query: {warn: 0.90, fail: 0.85, instructions: {warn: '));
  assert.ok(text.includes('\nA/A verdicts at the current limits:\n  pair 1: pass: Pass: all 10 comparisons within their fail limits; points-covered-pk_range=100: its interval still reaches the warn limit (instr/o 1.001 [0.999, 1.003], warn limit 1.003), '));
  assert.equal(METHOD.warn_quantile, 0.99);
});

// --- the suite file, through the config loader -----------------------------------------------

function loadWritten(text) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-calibrated-'));
  fs.mkdirSync(path.join(dir, 'suites'));
  fs.writeFileSync(path.join(dir, 'suites', 'quick.yml'), text);
  try {
    return core.loadThresholds(dir).suites.quick;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('the suggested suite file loads with the config loader and gives each microbenchmark its limits', () => {
  const cal = calibrate([...aaInstructions(10), AA_TIME], QUICK);
  const text = suggestedSuiteText(QUICK_TEXT, cal, { date: '2026-11-25' });
  const suite = loadWritten(text);
  for (const [id, entry] of Object.entries(cal.suggested)) {
    const l = core.limitsFor(suite, id);
    assert.deepEqual({ warn: l.warn, fail: l.fail, instructions: l.instructions }, entry, id);
  }
  // The shipped default stays, safe on a runner never calibrated; everything else is the suite's.
  assert.deepEqual(suite.limits.default, QUICK.limits.default);
  for (const key of ['scale', 'benchmarks', 'budget', 'instructions', 'profile']) assert.deepEqual(suite[key], QUICK[key], key);
  // The A/A pairs ran 2 client threads with 3-s rounds in turn, free to move: the calibrated
  // suite runs its rounds that way, since its time limits were made from that spread.
  assert.deepEqual(QUICK.measure.threads, [1]);
  assert.deepEqual(suite.measure, { ...QUICK.measure, threads: [2], seconds: 3, side_schedule: 'in-turn', pin_cpus: 'none' });
  assert.ok(text.startsWith('# Limits per microbenchmark from `perfgate calibrate` on vm, AMD EPYC, 2 CPUs, 2026-11-25:\n# 10.11.18-MariaDB-0+deb12u1 against itself on 11 pairs of freshly started servers.\n# Measured at 8 tables × 10,000 rows, 2 client threads, 6 rounds per side of 3 s, 3 instruction windows.\n# measure.threads (2), measure.seconds (3), measure.pin_cpus (none) and measure.side_schedule (in-turn) are as the pairs ran: the limits hold for rounds run that way.\n'));
  assert.match(text, /\n {2}# rQPS: A\/A on 1 pair of servers, within 28\.8%, between 3\.3%; capped: rQPS is noisier here than its limits, so more of its rows stay open\n {2}# instr\/o: A\/A on 10 pairs of servers, within 0\.12%, between 0\.00%\n {2}point-query: \{warn: 0\.90, fail: 0\.85, instructions: \{warn: 1\.003, fail: 1\.007\}\}\n/);
  // Calibrating the calibrated file again replaces the earlier calibration's words, not adds to them.
  assert.equal(suggestedSuiteText(text, cal, { date: '2026-11-25' }), text);
});

test('the calibrated suite runs its rounds as the A/A pairs ran; a suite that already does keeps its settings', () => {
  const pinned = { server: '0', client: '1' };
  const ranAs = (sideSchedule, pinCpus = pinned, threads = QUICK.measure.threads[0]) => (results) => ({
    ...results,
    plan: {
      ...results.plan,
      measure: { ...results.plan.measure, seconds: QUICK.measure.seconds, side_schedule: sideSchedule, pin_cpus: pinCpus },
      benchmarks: results.plan.benchmarks.map((b) => ({ ...b, threads })),
    },
  });
  const inTurnText = QUICK_TEXT.replace(/\n {2}side_schedule: alternating\n/, '\n');
  assert.notEqual(inTurnText, QUICK_TEXT);
  // Pairs run with `--sides alternating` on a suite that names no schedule (in turn): the
  // limits are for alternating rounds, and so is the file.
  const cal = calibrate(aaInstructions(3).map(ranAs('alternating')), QUICK);
  const written = suggestedSuiteText(inTurnText, cal, { date: '2026-11-25' });
  assert.equal(loadWritten(written).measure.side_schedule, 'alternating');
  assert.match(written, new RegExp(`\\n# measure\\.threads \\(1\\), measure\\.seconds \\(${QUICK.measure.seconds}\\), measure\\.pin_cpus \\(split\\) and measure\\.side_schedule \\(alternating\\) are as the pairs ran`));
  // The shipped quick suite already alternates with rounds of that length: only the limits and the header change.
  const same = suggestedSuiteText(QUICK_TEXT, cal, { date: '2026-11-25' });
  assert.deepEqual(loadWritten(same).measure, QUICK.measure);
  // And pairs run in turn on the alternating suite bring it back to in turn.
  const back = suggestedSuiteText(QUICK_TEXT, calibrate(aaInstructions(3).map(ranAs('in-turn')), QUICK), { date: '2026-11-25' });
  assert.equal(loadWritten(back).measure.side_schedule, 'in-turn');
  // Pairs free to move (--pin-cpus none) unpin the pinned suite; pinned pairs pin an unpinned one.
  const loose = suggestedSuiteText(QUICK_TEXT, calibrate(aaInstructions(3).map(ranAs('alternating', null)), QUICK), { date: '2026-11-25' });
  assert.equal(loadWritten(loose).measure.pin_cpus, 'none');
  const unpinnedText = QUICK_TEXT.replace(/\n {2}pin_cpus: split\n/, '\n');
  assert.notEqual(unpinnedText, QUICK_TEXT);
  assert.equal(loadWritten(suggestedSuiteText(unpinnedText, cal, { date: '2026-11-25' })).measure.pin_cpus, 'split');
  // Pairs at 2 threads on the 1-thread suite make a 2-thread file (its limits are for that
  // spread), and several thread counts a list.
  const two = suggestedSuiteText(QUICK_TEXT, calibrate(aaInstructions(3).map(ranAs('alternating', pinned, 2)), QUICK), { date: '2026-11-25' });
  assert.deepEqual(loadWritten(two).measure, { ...QUICK.measure, threads: [2] });
  assert.match(two, /\n {2}threads: 2\n/);
  const several = { ...cal, measured: { ...cal.measured, threads: [1, 4] } };
  assert.deepEqual(loadWritten(suggestedSuiteText(QUICK_TEXT, several, { date: '2026-11-25' })).measure.threads, [1, 4]);
  // A calibration recorded before pinning and threads were: the file keeps its own settings.
  const older = { ...cal, measured: { ...cal.measured } };
  delete older.measured.pin_cpus;
  delete older.measured.threads;
  const twoThreadText = QUICK_TEXT.replace('\n  threads: 1\n', '\n  threads: 2\n');
  assert.notEqual(twoThreadText, QUICK_TEXT);
  assert.deepEqual(loadWritten(suggestedSuiteText(twoThreadText, older, { date: '2026-11-25' })).measure.threads, [2]);
  assert.equal(loadWritten(suggestedSuiteText(unpinnedText, older, { date: '2026-11-25' })).measure.pin_cpus, 'none');
  assert.equal(loadWritten(suggestedSuiteText(QUICK_TEXT, older, { date: '2026-11-25' })).measure.pin_cpus, 'split');
});

test('an entry the suite already had keeps the keys calibration does not set, and its own comment', () => {
  const source = QUICK_TEXT.replace('  default: {', '  # CPU-bound here\n  update-index_range=100: {fail: 0.90, cpu_per_query: {warn: 1.05, fail: 1.10}}\n  default: {');
  const cal = calibrate(aaInstructions(3), QUICK);
  const text = suggestedSuiteText(source, cal, { date: '2026-11-25' });
  const l = core.limitsFor(loadWritten(text), 'update-index_range=100');
  assert.deepEqual(l.cpu_per_query, { warn: 1.05, fail: 1.1 });
  assert.equal(l.fail, 0.9);
  assert.deepEqual(l.instructions, cal.suggested['update-index_range=100'].instructions);
  assert.match(text, /# CPU-bound here\n {2}# instr\/o: A\/A on 3 pairs of servers[^\n]*\n {2}update-index_range=100: \{instructions: \{warn: 1\.0\d\d, fail: 1\.0\d\d\}, fail: 0\.90, cpu_per_query: \{warn: 1\.05, fail: 1\.10\}\}\n/);
});

test('the limits alone print as a limits block that loads in place of a suite\'s limits', () => {
  const cal = calibrate([AA_TIME, ...aaInstructions(3)], QUICK);
  const fragment = suggestedLimitsText(cal);
  assert.ok(fragment.startsWith('limits:\n  point-query: {warn: 0.90, fail: 0.85, instructions: {warn: 1.0'));
  const withDefault = fragment.replace('limits:\n', 'limits:\n  default: {warn: 0.97, fail: 0.93, instructions: {warn: 1.02, fail: 1.04}}\n');
  const text = QUICK_TEXT.replace(/\nlimits:\n(?: {2}.*\n)+/, `\n${withDefault}`);
  const suite = loadWritten(text);
  assert.deepEqual(core.limitsFor(suite, 'scan_range=100').instructions, cal.suggested['scan_range=100'].instructions);
});

test('a suite of two thread counts: calibrate keys each row as `<name> threads=<n>`, the file loads, judge uses each row\'s own limits', () => {
  // A real run of point-query and update-index_range=100 at 1 and 2 client threads (3 pairs of
  // 2 s each): calibrate only reads the noise of the rounds, so an A/B run serves as well.
  const results = loadResults(path.join(FIXTURES, 'results', 'threads-tiny', 'results.json'));
  const source = [
    'suite: quick', 'scale: {tables: 2, rows: 2000}', 'measure: {threads: [1, 2], seconds: 2, warmup_seconds: 1, rounds: 3}',
    'limits:', '  default: {warn: 0.97, fail: 0.93}', 'budget: {extra_pairs: 0, minutes: 0}',
    'benchmarks:', '  - point-query', '  - update-index_range=100', '',
  ].join('\n');
  const suite = loadWritten(source);
  const cal = calibrate([results], suite);
  const ids = ['point-query threads=1', 'point-query threads=2', 'update-index_range=100 threads=1', 'update-index_range=100 threads=2'];
  assert.deepEqual(Object.keys(cal.suggested), ids);
  const calibrated = loadWritten(suggestedSuiteText(source, cal, { date: '2026-11-25' }));
  const verdict = core.judge(results, calibrated);
  for (const id of ids) {
    const { warn, fail } = cal.suggested[id];
    const judged = verdict.benchmarks.find((b) => b.id === id);
    assert.deepEqual({ warn: judged.limits.warn, fail: judged.limits.fail }, { warn, fail }, id);
  }
  assert.notDeepEqual(calibrated.limits.default, { warn: verdict.benchmarks[0].limits.warn, fail: verdict.benchmarks[0].limits.fail });
});
