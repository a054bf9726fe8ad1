'use strict';
// The plain table printed when a run broke off before it could be judged: what was measured,
// one row per microbenchmark, with the same figures a verdict would show (rQPS as the
// geometric mean of the paired round ratios, cpu/o, cs/o and I/O per query likewise) but no
// verdicts.
// Pure: a results document in, text out.
const { metricInterval } = require('../statistics');
const F = require('./format');
const { ioFigures, latencyP95, memoryFigure } = require('../per-query');

function renderTable(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  // First column left-aligned (names), numbers right-aligned.
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

function renderTerminal(results) {
  const measured = results.benchmarks.map((b) => ({ ...b, io: ioFigures(b.rounds || [], metricInterval), latency_p95_ms: latencyP95(b.rounds || [], metricInterval), memory: memoryFigure(b.rounds || []) }));
  const figures = F.figureColumns(measured);
  const rows = measured.map((b) => {
    const rounds = b.rounds || [];
    const rqps = metricInterval(rounds, 'qps');
    if (b.status !== 'ok') return [b.id, 'error', '–', '–', '–', ...figures.map(() => '–'), String(rqps ? rqps.n : 0)];
    return [b.id, F.estimate(rqps), F.interval(rqps), F.estimate(metricInterval(rounds, 'cpu_per_query_us')),
      F.estimate(metricInterval(rounds, 'cs_per_query')), ...figures.map((c) => c.cell(b)), String(rqps ? rqps.n : 0)];
  });
  const base = results.sides.base;
  const head = results.sides.head;
  const title = `rQPS of ${head.label || 'head'} (${head.version}) against ${base.label || 'base'} (${base.version}), suite ${results.plan.suite}: measured, not judged`;
  const table = renderTable(['microbenchmark', 'rQPS', '95% interval', 'cpu/o', 'cs/o', ...figures.map((c) => c.header), 'pairs'], rows);
  const notes = [
    'rQPS: head/base QPS, the geometric mean of the paired round ratios (1.00 = same, below 1 = head slower).',
    'cpu/o, cs/o: head/base mysqld CPU time and context switches per query (above 1 = head does more work).',
  ];
  notes.push(...F.figureLegend(measured).map((sentence) => `${sentence}.`));
  notes.push(...F.memoryLines(measured).map((m) => `${m.row.id}: ${m.text}.`));
  if (results.status !== 'ok') notes.push('The run has errors: rows marked error are not measurements.');
  return [title, '', table, '', ...notes].join('\n') + '\n';
}

module.exports = { renderTerminal };
