'use strict';
// Orchestration of one comparison: resolve the plan, run the harness, and leave the run folder
// complete. Shared by `perfgate compare` and `perfgate calibrate` (head = base).
const fs = require('node:fs');
const path = require('node:path');
const { resolvePlan, extensionPlan } = require('./plan');
const { nextStep, planIdsFor } = require('./adaptive');
const { mergeRounds, nextRoundIndex } = require('./rounds');
const { runHarness, HARNESS_EXIT } = require('./harness');
const { formatProgress } = require('./progress');
const { schemaProblem } = require('./schemas');
const { writeJsonAtomic, readJson } = require('./files');
const { EXIT, UsageError } = require('./errors');

// Files a run folder may hold from an earlier run; removed before measuring so that nothing
// stale is ever read as this run's output.
const RUN_OUTPUTS = /^(plan|results)(\.extra-\d+)?\.json$|^(verdict\.json|comment\.md|summary\.md|report\.html)$/;

function clearRunOutputs(outDir) {
  for (const entry of fs.readdirSync(outDir)) {
    if (RUN_OUTPUTS.test(entry)) fs.rmSync(path.join(outDir, entry), { force: true });
  }
}

/**
 * Runs the harness on one plan and reads what it wrote.
 * @returns {results|null, exitCode, message|null}
 */
async function measure({ plan, outDir, planName, resultsName, stage, reuseData, io, env }) {
  const planFile = path.join(outDir, planName);
  writeJsonAtomic(planFile, plan);
  const { code, signal } = await runHarness({
    planFile,
    outDir,
    resultsName,
    reuseData,
    env,
    stderr: io.stderr,
    onEvent: (event) => {
      const line = formatProgress(event, { stage, firstRound: plan.measure.first_round || 0, ids: plan.benchmarks.map((b) => b.id) });
      if (line) io.stderr.write(`${line}\n`);
    },
  });
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
  const results = readJson(resultsFile);
  const problem = schemaProblem('results', results);
  if (problem) {
    return { results: null, exitCode: EXIT.error, message: `${resultsName} does not match schema/results.schema.json: ${problem}` };
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

const STAGE = { extend: 'extra rounds', confirm: 'confirm' };

function describeStep(step, ids) {
  const what = step.action === 'extend' ? 'undecided' : 'failing, confirming';
  return `${step.rounds} more round${step.rounds === 1 ? '' : 's'} per side of ${ids.length} ${what}: ${ids.join(', ')}`;
}

/**
 * Measures, judges, and while the budget allows measures more rounds of what is undecided and
 * re-measures what fails, re-judging after each step. Leaves plan.json, results.json (every
 * round, merged), the extension plans and results, and — when `judge` is given — the verdict.
 *
 * @param config     loadThresholds() result
 * @param suiteName  suite to run
 * @param overrides  plan overrides (see plan.resolvePlan)
 * @param budget     the suite's budget, or an override of it
 * @param sides      {base: {basedir, label}, head: {basedir, label}} with checked basedirs
 * @param outDir     run folder
 * @param judge      (results, suite) -> perfgate.verdict/v1, or null to measure only
 * @param io         {stdout, stderr}
 * @param keepData   keep the loaded datadirs under <outDir>/servers/ (removed by default)
 * @returns {plan, results|null, verdict|null, steps, exitCode, message|null}
 */
async function runComparison(args) {
  try {
    return await measureAndDecide(args);
  } finally {
    if (!args.keepData) removeServerData(args.outDir);
  }
}

// A loaded datadir is about 0.9 GB per side even at the smallest scale (InnoDB's redo log and
// buffer pool files), and nothing reads it once the comparison is decided: a runner serving many
// pull requests would fill its disk. The server logs and my.cnf stay beside the results.
function removeServerData(outDir) {
  for (const side of ['base', 'head']) {
    const serverDir = path.join(outDir, 'servers', side);
    fs.rmSync(path.join(serverDir, 'data'), { recursive: true, force: true });
    fs.rmSync(path.join(serverDir, 'data.json'), { force: true });
  }
}

async function measureAndDecide({ config, suiteName, overrides = {}, budget, sides, outDir, judge = null, io, env = process.env }) {
  const plan = resolvePlan(config, suiteName, overrides, sides, new Date().toISOString());
  const suite = config.suites[suiteName];
  try {
    fs.mkdirSync(outDir, { recursive: true });
  } catch (err) {
    throw new UsageError(`--out '${outDir}': cannot create it (${err.code || err.message}); expected a writable folder`);
  }
  clearRunOutputs(outDir);
  const first = await measure({ plan, outDir, planName: 'plan.json', resultsName: 'results.json', stage: '', reuseData: false, io, env });
  const steps = [];
  if (!first.results || !judge) return { plan, results: first.results, verdict: null, steps, exitCode: first.exitCode, message: first.message };

  let results = first.results;
  let verdict = judge(results, suite);
  const spent = { extra_rounds: 0, confirmed: [] };
  for (;;) {
    const step = nextStep(verdict, budget || suite.budget, spent);
    if (step.action === 'done') break;
    const n = steps.length + 1;
    const ids = planIdsFor(step.ids, verdict, plan);
    const firstRound = nextRoundIndex(results);
    io.stderr.write(`perfgate compare: ${describeStep(step, ids)}\n`);
    const more = await measure({
      plan: extensionPlan(plan, ids, step.rounds, firstRound),
      outDir,
      planName: `plan.extra-${n}.json`,
      resultsName: `results.extra-${n}.json`,
      stage: STAGE[step.action],
      reuseData: true,
      io,
      env,
    });
    if (!more.results) return { plan, results, verdict: null, steps, exitCode: more.exitCode, message: more.message };
    const extension = { file: `results.extra-${n}.json`, purpose: step.action, first_round: firstRound, rounds: step.rounds, benchmarks: ids };
    results = mergeRounds(results, more.results, extension);
    writeJsonAtomic(path.join(outDir, 'results.json'), results);
    steps.push({ ...step, ids });
    if (step.action === 'extend') spent.extra_rounds += step.rounds;
    else spent.confirmed.push(...step.ids);
    verdict = judge(results, suite);
  }
  return { plan, results, verdict, steps, exitCode: verdict.exit_code, message: results.status === 'ok' ? null : `the run has errors: ${describeErrors(results)}` };
}

module.exports = { runComparison, clearRunOutputs, removeServerData, measure, describeErrors };
