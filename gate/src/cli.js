'use strict';
const { EXIT, UsageError } = require('./errors');

// One module per subcommand, loaded on demand so that a broken or heavy command never slows
// down or breaks another.
const COMMANDS = {
  compare: { module: './commands/compare', summary: 'measure base against head and write the results' },
  judge: { module: './commands/judge', summary: 'judge stored results again (other limits) and rewrite the reports' },
  calibrate: { module: './commands/calibrate', summary: 'measure base against itself (A/A): noise, smallest catchable regression, limits' },
  build: { module: './commands/build', summary: 'build a commit of a server source tree into a cached prefix' },
  doctor: { module: './commands/doctor', summary: 'what is tuned on this runner and what is not, with the effect on noise' },
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
  try {
    return await require(command.module).run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`perfgate ${name}: ${err.message}\n`);
      return err.exitCode;
    }
    throw err;
  }
}

module.exports = { main, COMMANDS };
