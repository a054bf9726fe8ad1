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
