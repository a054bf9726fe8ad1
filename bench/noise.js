#!/usr/bin/env node
'use strict';
// A/A noise of this machine: one server on both sides of a suite at its scale and timing, with
// more rounds, then the noise table (spread of round QPS and cpu/o, range of the paired ratios).
// Hold the measuring lock while recording figures:
//   flock /tmp/perfgate-measure.lock node bench/noise.js --base <basedir> [--rounds 8] [--out runs/noise]
//   node bench/noise.js --table runs/noise/results.json     (the table of an earlier run)
const path = require('node:path');
const { parseArgs } = require('node:util');
const core = require('@perfgate/core');
const { runComparison, readDocument, checkBasedir, cancelOnSignals } = require('perfgate');

const { values: opt } = parseArgs({
  options: {
    base: { type: 'string' },
    suite: { type: 'string', default: 'quick' },
    rounds: { type: 'string', default: '8' },
    out: { type: 'string', default: path.resolve(__dirname, '..', 'runs', 'noise') },
    table: { type: 'string' },
  },
});

async function main() {
  if (opt.table) {
    process.stdout.write(core.renderNoiseTable(core.noiseRows(readDocument(opt.table, 'results', { option: '--table' }))));
    return 0;
  }
  if (!opt.base) throw new core.UsageError('--base is missing; expected --base <basedir> (an installed server prefix)');
  const basedir = checkBasedir('--base', opt.base);
  cancelOnSignals();
  const outcome = await runComparison({
    config: core.loadThresholds(),
    suiteName: opt.suite,
    overrides: { rounds: Number(opt.rounds) },
    sides: { base: { basedir, label: 'A' }, head: { basedir, label: "A'" } },
    outDir: path.resolve(opt.out),
    io: { stdout: process.stdout, stderr: process.stderr },
  });
  if (!outcome.results) throw new Error(outcome.message);
  process.stdout.write(core.renderNoiseTable(core.noiseRows(outcome.results)));
  return outcome.results.status === 'ok' ? 0 : 4;
}

main().then((code) => { process.exitCode = code; }, (err) => {
  process.stderr.write(`noise: ${err.message}\n`);
  process.exitCode = err instanceof core.UsageError ? 2 : 4;
});
