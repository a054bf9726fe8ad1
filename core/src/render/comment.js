'use strict';
// comment.md: the sticky pull-request comment. Pure: verdict in, markdown out.
const F = require('./format');
const M = require('./markdown');
const { sideScheduleWords } = require('../side-schedules');
const { threadsMarkdown } = require('./threads');

const { LIMITS, fitCharacters } = require('../github-limits');
// Two different majors differ in hundreds of variables: the comment lists this many.
const VARIABLE_ROWS = 40;

const GITHUB_COMMENT_LIMIT = LIMITS.comment;

// The hidden first line the sticky comment is found by. A suite name is letters, digits and
// . _ - (the action's input and the bot's grammar allow no more); anything else, which only a
// forged verdict could carry, must not end the HTML comment early.
function marker(suite) {
  return `<!-- perfgate:comment suite=${String(suite || 'unknown').replace(/[^A-Za-z0-9_.-]/g, '_')} -->`;
}

// Each side runs with its flavour's profile (results.json sides); runs from before that record
// one profile for both in the plan.
function profileNote(sides, planProfile) {
  const names = [...new Set(['base', 'head'].map((s) => sides[s] && sides[s].profile).filter(Boolean))];
  if (names.length) return ` (profile ${names.join(' / ')})`;
  return planProfile && planProfile.name ? ` (profile ${planProfile.name})` : '';
}

function detailsBlock(verdict) {
  const { sides = {}, machine, measure, scale, profile } = verdict.run;
  const lines = ['<details><summary>Versions, builds, server options, machine, how to reproduce</summary>', ''];
  lines.push('| | base | head |', '|:--|:--|:--|');
  const bothSides = (field, show = M.text) => ['base', 'head'].map((k) => show((sides[k] && sides[k][field]) || '–', { table: true })).join(' | ');
  lines.push(`| version | ${bothSides('version')} |`);
  lines.push(`| commit | ${bothSides('commit')} |`);
  lines.push(`| label | ${bothSides('label')} |`);
  lines.push(`| basedir | ${bothSides('basedir', M.code)} |`);
  const build = F.buildLines(sides);
  for (const [label, b, h] of build.rows) lines.push(`| ${label} | ${M.cell(b ?? '–')} | ${M.cell(h ?? '–')} |`);
  if (build.unknown.length) lines.push('', M.cell(build.unknown.join(' ')));
  const cmake = F.cmakeRows(sides);
  if (cmake.length) {
    lines.push('', 'cmake options (from the build record of perfgate build):', '', '| option | base | head |', '|:--|:--|:--|');
    for (const o of cmake) lines.push(`| ${o.differs ? '**' : ''}${M.cell(o.key)}${o.differs ? '**' : ''} | ${M.cell(o.base ?? '–')} | ${M.cell(o.head ?? '–')} |`);
  }
  const options = F.optionRows(sides);
  if (options.length) {
    lines.push('', `Server options${profileNote(sides, profile)}:`, '', '| option | base | head |', '|:--|:--|:--|');
    for (const o of options) lines.push(`| ${o.differs ? '**' : ''}${M.text(o.key)}${o.differs ? '**' : ''} | ${M.text(o.base ?? '–')} | ${M.text(o.head ?? '–')} |`);
  }
  if (scale || measure) {
    const parts = [];
    if (scale) parts.push(F.scaleWords(scale, verdict.benchmarks));
    if (measure) {
      parts.push(`${measure.seconds} s rounds after a ${measure.warmup_seconds} s warm-up, ${measure.rounds} rounds per side, `
        + sideScheduleWords(measure.side_schedule));
    }
    lines.push('', `Scale and timing: ${M.text(parts.join('; '))}.`);
  }
  const m = F.machineLines(machine);
  if (m.length) lines.push('', 'Machine:', '', ...m.map(([k, v]) => `- ${k}: ${M.code(v)}`));
  if (verdict.run.machines_differ) lines.push('', '**The merged results come from different machines (judged with --allow-different-machines).**');
  const target = F.reproduceTarget(verdict);
  if (target) {
    lines.push('', `To reproduce ${M.code(target.id, { max: M.NAME_MAX })} by hand, start each server with the options above and run:`, '', M.fence(F.commandLines(target, sides), 'sh'));
  }
  lines.push('', `Method: ${M.text(verdict.method)}; ${Math.round(verdict.confidence * 100)}% intervals.`, '', '</details>');
  return lines.join('\n');
}

function renderWith(verdict, shown, options) {
  const omitted = verdict.benchmarks.length - shown.length;
  const parts = [marker(verdict.suite), ...M.opening(verdict, shown, { heading: '###', boldHeadline: true, thresholdsFrom: options.thresholdsFrom })];
  const byThreads = threadsMarkdown(shown, { collapsed: true });
  if (byThreads.length) parts.push('', ...byThreads);
  const ahiRows = shown.filter((b) => b.ahi);
  if (ahiRows.length) parts.push('', '**AHI cells (each state measured on both sides)**', '', M.benchmarkTable(ahiRows));
  if (verdict.ahi.length) parts.push('', '**AHI gain (QPS with AHI on / off) of each side**', '', M.ahiTable(verdict.ahi));
  if (omitted > 0) {
    parts.push('', `_${omitted} of ${verdict.benchmarks.length} rows are left out to fit GitHub's comment size; the full report is ${options.reportLink || 'report.html in the run folder'}._`);
  }
  const causes = M.causesSection(shown);
  if (causes) parts.push('', '**Why it got slower**', '', causes);
  const memory = M.memorySection(shown);
  if (memory) parts.push('', '**Memory growth per query**', '', memory);
  const went = M.instructionsSection(shown, 3);
  if (went) parts.push('', '<details><summary>Where the instructions went</summary>', '', went, '', '</details>');
  const variables = M.variablesSection(verdict.run.sides, VARIABLE_ROWS);
  if (variables) parts.push('', variables);
  parts.push('', M.legend(shown));
  if (options.chart !== false) {
    const chart = M.rqpsChart(shown);
    if (chart) parts.push('', chart);
  }
  if (options.reportLink) parts.push('', `Full report: ${options.reportLink}`);
  parts.push('', detailsBlock(verdict));
  return parts.join('\n') + '\n';
}

// Rows to keep when the comment is too long: the most severe first, then the slowest; shown in
// their original order.
function keepRows(benchmarks, count) {
  const ranked = benchmarks
    .map((b, i) => ({ b, i }))
    .sort((x, y) => F.SEVERITY[y.b.verdict] - F.SEVERITY[x.b.verdict] || (x.b.rqps ? x.b.rqps.estimate : 0) - (y.b.rqps ? y.b.rqps.estimate : 0) || x.i - y.i);
  const keep = new Set(ranked.slice(0, count).map((x) => x.i));
  return benchmarks.filter((_, i) => keep.has(i));
}

/**
 * @param verdict  perfgate.verdict/v2
 * @param options  {reportLink: where the full report is (artifact URL or name), limit: max characters,
 *                 thresholdsFrom: where the limits were read (a commit), shown under the headline}
 */
function renderComment(verdict, options = {}) {
  const limit = options.limit || GITHUB_COMMENT_LIMIT;
  let text = renderWith(verdict, verdict.benchmarks, options);
  if (text.length <= limit) return text;
  // Drop rows, least severe first, until it fits (binary search on the number of rows kept).
  let lo = 0;
  let hi = verdict.benchmarks.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (renderWith(verdict, keepRows(verdict.benchmarks, mid), options).length <= limit) lo = mid; else hi = mid - 1;
  }
  text = renderWith(verdict, keepRows(verdict.benchmarks, lo), options);
  if (text.length <= limit) return text;
  // Even without rows it is too long (huge option lists): keep the head of the text and say so.
  return fitCharacters(text, limit, `Cut to fit GitHub's comment size; the full report is ${options.reportLink || 'report.html in the run folder'}.`);
}

module.exports = { renderComment, marker, GITHUB_COMMENT_LIMIT };
