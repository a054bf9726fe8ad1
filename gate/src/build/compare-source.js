'use strict';
// The --source path of `perfgate compare`: --base and --head are git refs of one checkout,
// built into cached prefixes before anything is measured.
const fs = require('node:fs');
const path = require('node:path');
const { loadRecipe, cacheDirFrom } = require('./settings');
const { buildSides, buildErrorResults, machineFingerprint } = require('./sides');
const { resolvePlan } = require('../plan');
const { writeJsonAtomic } = require('../files');
const { judge } = require('../judge');
const { writeReports } = require('../render');
const { EXIT, UsageError } = require('../errors');

// Run-folder files of an earlier run that an error run must not leave behind.
const STALE = /^(plan|results)(\.extra-\d+)?\.json$|^(verdict\.json|comment\.md|summary\.md|report\.html)$/;

/**
 * @param settings  {source, base, head, flavor, buildConfigs, thresholds, suite, overrides, out}
 * @returns {sides} ready for runComparison, or {exitCode, results, verdict} when a build failed:
 *          the run folder then says why like any other run (plan.json, results.json with status
 *          "error", verdict.json "error" and the reports), plus build/<side>.log
 */
async function sidesFromSource({ settings, config, io, env }) {
  const recipe = loadRecipe({ thresholdsDir: settings.thresholds, buildConfigs: settings.buildConfigs || [],
    flavor: settings.flavor || 'mariadb', env });
  try {
    fs.mkdirSync(settings.out, { recursive: true });
  } catch (err) {
    throw new UsageError(`--out '${settings.out}': cannot create it (${err.code || err.message}); expected a writable folder`);
  }
  const refs = { base: settings.base, head: settings.head };
  const started = new Date().toISOString();
  const { sides, failure } = await buildSides({ source: settings.source, refs, recipe, cacheDir: cacheDirFrom(env), outDir: settings.out, io, env });
  if (!failure) return { sides };

  for (const entry of fs.readdirSync(settings.out)) {
    if (STALE.test(entry)) fs.rmSync(path.join(settings.out, entry), { force: true });
  }
  const planSides = {};
  for (const side of ['base', 'head']) {
    planSides[side] = sides[side] || { basedir: '', label: side, commit: failure.side === side ? failure.error.commit : null, ref: refs[side] };
  }
  const plan = resolvePlan(config, settings.suite, settings.overrides || {}, planSides, started);
  writeJsonAtomic(path.join(settings.out, 'plan.json'), plan);
  const results = buildErrorResults({ plan, failure, built: sides, refs, flavor: recipe.flavor,
    machine: machineFingerprint(env), started, finished: new Date().toISOString() });
  writeJsonAtomic(path.join(settings.out, 'results.json'), results);
  const verdict = judge(results, config.suites[settings.suite]);
  writeReports(settings.out, verdict);
  // A build failure is an error whatever the judge would make of it: never a verdict.
  return { exitCode: EXIT.error, results, verdict };
}

module.exports = { sidesFromSource };
