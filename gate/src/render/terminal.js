'use strict';
// The plain table printed at the end of `perfgate compare`: one row per microbenchmark with
// rQPS (median of the paired round ratios head/base) and the cpu/o and cs/o ratios. Pure: a
// results document in, text out.

function median(values) {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

// Rounds of base and head with the same index ran back to back (A B B A …): their ratio
// cancels most of the machine's drift, so ratios are taken per pair, then summarised.
function pairedRatios(rounds, field) {
  const base = new Map();
  for (const r of rounds) if (r.side === 'base') base.set(r.index, r);
  const ratios = [];
  for (const h of rounds) {
    if (h.side !== 'head') continue;
    const b = base.get(h.index);
    if (!b) continue;
    const num = h[field];
    const den = b[field];
    if (typeof num === 'number' && typeof den === 'number' && den > 0) ratios.push(num / den);
  }
  return ratios;
}

function medianOfSide(rounds, side, field) {
  return median(rounds.filter((r) => r.side === side && typeof r[field] === 'number').map((r) => r[field]));
}

function summarizeBenchmark(b) {
  const rounds = b.rounds || [];
  return {
    id: b.id,
    status: b.status,
    rqps: median(pairedRatios(rounds, 'qps')),
    cpu: median(pairedRatios(rounds, 'cpu_per_query_us')),
    cs: median(pairedRatios(rounds, 'cs_per_query')),
    baseQps: medianOfSide(rounds, 'base', 'qps'),
    headQps: medianOfSide(rounds, 'head', 'qps'),
    pairs: pairedRatios(rounds, 'qps').length,
  };
}

function fixed(value, digits) {
  return typeof value === 'number' ? value.toFixed(digits) : '-';
}

function renderTable(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  // First column left-aligned (names), numbers right-aligned.
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

function renderTerminal(results) {
  const rows = results.benchmarks.map((b) => {
    const s = summarizeBenchmark(b);
    if (s.status !== 'ok') return [s.id, 'error', '-', '-', '-', '-', String(s.pairs)];
    return [s.id, fixed(s.rqps, 3), fixed(s.cpu, 3), fixed(s.cs, 3), fixed(s.baseQps, 0), fixed(s.headQps, 0), String(s.pairs)];
  });
  const base = results.sides.base;
  const head = results.sides.head;
  const title = `rQPS of ${head.label || 'head'} (${head.version}) against ${base.label || 'base'} (${base.version}), suite ${results.plan.suite}`;
  const table = renderTable(['microbenchmark', 'rQPS', 'cpu/o', 'cs/o', 'base QPS', 'head QPS', 'pairs'], rows);
  const notes = [
    'rQPS: head/base QPS, median of the paired round ratios (1.000 = same, below 1 = head slower).',
    'cpu/o, cs/o: head/base mysqld CPU time and context switches per query (above 1 = head does more work).',
  ];
  if (results.status !== 'ok') notes.push('The run has errors: rows marked error are not measurements.');
  return [title, '', table, '', ...notes].join('\n') + '\n';
}

module.exports = { renderTerminal, summarizeBenchmark, pairedRatios, median };
