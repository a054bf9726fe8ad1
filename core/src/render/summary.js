'use strict';
// summary.md: the job summary of a workflow run. Every row, no size games (GitHub allows 1 MiB).
const F = require('./format');
const M = require('./markdown');

/** Why each row that did not pass got its verdict, one markdown list item per row ('' when all passed). */
function renderReasons(verdict) {
  const undecided = [...verdict.benchmarks, ...verdict.ahi].filter((b) => b.verdict !== 'pass');
  return undecided.map((b) => `- ${F.MARK[b.verdict]} \`${b.id}\`: ${b.reason}`).join('\n');
}

/**
 * @param verdict  perfgate.verdict/v1
 * @param options  {reportLink, thresholdsFrom: where the limits were read (a commit), shown under the headline}
 */
function renderSummary(verdict, options = {}) {
  const sides = verdict.run.sides || {};
  const parts = [
    `## ${F.MARK[verdict.verdict]} perfgate ${verdict.suite || ''}: ${F.WORD[verdict.verdict]}`.replace(/ +:/, ':'),
    '',
    verdict.headline,
    '',
    `head ${F.sideLine(sides.head)} against base ${F.sideLine(sides.base)}: ${F.countsLine(verdict)}. Limits: ${F.limitsLine(verdict)}; ${F.roundsLine(verdict)}.`,
  ];
  if (options.thresholdsFrom) parts.push('', `Limits from ${options.thresholdsFrom}.`);
  const notes = F.scopeNotes(verdict);
  if (notes.length) parts.push('', M.cell(notes.join(' ')));
  const doctor = M.doctorBlock(verdict);
  if (doctor) parts.push('', doctor);
  const plain = verdict.benchmarks.filter((b) => !b.ahi);
  if (plain.length) parts.push('', M.groupedTables(plain));
  const ahiRows = verdict.benchmarks.filter((b) => b.ahi);
  if (ahiRows.length) parts.push('', '**AHI cells**', '', M.benchmarkTable(ahiRows));
  if (verdict.ahi.length) parts.push('', '**AHI gain (on/off) of each side**', '', M.ahiTable(verdict.ahi));
  const reasons = renderReasons(verdict);
  if (reasons) parts.push('', 'Why:', '', reasons);
  const went = M.instructionsSection(verdict.benchmarks, 10);
  if (went) parts.push('', '**Where the instructions went**', '', went);
  parts.push('', M.legend(verdict.benchmarks));
  if (options.reportLink) parts.push('', `Full report with charts: ${options.reportLink}`);
  return parts.join('\n') + '\n';
}

module.exports = { renderSummary, renderReasons };
