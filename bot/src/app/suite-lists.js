'use strict';
// Lists of suites in the bot's settings (PERFGATE_WATCH_SUITES, PERFGATE_SIGNOFF_SUITES): read,
// then checked against the thresholds folder.
const core = require('@perfgate/core');
const { UsageError } = core;

// The items of a setting's list: one to eight suite names, each once.
function suiteList(items, fail) {
  const suites = [...new Set(items)];
  if (!suites.length || suites.length > 8 || suites.some((name) => !/^[a-z][a-z0-9-]{0,63}$/.test(name))) throw fail('one to eight suite names separated by commas, such as quick,tpcc');
  return suites;
}

// Each must be a suite of the thresholds folder, and no row in two of them: regressions along
// main, and a sign-off's waivers, are kept by row.
function checkSuiteList(key, suites, thresholds) {
  const unknown = suites.find((name) => !Object.hasOwn(thresholds.suites, name));
  if (unknown) throw new UsageError(`${key} '${unknown}' is not a suite of ${thresholds.dir}; expected one of: ${Object.keys(thresholds.suites).join(', ')}`);
  const owner = new Map();
  for (const suite of suites) {
    for (const row of core.suiteRowIds(thresholds, suite)) {
      if (owner.has(row)) throw new UsageError(`${key}: ${owner.get(row)} and ${suite} both have the row '${row}'; expected suites with no row in common (results are kept by row)`);
      owner.set(row, suite);
    }
  }
}

/**
 * The sign-off's suites, checked: as set, or by default those of SIGNOFF_SUITES the thresholds
 * folder has, with a warning naming the others (a fork's own folder without TPC-C still starts).
 * @returns {suites, warnings: [line]}
 */
function signoffSuites(suites, thresholds, { defaulted }) {
  const key = 'PERFGATE_SIGNOFF_SUITES';
  const missing = defaulted ? suites.filter((name) => !Object.hasOwn(thresholds.suites, name)) : [];
  const kept = suites.filter((name) => !missing.includes(name));
  if (!kept.length) throw new UsageError(`${key} is not set and ${thresholds.dir} has none of its default suites (${suites.join(', ')}); set it to the suites a release sign-off measures`);
  checkSuiteList(key, kept, thresholds);
  const warnings = missing.length
    ? [`${key} is not set: a release sign-off measures ${kept.join(', ')}; ${missing.join(', ')} of its default ${missing.length === 1 ? 'is not a suite' : 'are not suites'} of ${thresholds.dir}`] : [];
  return { suites: kept, warnings };
}

module.exports = { suiteList, checkSuiteList, signoffSuites };
