'use strict';
// What GitHub is told about a verdict, wherever it is told from (the action's report job, the
// bot): the check run's conclusion and output, and the job summary, within GitHub's size limits.
const { renderComment, marker } = require('./comment');
const { renderSummary, renderReasons } = require('./summary');

// A check run's output.summary and output.text: at most 65,535 characters each.
const CHECK_RUN_TEXT_LIMIT = 65535;
// A step's job summary: at most 1 MiB.
const JOB_SUMMARY_LIMIT_BYTES = 1024 * 1024;

// fail and error block a merge; warn and inconclusive ask a reader to look.
const CONCLUSION = Object.freeze({ pass: 'success', warn: 'neutral', inconclusive: 'neutral', fail: 'failure', error: 'failure' });

/** The check run conclusion of a verdict word. */
function conclusionOf(verdict) {
  return CONCLUSION[verdict];
}

/** `text` cut to `limit` characters, ending with `note` when it had to be cut. */
function fitCharacters(text, limit, note) {
  if (text.length <= limit) return text;
  const tail = `\n\n_${note}_\n`;
  return text.slice(0, limit - tail.length) + tail;
}

/** `text` cut to `limit` UTF-8 bytes (on a character boundary), ending with `note` when cut. */
function fitBytes(text, limit, note) {
  if (Buffer.byteLength(text) <= limit) return text;
  const tail = `\n\n_${note}_\n`;
  let budget = limit - Buffer.byteLength(tail);
  let cut = '';
  for (const character of text) {
    budget -= Buffer.byteLength(character);
    if (budget < 0) break;
    cut += character;
  }
  return cut + tail;
}

/**
 * The completed check run's fields: conclusion, title (the verdict and the headline), summary
 * (the comment's tables, without its marker) and text (why each row that did not pass got its
 * verdict).
 */
function checkRunOutput(verdict, { reportLink, thresholdsFrom } = {}) {
  const tables = renderComment(verdict, { reportLink, thresholdsFrom, limit: CHECK_RUN_TEXT_LIMIT });
  const head = marker(verdict.suite);
  const summary = tables.startsWith(head) ? tables.slice(tables.indexOf('\n') + 1) : tables;
  const reasons = renderReasons(verdict);
  const where = reportLink ? `the full report is ${reportLink}` : 'the full report is report.html in the run folder';
  return {
    conclusion: conclusionOf(verdict.verdict),
    output: {
      title: fitCharacters(`perfgate ${verdict.suite}: ${verdict.verdict} — ${verdict.headline}`, 1000, 'cut'),
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

module.exports = { conclusionOf, checkRunOutput, jobSummary, fitCharacters, fitBytes, CHECK_RUN_TEXT_LIMIT, JOB_SUMMARY_LIMIT_BYTES };
