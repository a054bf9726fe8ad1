'use strict';
// The options that change what a run measures, shared by `perfgate compare` and
// `perfgate calibrate`: one definition, one parser, the same rules as the plan schema
// (whole seconds, at least two rounds), so no command can write a plan the harness refuses.
const core = require('@perfgate/core');

const { UsageError } = core;

const MEASURE_OPTIONS = {
  suite: { type: 'string', default: 'quick' },
  thresholds: { type: 'string' },
  seconds: { type: 'string' },
  'warmup-seconds': { type: 'string' },
  rounds: { type: 'string' },
  tables: { type: 'string' },
  rows: { type: 'string' },
  threads: { type: 'string' },
  'pin-cpus': { type: 'string' },
  metric: { type: 'string' },
  sides: { type: 'string' },
};

const METRICS = { time: ['time'], instructions: ['instructions'], both: ['time', 'instructions'] };

const MEASURE_HELP = `  --suite <name>          suite thresholds/suites/<name>.yml (default: quick)
  --thresholds <dir>      thresholds folder (default: the shipped thresholds/)
  --seconds <s>           length of one timed round in whole seconds, overrides measure.seconds
  --warmup-seconds <s>    discarded warm-up run per microbenchmark, overrides measure.warmup_seconds
  --rounds <n>            rounds per side, overrides measure.rounds (at least 2)
  --tables <n>            sysbench tables, overrides scale.tables
  --rows <n>              rows per table, overrides scale.rows
  --threads <n[,n…]>      client threads, overrides measure.threads (e.g. 1,4)
  --pin-cpus <sets>       server=<cpus>,client=<cpus>: run mysqld and sysbench on separate CPUs
                          (taskset lists), or none; default: $PERFGATE_PIN_CPUS, else the
                          suite's measure.pin_cpus (quick: split, sysbench on the last CPU and
                          mysqld on the others)
  --metric <what>         time, instructions or both: what to measure, overrides measure.signals
                          (instructions: per query under callgrind, in paired windows)
  --sides <how>           in-turn (one after the other, A B B A), together (every side's round
                          of one index at the same time) or alternating (every side up at once,
                          taking turns every 50 ms); overrides measure.side_schedule`;

function integerAtLeast(option, raw, min, example) {
  const v = Number(raw);
  if (!/^\d+$/.test(String(raw).trim()) || v < min) {
    throw new UsageError(`--${option} '${raw}': not an integer >= ${min}; expected e.g. --${option} ${example}`);
  }
  return v;
}

function threadList(raw) {
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^\d+$/.test(p) || Number(p) < 1)) {
    throw new UsageError(`--threads '${raw}': not a list of positive integers; expected e.g. --threads 1,4`);
  }
  const threads = parts.map(Number);
  if (new Set(threads).size !== threads.length) {
    throw new UsageError(`--threads '${raw}': repeats a thread count; expected distinct counts, e.g. --threads 1,4`);
  }
  return threads;
}

/**
 * Plan overrides from parsed option values (node:util parseArgs `values`).
 * @returns {overrides, rounds: n | undefined}
 */
function measureOverrides(values, env = {}) {
  const overrides = {};
  // Whole seconds: sysbench 1.0.20 takes --time as an integer.
  if (values.seconds !== undefined) overrides.seconds = integerAtLeast('seconds', values.seconds, 1, 3);
  if (values['warmup-seconds'] !== undefined) overrides.warmup_seconds = integerAtLeast('warmup-seconds', values['warmup-seconds'], 0, 2);
  if (values.rounds !== undefined) overrides.rounds = integerAtLeast('rounds', values.rounds, 2, 6);
  if (values.tables !== undefined) overrides.tables = integerAtLeast('tables', values.tables, 1, 8);
  if (values.rows !== undefined) overrides.rows = integerAtLeast('rows', values.rows, 1, 10000);
  if (values.threads !== undefined) overrides.threads = threadList(values.threads);
  const pin = core.pinFromSettings(values['pin-cpus'], env);
  if (pin !== undefined) overrides.pin_cpus = pin;  // null: none, over a suite's split too
  if (values.metric !== undefined) {
    if (!METRICS[values.metric]) throw new UsageError(`--metric '${values.metric}': expected time, instructions or both`);
    overrides.signals = METRICS[values.metric];
  }
  if (values.sides !== undefined) {
    if (!Object.hasOwn(core.SIDE_SCHEDULES, values.sides)) throw new UsageError(`--sides '${values.sides}': expected ${Object.keys(core.SIDE_SCHEDULES).join(', ')}`);
    overrides.side_schedule = values.sides;
  }
  return overrides;
}

/**
 * [mysqld] options of one side from repeated --base-option/--head-option KEY=VALUE, checked
 * against the plan schema's rules for server options (perfgate's own paths are refused).
 */
function sideOptions(option, values = []) {
  const options = {};
  for (const text of values) {
    const m = /^([A-Za-z0-9_.-]+)=(.*)$/.exec(text);
    if (!m) throw new UsageError(`--${option} '${text}': expected NAME=VALUE, a [mysqld] option such as innodb_flush_log_at_trx_commit=1`);
    options[m[1]] = m[2];
  }
  const [first] = core.fragmentProblems('plan', 'serverOptions', options);
  if (first) throw new UsageError(`--${option} '${first.path.join('.')}': ${first.message}`);
  return options;
}

// --tests a,b: microbenchmark names of the suite, each once (core.narrowSuite checks them).
function testList(raw) {
  const names = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (!names.length) throw new UsageError(`--tests '${raw}': no microbenchmark named; expected e.g. --tests update-index_range=100,point-query`);
  return [...new Set(names)];
}

module.exports = { MEASURE_OPTIONS, MEASURE_HELP, measureOverrides, sideOptions, integerAtLeast, testList };
