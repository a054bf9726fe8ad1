'use strict';
// summary.md: the job summary of a workflow run. Every row, no size games (GitHub allows 1 MiB).
const F = require('./format');
const M = require('./markdown');
const { threadsMarkdown } = require('./threads');
const { suiteWideReasons } = require('./suite-wide');

/** Why each row (the suite as a whole first) that did not cleanly pass got its verdict, one markdown list item per row ('' when all passed), with its cause under it. */
function renderReasons(verdict) {
  const undecided = [...suiteWideReasons(verdict), ...[...verdict.benchmarks, ...verdict.ahi].filter(F.listsReason)];
  // The row's cause, where the explanation step looked at it, on a line of its own under it.
  const cause = (b) => (b.cause ? `\n  - cause: ${M.text(b.cause.line)}` : '');
  return undecided.map((b) => `- ${F.markOf(b)} ${M.code(b.id, { max: M.NAME_MAX })}: ${M.text(b.reason)}${cause(b)}`).join('\n');
}

/**
 * @param verdict  perfgate.verdict/v2
 * @param options  {reportLink, thresholdsFrom: where the limits were read (a commit), shown under the headline}
 */
function renderSummary(verdict, options = {}) {
  const parts = M.opening(verdict, verdict.benchmarks, { heading: '##', boldHeadline: false, thresholdsFrom: options.thresholdsFrom });
  const byThreads = threadsMarkdown(verdict.benchmarks);
  if (byThreads.length) parts.push('', ...byThreads);
  const ahiRows = verdict.benchmarks.filter((b) => b.ahi);
  if (ahiRows.length) parts.push('', '**AHI cells**', '', M.benchmarkTable(ahiRows));
  if (verdict.ahi.length) parts.push('', '**AHI gain (on/off) of each side**', '', M.ahiTable(verdict.ahi));
  const reasons = renderReasons(verdict);
  if (reasons) parts.push('', 'Why:', '', reasons);
  const went = M.instructionsSection(verdict.benchmarks, 10);
  if (went) parts.push('', '**Where the instructions went**', '', went);
  const variables = M.variablesSection(verdict.run.sides);
  if (variables) parts.push('', variables);
  parts.push('', M.legend(verdict.benchmarks));
  if (options.reportLink) parts.push('', `Full report with charts: ${options.reportLink}`);
  return parts.join('\n') + '\n';
}

module.exports = { renderSummary, renderReasons };
