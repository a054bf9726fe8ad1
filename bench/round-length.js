#!/usr/bin/env node
'use strict';
// Long rounds or many short ones? One server against itself (A/A), time only, with the same
// timed seconds per side spent as rounds of different lengths (2 s × 15, 6 s × 5, 10 s × 3 by
// default), the lengths interleaved and repeated; then, per length, the spread of the paired
// rQPS ratios and what it means for a gate: the 95% interval's half-width at that spend, and
// the pairs (and timed seconds per side) an interval needs to close within 5% and 15%.
// Every run measures exactly the rounds asked (the suite's extra and confirming rounds are
// set to 0 in a copy of the thresholds). Hold the measuring lock while recording figures:
// With --sides in-turn,together each length is also measured with both sides' rounds of one
// index at the same time (perfgate compare --sides together), in the same interleaving.
//   flock /tmp/perfgate-measure.lock node bench/round-length.js --base <basedir>
//       [--lengths 2x15,6x5,10x3] [--sides in-turn,together] [--repeats 2]
//       [--tests point-query,update-index_range=100]
//       [--out runs/round-length]
//   node bench/round-length.js --table runs/round-length     (the tables of an earlier run)
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { parseArgs } = require('node:util');
const { parseDocument } = require('yaml');
const core = require('@perfgate/core');

const REPO = path.resolve(__dirname, '..');
const { values: opt } = parseArgs({
  options: {
    base: { type: 'string' },
    suite: { type: 'string', default: 'quick' },
    lengths: { type: 'string', default: '2x15,6x5,10x3' },
    sides: { type: 'string', default: 'in-turn' },
    repeats: { type: 'string', default: '2' },
    tests: { type: 'string', default: 'point-query,update-index_range=100' },
    out: { type: 'string', default: path.join(REPO, 'runs', 'round-length') },
    table: { type: 'string' },
  },
});

function parseLengths(text) {
  return text.split(',').map((word) => {
    const m = /^(\d+)x(\d+)$/.exec(word.trim());
    if (!m || Number(m[1]) < 1 || Number(m[2]) < 2) {
      throw new core.UsageError(`--lengths: ${JSON.stringify(word)} is not <seconds>x<rounds>; expected e.g. 2x15,6x5 (seconds ≥ 1, rounds ≥ 2)`);
    }
    return { seconds: Number(m[1]), rounds: Number(m[2]), name: `${m[1]}s×${m[2]}` };
  });
}

// Every length once per way of running the sides, as one list of conditions.
function parseConditions(lengthsText, sidesText) {
  const ways = sidesText.split(',').map((w) => w.trim());
  for (const way of ways) {
    if (!Object.hasOwn(core.SIDE_SCHEDULES, way)) throw new core.UsageError(`--sides: ${JSON.stringify(way)} is not one of ${Object.keys(core.SIDE_SCHEDULES).join(', ')}; expected e.g. --sides in-turn,alternating`);
  }
  return parseLengths(lengthsText).flatMap((length) => ways.map((sides) => ({
    ...length, sides,
    // Run folders and names of in-turn conditions stay as before, so earlier runs still read.
    key: sides === 'in-turn' ? `${length.seconds}x${length.rounds}` : `${length.seconds}x${length.rounds}-${sides}`,
    name: sides === 'in-turn' ? length.name : `${length.name} ${sides}`,
  })));
}

// A copy of the shipped thresholds whose suite measures no extra or confirming rounds.
function fixedRoundThresholds(dir, suite) {
  fs.cpSync(path.join(REPO, 'thresholds'), dir, { recursive: true });
  const file = path.join(dir, 'suites', `${suite}.yml`);
  const doc = parseDocument(fs.readFileSync(file, 'utf8'));
  doc.setIn(['budget', 'extra_pairs'], 0);
  fs.writeFileSync(file, doc.toString());
}

const runName = (length, repeat) => `${length.key}-${repeat}`;

function measure(lengths, repeats, basedir) {
  const out = path.resolve(opt.out);
  const thresholds = path.join(out, 'thresholds');
  fs.mkdirSync(out, { recursive: true });
  if (!fs.existsSync(thresholds)) fixedRoundThresholds(thresholds, opt.suite);
  for (let repeat = 1; repeat <= repeats; repeat++) {
    for (const length of lengths) {
      const dir = path.join(out, runName(length, repeat));
      if (fs.existsSync(path.join(dir, 'verdict.json'))) continue; // kept from an earlier call
      process.stderr.write(`round-length: ${length.name}, repeat ${repeat}\n`);
      const r = spawnSync('node', [path.join(REPO, 'cli', 'bin', 'perfgate.js'), 'compare', '--base', basedir, '--head', basedir,
        '--thresholds', thresholds, '--suite', opt.suite, '--tests', opt.tests, '--metric', 'time',
        '--seconds', String(length.seconds), '--rounds', String(length.rounds), '--sides', length.sides, '--out', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
      if (r.status === 4 || r.status === 2 || r.status === null) throw new Error(`perfgate compare of ${dir} ended with ${r.status ?? r.signal}`);
    }
  }
}

function tables(lengths) {
  const out = path.resolve(opt.table || opt.out);
  if (!fs.existsSync(out) || !fs.statSync(out).isDirectory()) throw new core.UsageError(`--table: ${out} is not a folder; expected the --out folder of an earlier run`);
  const byLength = {};
  for (const length of lengths) {
    const runs = fs.readdirSync(out).filter((d) => /^\d+$/.test(d.slice(length.key.length + 1)) && d.startsWith(`${length.key}-`)
      && fs.existsSync(path.join(out, d, 'results.json')))
      .map((d) => JSON.parse(fs.readFileSync(path.join(out, d, 'results.json'), 'utf8')))
      .filter((r) => r.status === 'ok');
    if (runs.length) byLength[length.name] = runs;
  }
  const names = Object.keys(byLength);
  if (!names.length) throw new core.UsageError(`${out}: no finished runs of ${lengths.map((l) => l.name).join(', ')}`);
  const noise = core.conditionNoise(byLength);
  const lines = [core.renderConditionNoise(noise, names), ''];
  // What a spread means at each length: the interval after the same timed seconds, and the
  // pairs an interval needs to close within ±5% and ±15% (t ≈ 2 once there are many pairs).
  lines.push('| microbenchmark | rounds | pairs measured | sd of log ratio | ±95% at this spend | pairs for ±5% | pairs for ±15% | timed s per side for ±5% | wall s of rounds for ±5% |');
  lines.push('|---|---|--:|--:|--:|--:|--:|--:|--:|');
  for (const [id, byName] of Object.entries(noise)) {
    for (const length of lengths) {
      const s = byName[length.name];
      if (!s || s.ratio_sd === null) continue;
      const half = core.statistics.studentTQuantile(0.975, length.rounds - 1) * s.ratio_sd / Math.sqrt(length.rounds);
      const pairsFor = (width) => Math.max(2, Math.ceil((1.96 * s.ratio_sd / Math.log(1 + width)) ** 2));
      lines.push(`| ${id} | ${length.name} | ${s.pairs} | ${(100 * s.ratio_sd).toFixed(1)}% | ±${(100 * (Math.exp(half) - 1)).toFixed(1)}% `
        + `| ${pairsFor(0.05)} | ${pairsFor(0.15)} | ${pairsFor(0.05) * length.seconds} `
        // Together, a pair's two rounds take the wall time of one.
        + `| ${pairsFor(0.05) * length.seconds * (length.sides === 'together' ? 1 : 2)} |`);
    }
  }
  return lines.join('\n') + '\n';
}

function main() {
  const lengths = parseConditions(opt.lengths, opt.sides);
  const repeats = Number(opt.repeats);
  if (!Number.isInteger(repeats) || repeats < 1) throw new core.UsageError(`--repeats: ${JSON.stringify(opt.repeats)} is not a whole number ≥ 1`);
  if (!opt.table) {
    if (!opt.base) throw new core.UsageError('--base is missing; expected --base <basedir> (an installed server prefix) or --table <dir>');
    measure(lengths, repeats, path.resolve(opt.base));
  }
  process.stdout.write(tables(lengths));
  return 0;
}

try {
  process.exitCode = main();
} catch (err) {
  process.stderr.write(`round-length: ${err.message}\n`);
  process.exitCode = err instanceof core.UsageError ? 2 : 4;
}
