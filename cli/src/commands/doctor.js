'use strict';
// `perfgate doctor`: what is tuned on this runner and what is not, with the likely effect of
// each on noise, and whether pull-request code can run in the sandbox here. Reads the fingerprint from the harness (or from a saved file), so that what
// it says is what every results.json made here records.
const fs = require('node:fs');
const core = require('@perfgate/core');
const { parseCommandLine } = require('../command-line');
const { machineFingerprint } = require('../harness-process');
const { probeSandbox } = require('../processes');
const { sandboxCheck, sandboxMode } = require('../sandbox');
const { findTools, toolChecks } = require('../tool-checks');

const { EXIT, UsageError } = core;

const OPTIONS = {
  json: { type: 'boolean' },
  fingerprint: { type: 'string' },
  'data-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

const HELP = `usage: perfgate doctor [--json] [--fingerprint FILE] [--data-dir DIR]

  --json              print {machine, checks, warnings, sandbox, tools} as JSON
  --fingerprint FILE  diagnose a saved fingerprint, or the machine of a results.json
  --data-dir DIR      folder whose disk and filesystem to check (default: current folder)

Exit 0 whatever the findings: doctor informs, it does not gate.
`;

function readSettings(argv) {
  const v = parseCommandLine('doctor', argv, OPTIONS).values;
  return { help: Boolean(v.help), json: Boolean(v.json), fingerprint: v.fingerprint || null, dataDir: v['data-dir'] || null };
}

function readFingerprintFile(file) {
  let doc;
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--fingerprint '${file}': ${err.code === 'ENOENT' ? 'no such file' : err.message}; expected a fingerprint or results.json`);
  }
  const fp = doc && doc.machine ? doc.machine : doc;
  if (!fp || typeof fp !== 'object' || typeof fp.cores !== 'number') {
    throw new UsageError(`--fingerprint '${file}': no machine fingerprint in it; expected an object with cores, cpu_model, ... or a results.json with 'machine'`);
  }
  return fp;
}

const MARK = { true: 'ok  ', false: 'WARN', null: 'n/a ' };

// `host`: checks of this host that are not about noise (the sandbox), after the summary of those
// that are, which reports carry.
function formatText(fp, checks, host = []) {
  const width = Math.max(...[...checks, ...host].map((c) => c.check.length));
  const line = (c) => `  ${MARK[String(c.ok)]}  ${c.check.padEnd(width)}  ${c.state}: ${c.effect}`;
  const lines = [`perfgate doctor: ${core.describeMachine(fp)}`, ...checks.map(line)];
  const n = checks.filter((c) => c.ok === false).length;
  lines.push(n === 0
    ? 'Nothing untuned that perfgate can see.'
    : `${n} warning${n === 1 ? '' : 's'}; every report made on this runner carries them. n/a: not controllable on this host.`);
  lines.push(...host.map(line));
  return lines.join('\n') + '\n';
}

async function execute(opts, io) {
  const env = io.env || process.env;
  let fp;
  if (opts.fingerprint) fp = readFingerprintFile(opts.fingerprint);
  else {
    const got = machineFingerprint({ env, dataDir: opts.dataDir });
    if (got.error) {
      io.stderr.write(`perfgate doctor: ${got.error}\n`);
      return EXIT.error;
    }
    fp = got.fingerprint;
  }
  const checks = core.diagnose(fp);
  // The sandbox is this host's, not the saved fingerprint's.
  const sandbox = opts.fingerprint ? null : sandboxCheck({ mode: sandboxMode(env), probe: probeSandbox });
  const tools = opts.fingerprint ? [] : toolChecks({ ...findTools(env), countedMalloc: fp.counted_malloc || null });
  if (opts.json) io.stdout.write(JSON.stringify({ machine: fp, checks, warnings: core.warnings(checks), ...(sandbox ? { sandbox, tools } : {}) }, null, 2) + '\n');
  else io.stdout.write(formatText(fp, checks, sandbox ? [sandbox, ...tools] : []));
  return EXIT.ok;
}

module.exports = { readSettings, execute, formatText, HELP };
