#!/usr/bin/env node
'use strict';
// How fast `perfgate bot` acknowledges webhooks under a sustained rate, and the rate at which
// its queue starts to grow, on SQLite and on a private MariaDB.
//
//   flock /tmp/perfgate-measure.lock node bench/bot-webhooks.js [--rates 5,10,20,50,100,200]
//         [--seconds 10] [--min-samples 400] [--workers 4] [--databases sqlite,mariadb]
//         [--drain-seconds 30]
//
// Three processes: the GitHub double (test/support/github-api/cli.mjs), `perfgate bot`
// (GITHUB_PACING none: the double has no secondary rate limits), and this one, which sends
// signed issue_comment.created deliveries (GitHub's published example, each a new `/perf
// quick` comment by a user with write access on one of 200 pull requests) at each rate,
// open loop: a delivery leaves at its time whether or not earlier ones were answered.
// Acknowledgement latency is from sending the request to the end of the bot's answer. The
// queue depth (jobs queued, from GET /healthz) is read every second; between rates the queue
// is given --drain-seconds to drain (above the workers' pace it cannot, and the next window
// starts with a backlog, as a bot under that load would). Every delivery is a command, so
// every one writes a delivery, a request and a job, and makes a job of about nine GitHub
// calls: the heaviest webhook the bot takes. On a shared 2-core machine the figures move from
// run to run; the three processes share the cores with the database.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { startMariadb } = require('../test/support/mariadb-server');

const ROOT = path.join(__dirname, '..');
const PRS = 200;
const LOAD_USER = 'loadtester';
const LOAD_TOKEN = 'ghp_loadtesterTokenForTheDouble00000';

const { values: opt } = parseArgs({
  options: {
    rates: { type: 'string', default: '5,10,20,50,100,200' },
    seconds: { type: 'string', default: '10' },
    'min-samples': { type: 'string', default: '400' },
    workers: { type: 'string', default: '4' },
    databases: { type: 'string', default: 'sqlite,mariadb' },
    'drain-seconds': { type: 'string', default: '30' },
  },
});
const RATES = opt.rates.split(',').map(Number);
const SECONDS = Number(opt.seconds);
const MIN_SAMPLES = Number(opt['min-samples']);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const TICKS = 100; // USER_HZ on Linux

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
function cpuSeconds(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
const windowSeconds = (rate) => Math.max(SECONDS, Math.ceil(MIN_SAMPLES / rate));

/** Starts a process and resolves with it once a line of its output matches `ready`. */
function startProcess(command, args, { env, ready, logFile }) {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = fs.createWriteStream(logFile);
  let seen = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      log.write(chunk);
      if (seen !== null) {
        seen += chunk;
        const m = ready.exec(seen);
        if (m) {
          seen = null;
          resolve({ child, match: m });
        }
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code, signal) => reject(new Error(`${path.basename(args[0])} exited (${code ?? signal}) before it was ready; see ${logFile}`)));
  });
}

async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  await exited;
  clearTimeout(timer);
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

function request(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function main() {
  const t = await import('../test/support/bot.mjs');
  const { sign } = await import('@octokit/webhooks-methods');
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-webhook-bench-'));
  const processes = [];
  let mariadb = null;
  console.log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0].model}); rates ${RATES.join(', ')}/s; ${opt.workers} job workers; ${PRS} pull requests`);
  try {
    // The GitHub double, its own process.
    const keys = t.appKeys();
    fs.writeFileSync(path.join(folder, 'app.pub'), keys.publicKey);
    fs.writeFileSync(path.join(folder, 'double.json'), JSON.stringify({
      repositories: [t.REPOSITORY],
      tokens: { [LOAD_TOKEN]: LOAD_USER },
      permissions: { [t.REPOSITORY]: { [LOAD_USER]: 'write' } },
      workflows: { [t.REPOSITORY]: [{ file: 'perf-command.yml', runName: (await import('../test/support/bot.mjs')).bot.contract.RUN_NAME }] },
      dispatchStartsRun: true,
      pullRequests: Array.from({ length: PRS }, (_, i) => ({ repository: t.REPOSITORY, number: i + 1, user: 'contributor', head: { ref: `f${i}`, sha: t.HEAD_SHA }, base: { ref: 'main', sha: t.BASE_SHA } })),
      app: { id: t.APP_ID, slug: 'perfgate', publicKeyFile: path.join(folder, 'app.pub'), installations: [{ id: t.INSTALLATION_ID, account: t.OWNER, repositories: [t.REPOSITORY] }] },
    }));
    const double = await startProcess(process.execPath, [path.join(ROOT, 'test/support/github-api/cli.mjs'), '--config', path.join(folder, 'double.json')],
      { env: process.env, ready: /GITHUB_API_URL=(\S+)/, logFile: path.join(folder, 'double.log') });
    processes.push(double.child);
    const apiUrl = double.match[1];

    const databases = [];
    for (const name of opt.databases.split(',')) {
      if (name === 'sqlite') databases.push({ name: 'SQLite (file, WAL)', url: path.join(folder, 'history.db') });
      else if (name === 'mariadb') {
        mariadb = await startMariadb({ database: 'bench' });
        databases.push({ name: 'MariaDB 10.11 (TCP)', url: mariadb.url });
      } else throw new Error(`--databases: unknown '${name}'; expected sqlite and/or mariadb`);
    }

    let commentCount = 0;
    async function newComments(count) {
      const out = [];
      for (let i = 0; i < count; i++) {
        const pr = (commentCount++ % PRS) + 1;
        const res = await request(`${apiUrl}/repos/${t.REPOSITORY}/issues/${pr}/comments`, {
          method: 'POST', headers: { authorization: `token ${LOAD_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ body: '/perf quick rounds=4' }),
        });
        if (res.status !== 201) throw new Error(`creating a comment: ${res.status} ${res.body}`);
        out.push({ comment: JSON.parse(res.body), pr });
      }
      return out;
    }

    const rows = [];
    for (const db of databases) {
      // PERFGATE_REPORT=bot: the bot also writes the check run and the sticky comment, the
      // heavier of its two ways (about nine GitHub calls a command).
      const env = { ...t.botEnvironment({ folder, apiUrl, databaseUrl: db.url }), PERFGATE_WORKERS: opt.workers, PERFGATE_TEAMS: '', PERFGATE_REPORT: 'bot' };
      const botRun = await startProcess(process.execPath, [path.join(ROOT, 'cli/bin/perfgate.js'), 'bot', '--port', '0'],
        { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, ready: /listening on (http:\/\/\S+)/, logFile: path.join(folder, `bot-${rows.length}.log`) });
      processes.push(botRun.child);
      const botUrl = botRun.match[1];
      const depth = async () => JSON.parse((await request(`${botUrl}/healthz`)).body).queue;
      const drain = async () => {
        const drainStart = performance.now();
        let left = await depth();
        while (left.queued + left.running > 0 && performance.now() - drainStart < Number(opt['drain-seconds']) * 1000) {
          await sleep(500);
          left = await depth();
        }
        return { seconds: (performance.now() - drainStart) / 1000, drained: left.queued + left.running === 0 };
      };
      const send = ({ body, signature }, id) => request(`${botUrl}/api/github/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-github-event': 'issue_comment', 'x-github-delivery': id, 'x-hub-signature-256': signature },
        body,
      });
      const signed = async (count) => Promise.all((await newComments(count)).map(async ({ comment, pr }) => {
        const body = JSON.stringify(t.commentEvent({ comment, user: LOAD_USER, pr }));
        return { body, signature: await sign(t.WEBHOOK_SECRET, body) };
      }));
      // Warm-up, not measured: the double compiles its validators, the bot its queries and
      // installation token.
      for (const [i, delivery] of (await signed(40)).entries()) await send(delivery, `warmup-${rows.length}-${i}`);
      await drain();

      for (const rate of RATES) {
        const seconds = windowSeconds(rate);
        const count = rate * seconds;
        // Bodies made and signed before the window, so the sender only sends.
        const deliveries = await signed(count);
        const cpuBefore = { bot: cpuSeconds(botRun.child.pid), double: cpuSeconds(double.child.pid) };
        const latencies = [];
        const statuses = {};
        const samples = [];
        const before = await depth();
        const started = performance.now();
        const sampler = setInterval(() => {
          depth().then((d) => samples.push({ at: (performance.now() - started) / 1000, ...d }), () => {});
        }, 1000);
        const pending = [];
        for (let i = 0; i < count; i++) {
          const due = started + (i * 1000) / rate;
          const wait = due - performance.now();
          if (wait > 1) await sleep(wait);
          const sent = performance.now();
          pending.push(send(deliveries[i], `bench-${rows.length}-${rate}-${i}`).then((res) => {
            latencies.push(performance.now() - sent);
            statuses[res.status] = (statuses[res.status] || 0) + 1;
          }, (err) => { statuses[err.code || 'error'] = (statuses[err.code || 'error'] || 0) + 1; }));
        }
        await Promise.all(pending);
        const elapsed = (performance.now() - started) / 1000;
        clearInterval(sampler);
        const after = await depth();
        const cpu = {
          bot: (cpuSeconds(botRun.child.pid) - cpuBefore.bot) / elapsed,
          double: (cpuSeconds(double.child.pid) - cpuBefore.double) / elapsed,
        };
        latencies.sort((a, b) => a - b);
        // Jobs done in the window: what arrived, less what still waits.
        const done = count - (after.queued + after.running - before.queued - before.running);
        const drained = await drain();
        const row = {
          database: db.name, rate, sent: count, seconds: Number(elapsed.toFixed(1)), achieved: Number((count / elapsed).toFixed(1)),
          statuses, p50: Number(quantile(latencies, 0.5).toFixed(1)), p99: Number(quantile(latencies, 0.99).toFixed(1)), max: Number(latencies.at(-1).toFixed(1)),
          queuedAtStart: before.queued, queuedAtEnd: after.queued, maxQueued: Math.max(0, ...samples.map((s) => s.queued)), jobsPerSecond: Number((done / elapsed).toFixed(1)),
          drainSeconds: Number(drained.seconds.toFixed(1)), drained: drained.drained,
          botCpu: Number(cpu.bot.toFixed(2)), doubleCpu: Number(cpu.double.toFixed(2)),
          // Other work on the machine during the window: the 1-minute load average.
          load: Number(os.loadavg()[0].toFixed(1)),
        };
        rows.push(row);
        console.log(JSON.stringify(row));
      }
      await stop(botRun.child);
    }

    console.log('\n| database | offered rate | answered | ack p50 | ack p99 | ack max | jobs done/s | jobs waiting (start → end) | CPU bot / double | load |');
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const r of rows) {
      const answered = Object.entries(r.statuses).map(([s, n]) => `${n}× ${s}`).join(', ');
      console.log(`| ${r.database} | ${r.rate}/s (${r.achieved}/s sent, ${r.seconds} s) | ${answered} | ${r.p50} ms | ${r.p99} ms | ${r.max} ms | ${r.jobsPerSecond} | ${r.queuedAtStart} → ${r.queuedAtEnd} | ${r.botCpu} / ${r.doubleCpu} | ${r.load} |`);
    }
  } finally {
    for (const child of processes.reverse()) await stop(child);
    if (mariadb) await mariadb.stop();
    agent.destroy();
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err.stack);
  process.exit(1);
});
