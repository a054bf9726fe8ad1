'use strict';
// `perfgate compare --source`: --base and --head are git refs of one checkout, built into
// cached prefixes before anything is measured. Build logs go to <run>/build/; a failed build
// makes the run folder an "error" run like any other (plan.json, results.json with status
// "error", verdict.json and the reports), never a verdict.
const fs = require('node:fs');
const path = require('node:path');
const core = require('@perfgate/core');
const { buildCommit, cacheDirFrom } = require('./build-commit');
const { machineFingerprint } = require('../harness-process');
const { writeDocument, writeText, readOwnText, writeReports, clearRunOutputs, makeRunFolder } = require('../own-files');
const { Cancelled, sandboxFor } = require('../processes');
const { runnerCpus } = require('../runner-settings');

function copyLog(from, to, header) {
  let text;
  try {
    text = readOwnText(from);
  } catch {
    text = '(the log of that build is no longer in the cache)\n';
  }
  writeText(to, `${header}\n${text}`);
}

/**
 * Builds refs.base, then refs.head and a chain's further heads (head2, ...) in that order: each
 * build then reuses the tree and objects of the one before. Logs go to <outDir>/build/<side>.log, a summary to <outDir>/build/builds.json;
 * progress lines to io.stderr, after `who` (the command speaking). `sandbox`: sandboxFor() of the
 * run (by default, cmake and ninja run in the sandbox when this host has it).
 * @returns {sides, failure: null} or {sides, failure: {side, error: BuildError}}; sides holds
 *          {basedir, label, commit, ref, flavor} for each side built (flavor: the recipe's, which
 *          names a Percona Server whose --version says only "Source distribution"). Throws
 *          Cancelled on a signal.
 */
async function buildSides({ source, refs, recipe, cacheDir, outDir, io, env, who = 'perfgate compare', sandbox = sandboxFor({ env }) }) {
  const buildDir = path.join(outDir, 'build');
  // Made new: an earlier run's harness could write in this run folder, and a build/ it left
  // (a link, say) would have the build logs written wherever it points.
  fs.rmSync(buildDir, { recursive: true, force: true });
  fs.mkdirSync(buildDir, { recursive: true });
  const sides = {};
  const summary = { schema: 'perfgate.builds/v1', source, flavor: recipe.flavor, cmake_flags: recipe.cmakeFlags, recipe: recipe.flagsHash.slice(0, 16), sides: {} };
  const writeSummary = () => writeDocument(path.join(buildDir, 'builds.json'), 'builds', summary);
  for (const side of Object.keys(refs)) {
    const logFile = path.join(buildDir, `${side}.log`);
    const due = core.progressThrottle(15);
    try {
      const built = await buildCommit({ source, ref: refs[side], recipe, cacheDir, logFile, env, sandbox,
        onProgress: (e) => { if (due(e, e.elapsedSeconds)) io.stderr.write(`${who}: ${core.formatBuildProgress({ label: `${side} (${refs[side]})`, ...e })}\n`); } });
      if (built.cache === 'hit') copyLog(built.logFile, logFile, `perfgate: ${refs[side]} (${built.commit}) was found in the build cache; this is the log of the build that made it.`);
      io.stderr.write(`${who}: ${side} ${refs[side]} = ${built.commit.slice(0, 12)}: ${built.cache === 'hit' ? 'cached build' : `built in ${core.formatDuration(built.seconds)} (${built.cache} tree)`}\n`);
      sides[side] = { basedir: built.prefix, label: side, commit: built.commit, ref: refs[side], flavor: recipe.flavor };
      summary.sides[side] = { ref: refs[side], commit: built.commit, prefix: built.prefix, cache: built.cache, seconds: Math.round(built.seconds * 10) / 10, status: 'ok', log: `build/${side}.log` };
      writeSummary();
    } catch (err) {
      if (!(err instanceof core.BuildError)) throw err;
      for (const line of core.describeFailure(err)) io.stderr.write(`${who}: ${side}: ${line}\n`);
      summary.sides[side] = { ref: refs[side], commit: err.commit || null, status: 'error', log: `build/${side}.log`, error: err.toJSON() };
      writeSummary();
      return { sides, failure: { side, error: err } };
    }
  }
  return { sides, failure: null };
}

/**
 * @param settings  {source, base, head, refs?, flavor, buildConfigs, thresholds, suite, overrides, out}
 * @param sandbox   sandboxFor() of the run
 * @returns {sides} ready for runComparison; {exitCode, results, verdict} when a build failed;
 *          {cancelled: signal} when a signal stopped the build
 */
async function sidesFromSource({ settings, config, io, env, sandbox = sandboxFor({ env }) }) {
  const cacheDir = cacheDirFrom(env);
  const recipe = core.loadRecipe({ thresholdsDir: settings.thresholds, buildConfigs: settings.buildConfigs || [],
    flavor: settings.flavor || 'mariadb', cacheDir });
  makeRunFolder(settings.out);
  // A chain names every head's ref (settings.refs: {base, head, head2, ...}).
  const refs = settings.refs || { base: settings.base, head: settings.head };
  const started = new Date().toISOString();
  let built;
  try {
    built = await buildSides({ source: settings.source, refs, recipe, cacheDir, outDir: settings.out, io, env, sandbox });
  } catch (err) {
    if (err instanceof Cancelled) return { cancelled: err.signal };
    throw err;
  }
  const { sides, failure } = built;
  if (!failure) return { sides };

  clearRunOutputs(settings.out);
  const planSides = {};
  for (const side of Object.keys(refs)) {
    planSides[side] = sides[side] || { basedir: '', label: side, commit: failure.side === side ? failure.error.commit : null, ref: refs[side] };
  }
  const plan = core.resolvePlan(config, settings.suite, settings.overrides || {}, planSides, started, { cpus: runnerCpus() });
  writeDocument(path.join(settings.out, 'plan.json'), 'plan', plan);
  const results = core.buildErrorResults({ plan, failure, built: sides, refs, flavor: recipe.flavor,
    machine: machineFingerprint({ env, fallback: true }).fingerprint, started, finished: new Date().toISOString() });
  writeDocument(path.join(settings.out, 'results.json'), 'results', results);
  const verdict = (core.isChain(planSides) ? core.judgeChain : core.judge)(results, config.suites[settings.suite]);
  writeReports(settings.out, verdict);
  // A build failure is an error whatever the judge would make of it: never a verdict.
  return { exitCode: core.EXIT.error, results, verdict };
}

module.exports = { sidesFromSource, buildSides };
