'use strict';
// What GitHub is told about a verdict, wherever it is told from (the action's report job, the
// bot): the check run's conclusion and output, and the job summary, within GitHub's size limits.
const { renderComment, marker } = require('./comment');
const { renderSummary, renderReasons } = require('./summary');
const { LIMITS, fitCharacters, fitBytes } = require('../github-limits');
const { conclusionOf } = require('../blocking');

const CHECK_RUN_TEXT_LIMIT = LIMITS.checkRunText;
const JOB_SUMMARY_LIMIT_BYTES = LIMITS.jobSummaryBytes;

/**
 * The completed check run's fields: conclusion (blocking.js: `failOn` can only make it
 * stricter), title (the headline, which leads with the verdict), summary (the comment's tables, without its
 * marker) and text (why each row that did not pass got its verdict).
 */
function checkRunOutput(verdict, { reportLink, thresholdsFrom, failOn = 'fail' } = {}) {
  const tables = renderComment(verdict, { reportLink, thresholdsFrom, limit: CHECK_RUN_TEXT_LIMIT });
  const head = marker(verdict.suite);
  const summary = tables.startsWith(head) ? tables.slice(tables.indexOf('\n') + 1) : tables;
  const reasons = renderReasons(verdict);
  const where = reportLink ? `the full report is ${reportLink}` : 'the full report is report.html in the run folder';
  return {
    conclusion: conclusionOf(verdict.verdict, failOn),
    output: {
      title: fitCharacters(`perfgate ${verdict.suite} — ${verdict.headline}`, LIMITS.checkRunTitle, 'cut'),
      summary,
      text: fitCharacters(reasons ? `Why:\n\n${reasons}\n` : 'Every microbenchmark passed.\n', CHECK_RUN_TEXT_LIMIT, `Cut to fit GitHub's check run size; ${where}.`),
    },
  };
}

/** The job summary of a verdict, within GitHub's 1 MiB. */
function jobSummary(verdict, { reportLink, thresholdsFrom } = {}) {
  const text = renderSummary(verdict, { reportLink, thresholdsFrom });
  return fitBytes(text, JOB_SUMMARY_LIMIT_BYTES, `Cut to fit GitHub's job summary size; the full report is ${reportLink || 'report.html in the run folder'}.`);
}

module.exports = { checkRunOutput, jobSummary, CHECK_RUN_TEXT_LIMIT, JOB_SUMMARY_LIMIT_BYTES };
