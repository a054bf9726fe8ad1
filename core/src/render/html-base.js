'use strict';
// What every HTML page perfgate writes shares: the one escape of text into HTML, the colours
// of verdicts and sides, the page's head and style, and the pieces its layout is made of (a
// table that scrolls inside its own box, a row's reason on a line of its own, a part folded
// away). The words shown come from the verdict; a verdict without a colour of its own is drawn
// in the error's.
const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
const COLOR = { pass: '#1a7f37', warn: '#9a6700', undecided: '#6e7781', fail: '#cf222e', error: '#8250df', base: '#0969da', head: '#d1242f' };
const SIDES = new Set(['base', 'head']);
const colorOf = (verdict) => COLOR[verdict] || COLOR.error;

const td = (s, cls = '') => `<td${cls ? ` class="${cls}"` : ''}>${esc(s)}</td>`;

/**
 * A table in a box of its own that scrolls sideways when the table is wider than the page, so
 * the page itself never does. `attrs`: the table's attributes (e.g. ' data-table="x"').
 */
const scrollTable = (attrs, rows) => `<div class="scroll"><table${attrs}>${rows}</table></div>`;

/**
 * The reason of the row above, on a line of its own across all `span` columns; its text stays
 * within the window while the table scrolls under it.
 */
const reasonRow = (reason, span, verdict) => (reason ? `<tr class="reason ${esc(verdict || '')}"><td colspan="${span}"><div>${esc(reason)}</div></td></tr>` : '');

/** A part of the page folded away under `summary` (open when `open`). */
const folded = (summary, html, { open = false, data = '' } = {}) => `<details${open ? ' open' : ''}${data ? ` data-details="${esc(data)}"` : ''}><summary>${esc(summary)}</summary>\n${html}\n</details>`;

const verdictStyles = () => Object.entries(COLOR).filter(([k]) => !SIDES.has(k)).map(([k, c]) => `tr.${k} td.mark,td.mark.${k}{color:${c}}.badge.${k}{background:${c}}tr.reason.${k} td{border-left:3px solid ${c}}`).join('\n');

// The opening of every report page, up to <body>: one style for all of them (`extra`: a page's
// own rules after it). Wide tables scroll in their own box (.scroll); text breaks anywhere
// rather than widen the page.
function pageHead(title, extra = '') {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328;max-width:1100px;margin:24px auto;padding:0 16px;overflow-wrap:anywhere}
h1{font-size:22px;margin:0 0 6px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
.headline{font-size:16px;font-weight:600}.muted{color:#57606a}
.scroll{max-width:100%;overflow-x:auto;margin:6px 0 12px}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;overflow-wrap:normal}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
td.n{text-align:right;white-space:nowrap}td.n.fail{color:${COLOR.fail};font-weight:600}td.n.warn{color:${COLOR.warn}}th{background:#f6f8fa}
tr.reason td{color:#57606a;font-size:12px;border-top:none;padding:1px 8px 6px 24px}tr.reason td>div{position:sticky;left:24px;max-width:min(100%,calc(100vw - 72px));overflow-wrap:anywhere}
td.mark{font-weight:600;white-space:nowrap}
${verdictStyles()}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(330px,100%),1fr));gap:14px}.cell{border:1px solid #d0d7de;border-radius:6px;padding:8px;min-width:0}
.cell h3{margin:0 0 4px;font-size:13px}svg{max-width:100%;height:auto}svg text{font:11px system-ui,sans-serif;fill:#1f2328}svg text.tick{fill:#57606a;font-size:10px}svg text.ref{font-size:10px}
.legend span{display:inline-block;width:10px;height:10px;border-radius:50%;margin:0 4px 0 12px}
.badge{display:inline-block;color:#fff;border-radius:10px;padding:0 8px;font-size:12px;vertical-align:middle}
details{margin:10px 0;border:1px solid #d0d7de;border-radius:6px;padding:4px 10px}summary{cursor:pointer;font-weight:600;padding:4px 0}details[open]>summary{border-bottom:1px solid #d0d7de;margin-bottom:6px}
pre{background:#f6f8fa;padding:8px;overflow-x:auto;font-size:12px;overflow-wrap:normal}.warnbox{border-left:4px solid ${COLOR.warn};background:#fff8c5;padding:6px 10px}
@media (max-width:600px){body{margin:12px auto;padding:0 10px}h1{font-size:19px}th,td{padding:3px 5px}}
${extra}</style></head><body>`;
}

module.exports = { esc, COLOR, colorOf, td, scrollTable, reasonRow, folded, pageHead };
