'use strict';
// Markdown pieces shared by comment.md and summary.md.
const F = require('./format');

// Table cells must not break the table: pipes escaped, newlines flattened.
const cell = (s) => String(s ?? '').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

function benchmarkTable(rows) {
  const out = [
    '| | microbenchmark | rQPS | 95% interval | cpu/o | cs/o | pairs |',
    '|:-:|:--|--:|:-:|--:|--:|--:|',
  ];
  for (const b of rows) {
    const name = b.verdict === 'error' ? `${b.id} — ${b.reason}` : b.id;
    out.push(`| ${F.MARK[b.verdict]} | ${cell(name)} | ${F.estimate(b.rqps)} | ${F.interval(b.rqps)} | ${F.estimate(b.cpu_per_query)} | ${F.estimate(b.cs_per_query)} | ${b.rounds.pairs} |`);
  }
  return out.join('\n');
}

function ahiTable(cells) {
  const out = [
    '| | workload | threads | rQPS AHI off | rQPS AHI on | base gain (on/off) | head gain (on/off) | gain ratio | 95% interval |',
    '|:-:|:--|--:|--:|--:|--:|--:|--:|:-:|',
  ];
  for (const c of cells) {
    out.push(`| ${F.MARK[c.verdict]} | ${cell(c.name)} | ${c.threads ?? '–'} | ${F.num(c.rqps_off)} | ${F.num(c.rqps_on)} | ${F.num(c.gain.base)} | ${F.num(c.gain.head)} | ${F.estimate(c.gain_ratio)} | ${F.interval(c.gain_ratio)} |`);
  }
  return out.join('\n');
}

// A horizontal mermaid bar chart of rQPS (GitHub renders mermaid blocks in comments).
function rqpsChart(benchmarks) {
  const bars = benchmarks.filter((b) => b.rqps && Number.isFinite(b.rqps.estimate));
  if (!bars.length) return '';
  const top = Math.max(1.2, ...bars.map((b) => b.rqps.estimate));
  const label = (s) => `"${String(s).replace(/"/g, "'")}"`;
  return [
    '```mermaid',
    'xychart-beta horizontal',
    '    title "rQPS (head / base; 1.00 = same, below 1 = head slower)"',
    `    x-axis [${bars.map((b) => label(b.id)).join(', ')}]`,
    `    y-axis "rQPS" 0 --> ${Math.ceil(top * 10) / 10}`,
    `    bar [${bars.map((b) => b.rqps.estimate.toFixed(2)).join(', ')}]`,
    '```',
  ].join('\n');
}

function groupedTables(benchmarks) {
  return F.groupsOf(benchmarks.filter((b) => !b.ahi))
    .map((g) => `**${g.title}**\n\n${benchmarkTable(g.benchmarks)}`)
    .join('\n\n');
}

function legend() {
  return 'rQPS = head QPS / base QPS, the geometric mean of paired rounds; cpu/o and cs/o = head/base mysqld CPU time and context switches per query (above 1 = head does more work). '
    + `${F.MARK.pass} pass ${F.MARK.warn} warn ${F.MARK.inconclusive} inconclusive ${F.MARK.fail} fail ${F.MARK.error} error`;
}

function doctorBlock(verdict) {
  const w = verdict.doctor || [];
  if (!w.length) return '';
  return `> [!WARNING]\n> This runner may give noisy timings:\n${w.map((x) => `> - ${cell(x)}`).join('\n')}`;
}

module.exports = { benchmarkTable, ahiTable, rqpsChart, groupedTables, legend, doctorBlock, cell };
