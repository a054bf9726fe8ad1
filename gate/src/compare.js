'use strict';
// Orchestration of one comparison: resolve the plan, run the harness, and leave the run folder
// complete. Shared by `perfgate compare` and `perfgate calibrate` (head = base).
const fs = require('node:fs');
const path = require('node:path');
const { resolvePlan } = require('./plan');
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
      const line = formatProgress(event, stage);
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

function describeErrors(results) {
  const errors = results.errors || [];
  if (errors.length === 0) return `status ${results.status}`;
  return errors
    .slice(0, 3)
    .map((e) => [e.benchmark, e.side, e.step].filter(Boolean).join('/') + `: ${e.message.split('\n')[0]}`)
    .join('; ') + (errors.length > 3 ? `; and ${errors.length - 3} more` : '');
}

/**
 * @param config     loadThresholds() result
 * @param suiteName  suite to run
 * @param overrides  plan overrides (see plan.resolvePlan)
 * @param sides      {base: {basedir, label}, head: {basedir, label}} with checked basedirs
 * @param outDir     run folder
 * @param io         {stdout, stderr}
 * @returns {plan, results|null, exitCode, message|null}
 */
async function runComparison({ config, suiteName, overrides = {}, sides, outDir, io, env = process.env }) {
  const plan = resolvePlan(config, suiteName, overrides, sides, new Date().toISOString());
  try {
    fs.mkdirSync(outDir, { recursive: true });
  } catch (err) {
    throw new UsageError(`--out '${outDir}': cannot create it (${err.code || err.message}); expected a writable folder`);
  }
  clearRunOutputs(outDir);
  const first = await measure({ plan, outDir, planName: 'plan.json', resultsName: 'results.json', stage: '', reuseData: false, io, env });
  return { plan, ...first };
}

module.exports = { runComparison, clearRunOutputs, measure };
