'use strict';
// The reports of a chain (perfgate.chain/v2) in the posts' layout: "Throughput relative to:
// <base>", one column per version (col-1, col-2, ...), one row per microbenchmark, rQPS with
// its interval; then I/O per query and p95 latency per version. Pure: chain in, text out. Each
// head's own full report (reasons, variables, options, how to reproduce) is rendered by the
// two-sided renderers from that head's verdict.
const F = require('./format');
const M = require('./markdown');
const { rqpsChart } = require('./html');
const { pageHead, esc, td, scrollTable, reasonRow } = require('./html-base');
const { delimited } = require('./delimited');
const { marker } = require('./comment');
const { IO_COLUMNS } = require('../per-query');

/**
 * The chain as a table: {base, columns: [{name, side, server, verdict, headline}],
 * groups: [{title, rows: [{id, threads, cells: [judged row of each head | null]}]}],
 * figures: [{label, key, what}]: the I/O figures any row carries, p95: whether any row has it}.
 * Rows follow the first head's verdict, grouped as every report groups them.
 */
function chainTable(chain) {
  const columns = chain.heads.map((h, k) => ({
    name: `col-${k + 1}`, side: h.side, server: h.verdict.run.sides.head, verdict: h.verdict.verdict, headline: h.verdict.headline,
  }));
  const byId = chain.heads.map((h) => new Map(h.verdict.benchmarks.map((b) => [b.id, b])));
  const groups = F.groupsOf(chain.heads[0].verdict.benchmarks).map((g) => ({
    title: g.title,
    rows: g.benchmarks.map((b) => ({ id: b.id, threads: b.threads, cells: byId.map((m) => m.get(b.id) || null) })),
  }));
  const cells = groups.flatMap((g) => g.rows.flatMap((r) => r.cells)).filter(Boolean);
  return {
    base: chain.base,
    columns,
    groups,
    figures: cells.some((c) => c.io) ? IO_COLUMNS.map((f) => ({ label: f.label, key: f.key, what: f.what })) : [],
    p95: cells.some((c) => c.latency_p95_ms),
  };
}

const rqpsText = (cell) => (cell && cell.rqps ? `${F.estimate(cell.rqps)} (${F.interval(cell.rqps)})` : '–');
const ioText = (cell, key) => F.ioCell(cell && cell.io && cell.io[key]);
const p95Of = (cell, side) => (cell && cell.latency_p95_ms ? cell.latency_p95_ms[side] : null);
// The base's p95: the same base rounds stand in every head's view; the first that has it.
const baseP95 = (row) => p95Of(row.cells.find((c) => p95Of(c, 'base') !== null && p95Of(c, 'base') !== undefined), 'base');

// ------------------------------------------------------------------------------ markdown

function columnLines(table) {
  return [
    `Throughput relative to: base ${M.text(F.sideLine(table.base))}`,
    '',
    ...table.columns.map((c) => `- ${c.name}: ${M.text(F.sideLine(c.server))} — ${F.MARK[c.verdict]} ${F.WORD[c.verdict]}: ${M.text(c.headline, { max: M.HEADLINE_MAX })}`),
  ];
}

function rqpsTables(table) {
  const header = `| microbenchmark | ${table.columns.map((c) => c.name).join(' | ')} |`;
  const align = `|:--|${table.columns.map(() => '--:|').join('')}`;
  return table.groups.map((g) => [
    `**${M.text(g.title)}**`, '', header, align,
    ...g.rows.map((r) => `| ${M.text(r.id, { max: M.NAME_MAX })} | ${r.cells.map((c) => (c ? `${F.markOf(c)} ${rqpsText(c)}` : '–')).join(' | ')} |`),
  ].join('\n')).join('\n\n');
}

// I/O per query relative to the base, and p95 latency in ms of every version (the base too).
function figureTables(table) {
  const rows = table.groups.flatMap((g) => g.rows);
  const names = table.columns.map((c) => c.name);
  const out = [];
  for (const f of table.figures) {
    out.push([`**${f.label}, relative to the base**`, '', `| microbenchmark | ${names.join(' | ')} |`, `|:--|${names.map(() => '--:|').join('')}`,
      ...rows.map((r) => `| ${M.text(r.id, { max: M.NAME_MAX })} | ${r.cells.map((c) => ioText(c, f.key)).join(' | ')} |`)].join('\n'));
  }
  if (table.p95) {
    out.push(['**p95 latency (ms)**', '', `| microbenchmark | base | ${names.join(' | ')} |`, `|:--|--:|${names.map(() => '--:|').join('')}`,
      ...rows.map((r) => `| ${M.text(r.id, { max: M.NAME_MAX })} | ${F.num(baseP95(r))} | ${r.cells.map((c) => F.num(p95Of(c, 'head'))).join(' | ')} |`)].join('\n'));
  }
  return out.join('\n\n');
}

// The sentences saying what the figure tables are: I/O in the words of every report, p95 as
// the chain shows it (each version's own milliseconds, the base's too).
function figureLegend(table, rows) {
  const io = table.figures.length ? F.figureLegend(rows)[0].replace(/head\/base/g, 'version/base').replace('base→head', 'base→version') : null;
  const p95 = table.p95 ? 'p95 latency = sysbench\'s 95th percentile latency in ms, the mean of each version\'s rounds' : null;
  return [io, p95].filter(Boolean);
}

const LEGEND = 'Each column is one version against the same base, measured in the same run with every side\'s rounds interleaved (A B C / C B A), so that the machine\'s drift moves every column alike; '
  + 'rQPS = version QPS / base QPS, the geometric mean of rounds paired by index, with its 95% interval.';

function chainMarkdown(chain, { heading, reportLink }) {
  const table = chainTable(chain);
  const parts = [
    `${heading} ${F.MARK[chain.verdict]} perfgate ${M.text(chain.suite || '', { max: M.NAME_MAX })}: chain of ${table.columns.length} versions: ${F.WORD[chain.verdict]}`.replace(/ +:/, ':'),
    '',
    ...columnLines(table),
    '',
    rqpsTables(table),
  ];
  const figures = figureTables(table);
  if (figures) parts.push('', figures);
  const sentences = figureLegend(table, chain.heads[0].verdict.benchmarks).map((s) => `${s}. `).join('');
  parts.push('', `${LEGEND} ${sentences}Each version's own report, reasons included, is in heads/<side>/ of the run folder.`);
  if (reportLink) parts.push('', `Full report: ${reportLink}`);
  return parts.join('\n') + '\n';
}

/** comment.md of a chain (the suite's marker first, like every comment perfgate writes). */
const renderChainComment = (chain, options = {}) => `${marker(chain.suite)}\n${chainMarkdown(chain, { heading: '###', ...options })}`;

/** summary.md of a chain: the table, then why each version's rows that did not pass got their verdict. */
function renderChainSummary(chain, options = {}) {
  const table = chainTable(chain);
  const why = table.columns.map((c, k) => {
    const v = chain.heads[k].verdict;
    const rows = [...v.benchmarks, ...v.ahi].filter(F.listsReason);
    return rows.length ? [`**Why (${c.name})**`, '', ...rows.map((b) => `- ${F.markOf(b)} ${M.code(b.id, { max: M.NAME_MAX })}: ${M.text(b.reason)}`)].join('\n') : '';
  }).filter(Boolean);
  return `${chainMarkdown(chain, { heading: '##', ...options }).trimEnd()}${why.length ? `\n\n${why.join('\n\n')}` : ''}\n`;
}

// ------------------------------------------------------------------------------ html

function renderChainReport(chain) {
  const table = chainTable(chain);
  const limits = (chain.heads[0].verdict.limits && chain.heads[0].verdict.limits.default) || { warn: 0.97, fail: 0.93 };
  const parts = [pageHead(`perfgate ${chain.suite || ''}: chain: ${chain.verdict}`)];
  parts.push(`<h1><span class="badge ${esc(chain.verdict)}">${esc(chain.verdict)}</span> perfgate ${esc(chain.suite || '')}: chain of ${table.columns.length} versions: <span data-verdict="${esc(chain.verdict)}">${esc(chain.verdict)}</span></h1>`);
  parts.push(`<p>Throughput relative to: base <b>${esc(F.sideLine(table.base))}</b></p>`);
  const columns = table.columns.map((c) => `<tr class="${esc(c.verdict)}">${td(c.name)}${td(F.sideLine(c.server))}${td(F.wordOf(c), 'mark')}<td><a href="heads/${esc(c.side)}/report.html">heads/${esc(c.side)}/report.html</a></td></tr>${reasonRow(c.headline, 4, c.verdict)}`).join('\n');
  parts.push(scrollTable(' data-table="columns"', `<tr><th>column</th><th>version</th><th>verdict</th><th>its own report</th></tr>\n${columns}`), `<p class="muted">${esc(LEGEND)}</p>`);
  parts.push('<h2>rQPS of every version</h2>');
  const names = table.columns.map((c) => `<th>${esc(c.name)}</th><th>${esc(c.name)} interval</th>`).join('');
  for (const g of table.groups) {
    const rows = g.rows.map((r) => {
      const cells = r.cells.map((c) => (c ? `<td class="n ${esc(c.verdict)}" title="${esc(c.reason)}">${esc(`${F.wordOf(c)} ${F.estimate(c.rqps)}`)}</td>${td(F.interval(c.rqps), 'n')}` : `${td('–', 'n')}${td('–', 'n')}`)).join('');
      const reasons = r.cells.map((c, k) => (c ? `${table.columns[k].name}: ${c.reason}` : null)).filter(Boolean).join('; ');
      return `<tr>${td(r.id)}${cells}</tr>${reasonRow(reasons, 1 + 2 * table.columns.length)}`;
    });
    parts.push(`<h3>${esc(g.title)}</h3>${scrollTable(' data-table="chain"', `<tr><th>microbenchmark</th>${names}</tr>\n${rows.join('\n')}`)}`);
    // One chart per group: a line per microbenchmark and version, with its interval.
    const bars = g.rows.flatMap((r) => r.cells.map((c, k) => (c ? { ...c, id: `${r.id} · ${table.columns[k].name}` } : null)).filter(Boolean));
    parts.push(rqpsChart(bars, limits));
  }
  const rows = table.groups.flatMap((g) => g.rows);
  if (table.figures.length || table.p95) {
    const heads = [...table.figures.flatMap((f) => table.columns.map((c) => `${f.label} ${c.name}`)), ...(table.p95 ? ['p95 ms base', ...table.columns.map((c) => `p95 ms ${c.name}`)] : [])];
    const body = rows.map((r) => `<tr>${td(r.id)}${table.figures.map((f) => r.cells.map((c) => td(ioText(c, f.key), 'n')).join('')).join('')}${table.p95 ? `${td(F.num(baseP95(r)), 'n')}${r.cells.map((c) => td(F.num(p95Of(c, 'head')), 'n')).join('')}` : ''}</tr>`).join('\n');
    parts.push('<h2>I/O per query and p95 latency of every version</h2>', scrollTable(' data-table="chain-figures"', `<tr><th>microbenchmark</th>${heads.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>\n${body}`));
    const legend = figureLegend(table, chain.heads[0].verdict.benchmarks);
    if (legend.length) parts.push(`<p class="muted">${esc(`${legend.join('. ')}.`)}</p>`);
  }
  parts.push('</body></html>\n');
  return parts.join('\n');
}

// ------------------------------------------------------------------------------ csv, tsv

/** chain.csv/chain.tsv rows: a header naming each column's version, then one row per microbenchmark. */
function chainRows(chain) {
  const table = chainTable(chain);
  const header = ['microbenchmark', 'threads'];
  if (table.p95) header.push('base p95 ms');
  for (const c of table.columns) {
    const name = `${c.name} ${F.sideLine(c.server)}`;
    header.push(`${name} rQPS`, `${name} rQPS low`, `${name} rQPS high`, `${name} verdict`,
      ...table.figures.map((f) => `${name} ${f.label}`), ...(table.p95 ? [`${name} p95 ms`] : []));
  }
  const body = table.groups.flatMap((g) => g.rows).map((r) => {
    const row = [r.id, r.threads ?? '–'];
    if (table.p95) row.push(F.num(baseP95(r)));
    for (const c of r.cells) {
      const i = c && c.rqps;
      row.push(F.estimate(i), i && i.low !== null ? F.num(i.low) : '–', i && i.low !== null ? F.num(i.high) : '–', c ? F.wordOf(c) : '–',
        ...table.figures.map((f) => ioText(c, f.key)), ...(table.p95 ? [F.num(p95Of(c, 'head'))] : []));
    }
    return row;
  });
  return [header, ...body];
}

const renderChainCsv = (chain) => delimited(chainRows(chain), ',');
const renderChainTsv = (chain) => delimited(chainRows(chain), '\t');

/** Every report of a chain: file name → text. */
function renderChainReports(chain, options = {}) {
  return {
    'comment.md': renderChainComment(chain, options),
    'summary.md': renderChainSummary(chain, options),
    'report.html': renderChainReport(chain),
    'chain.csv': renderChainCsv(chain),
    'chain.tsv': renderChainTsv(chain),
  };
}

module.exports = { chainTable, renderChainReports, renderChainComment, renderChainSummary, renderChainReport, renderChainCsv, renderChainTsv };
