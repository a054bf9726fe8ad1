#!/usr/bin/env node
'use strict';
// How long the dashboard's pages take on a history of a few thousand runs.
//
//   flock /tmp/perfgate-measure.lock node bench/dashboard.js [--runs 3000] [--requests 20]
//         [--databases sqlite,mariadb]
//
// The history is stored the way the bot stores it (history.storeRun), from real captured runs:
// the ten A/A instruction runs of test/fixtures/main-history/ and three timed quick runs of
// test/fixtures/results/ (10 microbenchmarks each, up to 160 rounds), judged once by the engine
// and stored in turn as runs of consecutive main commits (commit k against k-1); every fifth
// run is also stored as a pull request's run. Change points (one per microbenchmark every 50
// commits), regressions and sign-offs are inserted as the lifecycle tables keep them. Then each
// page is asked for over HTTP (the dashboard's handler on a local server), a few times to warm
// up and then --requests times, and the median, 90th percentile and largest times are printed
// with the page's size. The machine is shared: compare pages within one run.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const core = require('../core/src');
const bot = require('../bot/src');
const { dashboardHandler } = require('../bot/src/dashboard/handler');
const { createHttpServer } = require('../bot/src/app/http-server');
const { loadResults, DIR: RESULTS_DIR } = require('../test/support/captured-results');

const { values: opt } = parseArgs({
  options: {
    runs: { type: 'string', default: '3000' },
    requests: { type: 'string', default: '20' },
    databases: { type: 'string', default: 'sqlite' },
  },
});
const RUNS = Number(opt.runs);
const REQUESTS = Number(opt.requests);
const WARMUP = 3;
const REPO = 'perf-org/server-fork';
const MAIN_DIR = path.join(__dirname, '../test/fixtures/main-history');

const sha = (seq) => `${seq.toString(16).padStart(8, '0')}${'c0ffee'.repeat(6)}`.slice(0, 40);
const seconds = (t0) => Number(process.hrtime.bigint() - t0) / 1e9;

function capturedRuns() {
  const suite = core.findSuite(core.loadThresholds(), 'quick');
  const files = [
    ...fs.readdirSync(MAIN_DIR).filter((f) => f.endsWith('.json')).sort().map((f) => path.join(MAIN_DIR, f)),
    ...['tiny-quick.json', 'quick-tiny/results.json', 'aa-quick-noise.json'].map((f) => path.join(RESULTS_DIR, f)),
  ];
  return files.map((file) => {
    const results = loadResults(file);
    return { name: path.relative(path.join(__dirname, '..'), file), results, verdict: core.judge(results, suite) };
  });
}

async function storeHistory(store, runs) {
  const t = process.hrtime.bigint();
  await bot.recordMainline(store, {
    repo: REPO, firstSeq: 1,
    commits: Array.from({ length: RUNS + 1 }, (_, i) => ({ sha: sha(i + 1), committedAt: Date.UTC(2026, 0, 1) + i * 3600_000, subject: `commit ${i + 1} on main` })),
  });
  let pr = 0;
  for (let i = 0; i < RUNS; i++) {
    const { results, verdict } = runs[i % runs.length];
    await bot.storeRun(store, { request: { repo: REPO, runKey: `main/${i}`, base: { sha: sha(i + 1) }, head: { sha: sha(i + 2) } }, results, verdict });
    if (i % 5 === 0) {
      pr += 1;
      await bot.storeRun(store, { request: { repo: REPO, runKey: `pr/${pr}`, base: { sha: sha(i + 1) }, head: { sha: `${pr.toString(16).padStart(8, '0')}${'f'.repeat(32)}` } }, results, verdict });
    }
  }
  const stored = seconds(t);

  const id = async (table, column, value) => Number((await store.db.selectFrom(table).select('id').where(column, '=', value).executeTakeFirstOrThrow()).id);
  const micros = await store.db.selectFrom('microbenchmarks').select(['id', 'name']).execute();
  const machine = Number((await store.db.selectFrom('machines').select('id').executeTakeFirstOrThrow()).id);
  const now = Date.now();
  let changePoints = 0;
  let regressions = 0;
  for (let seq = 50; seq <= RUNS; seq += 50) {
    const commit = await id('commits', 'sha', sha(seq));
    const previous = await id('commits', 'sha', sha(seq - 1));
    for (const [k, m] of micros.entries()) {
      const signal = ['rqps', 'instructions_per_query', 'qps'][k % 3];
      await store.db.insertInto('change_points').values({
        repo: REPO, microbenchmark_id: m.id, bench_key: m.name, signal, machine_id: machine, commit_id: commit, previous_commit_id: previous,
        mean_before: 1, mean_after: 1.05, ratio: 1.05, pvalue: 0.001, method: 'bench', detected_at: now,
      }).execute();
      changePoints += 1;
    }
    const m = micros[(seq / 50) % micros.length];
    await store.db.insertInto('regressions').values({
      dedupe_key: `${REPO}/${m.name}/${sha(seq)}`, repo: REPO, microbenchmark_id: m.id, bench_key: m.name, signal: 'rqps',
      first_bad_commit_id: commit, last_good_commit_id: previous, status: seq % 100 ? 'open' : 'closed', estimate: 0.9, low: 0.88, high: 0.92,
      tracker: 'github', issue_key: `#${seq}`, issue_url: `https://github.com/${REPO}/issues/${seq}`, sightings: 1, opened_at: now - seq, last_seen_at: now,
      closed_at: seq % 100 ? null : now, document: null,
    }).execute();
    regressions += 1;
  }
  for (let k = 0; k < 30; k++) {
    const signoff = await store.db.insertInto('signoffs').values({
      repo: REPO, candidate_ref: `v1.${k + 1}`, candidate_sha: sha(k * 10 + 2), previous_ref: `v1.${k}`, previous_sha: sha(k * 10 + 1),
      status: 'completed', state: 'success', created_at: now - k, updated_at: now, completed_at: now,
    }).executeTakeFirstOrThrow();
    await store.db.insertInto('signoff_waivers').values({ signoff_id: Number(signoff.insertId), microbenchmark_id: micros[k % micros.length].id, reason: 'known', created_at: now }).execute();
  }
  const count = async (table) => Number((await store.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirst()).n);
  return { stored, runs: await count('runs'), rounds: await count('rounds'), intervals: await count('verdict_intervals'), changePoints, regressions };
}

function listen(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

async function timePage(url) {
  let bytes = 0;
  for (let i = 0; i < WARMUP; i++) await (await fetch(url)).text();
  const times = [];
  for (let i = 0; i < REQUESTS; i++) {
    const t = process.hrtime.bigint();
    const answer = await fetch(url);
    const body = await answer.text();
    times.push(seconds(t) * 1000);
    if (answer.status !== 200) throw new Error(`${url}: ${answer.status} ${body}`);
    bytes = Buffer.byteLength(body);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return { median: at(0.5), p90: at(0.9), max: times.at(-1), bytes };
}

async function measure(name, target, runs) {
  const store = await bot.openStore(target);
  const log = { error: (m) => console.error(m), warn: (m) => console.error(m) };
  const route = dashboardHandler({ store, apiUrl: 'https://api.github.com', hosts: ['127.0.0.1'], log });
  const server = createHttpServer({ route, limits: { maxConnections: 128, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 }, log });
  try {
    const built = await storeHistory(store, runs);
    console.log(`\n${name}: stored ${built.runs} runs (${built.rounds} rounds, ${built.intervals} judged intervals) in ${built.stored.toFixed(1)} s `
      + `(${(built.stored * 1000 / built.runs).toFixed(1)} ms per run); ${built.changePoints} change points, ${built.regressions} regressions, 30 sign-offs`);
    const port = await listen(server);
    const base = `http://127.0.0.1:${port}/dashboard`;
    const q = (params) => `?${new URLSearchParams({ repo: REPO, ...params })}`;
    const pages = [
      ['overview', ''],
      ['history update-index, last 100 commits', `/history${q({ benchmark: 'update-index_range=100' })}`],
      ['history update-index, last 1000 commits', `/history${q({ benchmark: 'update-index_range=100', last: 1000 })}`],
      [`history update-index, all ${RUNS + 1} commits`, `/history${q({ benchmark: 'update-index_range=100', last: Math.min(5000, RUNS + 1) })}`],
      ['history point-query, last 100 commits', `/history${q({ benchmark: 'point-query' })}`],
      ['runs, latest 50', '/runs'],
      ['runs, 500 older than the middle', `/runs?limit=500&before=${Math.floor(built.runs / 2)}`],
      ['regressions, all', '/regressions?status=all'],
      ['sign-offs', '/signoffs'],
    ];
    console.log(`  ${'page'.padEnd(44)} ${'median'.padStart(9)} ${'p90'.padStart(9)} ${'max'.padStart(9)} ${'size'.padStart(9)}`);
    for (const [label, pathAndQuery] of pages) {
      const r = await timePage(`${base}${pathAndQuery}`);
      const ms = (v) => `${v.toFixed(1)} ms`.padStart(9);
      console.log(`  ${label.padEnd(44)} ${ms(r.median)} ${ms(r.p90)} ${ms(r.max)} ${`${(r.bytes / 1024).toFixed(0)} KiB`.padStart(9)}`);
    }
  } finally {
    await new Promise((resolve) => (server.listening ? server.close(resolve) : resolve()));
    await store.close();
  }
}

async function main() {
  console.log(`node ${process.version}, ${os.cpus().length} CPUs; ${RUNS} runs of main commits, ${WARMUP} warm-up and ${REQUESTS} timed requests per page`);
  const runs = capturedRuns();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-dashboard-bench-'));
  try {
    for (const database of opt.databases.split(',')) {
      if (database === 'sqlite') {
        await measure('SQLite (WAL, one file)', path.join(dir, 'history.db'), runs);
      } else if (database === 'mariadb') {
        const { startMariadb } = require('../test/support/mariadb-server');
        const server = await startMariadb();
        try {
          await measure('MariaDB 10.11 (private server, 64 MiB buffer pool)', server.url, runs);
        } finally {
          await server.stop();
        }
      } else {
        throw new Error(`--databases: unknown database '${database}'; expected sqlite, mariadb or both separated by a comma`);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err.stack || err.message);
  process.exit(1);
});
