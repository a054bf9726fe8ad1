#!/usr/bin/env node
'use strict';
// How often unsteady background work makes an unchanged build's row warn, fail or stay open
// on the instructions of all threads. A/A rows are drawn (the queries' own instructions
// within ±0.3%, every window's all-threads ratio log-normal with the given sd, or with
// heavier tails) and go through the compare loop's own steps: judge, nextStep (extra windows
// and recounts on fresh processes, the quick suite's budget), the merge of each step.
//   node bench/all-threads-noise.js [--rows 20000] [--sd 0.05] [--tails normal|t3] [--seed 1]
//                                   [--warn 1.005 --fail 1.01]
// MySQL 9.7's update-index_range=100 measured sd 0.050 per window (log all-threads ratio of
// unchanged builds, 18 windows in the stored runs); MariaDB 10.11's, about 0.002.
const { parseArgs } = require('node:util');
const core = require('@perfgate/core');
const { nextStep } = require('../core/src/next-step');
const { mergeResults, nextRoundIndex } = require('../core/src/merge-results');

const { values: opt } = parseArgs({
  options: {
    rows: { type: 'string', default: '20000' },
    sd: { type: 'string', default: '0.05' },
    tails: { type: 'string', default: 'normal' },
    seed: { type: 'string', default: '1' },
    suite: { type: 'string', default: 'quick' },
    // instr/o limits other than the suite's, e.g. what calibrate suggests on a quiet runner
    warn: { type: 'string' },
    fail: { type: 'string' },
  },
});
const ROWS = Number(opt.rows);
const SD = Number(opt.sd);
if (!(ROWS > 0) || !(SD >= 0) || !['normal', 't3'].includes(opt.tails)) {
  throw new core.UsageError('expected --rows N > 0, --sd >= 0 and --tails normal|t3');
}
const suite = core.findSuite(core.loadThresholds(), opt.suite);
const instructionLimits = opt.warn || opt.fail
  ? { warn: Number(opt.warn), fail: Number(opt.fail) }
  : suite.limits.default.instructions;
if (!(instructionLimits.warn > 1 && instructionLimits.fail >= instructionLimits.warn)) {
  throw new core.UsageError(`--warn ${opt.warn} --fail ${opt.fail}: expected both, with 1 < warn <= fail`);
}
const LIMITS = { default: { ...suite.limits.default, instructions: instructionLimits } };
const BUDGET = { ...core.stepBudget(suite.budget, { rounds: suite.measure.rounds, windows: suite.instructions.windows }), extra_rounds: 0, confirm_rounds: 0 };

// A small linear congruential generator: the same --seed draws the same rows.
let state = Number(opt.seed) >>> 0;
const uniform = () => {
  state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
  return (state + 0.5) / 4294967296;
};
const normal = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
// Student t with 3 degrees of freedom, scaled to unit variance.
const t3 = () => normal() / Math.sqrt((normal() ** 2 + normal() ** 2 + normal() ** 2) / 3) / Math.sqrt(3);
const draw = opt.tails === 't3' ? t3 : normal;

const OWN = 60000;
const BACKGROUND = 120000; // about twice the queries' own, as on MySQL 9.7
const ID = 'update-index_range=100';

function windows(n, run) {
  const window = (k, own, background) => ({
    events: 300, queries: 300, seconds: 1 + run / 10 + k / 100,
    connection: { instructions: Math.round(own * 300), threads: 1, per_query: own },
    background: { instructions: Math.round(background * 300), threads: 9, per_query: background },
  });
  const base = [];
  const head = [];
  for (let k = 0; k < n; k++) {
    const own = OWN * (1 + (uniform() - 0.5) * 0.006);
    const all = Math.exp(SD * draw());
    base.push(window(k, OWN, BACKGROUND));
    head.push(window(k, own, all * (OWN + BACKGROUND) - own));
  }
  const side = (list) => ({ windows: list, functions: { connection: [], background: [] } });
  return { events: 300, seed: 1, base: side(base), head: side(head) };
}

// Time settled as a pass, so that only instructions can move the row.
const rounds = [0, 1, 2, 3, 4].flatMap((index) => ['base', 'head'].map((side) => ({ index, side, qps: 1000, errors: 0, cpu_per_query_us: 100, cs_per_query: 1 })));
const doc = (bench) => ({
  schema: 'perfgate.results/v1', plan: { suite: opt.suite, benchmarks: [{ id: ID }] }, status: 'ok', errors: [],
  machine: { cpu_model: 'drawn', cores: 2, memory_bytes: 1, kernel: 'k', id: 'drawn' },
  sides: { base: { basedir: '/b', flavor: 'mysql', version: '9.7.2' }, head: { basedir: '/h', flavor: 'mysql', version: '9.7.2' } },
  benchmarks: [{ id: ID, name: ID, group: 'write', status: 'ok', ...bench }],
});

const counts = {};
let steps = 0;
for (let row = 0; row < ROWS; row++) {
  let results = doc({ rounds, instructions: windows(suite.instructions.windows, 0) });
  let verdict = core.judge(results, { limits: LIMITS });
  const spent = { extra_rounds: 0, confirmed: [], extra_windows: 0, recounted: [] };
  for (let k = 1; ; k++) {
    const step = nextStep(verdict, BUDGET, spent);
    if (step.action === 'done') break;
    steps++;
    const extension = { file: `results.extra-${k}.json`, purpose: step.action, first_round: nextRoundIndex(results), rounds: 0, windows: step.windows, benchmarks: step.ids };
    results = mergeResults([results, doc({ rounds: [], instructions: windows(step.windows, k) })], { extension });
    if (step.action === 'count') { spent.extra_windows += step.windows; spent.recounted.push(...step.ids); }
    if (step.action === 'recount') spent.recounted.push(...step.ids);
    verdict = core.judge(results, { limits: LIMITS });
  }
  const b = verdict.benchmarks[0];
  const key = `${b.verdict}${b.verdict === 'pass' && b.could_be ? ' (could be a warn)' : ''}${b.instructions_threads === 'all' ? ', decided by all threads' : ''}`;
  counts[key] = (counts[key] || 0) + 1;
}

const share = (n) => `${n} (${((100 * n) / ROWS).toFixed(2)}%)`;
console.log(`${ROWS} drawn A/A rows of ${ID}, all-threads sd ${SD} per window (${opt.tails} tails), limits ${JSON.stringify(LIMITS.default.instructions)}, suite ${opt.suite}'s window budget:`);
for (const [key, n] of Object.entries(counts).sort((a, b) => b[1] - a[1])) console.log(`  ${key.padEnd(40)} ${share(n)}`);
console.log(`  extra steps on fresh processes: ${steps} (${(steps / ROWS).toFixed(3)} per row)`);
