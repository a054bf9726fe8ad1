'use strict';
// Limits learned from main's history on the dashboard: 120 drawn runs of main stored through
// storeRun in a SQLite file (each commit against the one before, on one runner class), and the
// ten real A/A runs of test/fixtures/main-history/ in another repository. The overview shows
// the learned limits per row and signal, names the unstable row, and says where too few runs
// leave the suite's limits.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const core = require('@perfgate/core');
const bot = require('../../../bot/src');
const { dashboardHandler } = require('../../../bot/src/dashboard/handler');
const { storeMainHistory } = require('../../support/dashboard-history');
const { mainRun, mainRuns } = require('../../support/main-runs');

const REPO = 'perf-org/drawn-fork';
const QUICK = core.findSuite(core.loadThresholds(), 'quick');
const sha = (seq) => `${seq.toString(16).padStart(6, '0')}${'d1ce'.repeat(9)}`.slice(0, 40);

async function storeDrawnMain(store, count) {
  await bot.recordMainline(store, { repo: REPO, firstSeq: 1, commits: Array.from({ length: count + 1 }, (_, i) => ({ sha: sha(i + 1) })) });
  const verdicts = [];
  for (const [i, results] of mainRuns(count).entries()) {
    const verdict = core.judge(results, QUICK);
    verdicts.push(verdict);
    await bot.storeRun(store, { request: { repo: REPO, runKey: `main/${sha(i + 2)}`, base: { sha: sha(i + 1) }, head: { sha: sha(i + 2) } }, results, verdict });
  }
  // A pull request's run against main: its head is not on main, so it is not main's history.
  const [pr] = mainRuns(1, { rqps: { 'point-query': 0.5 } });
  await bot.storeRun(store, { request: { repo: REPO, runKey: 'pr/1', base: { sha: sha(count + 1) }, head: { sha: 'f'.repeat(40) } }, results: pr, verdict: core.judge(pr, QUICK) });
  return verdicts;
}

// The overview as the bot serves it, through its route.
async function overview(store, repo) {
  const handler = dashboardHandler({ store, apiUrl: 'https://api.github.com', hosts: ['localhost'], log: { error: (m) => assert.fail(m) } });
  let status;
  let body = '';
  await handler({ method: 'GET', headers: { host: 'localhost' }, url: '/dashboard' },
    { writeHead: (s) => { status = s; }, end: (b) => { body = String(b); } },
    { path: '/dashboard', query: new URLSearchParams({ repo }), host: 'localhost' });
  assert.equal(status, 200, body);
  return body;
}

test('limits learned from 120 stored runs of main, and an unstable row on the dashboard', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-dashboard-learned-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const store = await bot.openStore(path.join(dir, 'history.db'));
  t.after(() => store.close());
  const verdicts = await storeDrawnMain(store, 120);

  const [learned] = await bot.learnedFromMain(store, { repo: REPO });
  assert.deepEqual({ runner: learned.runner, runs: learned.runs, fromSeq: learned.fromSeq, toSeq: learned.toSeq }, { runner: 'sim-2c', runs: 120, fromSeq: 1, toSeq: 121 });
  // What the store gives is what core learns from the verdicts themselves.
  assert.deepEqual(learned.rows, core.learnLimits(core.seriesFromVerdicts(verdicts, { suite: 'quick' }).series));
  assert.equal(learned.rows['scan_range=100'].rqps.unstable, true);
  const quiet = learned.rows['point-query'].rqps;
  assert.ok(quiet.enough && quiet.warn >= 0.98, JSON.stringify(quiet));
  // A window of the latest 100 main commits: 100 runs, still enough.
  const [window] = await bot.learnedFromMain(store, { repo: REPO, last: 100 });
  assert.equal(window.runs, 100);
  assert.equal(window.rows['point-query'].rqps.runs, 100);

  const html = await overview(store, REPO);
  const scan = learned.rows['scan_range=100'].rqps;
  assert.match(html, /<h3>Limits learned from main: quick<\/h3><p class="muted small">120 runs of main on runner sim-2c, main commits #1 to #121:/);
  assert.ok(html.includes('<a href="/dashboard/learned.yml?repo=perf-org%2Fdrawn-fork&amp;suite=quick">learned/quick.yml</a>'), html);
  assert.ok(html.includes(`<b>Unstable on main</b>, judged by nothing until the benchmark is fixed: scan_range=100 (rQPS spread ${(100 * scan.p99).toFixed(2)}% over 120 runs).`), html);
  assert.match(html, /<tr data-row="scan_range=100" data-signal="rqps" class="unstable"><td>scan_range=100<\/td><td>rQPS<\/td><td class="n">120<\/td><td class="n">\d+\.\d\d%<\/td><td><b>unstable<\/b>: not judged by this signal<\/td><\/tr>/);
  assert.ok(html.includes(`<tr data-row="point-query" data-signal="rqps"><td>point-query</td><td>rQPS</td><td class="n">120</td><td class="n">${(100 * quiet.p99).toFixed(2)}%</td><td>warn ${quiet.warn}, fail ${quiet.fail}</td></tr>`), html);
  const noisy = learned.rows['update-index_range=100'].rqps;
  assert.ok(html.includes(`<td>warn ${noisy.warn}, fail ${noisy.fail}</td>`));

  // The short real history: ten runs of main, too few; the suite's limits stand.
  const real = await storeMainHistory(store);
  const [short] = await bot.learnedFromMain(store, { repo: real.repo });
  assert.equal(short.runs, 13);
  for (const bySignal of Object.values(short.rows)) for (const l of Object.values(bySignal)) assert.equal(l.enough, false);
  const shortHtml = await overview(store, real.repo);
  assert.match(shortHtml, /<td>instr\/o<\/td><td class="n">10<\/td><td class="n">0\.\d\d% \(largest\)<\/td><td>fewer than 100 runs: the suite&#39;s limits<\/td>/);
  assert.doesNotMatch(shortHtml, /Unstable on main/);
});

// One file route through the handler: {status, headers, body}.
async function fetchPath(store, pathname, params) {
  const handler = dashboardHandler({ store, apiUrl: 'https://api.github.com', hosts: ['localhost'], log: { error: (m) => assert.fail(m) } });
  const out = { status: null, headers: null, body: '' };
  await handler({ method: 'GET', headers: { host: 'localhost' }, url: pathname },
    { writeHead: (s, h) => { out.status = s; out.headers = h; }, end: (b) => { out.body = String(b); } },
    { path: pathname, query: new URLSearchParams(params), host: 'localhost' });
  return out;
}

test('regressions filed on main and their fixes are left out of what main teaches; each suite learns apart', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-dashboard-changes-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const store = await bot.openStore(path.join(dir, 'history.db'));
  t.after(() => store.close());
  const count = 120;
  await bot.recordMainline(store, { repo: REPO, firstSeq: 1, commits: Array.from({ length: count + 1 }, (_, i) => ({ sha: sha(i + 1) })) });
  // Quiet runs of main, but point-query 30% slower at run 40 and back at run 41 (its fix), and
  // 30% slower at runs 90 and 100, which the watch called noise: figures it keeps.
  const runs = mainRuns(count);
  const step = (k, factor) => mainRun(5000 + k, { rqps: { 'point-query': factor } });
  runs[40] = step(40, 0.7);
  runs[41] = step(41, 1 / 0.7);
  runs[90] = step(90, 0.7);
  runs[100] = step(100, 0.7);
  for (const [i, results] of runs.entries()) {
    await bot.storeRun(store, { request: { repo: REPO, runKey: `main/${sha(i + 2)}`, base: { sha: sha(i + 1) }, head: { sha: sha(i + 2) } }, results, verdict: core.judge(results, QUICK) });
  }
  const before = (await bot.learnedFromMain(store, { repo: REPO }))[0];
  assert.equal(before.changesLeftOut, 0);
  // Four steps among 120 runs reach the 99th percentile: unstable while they count.
  assert.equal(before.rows['point-query'].rqps.unstable, true);

  const filed = { repo: REPO, benchKey: 'point-query', signal: 'rqps', firstBad: sha(42) };
  const key = core.dedupeKey(filed);
  assert.equal((await bot.claimRegression(store, { dedupeKey: key, ...filed, status: 'filing' })).duplicate, false);
  await bot.markFiled(store, { dedupeKey: key, tracker: 'github', issueKey: 7 });
  assert.equal(await bot.closeRegression(store, { dedupeKey: key, repo: REPO, fixedBy: sha(43) }), true);
  const noise = { repo: REPO, benchKey: 'point-query', signal: 'rqps', firstBad: sha(92) };
  await bot.claimRegression(store, { dedupeKey: core.dedupeKey(noise), ...noise, status: 'noise' });
  const noiseToo = { repo: REPO, benchKey: 'point-query', signal: 'rqps', firstBad: sha(102) };
  await bot.claimRegression(store, { dedupeKey: core.dedupeKey(noiseToo), ...noiseToo, status: 'noise' });

  const [after] = await bot.learnedFromMain(store, { repo: REPO });
  assert.equal(after.changesLeftOut, 2);
  assert.equal(after.runs, 120);
  const learned = after.rows['point-query'].rqps;
  assert.equal(learned.runs, 118);
  // The two runs the watch called noise still count: two steps among 118 reach the 99th percentile.
  assert.equal(learned.unstable, true);
  // Other rows and signals of the same runs are untouched.
  assert.equal(after.rows['point-query'].instructions, before.rows['point-query'].instructions);
  assert.deepEqual(after.rows['update-index_range=100'], before.rows['update-index_range=100']);

  // Once one noise call is revised (filed after all), one step is left among 117: point-query learns limits.
  assert.equal(await bot.promoteNoise(store, { dedupeKey: core.dedupeKey(noise), note: 'confirmed' }), true);
  const [revised] = await bot.learnedFromMain(store, { repo: REPO });
  assert.equal(revised.changesLeftOut, 3);
  assert.equal(revised.rows['point-query'].rqps.unstable, false);
  assert.ok(revised.rows['point-query'].rqps.warn >= 0.98, JSON.stringify(revised.rows['point-query'].rqps));
  const html = await overview(store, REPO);
  assert.match(html, /3 figures at regressions filed on main or their fixes left out\./);

  // Another suite's runs of main learn apart from the quick suite's.
  const full = mainRun(9999, { rqps: { 'point-query': 0.5 } });
  full.plan.suite = 'full';
  await bot.recordMainline(store, { repo: REPO, firstSeq: count + 2, commits: [{ sha: sha(count + 2) }] });
  await bot.storeRun(store, { request: { repo: REPO, runKey: `main/full/${sha(count + 2)}`, base: { sha: sha(count + 1) }, head: { sha: sha(count + 2) } }, results: full, verdict: core.judge(full, core.findSuite(core.loadThresholds(), 'full')) });
  const bySuite = await bot.learnedFromMain(store, { repo: REPO, last: 500 });
  assert.deepEqual(bySuite.map((l) => [l.suite, l.runs]), [['full', 1], ['quick', 120]]);
  assert.equal(bySuite[1].rows['point-query'].rqps.unstable, false);

  // The learned file for the base branch, as perfgate limits learn writes it, read back by the loader.
  const file = await fetchPath(store, '/dashboard/learned.yml', { repo: REPO, suite: 'quick' });
  assert.equal(file.status, 200, file.body);
  assert.equal(file.headers['content-type'], 'application/yaml; charset=utf-8');
  assert.equal(file.headers['content-disposition'], 'attachment; filename="quick.yml"');
  assert.equal(file.body, core.learnedFileText({ suite: 'quick', learned: bySuite[1].rows, runner: 'sim-2c', runs: 120 }));
  core.checkLearnedText(file.body, 'learned/quick.yml', QUICK);
  assert.match(file.body, /point-query:\n\s+rqps:\n\s+warn: 0\.9\d*\n\s+fail: 0\.9\d*\n\s+runs: 117\n/);
  // Nothing stored for that suite: 404; a suite name that is a path, or none: 400 naming it.
  assert.equal((await fetchPath(store, '/dashboard/learned.yml', { repo: REPO, suite: 'ddl' })).status, 404);
  for (const [params, word] of [[{ repo: REPO, suite: '../quick' }, 'suite'], [{ repo: REPO }, 'suite'], [{ suite: 'quick' }, 'repo']]) {
    const bad = await fetchPath(store, '/dashboard/learned.yml', params);
    assert.equal(bad.status, 400, JSON.stringify(params));
    assert.match(bad.body, new RegExp(`query parameter '${word}'`));
  }
});

test('cpu/o learned from the store where the rows were judged by it, as core learns it from the verdicts', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-dashboard-cpu-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const store = await bot.openStore(path.join(dir, 'history.db'));
  t.after(() => store.close());
  const withCpu = { ...QUICK, limits: { ...QUICK.limits, default: { ...QUICK.limits.default, cpu_per_query: { warn: 1.05, fail: 1.1 } } } };
  const rows = { 'point-query': { group: 'point', between: 0.004, cpuBetween: 0.005 }, 'scan_range=100': { group: 'range', between: 0.004, cpuBetween: 0.2 } };
  const count = 110;
  await bot.recordMainline(store, { repo: REPO, firstSeq: 1, commits: Array.from({ length: count + 1 }, (_, i) => ({ sha: sha(i + 1) })) });
  const verdicts = [];
  for (const [i, results] of mainRuns(count, { rows }).entries()) {
    // The first ten runs were judged without a cpu/o limit: they give no cpu/o figure.
    const verdict = core.judge(results, i < 10 ? QUICK : withCpu);
    verdicts.push(verdict);
    await bot.storeRun(store, { request: { repo: REPO, runKey: `main/${sha(i + 2)}`, base: { sha: sha(i + 1) }, head: { sha: sha(i + 2) } }, results, verdict });
  }
  const [learned] = await bot.learnedFromMain(store, { repo: REPO });
  assert.deepEqual(learned.rows, core.learnLimits(core.seriesFromVerdicts(verdicts, { suite: 'quick' }).series));
  assert.equal(learned.rows['point-query'].cpu.runs, 100);
  assert.equal(learned.rows['point-query'].rqps.runs, 110);
  assert.equal(learned.rows['scan_range=100'].cpu.unstable, true);
  assert.match(await overview(store, REPO), /scan_range=100 \(cpu\/o spread \d+\.\d+% over 100 runs\)/);
  // No regression is filed on cpu/o: one filed on the row's time leaves its cpu/o figure out too.
  const filed = { repo: REPO, benchKey: 'point-query', signal: 'rqps', firstBad: sha(60) };
  await bot.claimRegression(store, { dedupeKey: core.dedupeKey(filed), ...filed, status: 'filing' });
  const [changed] = await bot.learnedFromMain(store, { repo: REPO });
  assert.deepEqual([changed.rows['point-query'].rqps.runs, changed.rows['point-query'].cpu.runs, changed.changesLeftOut], [109, 99, 2]);
});
