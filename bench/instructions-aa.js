#!/usr/bin/env node
'use strict';
// A/A of instructions per query: one server against itself, instructions only, several times,
// through the same loop as `perfgate compare`. Prints per microbenchmark the spread of the
// instr/o estimates over the runs and of the paired windows within them, and counts the
// instruction verdicts: how often would an unchanged server fail on instructions?
//   node bench/instructions-aa.js --base <basedir> [--runs 10] [--suite quick] [--out runs/instructions-aa]
// One JSON line per run goes to --jsonl (default <out>/runs.jsonl).
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const core = require('@perfgate/core');
const { runComparison, checkBasedir, cancelOnSignals, cancellation } = require('perfgate');

const { values: opt } = parseArgs({
  options: {
    base: { type: 'string' },
    runs: { type: 'string', default: '10' },
    suite: { type: 'string', default: 'quick' },
    out: { type: 'string', default: path.resolve(__dirname, '..', 'runs', 'instructions-aa') },
    jsonl: { type: 'string' },
  },
});

const pct = (x) => `${(100 * x).toFixed(2)}%`;

async function main() {
  if (!opt.base) throw new core.UsageError('--base is missing; expected --base <basedir> (an installed server prefix)');
  const basedir = checkBasedir('--base', opt.base);
  const runs = Number(opt.runs);
  const config = core.loadThresholds();
  const suite = core.findSuite(config, opt.suite);
  const jsonl = opt.jsonl || path.join(opt.out, 'runs.jsonl');
  fs.mkdirSync(path.dirname(jsonl), { recursive: true });
  cancelOnSignals();
  const rows = [];
  for (let k = 0; k < runs; k++) {
    const started = Date.now();
    const outcome = await runComparison({
      config, suiteName: opt.suite, overrides: { signals: ['instructions'] },
      sides: { base: { basedir, label: 'A' }, head: { basedir, label: "A'" } },
      outDir: path.join(opt.out, `run-${k}`), judge: core.judge,
      io: { stdout: process.stdout, stderr: process.stderr },
    });
    if (cancellation()) throw new Error(`cancelled by ${cancellation()}`);
    if (!outcome.verdict) throw new Error(`run ${k}: ${outcome.message}`);
    const seconds = (Date.now() - started) / 1000;
    const record = {
      run: k, seconds, phase_seconds: outcome.results.instructions.seconds,
      benchmarks: outcome.verdict.benchmarks.map((b) => ({ id: b.id, verdict: b.instructions_verdict, instr: b.instructions_per_query, per_query: b.instructions.per_query })),
    };
    fs.appendFileSync(jsonl, `${JSON.stringify(record)}\n`);
    rows.push(record);
    process.stderr.write(`instructions-aa: run ${k + 1}/${runs}: ${seconds.toFixed(0)} s (instruction phase ${record.phase_seconds.toFixed(0)} s)\n`);
  }
  const limits = suite.limits.default.instructions;
  const verdicts = rows.flatMap((r) => r.benchmarks.map((b) => b.verdict));
  const count = (v) => verdicts.filter((x) => x === v).length;
  const lines = [
    `A/A instructions: ${runs} runs of ${suite.benchmarks.length} microbenchmarks (suite ${opt.suite}, ${suite.instructions.windows} windows per side), base = head = ${basedir}; limits warn ${limits.warn} fail ${limits.fail}.`,
    '',
    '| microbenchmark | instr/o per query | A/A instr/o min–max (over runs) | paired windows min–max | largest interval half-width |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const id of suite.benchmarks) {
    const of = rows.map((r) => r.benchmarks.find((b) => b.id === id));
    const estimates = of.map((b) => b.instr.estimate);
    const windows = of.flatMap((b) => b.instr.ratios);
    const half = Math.max(...of.map((b) => (b.instr.high - b.instr.low) / 2));
    const perQuery = of[0].per_query.base;
    lines.push(`| ${id} | ${core.formatCount(perQuery)} | ${Math.min(...estimates).toFixed(4)}–${Math.max(...estimates).toFixed(4)} | ${Math.min(...windows).toFixed(4)}–${Math.max(...windows).toFixed(4)} | ${pct(half)} |`);
  }
  const n = verdicts.length;
  lines.push('', `Instruction verdicts: ${n} (pass ${count('pass')}, warn ${count('warn')}, undecided ${count('undecided')}, fail ${count('fail')}, error ${count('error')}); `
    + `false-fail rate ${count('fail')}/${n}, 95% upper bound ${pct(core.statistics.binomialUpperBound(count('fail'), n))}.`);
  lines.push(`Wall time per run: ${Math.min(...rows.map((r) => r.seconds)).toFixed(0)}–${Math.max(...rows.map((r) => r.seconds)).toFixed(0)} s; instruction phase ${Math.min(...rows.map((r) => r.phase_seconds)).toFixed(0)}–${Math.max(...rows.map((r) => r.phase_seconds)).toFixed(0)} s.`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`instructions-aa: ${err.message}\n`);
  process.exitCode = err instanceof core.UsageError ? 2 : 4;
});
