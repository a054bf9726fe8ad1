'use strict';
// `perfgate <command>`: reads the runner's settings, routes SIGINT/SIGTERM to a clean
// cancellation, and hands over to one command module.
const { EXIT, UsageError } = require('@perfgate/core');
const { cancelOnSignals } = require('./processes');
const { runnerSettings } = require('./runner-settings');

// One module per subcommand, loaded on demand so that a broken or heavy command never slows
// down or breaks another.
const COMMANDS = {
  compare: { module: './commands/compare', summary: 'measure base against head and write the results' },
  judge: { module: './commands/judge', summary: 'judge stored results again (other limits) and rewrite the reports' },
  merge: { module: './commands/merge', summary: 'join the run folders of the shards of one comparison into one report' },
  signoff: { module: './commands/signoff', summary: 'decide a release sign-off from a merged full-suite run and write its report' },
  calibrate: { module: './commands/calibrate', summary: 'measure base against itself (A/A) on fresh server pairs: noise, limits per microbenchmark as a suite file' },
  limits: { module: './commands/limits', summary: "learn limits from main's history (verdicts of main's runs) as thresholds/learned/<suite>.yml" },
  build: { module: './commands/build', summary: 'build a commit of a server source tree into a cached prefix' },
  bisect: { module: './commands/bisect', summary: 'find the commit behind a regression by binary search over built commits' },
  doctor: { module: './commands/doctor', summary: 'what is tuned on this runner and what is not, with the effect on noise' },
  bot: { module: './commands/bot', summary: "run perfgate's GitHub App: /perf commands in pull requests, dispatch, history" },
};

function usage() {
  const lines = ['usage: perfgate <command> [options]', '', 'commands:'];
  for (const [name, { summary }] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(10)} ${summary}`);
  lines.push('', 'perfgate <command> --help shows the options of one command.');
  return lines.join('\n') + '\n';
}

async function main(argv, io) {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h') {
    io.stdout.write(usage());
    return name ? EXIT.ok : EXIT.usage;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.stderr.write(`perfgate: unknown command '${name}'. Expected one of: ${Object.keys(COMMANDS).join(', ')}.\n`);
    return EXIT.usage;
  }
  const stopListening = io.signals ? cancelOnSignals() : () => {};
  try {
    const { readSettings, execute, HELP } = require(command.module);
    const env = runnerSettings(io.env || process.env);
    const settings = readSettings(rest, env);
    if (settings.help) {
      io.stdout.write(HELP);
      return EXIT.ok;
    }
    return await execute(settings, { ...io, env });
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`perfgate ${name}: ${err.message}\n`);
      return err.exitCode;
    }
    throw err;
  } finally {
    stopListening();
  }
}

module.exports = { main, COMMANDS, runnerSettings };
