'use strict';
// Writes every report of a verdict into a run folder, each file atomically (temp + rename) so
// that a reader never sees half a report.
const fs = require('node:fs');
const path = require('node:path');
const { renderComment } = require('./comment');
const { renderSummary } = require('./summary');
const { renderReport } = require('./html');
const { renderVerdictTable } = require('./table');

function writeAtomic(file, text) {
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

/**
 * @param dir      run folder
 * @param verdict  perfgate.verdict/v1
 * @param options  {reportLink}: where readers of the comment find the full report
 * @returns the files written, by kind
 */
function writeReports(dir, verdict, options = {}) {
  const files = {
    verdict: path.join(dir, 'verdict.json'),
    comment: path.join(dir, 'comment.md'),
    summary: path.join(dir, 'summary.md'),
    report: path.join(dir, 'report.html'),
  };
  writeAtomic(files.verdict, JSON.stringify(verdict, null, 2) + '\n');
  writeAtomic(files.comment, renderComment(verdict, options));
  writeAtomic(files.summary, renderSummary(verdict, options));
  writeAtomic(files.report, renderReport(verdict));
  return files;
}

module.exports = { writeReports, renderComment, renderSummary, renderReport, renderVerdictTable };
