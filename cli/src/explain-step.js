'use strict';
// The explanation step of a comparison (docs/explain.md): once the rows are judged for the last
// time, the rows core.rowsToExplain chooses are looked at again by the harness on fresh servers
// of both sides (never inside the timed rounds), into <run folder>/explain.json. It changes no
// verdict; a step that fails says why and leaves the verdict as judged.
const path = require('node:path');
const core = require('@perfgate/core');
const { runHarness, HARNESS_EXIT } = require('./harness-process');
const { readRunExplain } = require('./explain-causes');
const { cancellation } = require('./processes');

const FILE = core.EXPLAIN_FILE;

/**
 * @param verdict  the last verdict of the run
 * @param plan     the run's plan (plan.json in outDir)
 * @param suite    the suite (its explain budget)
 * @param ask      core.parseExplainAsk()
 * @returns {explain: perfgate.explain/v1 | null, message: string | null}
 */
async function explainStep({ verdict, plan, suite, ask, outDir, sandboxed, io, env, clock = null }) {
  const choice = core.rowsToExplain(verdict, suite.explain, ask);
  if (choice.rows.length === 0) return { explain: null, message: null };
  const beyond = choice.left_out.length ? ` (not ${choice.left_out.join(', ')}: the suite's explain.rows is ${suite.explain.rows})` : '';
  io.stderr.write(`perfgate compare: explaining ${choice.rows.join(', ')} on fresh servers${beyond}\n`);
  if (clock) clock.mark('explain');
  const { code, signal, spawnError } = await runHarness({
    planFile: path.join(outDir, 'plan.json'),
    outDir,
    explain: { rows: choice.rows, asked: choice.asked, budget: suite.explain },
    env,
    sandboxed,
    basedirs: [...new Set(Object.values(plan.sides).map((side) => side.basedir))],
    stderr: io.stderr,
    onEvent: (event) => {
      if (event.event === 'phase' && event.benchmark && event.side) io.stderr.write(`perfgate compare: explain ${event.benchmark}: ${event.phase.replace(/^explain /, '')} (${event.side})\n`);
    },
  });
  if (spawnError) return { explain: null, message: `the explanation step did not start: ${spawnError.message}` };
  if (cancellation()) return { explain: null, message: null };
  if (code !== HARNESS_EXIT.ok && code !== HARNESS_EXIT.runError) {
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    return { explain: null, message: `the explanation step ${how} without ${FILE}; the verdict stands as judged` };
  }
  try {
    // Read as the run folder's other files are: the servers that wrote it ran a pull request's code.
    const explain = readRunExplain(outDir, verdict.benchmarks.map((b) => b.id));
    if (!explain) return { explain: null, message: `the explanation step left no ${FILE}; the verdict stands as judged` };
    const failed = explain.rows.filter((r) => r.status === 'error');
    const message = failed.length ? `the explanation of ${failed.map((r) => `${r.id} failed at ${r.error.step}: ${r.error.message.split('\n')[0]}`).join('; ')}` : null;
    return { explain, message };
  } catch (err) {
    return { explain: null, message: `${err.message}; the verdict stands as judged` };
  }
}

module.exports = { explainStep, EXPLAIN_FILE: FILE };
