#!/usr/bin/env node
'use strict';
// Throughput of the bot's job queue on SQLite and on a real MariaDB, and how long a private
// MariaDB takes to initialize and start (the cost the integration tests pay per file).
//
//   node bench/bot-queue.js [--jobs 2000] [--workers 4] [--starts 3]
//
// Per database: enqueue N jobs one by one (each its own commit), claim and complete them in
// one process, then enqueue N more and drain them with W worker processes at once. Both
// databases run with their durable defaults (SQLite WAL with synchronous=FULL; InnoDB
// flushing its log at every commit), so the figures include an fsync per commit. Times on
// a shared machine vary: compare the databases within one run.
// Hold the measuring lock while recording figures:
//   flock /tmp/perfgate-measure.lock node bench/bot-queue.js
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const bot = require('../bot/src');
const { startMariadb } = require('../test/support/mariadb-server');
const { runTogether } = require('../test/support/store-queue-contract');

const { values: opt } = parseArgs({
  options: {
    jobs: { type: 'string', default: '2000' },
    workers: { type: 'string', default: '4' },
    starts: { type: 'string', default: '3' },
  },
});
const JOBS = Number(opt.jobs);
const WORKERS = Number(opt.workers);
const STARTS = Number(opt.starts);

const seconds = (t0) => Number(process.hrtime.bigint() - t0) / 1e9;
const rate = (n, s) => `${Math.round(n / s)}/s`;

async function measure(name, target) {
  const store = await bot.openStore(target);
  try {
    let t = process.hrtime.bigint();
    for (let i = 0; i < JOBS; i++) await bot.enqueue(store, { kind: 'bench', payload: { i } }, `a-${i}`);
    const enqueueS = seconds(t);

    t = process.hrtime.bigint();
    let claimed = 0;
    for (let job; (job = await bot.claim(store, 'solo', 60)); claimed++) await bot.complete(store, job.id);
    const soloS = seconds(t);
    if (claimed !== JOBS) throw new Error(`${name}: one worker claimed ${claimed} of ${JOBS} jobs`);

    for (let i = 0; i < JOBS; i++) await bot.enqueue(store, { kind: 'bench', payload: { i } }, `b-${i}`);
    const answers = await runTogether(Array.from({ length: WORKERS }, (_, k) => ({
      action: 'drain', target, worker: `w${k}`, total: 2 * JOBS,
    })), 600_000);
    const parallelS = (Math.max(...answers.map((a) => a.endedAt)) - Math.min(...answers.map((a) => a.startedAt))) / 1000;
    const all = answers.flatMap((a) => a.claimed);
    if (all.length !== JOBS || new Set(all).size !== JOBS) throw new Error(`${name}: ${WORKERS} workers claimed ${all.length} jobs (${new Set(all).size} distinct) of ${JOBS}`);
    return {
      name,
      enqueue: rate(JOBS, enqueueS),
      solo: rate(JOBS, soloS),
      parallel: rate(JOBS, parallelS),
      shares: answers.map((a) => a.claimed.length).join('/'),
    };
  } finally {
    await store.close();
  }
}

async function main() {
  console.log(`node ${process.version}, ${os.cpus().length} CPUs; ${JOBS} jobs; ${WORKERS} worker processes`);
  console.log('\nMariaDB 10.11 private server (mariadb-install-db, then mariadbd until it answers, then shutdown):');
  for (let i = 0; i < STARTS; i++) {
    const server = await startMariadb();
    const t = process.hrtime.bigint();
    await server.stop();
    console.log(`  start ${i + 1}: init ${server.initSeconds.toFixed(2)} s, start ${server.startSeconds.toFixed(2)} s, stop and remove ${seconds(t).toFixed(2)} s`);
  }

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-queue-bench-'));
  const server = await startMariadb({ database: 'bench' });
  const rows = [];
  try {
    rows.push(await measure('SQLite (file, WAL)', path.join(dir, 'queue.db')));
    rows.push(await measure('MariaDB (TCP)', server.url));
    rows.push(await measure('MariaDB (socket)', (await server.createDatabase('bench_socket')).socketUrl));
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log('\n| database | enqueue (1 process) | claim+complete (1 process) | claim+complete (%d processes) | jobs per worker |'.replace('%d', WORKERS));
  console.log('| --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(`| ${r.name} | ${r.enqueue} | ${r.solo} | ${r.parallel} | ${r.shares} |`);
}

main().catch((err) => {
  console.error(err.stack);
  process.exit(1);
});
