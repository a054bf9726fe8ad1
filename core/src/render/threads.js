'use strict';
// Thread counts side by side, as markdown (comment.md, summary.md) and HTML (report.html):
// rQPS per thread count with each cell's verdict, and each side's QPS against threads. What
// goes in which row and column is threadScaling's (core/src/thread-scaling.js); this only
// shows it.
const F = require('./format');
const M = require('./markdown');
const { threadScaling } = require('../thread-scaling');

const threadsWord = (t) => `${t} thread${t === 1 ? '' : 's'}`;
const qpsText = (x) => F.num(x, 0);
const scalingText = (x) => (typeof x === 'number' && Number.isFinite(x) ? `×${x.toFixed(2)}` : '–');
const SCALING_LEGEND = 'QPS = each side\'s geometric mean over its rounds; base/head a→b = that side\'s QPS at b threads over its QPS at a threads (a head figure below the base\'s: the head gains less from more threads).';

// One cell of the side-by-side table: the row's verdict mark and rQPS, then its interval.
function rqpsCells(b) {
  if (!b) return '– | –';
  if (b.verdict === 'error') return `${F.markOf(b)} | –`;
  return `${F.markOf(b)} ${F.estimate(b.rqps)} | ${F.interval(b.rqps)}`;
}

/** rQPS per thread count, one row per microbenchmark: '' when the rows hold one thread count. */
function threadsTable(scaling) {
  const out = [
    `| microbenchmark |${scaling.threads.map((t) => ` ${threadsWord(t)} | 95% interval |`).join('')}`,
    `|:--|${scaling.threads.map(() => '--:|:-:|').join('')}`,
  ];
  for (const row of scaling.rows) out.push(`| ${M.text(row.label, { max: M.NAME_MAX })} |${row.cells.map((c) => ` ${rqpsCells(c.benchmark)} |`).join('')}`);
  return out.join('\n');
}

/** Each side's QPS at every thread count, and how much each gained from the fewest to the most threads. */
function scalingTable(scaling) {
  const span = (r) => (r.scaling ? `${r.scaling.from}→${r.scaling.to}` : '');
  const [first, last] = [scaling.threads[0], scaling.threads[scaling.threads.length - 1]];
  const out = [
    `| microbenchmark |${scaling.threads.map((t) => ` base QPS @${t} | head QPS @${t} |`).join('')} base ${first}→${last} | head ${first}→${last} |`,
    `|:--|${scaling.threads.map(() => '--:|--:|').join('')}--:|--:|`,
  ];
  for (const row of scaling.rows) {
    // A row measured at fewer thread counts than the suite says which span its figures cover.
    const note = row.scaling && (row.scaling.from !== first || row.scaling.to !== last) ? ` (${span(row)})` : '';
    out.push(`| ${M.text(row.label, { max: M.NAME_MAX })} |${row.qps.map((q) => ` ${qpsText(q.base)} | ${qpsText(q.head)} |`).join('')}`
      + ` ${scalingText(row.scaling && row.scaling.base)}${note} | ${scalingText(row.scaling && row.scaling.head)}${note} |`);
  }
  return out.join('\n');
}

/**
 * The markdown of thread counts for `rows` (judged rows): [] when they hold one thread count,
 * else the side-by-side table and the scaling table, the latter folded when `collapsed`.
 */
function threadsMarkdown(rows, { collapsed = false } = {}) {
  const scaling = threadScaling(rows);
  if (!scaling) return [];
  const counts = scaling.threads.join(', ');
  const parts = [`**rQPS per thread count (${counts} client threads)**`, '', threadsTable(scaling), ''];
  if (collapsed) {
    parts.push(`<details><summary>QPS against threads, base and head</summary>`, '', scalingTable(scaling), '', SCALING_LEGEND, '', '</details>');
  } else {
    parts.push('**QPS against threads, base and head**', '', scalingTable(scaling), '', SCALING_LEGEND);
  }
  return parts;
}

module.exports = { threadsMarkdown, threadsTable, scalingTable, threadsWord, qpsText, scalingText, SCALING_LEGEND };
