'use strict';
// The suites watched along main (PERFGATE_WATCH_SUITES), checked against the thresholds folder.
const core = require('@perfgate/core');
const { UsageError } = core;

// Watched suites must be suites of the thresholds folder, and no row in two of them: regressions
// along main are kept by row (a pass of one suite's row would close the other's).
function checkWatchedSuites(suites, thresholds) {
  const unknown = suites.find((name) => !Object.hasOwn(thresholds.suites, name));
  if (unknown) throw new UsageError(`PERFGATE_WATCH_SUITES '${unknown}' is not a suite of ${thresholds.dir}; expected one of: ${Object.keys(thresholds.suites).join(', ')}`);
  const owner = new Map();
  for (const suite of suites) {
    for (const row of core.suiteRowIds(thresholds, suite)) {
      if (owner.has(row)) throw new UsageError(`PERFGATE_WATCH_SUITES: ${owner.get(row)} and ${suite} both have the row '${row}'; expected suites with no row in common (regressions along main are kept by row)`);
      owner.set(row, suite);
    }
  }
}

module.exports = { checkWatchedSuites };
