'use strict';
// startBot(config) -> the running GitHub App: the history store (migrated), Octokit as the App
// and its installations, the HTTP server (webhooks, health check) and the workers. close()
// stops taking webhooks, lets the jobs in hand finish and closes the store; a job queued and
// not yet done stays queued for the next start.
const core = require('@perfgate/core');
const store = require('../store');
const { createGitHub, githubHealth, isPermanent } = require('./github');
const { sweepKey, SWEEP_JOB } = require('./sweep');
const { webhookHandler } = require('./webhooks');
const { HANDLERS, PermanentJobError } = require('./jobs');
const { Worker } = require('./worker');
const { dashboardHandler, isDashboardPath } = require('../dashboard/handler');
const { createHttpServer, sendJson, sendText } = require('./http-server');
const { SUITE_OF_COMMAND } = require('./contract');

const WEBHOOK_PATH = '/api/github/webhooks';
// How long jobs in hand may go on once the bot is told to stop.
const STOP_GRACE_MS = 10_000;
const HEALTH_PATH = '/healthz';

function stderrLog(stream = process.stderr) {
  const line = (level) => (message) => stream.write(`${new Date().toISOString()} ${level} ${message}\n`);
  return { info: line('info'), warn: line('warn'), error: line('error') };
}

/** The microbenchmark names tests= and <microbenchmark> accept, per command. */
function benchmarkNames(thresholds) {
  const all = [...new Set(Object.values(thresholds.suites).flatMap((suite) => suite.names))];
  // A sign-off also waives a suite as a whole, by its name (core.suiteWideNames).
  const names = { bisect: all, waive: [...all, ...Object.keys(thresholds.suites).flatMap(core.suiteWideNames)] };
  // A measuring command takes the names of the suite it runs (/perf why: the quick suite's).
  for (const [command, suite] of Object.entries(SUITE_OF_COMMAND)) names[command] = thresholds.suites[suite] ? thresholds.suites[suite].names : [];
  return names;
}

// A look at the store writes a row: at most one such write a second, whoever asks.
const STORE_LOOK_MS = 1000;

/**
 * GET /healthz: whether the store takes writes, whether GitHub answers, and how deep the queue
 * is. 503 while the store cannot be written (every delivery would be refused); 200 "degraded"
 * while GitHub fails (deliveries are taken and wait). Nothing of where the store is or who the
 * App is, and no error text: anyone who reaches the port reads it.
 */
function healthCheck({ store: db, log, github = null }) {
  let look = null;
  const storeState = () => {
    if (!look || Date.now() - look.at > STORE_LOOK_MS) {
      const at = Date.now();
      look = {
        at,
        state: (async () => {
          try {
            await store.writeHeartbeat(db);
            return { store: 'ok', queue: await store.queueDepth(db) };
          } catch (err) {
            log.error(`healthz: the store cannot be written: ${err.message}`);
            try {
              return { store: 'unwritable', queue: await store.queueDepth(db) };
            } catch {
              return { store: 'unreadable' };
            }
          }
        })(),
      };
    }
    return look.state;
  };
  return async (request, response) => {
    const { store: storeStatus, queue } = await storeState();
    const gh = github ? github.get() : { status: 'unknown', since: null };
    const status = storeStatus !== 'ok' ? 'error' : gh.status === 'failing' ? 'degraded' : 'ok';
    const body = { status, store: storeStatus, github: gh.status, ...(gh.status === 'failing' ? { githubFailingSeconds: Math.round((Date.now() - gh.since) / 1000) } : {}), ...(queue ? { queue } : {}) };
    sendJson(request, response, status === 'error' ? 503 : 200, body);
  };
}

function listen(server, port, host) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.removeListener('error', reject);
      resolve(server.address().port);
    });
  });
}

/**
 * @param config   readBotConfig()'s settings
 * @param options  {log, github: {retryBaseMs}, worker: {pollMs, backoffFirstMs}}: for tests
 */
async function startBot(config, { log = stderrLog(), signal = null, github: githubOptions = {}, worker: workerOptions = {} } = {}) {
  for (const warning of config.warnings || []) log.warn(warning);
  const db = await store.openStore(config.databaseUrl);
  let server = null;
  let worker = null;
  // Stops every call to GitHub at once: the bot is stopping (also while it starts).
  const stopping = new AbortController();
  const onSignal = () => stopping.abort();
  if (signal) signal.addEventListener('abort', onSignal, { once: true });
  if (signal && signal.aborted) stopping.abort();
  let sweeps = null;
  // GitHub answers again after failing: the jobs waiting out their backoff go now, and a sweep
  // looks for what the outage left unfinished.
  let onRecovered = () => {};
  const health = githubHealth({ onRecovered: () => onRecovered() });
  try {
    stopping.signal.throwIfAborted();
    const github = createGitHub({
      appId: config.appId, privateKey: config.privateKey, apiUrl: config.apiUrl, pacing: config.pacing, timeoutMs: config.githubTimeoutMs, signal: stopping.signal, health, ...githubOptions,
    }, log);
    // Who the App is: its comments are by <slug>[bot], which is how the sticky comment is found.
    const { data: app } = await github.app.rest.apps.getAuthenticated();
    const branches = new Map();
    const ctx = {
      store: db,
      github,
      config,
      log,
      botLogin: `${app.slug}[bot]`,
      async defaultBranch(octokit, { owner, repo }) {
        const key = `${owner}/${repo}`.toLowerCase();
        if (!branches.has(key)) {
          const { data } = await octokit.rest.repos.get({ owner, repo });
          branches.set(key, data.default_branch);
        }
        return branches.get(key);
      },
    };
    const handlers = Object.fromEntries(Object.entries(HANDLERS).map(([kind, handler]) => [kind, (job) => handler(ctx, job)]));
    worker = new Worker({
      store: db, handlers, concurrency: config.workers, leaseSeconds: config.leaseSeconds, log,
      isPermanent: (err) => err instanceof PermanentJobError || isPermanent(err), ...workerOptions,
    });
    const onWebhook = webhookHandler({ store: db, config, benchmarks: benchmarkNames(config.thresholds), log, onQueued: () => worker.wake() });

    const onDashboard = config.dashboard ? dashboardHandler({ store: db, apiUrl: config.apiUrl, hosts: config.dashboardHosts, log }) : null;

    const queueSweep = (key) => store.enqueue(db, { kind: SWEEP_JOB, payload: {} }, key)
      .then(() => worker.wake())
      .catch((err) => log.warn(`sweep: cannot queue it: ${err.message}`));
    onRecovered = () => {
      log.info('github: answering again');
      store.hurryRetries(db).then(() => worker.wake()).catch((err) => log.warn(`worker: cannot hurry the retries: ${err.message}`));
      // One such sweep in ten seconds, however often GitHub flickers.
      queueSweep(`${SWEEP_JOB}:recovered:${Math.floor(Date.now() / 10_000)}`);
    };
    const check = healthCheck({ store: db, log, github: health });
    const route = async (request, response, target) => {
      if (target.path === WEBHOOK_PATH) return onWebhook(request, response);
      if (onDashboard && isDashboardPath(target.path)) return onDashboard(request, response, target);
      if (target.path === HEALTH_PATH && (request.method === 'GET' || request.method === 'HEAD')) return check(request, response);
      return sendText(request, response, 404, `not found; webhooks go to POST ${WEBHOOK_PATH}`);
    };
    server = createHttpServer({ route, limits: config.http, log });
    const port = await listen(server, config.port, config.host);
    worker.start();
    queueSweep(sweepKey(Date.now(), config.sweepMs));
    sweeps = setInterval(() => queueSweep(sweepKey(Date.now(), config.sweepMs)), config.sweepMs);
    sweeps.unref();
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    return {
      url: `http://${host}:${port}`,
      port,
      app,
      botLogin: ctx.botLogin,
      store: db,
      worker,
      // Jobs in hand get `graceMs` to finish; then their calls to GitHub are ended, and they
      // are run again at the next start (every step looks first at what was done).
      async close({ graceMs = STOP_GRACE_MS } = {}) {
        await new Promise((resolve) => {
          server.close(resolve);
          server.closeIdleConnections();
        });
        clearInterval(sweeps);
        onRecovered = () => {};
        const grace = setTimeout(() => stopping.abort(), graceMs);
        await worker.stop();
        clearTimeout(grace);
        if (signal) signal.removeEventListener('abort', onSignal);
        await db.close();
      },
    };
  } catch (err) {
    clearInterval(sweeps);
    stopping.abort();
    if (signal) signal.removeEventListener('abort', onSignal);
    if (server && server.listening) await new Promise((resolve) => server.close(resolve));
    if (worker) await worker.stop();
    await db.close();
    throw err;
  }
}

module.exports = { startBot, benchmarkNames, healthCheck, stderrLog, WEBHOOK_PATH, HEALTH_PATH };
