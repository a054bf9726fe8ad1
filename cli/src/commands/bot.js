'use strict';
// `perfgate bot --port N [--config file]`: runs perfgate's GitHub App (@perfgate/bot) until
// SIGINT or SIGTERM, then stops taking webhooks, finishes the jobs in hand and exits 0. What is
// queued and not done stays in the database for the next start.
const { EXIT, UsageError } = require('@perfgate/core');
const { parseCommandLine } = require('../command-line');

const OPTIONS = {
  port: { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

// The settings table comes from the bot itself, loaded only when help is asked for.
function help() {
  const { describeBotConfig } = require('@perfgate/bot');
  return `usage: perfgate bot --port <N> [--config <file>]

Runs perfgate's GitHub App: webhooks at POST /api/github/webhooks, a health check at
GET /healthz. Commands in pull request comments (/perf quick, /perf full, ...) are
authorized, pinned to the pull request's base and head, dispatched to the fork's
perf-command.yml, and the runs' results stored and shown (docs/bot.md).

  --port <N>        port to listen on (0: any free port, printed at start)
  --config <file>   YAML file of KEY: value settings; the environment wins over it

Settings (environment or --config file):
${describeBotConfig()}

Stops on SIGINT or SIGTERM (exit 0); exit 2 on bad settings.
`;
}

// Octokit's packages are ES modules, which the bot require()s: Node has done that without a
// flag since 20.19 and 22.12.
function canRequireEsm(version = process.versions.node) {
  const [major, minor] = version.split('.').map(Number);
  return (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major >= 23;
}

function readSettings(argv, env = {}) {
  const { values } = parseCommandLine('bot', argv, OPTIONS);
  if (!canRequireEsm()) throw new UsageError(`perfgate bot needs Node 20.19 or later (22.12 or later on 22); this is ${process.version}`);
  if (values.help) return { help: true };
  const { readBotConfig } = require('@perfgate/bot');
  return { help: false, config: readBotConfig({ file: values.config || null, env, port: values.port }) };
}

function waitForSignal() {
  return new Promise((resolve) => {
    const stop = (signal) => {
      process.removeListener('SIGINT', stop);
      process.removeListener('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

// Why the App could not start, in one line: what was asked of GitHub, and what to check.
function startFailure(err) {
  if (err && err.request && Number.isInteger(err.status)) {
    const hint = err.status === 401 ? ': check PERFGATE_APP_ID and PERFGATE_PRIVATE_KEY_FILE' : '';
    return `GitHub answered ${err.request.method} ${err.request.url} with ${err.status} ${err.message.split('\n')[0]}${hint}`;
  }
  return err && err.message ? err.message : String(err);
}

async function execute(settings, io) {
  const { startBot, WEBHOOK_PATH } = require('@perfgate/bot');
  const stopped = waitForSignal();
  // A signal while the App starts ends its calls to GitHub, which may not be answering.
  const starting = new AbortController();
  let started = false;
  stopped.then(() => { if (!started) starting.abort(); });
  let bot;
  try {
    bot = await startBot(settings.config, { signal: starting.signal });
    started = true;
  } catch (err) {
    if (starting.signal.aborted) {
      io.stderr.write(`perfgate bot: ${await stopped}: stopped before it had started\n`);
      return 0;
    }
    io.stderr.write(`perfgate bot: cannot start: ${startFailure(err)}\n`);
    return EXIT.error;
  }
  io.stderr.write(`perfgate bot: ${bot.botLogin} listening on ${bot.url} (webhooks at POST ${WEBHOOK_PATH}), store ${bot.store.where}, serving ${settings.config.repositories.join(', ')}\n`);
  const signal = await stopped;
  io.stderr.write(`perfgate bot: ${signal}: stopping (jobs in hand finish; queued jobs wait for the next start)\n`);
  await bot.close();
  io.stderr.write('perfgate bot: stopped\n');
  return 0;
}

module.exports = { readSettings, execute, canRequireEsm, get HELP() { return help(); } };
