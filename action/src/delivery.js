// What the action tells GitHub, as pure functions of a verdict: the check run's conclusion and
// output, the job summary, and whether the job fails. GitHub's size limits are kept here.
import perfgateCore from '@perfgate/core';

// A check run's output.summary and output.text: at most 65,535 characters each.
export const CHECK_RUN_TEXT_LIMIT = 65535;
// A step's job summary: at most 1 MiB.
export const JOB_SUMMARY_LIMIT_BYTES = 1024 * 1024;

const CONCLUSION = { pass: 'success', warn: 'neutral', inconclusive: 'neutral', fail: 'failure', error: 'failure' };
const TITLE_WORD = { pass: 'pass', warn: 'warn', inconclusive: 'inconclusive', fail: 'fail', error: 'error' };
// The verdicts each fail-on setting fails the job on.
const FAILING = { fail: ['fail', 'error'], warn: ['warn', 'inconclusive', 'fail', 'error'], never: [] };

/** The check run conclusion of a verdict: fail and error block, warn and inconclusive are neutral. */
export function conclusionOf(verdict) {
  return CONCLUSION[verdict];
}

export function jobFails(verdict, failOn) {
  return FAILING[failOn].includes(verdict);
}

/** `text` cut to `limit` characters, ending with `note` when it had to be cut. */
export function fitCharacters(text, limit, note) {
  if (text.length <= limit) return text;
  const tail = `\n\n_${note}_\n`;
  return text.slice(0, limit - tail.length) + tail;
}

/** `text` cut to `limit` UTF-8 bytes (on a character boundary), ending with `note` when cut. */
export function fitBytes(text, limit, note) {
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
export function checkRunOutput(verdict, { reportLink, thresholdsFrom }) {
  const tables = perfgateCore.renderComment(verdict, { reportLink, thresholdsFrom, limit: CHECK_RUN_TEXT_LIMIT });
  const summary = tables.startsWith(perfgateCore.commentMarker(verdict.suite)) ? tables.slice(tables.indexOf('\n') + 1) : tables;
  const reasons = perfgateCore.renderReasons(verdict);
  const where = reportLink ? `the full report is ${reportLink}` : 'the full report is report.html in the run folder';
  return {
    conclusion: conclusionOf(verdict.verdict),
    output: {
      title: fitCharacters(`perfgate ${verdict.suite}: ${TITLE_WORD[verdict.verdict]} — ${verdict.headline}`, 1000, 'cut'),
      summary,
      text: fitCharacters(reasons ? `Why:\n\n${reasons}\n` : 'Every microbenchmark passed.\n', CHECK_RUN_TEXT_LIMIT, `Cut to fit GitHub's check run size; ${where}.`),
    },
  };
}

/** The job summary of a verdict, within GitHub's 1 MiB. */
export function jobSummary(verdict, { reportLink, thresholdsFrom }) {
  const text = perfgateCore.renderSummary(verdict, { reportLink, thresholdsFrom });
  return fitBytes(text, JOB_SUMMARY_LIMIT_BYTES, `Cut to fit GitHub's job summary size; the full report is ${reportLink || 'report.html in the run folder'}.`);
}

/**
 * A run that ended without a verdict (the measure job failed before judging, or left no run
 * folder): the comment, check run and summary all say error, so nothing claims a pass.
 */
export function noVerdictReport({ marker, suite, headSha, why }) {
  const headline = `No verdict for head ${headSha ? headSha.slice(0, 12) : '(unknown)'}: ${why}.`;
  const body = [marker, `### 💥 perfgate ${suite}: error`, '', `**${headline}**`, '', 'Nothing was judged, so nothing here says this pull request passes. A re-run of the workflow measures it again.', ''].join('\n');
  return {
    comment: body,
    summary: body.slice(body.indexOf('\n') + 1),
    check: { conclusion: 'failure', output: { title: `perfgate ${suite}: error — ${fitCharacters(why, 900, 'cut')}`, summary: body.slice(body.indexOf('\n') + 1), text: why } },
  };
}
