#!/usr/bin/env node
// Runs the GitHub double as its own process, for act runs and for tests in other languages.
//
//   node test/support/github-api/cli.mjs [--config FILE] [--port N] [--artifacts-dir DIR] [--calls-out FILE]
//
// Prints one line, GITHUB_API_URL=http://127.0.0.1:<port>, once it is listening. Writes the call
// log as JSON to --calls-out on SIGUSR1 and on exit (SIGTERM, SIGINT); GET /_double/calls
// answers the same log at any time.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startGitHubDouble } from './index.mjs';

function fail(message) {
  process.stderr.write(`github-api double: ${message}\n`);
  process.exit(2);
}

function readOptions(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        config: { type: 'string' },
        port: { type: 'string' },
        'artifacts-dir': { type: 'string' },
        'calls-out': { type: 'string' },
      },
      strict: true,
    });
  } catch (error) {
    fail(`${error.message}; usage: cli.mjs [--config FILE] [--port N] [--artifacts-dir DIR] [--calls-out FILE]`);
  }
  const { values } = parsed;
  let options = {};
  if (values.config) {
    try {
      options = JSON.parse(readFileSync(values.config, 'utf8'));
    } catch (error) {
      fail(`--config ${values.config}: ${error.message}; expected a JSON file of double options`);
    }
    if (options.app?.publicKeyFile) {
      try {
        options.app.publicKey = readFileSync(options.app.publicKeyFile, 'utf8');
      } catch (error) {
        fail(`--config ${values.config}: app.publicKeyFile ${options.app.publicKeyFile}: ${error.message}`);
      }
    }
  }
  if (values.port !== undefined) {
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port ${values.port} is not valid; expected a port number 0-65535`);
    options.port = port;
  }
  if (values['artifacts-dir']) options.artifactsDir = values['artifacts-dir'];
  return { options, callsOut: values['calls-out'] };
}

const { options, callsOut } = readOptions(process.argv.slice(2));
let double;
try {
  double = await startGitHubDouble(options);
} catch (error) {
  fail(error.message);
}
process.stdout.write(`GITHUB_API_URL=${double.url}\n`);

const writeLog = () => {
  if (callsOut) double.writeCallLog(callsOut);
};
process.on('SIGUSR1', writeLog);
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, async () => {
    writeLog();
    await double.close();
    process.exit(0);
  });
}
