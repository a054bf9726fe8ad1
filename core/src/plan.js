'use strict';
// Resolves one suite of the loaded thresholds config into a perfgate.plan/v1 document: the
// exact list of microbenchmarks, scale and timing the harness will run. Pure: no I/O besides
// the schema check of its own output.
const { assertValid } = require('./schemas');
const { findSuite } = require('./config/thresholds');
const { UsageError } = require('./errors');
const { shardOf } = require('./shards');
const { FLAVORS } = require('./config/flavors');
const { planPinCpus } = require('./pin-cpus');

const AHI_SCRIPT = 'perfgate_ahi_mix';
const OVERRIDE_KEYS = ['seconds', 'rounds', 'tables', 'rows', 'threads', 'warmup_seconds', 'pin_cpus', 'signals', 'shard', 'side_schedule'];

function ahiShape(workload) {
  if (workload.update_percent === 0) return 'SELECT c FROM sbtestN WHERE id = ?';
  const set = workload.update === 'index' ? 'k = k + 1' : 'c = ?';
  return `SELECT c FROM sbtestN WHERE id = ?; ${workload.update_percent}% of events: UPDATE sbtestN SET ${set} WHERE id = ?`;
}

// quick/full: one benchmark per catalogue name (per thread count when there are several).
// Counting instructions needs each one's window size from the catalogue.
function listedBenchmarks(config, suite, threads, countsInstructions) {
  const out = [];
  for (const name of suite.benchmarks) {
    const entry = config.catalogue[name];
    for (const t of threads) {
      const benchmark = {
        id: threads.length === 1 ? name : `${name} threads=${t}`,
        name,
        group: entry.group,
        kind: entry.kind,
        script: entry.script,
        options: { ...entry.options },
        threads: t,
      };
      if (entry.shape) benchmark.shape = entry.shape;
      if (entry.ddl) benchmark.ddl = structuredClone(entry.ddl);
      if (countsInstructions) {
        if (!entry.instructions) {
          throw new UsageError(`--metric: '${name}' has no instructions.events in the catalogue; expected one for every microbenchmark whose instructions are counted (or --metric time)`);
        }
        benchmark.instructions_events = entry.instructions.events;
      }
      out.push(benchmark);
    }
  }
  return out;
}

// ahi: one benchmark per cell workload × AHI state × thread count, in that order, and with
// partition counts (`ahi.parts`) all cells of one count before the next: the harness restarts
// both servers with innodb_adaptive_hash_index_parts when it changes.
function ahiBenchmarks(suite, threads) {
  const out = [];
  for (const workload of suite.ahi.variants) {
    const options = { update_percent: workload.update_percent };
    if (workload.update) options.update = workload.update;
    for (const state of suite.ahi.states) {
      for (const t of threads) {
        out.push({
          id: `${workload.name} ahi=${state} threads=${t}`,
          name: workload.name,
          group: 'ahi',
          kind: workload.update_percent > 0 ? 'write' : 'read',
          script: AHI_SCRIPT,
          options: { ...options },
          threads: t,
          shape: ahiShape(workload),
          ahi: state,
          ...(workload.parts === null ? {} : { ahi_parts: workload.parts }),
        });
      }
    }
  }
  return out;
}

/**
 * @param config     loadThresholds() result
 * @param suiteName  a key of config.suites
 * @param overrides  {seconds, warmup_seconds, rounds, tables, rows, threads: [int], shard: {index, count}},
 *                   all optional, already validated by the caller; `shard` keeps the part of the
 *                   suite that shard runs (see shards.js) and records it in the plan
 * @param sides      {base: {basedir, label?, commit?, ref?}, head: {...}}
 * @param created    ISO timestamp recorded in the plan (optional, keeps the function pure)
 * @param runner     {cpus: [int]}: the CPUs this run may use, for a suite's `pin_cpus: split`
 *                   (without them a split suite runs unpinned)
 */
function resolvePlan(config, suiteName, overrides = {}, sides, created, runner = {}) {
  for (const key of Object.keys(overrides)) {
    if (!OVERRIDE_KEYS.includes(key)) throw new Error(`resolvePlan: unknown override '${key}'`);
  }
  const suite = findSuite(config, suiteName);
  const pick = (key, fallback) => (overrides[key] === undefined ? fallback : overrides[key]);
  const threads = pick('threads', suite.measure.threads);
  const signals = pick('signals', suite.measure.signals);
  const countsInstructions = signals.includes('instructions');
  if (countsInstructions && suite.ahi) throw new UsageError(`--metric: instructions are not counted for AHI cells (suite ${suite.name}); expected --metric time`);
  // Callgrind windows pair one base with one head, side by side on the runner's two cores.
  const heads = Object.keys(sides).filter((side) => side !== 'base').length;
  if (countsInstructions && heads > 1) {
    throw new UsageError(`--metric: a chain of ${heads} heads measures time only, but suite ${suite.name} counts instructions too (measure.signals); expected --metric time`);
  }
  const sideSchedule = pick('side_schedule', suite.measure.side_schedule);
  const pinCpus = planPinCpus(overrides.pin_cpus, suite.measure.pin_cpus, sideSchedule, runner.cpus);
  const plan = {
    schema: 'perfgate.plan/v1',
    suite: suite.name,
    ...(created ? { created } : {}),
    // base and head, and a chain's further heads (head2, ...) in their order.
    sides: Object.fromEntries(Object.entries(sides).map(([side, spec]) => [side, { ...spec }])),
    // Every flavour's profile: which one a side runs with is known once its server says what it
    // is (the harness asks it), so the choice is made there, per side.
    profiles: Object.fromEntries(FLAVORS.map((flavor) => {
      const profile = config.profiles[suite.profiles[flavor]];
      return [flavor, { name: profile.name, file: profile.file, options: { ...profile.options } }];
    })),
    scale: { tables: pick('tables', suite.scale.tables), rows: pick('rows', suite.scale.rows) },
    measure: {
      seconds: pick('seconds', suite.measure.seconds),
      warmup_seconds: pick('warmup_seconds', suite.measure.warmup_seconds),
      rounds: pick('rounds', suite.measure.rounds),
      ...(sideSchedule !== 'in-turn' ? { side_schedule: sideSchedule } : {}),
      ...(pinCpus ? { pin_cpus: pinCpus } : {}),
      signals: [...signals],
      ...(countsInstructions ? { instructions: { ...suite.instructions } } : {}),
    },
    benchmarks: suite.ahi ? ahiBenchmarks(suite, threads) : listedBenchmarks(config, suite, threads, countsInstructions),
  };
  if (overrides.shard) {
    const { index, count } = overrides.shard;
    plan.shard = { index, count, suite_benchmarks: plan.benchmarks.map((b) => b.id) };
    plan.benchmarks = shardOf(plan.benchmarks, index, count, suite.name);
  }
  assertValidPlan(plan);
  return plan;
}

// A plan for more rounds of some benchmarks of an earlier plan, continuing its round numbering.
function extensionPlan(plan, ids, rounds, firstRound) {
  const wanted = new Set(ids);
  const benchmarks = plan.benchmarks.filter((b) => wanted.has(b.id));
  if (benchmarks.length !== wanted.size) {
    const missing = ids.filter((id) => !benchmarks.some((b) => b.id === id));
    throw new Error(`extensionPlan: not in the plan: ${missing.join(', ')}`);
  }
  // Extra rounds are timed rounds: instruction windows are steady and counted once.
  const { instructions, ...measure } = plan.measure;
  const extended = {
    ...plan,
    measure: { ...measure, signals: ['time'], rounds, first_round: firstRound },
    benchmarks,
  };
  assertValidPlan(extended);
  return extended;
}

/**
 * A plan that counts `windows` more instruction windows of `ids` and times nothing. Run as its
 * own harness run, it starts fresh server processes: what it counts also checks that the
 * earlier count was not a property of one pair of processes.
 */
function instructionExtensionPlan(plan, ids, windows) {
  const wanted = new Set(ids);
  const benchmarks = plan.benchmarks.filter((b) => wanted.has(b.id));
  if (benchmarks.length !== wanted.size) {
    const missing = ids.filter((id) => !benchmarks.some((b) => b.id === id));
    throw new Error(`instructionExtensionPlan: not in the plan: ${missing.join(', ')}`);
  }
  if (!plan.measure.instructions) throw new Error('instructionExtensionPlan: the plan counts no instructions');
  const extended = {
    ...plan,
    measure: { ...plan.measure, signals: ['instructions'], instructions: { ...plan.measure.instructions, windows } },
    benchmarks,
  };
  assertValidPlan(extended);
  return extended;
}

// A plan that breaks its schema is a defect of perfgate, not bad input.
function assertValidPlan(plan) {
  assertValid('plan', plan, 'the plan');
  const ids = plan.benchmarks.map((b) => b.id);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice) throw new Error(`internal: the plan lists benchmark '${twice}' twice`);
}

/** The ids of a suite's rows as its plan names them at the suite's own thread counts. */
function suiteRowIds(config, suiteName) {
  const suite = findSuite(config, suiteName);
  const threads = suite.measure.threads;
  return (suite.ahi ? ahiBenchmarks(suite, threads) : listedBenchmarks(config, suite, threads, false)).map((b) => b.id);
}

module.exports = { resolvePlan, extensionPlan, instructionExtensionPlan, suiteRowIds, OVERRIDE_KEYS, AHI_SCRIPT };
