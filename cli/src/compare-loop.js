'use strict';
// One comparison: resolve the plan, run the harness, judge, and while the budget allows
// measure more rounds of what is undecided and re-measure what fails; leave the run folder
// complete. Shared by `perfgate compare` and `perfgate calibrate` (head = base).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const core = require('@perfgate/core');
const { runHarness, HARNESS_EXIT } = require('./harness-process');
const { explainStep } = require('./explain-step');
const { explainedVerdict } = require('./explain-causes');
const { writeDocument, readDocument, clearRunOutputs, makeRunFolder, removeServerData } = require('./own-files');
const { cancellation, sandboxFor } = require('./processes');
const { runnerCpus } = require('./runner-settings');

const { EXIT } = core;

/**
 * Runs the harness on one plan and reads what it wrote.
 * @returns {results|null, exitCode, message|null}
 */
async function measure({ plan, outDir, planName, resultsName, stage, reuseData, sandboxed = false, io, env, clock = null, answer = null }) {
  const planFile = path.join(outDir, planName);
  writeDocument(planFile, 'plan', plan);
  const ids = plan.benchmarks.map((b) => b.id);
  const { code, signal, spawnError } = await runHarness({
    planFile,
    outDir,
    resultsName,
    reuseData,
    env,
    sandboxed,
    basedirs: [...new Set(Object.values(plan.sides).map((side) => side.basedir))],
    stderr: io.stderr,
    answer,
    onEvent: (event) => {
      if (clock) clock.mark(core.phaseOf(event, stage));
      const line = core.formatHarnessProgress(event, { stage, firstRound: plan.measure.first_round || 0, ids });
      if (line) io.stderr.write(`${line}\n`);
    },
  });
  if (spawnError) return { results: null, exitCode: EXIT.error, message: `cannot start the harness: ${spawnError.message}` };
  if (cancellation()) return { results: null, exitCode: EXIT.error, message: `cancelled by ${cancellation()}` };
  if (code === HARNESS_EXIT.badPlan) {
    return { results: null, exitCode: EXIT.usage, message: `the harness refused ${planName} (see its message above)` };
  }
  if (code !== HARNESS_EXIT.ok && code !== HARNESS_EXIT.runError) {
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    return { results: null, exitCode: EXIT.error, message: `the harness ${how} without results` };
  }
  const resultsFile = path.join(outDir, resultsName);
  if (!fs.existsSync(resultsFile)) {
    return { results: null, exitCode: EXIT.error, message: `the harness exited with code ${code} but wrote no ${resultsName}` };
  }
  let results;
  try {
    results = readDocument(resultsFile, 'results');
  } catch (err) {
    return { results: null, exitCode: EXIT.error, message: err.message };
  }
  if (results.status !== 'ok') {
    return { results, exitCode: EXIT.error, message: `the run has errors: ${describeErrors(results)}` };
  }
  return { results, exitCode: EXIT.ok, message: null };
}

// The first error in one line (the full list is in results.json and the reports): a failed
// server makes every benchmark after it fail with the same long message.
function describeErrors(results) {
  const errors = results.errors || [];
  if (errors.length === 0) return `status ${results.status}`;
  const e = errors[0];
  const where = [e.benchmark, e.side, e.step].filter(Boolean).join('/');
  let line = `${where ? `${where}: ` : ''}${String(e.message).split('\n')[0]}`;
  if (line.length > 240) line = `${line.slice(0, 239)}…`;
  return errors.length > 1 ? `${line} (and ${errors.length - 1} more in results.json)` : line;
}

const STAGE = { extend: 'extra rounds', confirm: 'confirm', count: 'extra windows', recount: 'recount' };
// The phases of narrowing open rows, which the budget's minutes bound (more pairs on a row's
// own servers are 'extra rounds' too); confirmations are not bound by them.
const NARROWING = [STAGE.extend, STAGE.count];

function describeStep(step, ids) {
  const n = step.windows ?? step.rounds;
  const unit = step.windows ? 'instruction window' : 'round';
  const what = {
    extend: 'whose time is still open',
    confirm: 'beyond a time limit, confirming on fresh servers',
    count: 'whose instructions are still open',
    recount: 'beyond an instructions limit, counting again on fresh servers',
  }[step.action];
  return `${n} more ${unit}${n === 1 ? '' : 's'} per side of ${ids.length} ${what}: ${ids.join(', ')}`;
}

// The plan of one adaptive step: instruction windows or timed rounds of the rows it names.
function stepPlan(plan, step, ids, firstRound) {
  return step.windows
    ? core.instructionExtensionPlan(plan, ids, step.windows)
    : core.extensionPlan(plan, ids, step.rounds, firstRound);
}

/**
 * The results.json of a run that was cancelled: what the run was, that it was cancelled, and
 * no rounds (a cancelled measurement is not one). Written so that whoever looks at the run
 * folder (a person, the action's post step) sees why it holds nothing else.
 */
function cancelledResults({ plan, signal, started, earlier }) {
  return {
    schema: 'perfgate.results/v1',
    plan,
    status: 'cancelled',
    errors: [{ side: null, benchmark: null, step: 'cancelled', message: `cancelled by ${signal}; nothing measured counts` }],
    started,
    finished: new Date().toISOString(),
    machine: (earlier && earlier.machine) || { cpu_model: (os.cpus()[0] || {}).model || 'unknown', cores: os.cpus().length, memory_bytes: os.totalmem(), kernel: os.release() },
    sides: (earlier && earlier.sides) || {
      base: { basedir: plan.sides.base.basedir, version: 'unknown (cancelled)', ...(plan.sides.base.commit ? { commit: plan.sides.base.commit } : {}) },
      head: { basedir: plan.sides.head.basedir, version: 'unknown (cancelled)', ...(plan.sides.head.commit ? { commit: plan.sides.head.commit } : {}) },
    },
    benchmarks: [],
  };
}

/**
 * Measures, judges, and while the budget allows measures more rounds of what is undecided and
 * re-measures what fails, re-judging after each step. Leaves plan.json, results.json (every
 * round, merged), the extension plans and results, and — when `judge` is given — the verdict.
 *
 * @param config     loadThresholds() result
 * @param suiteName  suite to run
 * @param overrides  plan overrides (see core resolvePlan)
 * @param budget     the suite's budget {extra_pairs, minutes}, or an override of it
 * @param sides      {base: {basedir, label}, head: {basedir, label}} with checked basedirs
 * @param outDir     run folder
 * @param judge      (results, suite) -> perfgate.verdict/v2 (a chain: core.judgeChain, perfgate.chain/v2),
 *                   or null to measure only
 * @param nextStep   (verdict, budget, spent, plan) -> the next adaptive step (a chain:
 *                   core.chainStep, whose steps name their plan_ids)
 * @param io         {stdout, stderr}
 * @param explain    core.parseExplainAsk() of --explain: the rows the explanation step looks at
 *                   once the rows are judged for the last time (explain-step.js); null: none
 * @param keepData   keep the loaded datadirs under <outDir>/servers/ (removed by default)
 * @param sandbox    sandboxFor() of the run (whether the harness, its servers and sysbench run
 *                   in the sandbox); by default, in it when this host has it
 * @returns {plan, results|null, verdict|null, explain|null, unexplained: why the explanation
 *          step left no explain.json | null, steps, phases: [{phase, seconds}], exitCode,
 *          message|null, cancelled: signal|null}
 */
async function runComparison(args) {
  try {
    const outcome = await measureAndDecide(args);
    const signal = cancellation();
    if (signal) {
      // Whatever was measured before the signal is not a result: say so and nothing else.
      for (const entry of fs.readdirSync(args.outDir)) {
        if (/^(results|plan)\.extra-\d+\.json$|^(verdict\.json|explain\.json|comment\.md|summary\.md|report\.html|chain\.json|chain\.csv|chain\.tsv|heads|explain)$/.test(entry)) fs.rmSync(path.join(args.outDir, entry), { recursive: true, force: true });
      }
      writeDocument(path.join(args.outDir, 'results.json'), 'results',
        cancelledResults({ plan: outcome.plan, signal, started: outcome.started, earlier: outcome.results }));
      return { ...outcome, results: null, verdict: null, cancelled: signal, message: `cancelled by ${signal}` };
    }
    return { ...outcome, cancelled: null };
  } finally {
    if (!args.keepData) removeServerData(args.outDir);
  }
}

/**
 * The harness's questions after each pair of a row's rounds (measure.rounds_on_request): one
 * more pair on the same servers while core.roundsNow says its time could still change the
 * verdict; what a row gets comes off its own extra-round budget (spent.on_request). Not for a
 * chain, whose heads are judged apart (core.chainStep decides their steps).
 * @returns {most, answer(event)} or null when the budget has no extra rounds
 */
function roundsOnRequest(suite, budget, spent, io, clock) {
  if (!(budget.extra_rounds > 0)) return null;
  const answer = (event) => {
    let more = 0;
    try {
      if (event.event === 'more_rounds?' && event.record && event.record.id === event.benchmark) {
        spent.seconds = clock.secondsIn(NARROWING);
        more = Math.min(core.roundsNow(core.judgeRow(event.record, suite), budget, spent), Number.isInteger(event.most) ? event.most : 0);
      }
    } catch (err) {
      // No answer means no more rounds here; the steps after the run still measure what is open.
      io.stderr.write(`perfgate compare: internal: cannot judge ${event.benchmark} between its rounds: ${err.message}\n`);
      more = 0;
    }
    if (more > 0) spent.on_request[event.benchmark] = (spent.on_request[event.benchmark] || 0) + more;
    return { benchmark: event.benchmark, more_rounds: more };
  };
  return { most: budget.extra_rounds, answer };
}

// What a step takes from the budget. Every instruction step runs on fresh server
// processes, so the rows it counted need no separate re-count.
function spend(spent, step) {
  switch (step.action) {
    case 'extend': spent.extra_rounds += step.rounds; break;
    case 'confirm': spent.confirmed.push(...step.ids); break;
    case 'count': spent.extra_windows += step.windows; spent.recounted.push(...step.ids); break;
    case 'recount': spent.recounted.push(...step.ids); break;
    default: throw new Error(`internal: unknown step '${step.action}'`);
  }
}

async function measureAndDecide({ config, suiteName, overrides = {}, budget, sides, outDir, judge = null, nextStep = core.nextStep, explain = null, io, env = process.env, sandbox = sandboxFor({ env }), cpus = runnerCpus() }) {
  const started = new Date().toISOString();
  const { sandboxed } = sandbox;
  const plan = core.resolvePlan(config, suiteName, overrides, sides, started, { cpus });
  const suite = config.suites[suiteName];
  const unknown = explain ? core.unknownRows(explain, plan) : [];
  if (unknown.length) {
    throw new core.UsageError(`--explain: ${unknown.join(', ')} is not a row of this run; expected rows of: ${plan.benchmarks.map((b) => b.id).join(', ')}`);
  }
  makeRunFolder(outDir);
  clearRunOutputs(outDir);
  const clock = core.phaseClock(() => Date.now());
  const spent = { extra_rounds: 0, confirmed: [], extra_windows: 0, recounted: [], on_request: {}, seconds: 0 };
  const allowed = core.stepBudget(budget || suite.budget, { rounds: plan.measure.rounds, windows: plan.measure.instructions ? plan.measure.instructions.windows : null });
  const onRequest = judge && nextStep === core.nextStep ? roundsOnRequest(suite, allowed, spent, io, clock) : null;
  const first = await measure({
    plan: onRequest ? { ...plan, measure: { ...plan.measure, rounds_on_request: onRequest.most } } : plan,
    outDir, planName: 'plan.json', resultsName: 'results.json', stage: '', reuseData: false, sandboxed, io, env, clock,
    answer: onRequest && onRequest.answer,
  });
  const taken = [];
  const done = (fields) => {
    clock.stop();
    return { plan, started, steps: taken, phases: clock.totals(), ...fields };
  };
  if (!first.results || !judge) return done({ results: first.results, verdict: null, exitCode: first.exitCode, message: first.message });

  let results = first.results;
  let verdict = judge(results, suite);
  for (;;) {
    spent.seconds = clock.secondsIn(NARROWING);
    const step = nextStep(verdict, allowed, spent, plan);
    if (step.action === 'done') {
      // Why rows that are still open were measured no further (the budget, or rounds that
      // could not decide them): the reports say they are open, this says why they stayed so.
      if (step.why !== 'every microbenchmark is decided' && step.why !== 'the run has errors') io.stderr.write(`perfgate compare: no more measurement: ${step.why}\n`);
      break;
    }
    const n = taken.length + 1;
    const ids = step.plan_ids || core.planIdsFor(step.ids, verdict, plan);
    const firstRound = core.nextRoundIndex(results);
    io.stderr.write(`perfgate compare: ${describeStep(step, ids)}\n`);
    clock.mark(STAGE[step.action]);
    const ownPlan = stepPlan(plan, step, ids, firstRound);
    const more = await measure({
      plan: ownPlan,
      outDir,
      planName: `plan.extra-${n}.json`,
      resultsName: `results.extra-${n}.json`,
      stage: STAGE[step.action],
      reuseData: true,
      sandboxed,
      io,
      env,
      clock,
    });
    if (!more.results) return done({ results, verdict: null, exitCode: more.exitCode, message: more.message });
    const extension = {
      file: `results.extra-${n}.json`, purpose: step.action, first_round: firstRound,
      rounds: step.rounds ?? 0, ...(step.windows ? { windows: step.windows } : {}), benchmarks: ids,
    };
    results = core.mergeResults([results, more.results], { extension });
    writeDocument(path.join(outDir, 'results.json'), 'results', results);
    taken.push({ ...step, ids });
    spend(spent, step);
    verdict = judge(results, suite);
  }
  let explained = null;
  let unexplained = null;
  let flamegraphs = {};
  // A chain's heads are judged apart; the step compares one base with one head.
  if (explain && nextStep === core.nextStep && results.status === 'ok') {
    const step = await explainStep({ verdict, plan, suite, ask: explain, outDir, sandboxed, io, env, clock });
    if (step.message) io.stderr.write(`perfgate compare: ${step.message}\n`);
    explained = step.explain;
    if (!explained) unexplained = step.message;
    // What the step found goes beside each row as its cause; no row's verdict changes.
    if (explained) ({ verdict, flamegraphs } = explainedVerdict(outDir, verdict, [results], env));
  }
  return done({ results, verdict, explain: explained, unexplained, flamegraphs, exitCode: verdict.exit_code, message: results.status === 'ok' ? null : `the run has errors: ${describeErrors(results)}` });
}

module.exports = { runComparison, measure, describeErrors };
