'use strict';
// report.html in a real headless Chromium (Debian's `chromium`, driven by playwright-core):
// the charts render as SVG with visible marks, and the page logs no console error and fetches
// nothing from the network.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { judge } = require('../../../core/src/verdict');
const { renderReport } = require('../../../core/src/render/html');

const CHROMIUM = process.env.PERFGATE_CHROMIUM || '/usr/bin/chromium';
const FIXTURES = path.join(__dirname, '../../fixtures/results');

test('report.html renders its charts in headless Chromium without console errors', { timeout: 120000 }, async (t) => {
  assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: scripts/install-deps.sh installs Debian's chromium`);
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  t.after(() => browser.close());
  const { capturedResults, loadResults } = require('../../support/captured-results');
  const captured = capturedResults();
  const dirs = captured.map((c) => c.name);
  assert.ok(dirs.length > 0);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-report-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  for (const d of dirs) {
    const results = loadResults(captured.find((c) => c.name === d).file);
    const verdict = judge(results, { limits: { default: { warn: 0.97, fail: 0.93, instructions: { warn: 1.02, fail: 1.04 } } } });
    const file = path.join(tmp, `${d}.html`);
    fs.writeFileSync(file, renderReport(verdict));

    const page = await browser.newPage();
    const problems = [];
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('request', (r) => { if (!r.url().startsWith('file://')) problems.push(`network: ${r.url()}`); });
    if (d === dirs[0]) {
      // The collector itself works: a page that logs an error is caught.
      fs.writeFileSync(path.join(tmp, 'broken.html'), '<!doctype html><script>console.error("boom")</script>');
      await page.goto(`file://${path.join(tmp, 'broken.html')}`, { waitUntil: 'load' });
      assert.deepEqual(problems.splice(0), ['console: boom']);
    }
    await page.goto(`file://${file}`, { waitUntil: 'load' });

    const judged = verdict.benchmarks.filter((b) => b.rqps).length;
    if (judged) await page.waitForSelector('svg[data-chart="rqps"] circle');
    const rqpsMarks = await page.locator('svg[data-chart="rqps"] g.bar').count();
    assert.equal(rqpsMarks, judged, `${d}: one rQPS mark per judged microbenchmark`);
    const qpsCharts = await page.locator('svg[data-chart="qps"]').count();
    assert.equal(qpsCharts, verdict.benchmarks.filter((b) => b.qps.length).length, `${d}: one QPS-per-round chart per measured microbenchmark`);
    const rounds = verdict.benchmarks.reduce((n, b) => n + b.qps.length, 0);
    assert.equal(await page.locator('svg[data-chart="qps"] circle').count(), rounds, `${d}: one point per measured round`);
    // Rendered, not just present: the chart has a real size on the page.
    if (judged) {
      const box = await page.locator('svg[data-chart="rqps"]').boundingBox();
      assert.ok(box && box.width > 300 && box.height > 50, `${d}: rQPS chart box ${JSON.stringify(box)}`);
    }
    assert.equal(await page.locator('[data-verdict]').textContent(), verdict.verdict);
    assert.deepEqual(problems, [], `${d}: ${problems.join('; ')}`);
    await page.close();
  }
});

// The pages a reader opens, at a desktop width and a phone's: every report.html of the captured
// runs, a chain's, one whose reason and paths are long unbroken strings, and a sign-off's.
function layoutPages() {
  const { capturedResults, loadResults } = require('../../support/captured-results');
  const { chainResults } = require('../../support/chain-results');
  const core = require('@perfgate/core');
  const { threadScaling } = require('../../../core/src/thread-scaling');
  const limits = { limits: { default: { warn: 0.97, fail: 0.93, instructions: { warn: 1.02, fail: 1.04 } } } };
  const pages = capturedResults().map((c) => {
    const verdict = judge(loadResults(c.file), limits);
    // A row of each microbenchmark and AHI cell, and one of each row of the thread-count table.
    const scaling = threadScaling(verdict.benchmarks);
    return { name: c.name, html: renderReport(verdict), folds: true, reasons: [...verdict.benchmarks, ...verdict.ahi].filter((b) => b.reason).length + (scaling ? scaling.rows.length : 0) };
  });
  const long = judge(loadResults(capturedResults().find((c) => c.name === 'io-tiny').file), limits);
  long.benchmarks[0].reason = `${'x'.repeat(300)} ${long.benchmarks[0].reason}`;
  long.run.sides.base.basedir = `/${'very-long-folder-name-'.repeat(20)}usr`;
  pages.push({ name: 'long-words', html: renderReport(long), folds: true, reasons: long.benchmarks.length });
  const signoff = core.renderSignoff(long, { candidate: { ref: 'v2', sha: 'a'.repeat(40) }, previous: { ref: 'v1', sha: 'b'.repeat(40) }, waivers: [{ microbenchmark: 'point-query', author: 'someone', reason: 'y'.repeat(300), createdAt: '2026-12-01T00:00:00Z' }] });
  pages.push({ name: 'signoff', html: signoff.files['signoff.html'], reasons: 0 });
  const chain = core.judgeChain(chainResults(), { limits: { default: { warn: 0.97, fail: 0.93 } } });
  pages.push({ name: 'chain', html: core.renderChainReports(chain)['report.html'], reasons: chain.heads.length + chain.heads[0].verdict.benchmarks.length });
  return pages;
}

test('report.html reads at 1280 px and at 390 px: no page overflow, each reason on a line of its own, details folded', { timeout: 180000 }, async (t) => {
  assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: scripts/install-deps.sh installs Debian's chromium`);
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  t.after(() => browser.close());
  // Screenshots go to PERFGATE_SCREENSHOTS when set (to look at them), else to a folder removed afterwards.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-layout-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const shots = process.env.PERFGATE_SCREENSHOTS || tmp;
  fs.mkdirSync(shots, { recursive: true });
  for (const p of layoutPages()) {
    const file = path.join(tmp, `${p.name}.html`);
    fs.writeFileSync(file, p.html);
    for (const width of [1280, 390]) {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto(`file://${file}`, { waitUntil: 'load' });
      const where = `${p.name} at ${width} px`;
      const layout = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth: window.innerWidth,
        reasons: [...document.querySelectorAll('tr.reason')].map((tr) => {
          const cell = tr.querySelector('td');
          const row = tr.previousElementSibling;
          return {
            spans: cell.getBoundingClientRect().width >= 0.95 * tr.closest('table').getBoundingClientRect().width,
            // The text itself stays in the window, however wide the table under it scrolls.
            inWindow: cell.firstElementChild.getBoundingClientRect().right <= window.innerWidth,
            below: !!row && row.getBoundingClientRect().bottom <= cell.getBoundingClientRect().top + 1,
            text: cell.textContent.length > 0,
          };
        }),
        folded: [...document.querySelectorAll('details')].filter((d) => !d.open).map((d) => d.querySelector('table, pre, p')).filter((x) => x && !x.checkVisibility()).length,
        details: document.querySelectorAll('details').length,
      }));
      assert.ok(layout.scrollWidth <= layout.innerWidth, `${where}: the page is ${layout.scrollWidth} px wide, wider than the window`);
      assert.equal(layout.reasons.length, p.reasons, `${where}: one reason line per row`);
      assert.ok(layout.reasons.every((r) => r.spans && r.below && r.text && r.inWindow), `${where}: every reason line lies under its row, across the whole table, its text in the window: ${JSON.stringify(layout.reasons.filter((r) => !(r.spans && r.below && r.text && r.inWindow)))}`);
      if (p.folds) assert.ok(layout.details >= 2 && layout.folded >= 1, `${where}: the details are folded away (${layout.details} details, ${layout.folded} folded)`);
      // Opened, the details shown still fit: their tables scroll in their own box.
      const opened = await page.evaluate(() => {
        for (const d of document.querySelectorAll('details')) d.open = true;
        return { scrollWidth: document.documentElement.scrollWidth, hidden: [...document.querySelectorAll('details table')].filter((x) => !x.checkVisibility()).length };
      });
      assert.ok(opened.scrollWidth <= layout.innerWidth && opened.hidden === 0, `${where}: with every detail open the page is ${opened.scrollWidth} px wide, ${opened.hidden} tables hidden`);
      const png = path.join(shots, `${p.name}-${width}.png`);
      await page.screenshot({ path: png, fullPage: true });
      assert.ok(fs.statSync(png).size > 1000, `${where}: a screenshot was taken`);
      await page.close();
    }
  }
});
