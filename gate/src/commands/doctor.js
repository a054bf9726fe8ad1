'use strict';
// `perfgate doctor`: what is tuned on this runner and what is not, with the likely effect of
// each on noise. Reads the fingerprint from the harness (or from a saved file), so that what
// it says is what every results.json made here records.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { EXIT, UsageError } = require('../errors');
const { diagnose, warnings, describeMachine } = require('../doctor');

const HARNESS_DIR = path.resolve(__dirname, '..', '..', '..', 'harness');

const HELP = `usage: perfgate doctor [--json] [--fingerprint FILE] [--data-dir DIR]

  --json              print {machine, checks, warnings} as JSON
  --fingerprint FILE  diagnose a saved fingerprint, or the machine of a results.json
  --data-dir DIR      folder whose disk and filesystem to check (default: current folder)

Exit 0 whatever the findings: doctor informs, it does not gate.
`;

function parseArgs(argv) {
  const opts = { json: false, fingerprint: null, dataDir: null, help: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') opts.json = true;
    else if (a === '--help' || a === '-h') opts.help = true;
    else if (a === '--fingerprint' || a === '--data-dir') {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${a} needs a value`);
      if (a === '--fingerprint') opts.fingerprint = v; else opts.dataDir = v;
    } else throw new UsageError(`unknown argument '${a}'; expected --json, --fingerprint FILE or --data-dir DIR`);
  }
  return opts;
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

function measureFingerprint(dataDir, env) {
  const python = env.PERFGATE_PYTHON || 'python3';
  const args = ['-m', 'perfgate_harness', 'fingerprint'];
  if (dataDir) args.push('--data-dir', dataDir);
  const pythonPath = env.PYTHONPATH ? `${HARNESS_DIR}${path.delimiter}${env.PYTHONPATH}` : HARNESS_DIR;
  const child = spawnSync(python, args, { env: { ...env, PYTHONPATH: pythonPath }, encoding: 'utf8' });
  if (child.error || child.status !== 0) {
    const why = child.error ? child.error.message : (child.stderr || '').trim().split('\n').pop();
    return { error: `cannot read the machine fingerprint (${python} ${args.join(' ')}): ${why}` };
  }
  return { fingerprint: JSON.parse(child.stdout) };
}

const MARK = { true: 'ok  ', false: 'WARN', null: 'n/a ' };

function formatText(fp, checks) {
  const width = Math.max(...checks.map((c) => c.check.length));
  const lines = [`perfgate doctor: ${describeMachine(fp)}`];
  for (const c of checks) lines.push(`  ${MARK[String(c.ok)]}  ${c.check.padEnd(width)}  ${c.state}: ${c.effect}`);
  const n = checks.filter((c) => c.ok === false).length;
  lines.push(n === 0
    ? 'Nothing untuned that perfgate can see.'
    : `${n} warning${n === 1 ? '' : 's'}; every report made on this runner carries them. n/a: not controllable on this host.`);
  return lines.join('\n') + '\n';
}

async function run(argv, io) {
  const opts = parseArgs(argv);
  if (opts.help) {
    io.stdout.write(HELP);
    return EXIT.ok;
  }
  let fp;
  if (opts.fingerprint) fp = readFingerprintFile(opts.fingerprint);
  else {
    const got = measureFingerprint(opts.dataDir, io.env || process.env);
    if (got.error) {
      io.stderr.write(`perfgate doctor: ${got.error}\n`);
      return EXIT.error;
    }
    fp = got.fingerprint;
  }
  const checks = diagnose(fp);
  if (opts.json) io.stdout.write(JSON.stringify({ machine: fp, checks, warnings: warnings(checks) }, null, 2) + '\n');
  else io.stdout.write(formatText(fp, checks));
  return EXIT.ok;
}

module.exports = { run, parseArgs, formatText };
