'use strict';
// Every report of a verdict, rendered from the verdict alone. Pure: the run folder's writer
// (perfgate's cli) puts them on disk.
const { renderComment, marker, GITHUB_COMMENT_LIMIT } = require('./comment');
const { renderSummary, renderReasons } = require('./summary');
const { renderReport } = require('./html');
const { renderVerdictTable } = require('./table');
const { renderTerminal } = require('./terminal');
const { renderCsv, renderTsv } = require('./delimited');
const chain = require('./chain');
const checkRun = require('./check-run');
const signoff = require('./signoff');
const limits = require('../github-limits');
const { text: markdownText, code: markdownCode, fence: markdownFence } = require('./markdown');
const { sanitizeSvg } = require('./flamegraph');

/**
 * @param verdict  perfgate.verdict/v2
 * @param options  {reportLink}: where readers of the comment find the full report;
 *                 {thresholdsFrom}: where the limits were read, e.g. a base commit;
 *                 {flamegraphs}: row id → {svg} | {problem}, the explained rows' differential flame graphs
 * @returns {'comment.md', 'summary.md', 'report.html', 'results.csv', 'results.tsv'}: file name → text
 */
function renderReports(verdict, options = {}) {
  return {
    'comment.md': renderComment(verdict, options),
    'summary.md': renderSummary(verdict, options),
    'report.html': renderReport(verdict, options),
    'results.csv': renderCsv(verdict),
    'results.tsv': renderTsv(verdict),
  };
}

module.exports = {
  renderReports, renderComment, renderSummary, renderReasons, renderReport, renderVerdictTable, renderTerminal, renderCsv, renderTsv, commentMarker: marker, GITHUB_COMMENT_LIMIT,
  ...chain, ...checkRun, ...signoff,
  GITHUB_LIMITS: limits.LIMITS, fitCharacters: limits.fitCharacters, fitBytes: limits.fitBytes, fitComment: limits.fitComment, fitCheckRunOutput: limits.fitCheckRunOutput,
  markdownText, markdownCode, markdownFence, sanitizeSvg,
};
