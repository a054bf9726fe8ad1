'use strict';
// Which verdicts block a merge. The action's fail-on setting names a row of this table; the
// report job's exit status and the check run's conclusion follow the same row, so a required
// check blocks whatever the job fails on. A fail or an error is a failed check whatever the
// setting (fail-on never only keeps the job itself green): no setting makes a check claim
// more than the verdict.

const FAILING = Object.freeze({
  fail: Object.freeze(['fail', 'error']),
  warn: Object.freeze(['warn', 'undecided', 'fail', 'error']),
  never: Object.freeze([]),
});
const FAIL_ON = Object.freeze(Object.keys(FAILING));

/** Whether a job set to `failOn` fails on `verdict`. */
function jobFails(verdict, failOn = 'fail') {
  if (!Object.hasOwn(FAILING, failOn)) throw new Error(`fail-on '${failOn}': expected one of ${FAIL_ON.join(', ')}`);
  return FAILING[failOn].includes(verdict);
}

/**
 * The check run conclusion of a verdict word: success for a pass; failure for a fail, an
 * error, or whatever `failOn` fails the job on; otherwise neutral (warn and undecided ask a
 * reader to look, and GitHub counts neutral as passing a required check).
 */
function conclusionOf(verdict, failOn = 'fail') {
  if (FAILING.fail.includes(verdict) || jobFails(verdict, failOn)) return 'failure';
  return verdict === 'pass' ? 'success' : 'neutral';
}

module.exports = { jobFails, conclusionOf, FAIL_ON };
