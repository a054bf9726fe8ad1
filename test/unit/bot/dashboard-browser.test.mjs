// The dashboard in a real headless Chromium (Debian's `chromium`, driven by playwright-core),
// served by the bot over a real history of main (test/support/dashboard-history.js): the charts
// render as SVG with their points and change-point marks, no page logs a console error, and no
// request leaves the page's own origin (every request is recorded).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { startBotOn, startDouble } from '../../support/bot.mjs';

const require = createRequire(import.meta.url);
const { storeMainHistory } = require('../../support/dashboard-history.js');

const CHROMIUM = process.env.PERFGATE_CHROMIUM || '/usr/bin/chromium';

describe('the dashboard in headless Chromium', { timeout: 180000 }, () => {
  let gh;
  let running;
  let browser;
  let history;
  before(async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: scripts/install-deps.sh installs Debian's chromium`);
    const { chromium } = require('playwright-core');
    gh = await startDouble();
    running = await startBotOn(gh, { env: { PERFGATE_DASHBOARD: 'on' } });
    history = await storeMainHistory(running.store);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  after(async () => {
    await browser?.close();
    await running?.close();
    await gh?.close();
  });

  /** A page that records every request it makes and every console error. */
  async function open(path) {
    const page = await browser.newPage();
    const requests = [];
    const problems = [];
    const failed = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('requestfailed', (r) => failed.push(`${r.url()} ${r.failure().errorText}`));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    const answer = await page.goto(`${running.url}${path}`, { waitUntil: 'load' });
    assert.equal(answer.status(), 200, path);
    return { page, requests, problems, failed };
  }

  const ownOrigin = () => new URL(running.url).origin;
  const offOrigin = (requests) => requests.filter((url) => new URL(url).origin !== ownOrigin());

  it('the history of main: a chart per signal with its points and change points, drawn on the page', async () => {
    const path = `/dashboard/history?repo=${encodeURIComponent(history.repo)}&benchmark=${encodeURIComponent('update-index_range=100')}`;
    const { page, requests, problems, failed } = await open(path);
    await page.waitForSelector('svg[data-chart="instructions_ratio"] circle.point');
    assert.equal(await page.locator('svg[data-chart="instructions_ratio"] circle.point').count(), history.instructionSeqs.length);
    assert.equal(await page.locator('svg[data-chart="instructions_per_query"] circle.point').count(), 2 * history.instructionSeqs.length, 'both sides of each instruction run');
    assert.equal(await page.locator('svg[data-chart="rqps"] circle.point').count(), history.timedSeqs.length);
    assert.equal(await page.locator('svg[data-chart="qps"] circle.point').count(), 2 * history.timedSeqs.length + 1, 'both sides of each timed run and the base of the PR run');
    for (const [chart, marks] of [['instructions_ratio', 1], ['instructions_per_query', 1], ['rqps', 1], ['qps', 1]]) {
      const mark = page.locator(`svg[data-chart="${chart}"] g.change-point`);
      assert.equal(await mark.count(), marks, chart);
      const box = await mark.first().boundingBox();
      assert.ok(box && box.height > 100, `${chart}: the change-point mark spans the plot, box ${JSON.stringify(box)}`);
      const svg = await page.locator(`svg[data-chart="${chart}"]`).boundingBox();
      assert.ok(svg && svg.width > 300 && svg.height > 80, `${chart}: chart box ${JSON.stringify(svg)}`);
    }
    // The stylesheet applied, and the untrusted subject is text.
    assert.equal(await page.locator('svg.chart').first().evaluate((el) => getComputedStyle(el).borderTopStyle), 'solid');
    assert.deepEqual(requests.slice(0, 2), [`${running.url}${path}`, `${running.url}/dashboard/style.css`]);
    assert.equal(await page.locator('img, script, iframe').count(), 0);
    assert.match(await page.locator('table[data-table="change-points"]').textContent(), /MDEV-1: faster lookups <script>alert\("x"\)<\/script><img src="https:\/\/evil.example\/x.png">/);
    assert.deepEqual(problems, []);
    assert.deepEqual(failed, []);
    assert.deepEqual(offOrigin(requests), []);

    // The recorders work, and the policy holds: an image from elsewhere put into the page is
    // recorded as a request, blocked by the Content-Security-Policy, and logged as an error.
    await page.evaluate(() => {
      const img = document.createElement('img');
      img.src = 'http://198.51.100.7/pixel.png';
      document.body.append(img);
    });
    await page.waitForTimeout(300);
    assert.equal(problems.length, 1, problems.join('; '));
    assert.match(problems[0], /^console: .*'http:\/\/198\.51\.100\.7\/pixel\.png' violates the following Content Security Policy directive: "img-src 'self'"/);
    assert.deepEqual(offOrigin(requests), ['http://198.51.100.7/pixel.png'], 'the request recorder sees it');
    assert.deepEqual(failed, ['http://198.51.100.7/pixel.png csp'], 'and the browser never sent it');
    await page.close();
  });

  it('every page renders without a console error, and no request leaves its origin', async () => {
    const pages = ['/dashboard', '/dashboard/runs', '/dashboard/runs?limit=5', '/dashboard/regressions?status=all', '/dashboard/signoffs'];
    for (const path of pages) {
      const { page, requests, problems, failed } = await open(path);
      assert.deepEqual(failed, [], path);
      assert.ok(requests.length >= 2, `${path}: the page and its stylesheet were requested`);
      assert.deepEqual(offOrigin(requests), [], path);
      assert.deepEqual(problems, [], path);
      assert.equal(await page.locator('img, script, iframe').count(), 0, path);
      await page.close();
    }
    // The links of the overview lead to the charts.
    const { page } = await open('/dashboard');
    await page.locator('a', { hasText: 'update-index_range=100' }).click();
    await page.waitForSelector('svg[data-chart="instructions_ratio"] g.change-point');
    await page.close();
  });
});
