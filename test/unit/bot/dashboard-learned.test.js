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
const { mainRuns } = require('../../support/main-runs');

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
  assert.match(html, /<h3>Limits learned from main<\/h3><p class="muted small">120 runs of main on runner sim-2c, main commits #1 to #121:/);
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
