#!/usr/bin/env node
// The pictures of docs/pictures/: the pull-request comment and report.html of real run folders,
// rendered again from each folder's verdict.json by the current renderers, so that a picture
// shows what perfgate writes today. The comment's markdown goes through marked with a
// GitHub-like style; headless Chromium (/usr/bin/chromium, driven by playwright-core) takes
// the screenshots.
//   node scripts/render-pictures.mjs pass=runs/demo fail=runs/<a failing run> [--out docs/pictures]
// writes comment-<name>.png and report-<name>.png for each name=folder.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { marked } = require('marked');
const core = require('@perfgate/core');

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = process.env.PERFGATE_CHROMIUM || '/usr/bin/chromium';
const COMMENT_WIDTH = 880;
const REPORT_VIEWPORT = { width: 1280, height: 1600 };

// GitHub's alerts (> [!WARNING]) as the boxes GitHub draws; marked leaves them blockquotes.
const ALERT = /<blockquote>\s*<p>\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*/g;
const alerts = (html) => html.replace(ALERT, (_, kind) => `<blockquote class="alert ${kind.toLowerCase()}"><p><b>${kind[0]}${kind.slice(1).toLowerCase()}</b><br>`);

const STYLE = `
body{margin:0;background:#fff;font:14px/1.5 -apple-system,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif,"Noto Color Emoji";color:#1f2328}
.comment{margin:16px;border:1px solid #d1d9e0;border-radius:6px;overflow:hidden}
.who{background:#f6f8fa;border-bottom:1px solid #d1d9e0;padding:8px 16px;color:#59636e}.who b{color:#1f2328}
.body{padding:16px}h3{font-size:1.25em;margin:0 0 16px}p{margin:0 0 12px}
table{border-collapse:collapse;margin:0 0 16px;display:block;overflow:auto;font-variant-numeric:tabular-nums}
th,td{border:1px solid #d1d9e0;padding:6px 13px}th{font-weight:600}tr:nth-child(2n){background:#f6f8fa}
code{background:#eff1f3;border-radius:6px;padding:.2em .4em;font-size:85%}pre{background:#f6f8fa;border-radius:6px;padding:16px;overflow:auto}
blockquote{margin:0 0 16px;padding:0 1em;color:#59636e;border-left:.25em solid #d1d9e0}
blockquote.alert{color:#1f2328}blockquote.alert.warning{border-left-color:#9a6700}blockquote.alert.warning b{color:#9a6700}
blockquote.alert.note{border-left-color:#0969da}blockquote.alert.caution{border-left-color:#cf222e}
details{margin:0 0 12px}summary{cursor:pointer}a{color:#0969da}
`;

/** The verdict of a run folder, checked against its schema: the folder is input like any other. */
export function readVerdict(folder) {
  const file = path.join(folder, 'verdict.json');
  if (!existsSync(file)) throw new Error(`${folder}: no verdict.json; expected a run folder of perfgate compare`);
  let verdict;
  try {
    verdict = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: not JSON (${err.message})`);
  }
  const problem = core.schemaProblem('verdict', verdict);
  if (problem) throw new Error(`${file}: ${problem}`);
  return verdict;
}

/** The comment page: the comment.md perfgate writes for `verdict`, as GitHub shows it. */
export function commentPage(verdict) {
  // GitHub draws the comment's rQPS chart with mermaid, which has no place here: left out.
  const markdown = core.renderComment(verdict, { chart: false, reportLink: 'the run folder\'s report.html (artifact)' });
  const body = alerts(marked.parse(markdown, { gfm: true }));
  return `<!doctype html><html><head><meta charset="utf-8"><style>${STYLE}</style></head><body><div class="comment"><div class="who"><b>github-actions</b> bot commented</div><div class="body">${body}</div></div></body></html>`;
}

async function main() {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { out: { type: 'string', default: path.join(ROOT, 'docs/pictures') } } });
  const runs = positionals.map((p) => {
    const m = p.match(/^([a-z][a-z0-9-]*)=(.+)$/);
    if (!m) throw new Error(`'${p}': expected name=<run folder>, e.g. pass=runs/demo`);
    return { name: m[1], folder: path.resolve(m[2]), verdict: readVerdict(path.resolve(m[2])) };
  });
  if (!runs.length) throw new Error('no run folder; expected name=<run folder> ..., e.g. pass=runs/demo fail=runs/slow');
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: scripts/install-deps.sh installs Debian's chromium`);
  const { chromium } = require('playwright-core');
  mkdirSync(values.out, { recursive: true });
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'perfgate-pictures-'));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    for (const run of runs) {
      const comment = path.join(tmp, `comment-${run.name}.html`);
      const report = path.join(tmp, `report-${run.name}.html`);
      writeFileSync(comment, commentPage(run.verdict));
      writeFileSync(report, core.renderReport(run.verdict));
      const page = await browser.newPage({ viewport: { width: COMMENT_WIDTH, height: 600 } });
      await page.goto(`file://${comment}`, { waitUntil: 'load' });
      await page.locator('.comment').screenshot({ path: path.join(values.out, `comment-${run.name}.png`) });
      await page.setViewportSize(REPORT_VIEWPORT);
      await page.goto(`file://${report}`, { waitUntil: 'load' });
      await page.screenshot({ path: path.join(values.out, `report-${run.name}.png`) });
      await page.close();
      console.log(`${run.name}: ${run.verdict.verdict} (${path.relative(ROOT, run.folder)}) → comment-${run.name}.png, report-${run.name}.png`);
    }
  } finally {
    await browser.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(`render-pictures: ${err.message}`);
    process.exitCode = 2;
  });
}
