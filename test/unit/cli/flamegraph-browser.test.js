'use strict';
// The differential flame graph in report.html opens in a real headless Chromium (Debian's
// `chromium`, driven by playwright-core): the image decodes, is drawn with many colours (the
// frames), and the page logs no error and fetches nothing. A screenshot of it is kept beside
// the test's run folder for a reader to look at while it runs.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { main } = require('../../../cli/src/main');
const { side, explainDoc } = require('../../fixtures/explain/documents');

const CHROMIUM = process.env.PERFGATE_CHROMIUM || '/usr/bin/chromium';
const FIXTURES = path.join(__dirname, '../../fixtures');

test('report.html\'s flame graph renders in headless Chromium', { timeout: 120000 }, async (t) => {
  assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: scripts/install-deps.sh installs Debian's chromium`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-flame-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.copyFileSync(path.join(FIXTURES, 'results/quick-tiny/results.json'), path.join(dir, 'results.json'));
  fs.mkdirSync(path.join(dir, 'explain'));
  for (const s of ['base', 'head']) fs.copyFileSync(path.join(FIXTURES, `explain/update-index.${s}.offcpu.folded`), path.join(dir, 'explain', `u.${s}.offcpu.folded`));
  fs.writeFileSync(path.join(dir, 'explain.json'), JSON.stringify(explainDoc([{ id: 'update-index_range=100',
    base: side('pfs19_p1', 'update-index', { stack: 'aa1', stackFiles: 'explain/u.base.offcpu.folded' }),
    head: side('pfs19_sleep', 'update-index', { stack: 'sleep', stackFiles: 'explain/u.head.offcpu.folded' }) }])));
  const sink = { write: () => {} };
  await main(['judge', dir], { stdout: sink, stderr: sink, env: process.env });

  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  t.after(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => { if (!/^(file|data):/.test(r.url())) problems.push(`network: ${r.url()}`); });
  await page.goto(`file://${path.join(dir, 'report.html')}`, { waitUntil: 'load' });
  const img = page.locator('img[data-flamegraph="update-index_range=100"]');
  await img.scrollIntoViewIfNeeded();
  const drawn = await img.evaluate(async (el) => {
    await el.decode();
    const canvas = document.createElement('canvas');
    canvas.width = el.naturalWidth;
    canvas.height = el.naturalHeight;
    const ctx = canvas.getContext('2d');
    ctx.drawImage(el, 0, 0);
    const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    const colours = new Set();
    for (let i = 0; i < data.length; i += 4 * 7) colours.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
    return { width: el.naturalWidth, height: el.naturalHeight, shown: el.getBoundingClientRect().width, colours: colours.size };
  });
  assert.ok(drawn.width >= 1000 && drawn.height > 100, JSON.stringify(drawn));
  assert.ok(drawn.shown > 500, `shown ${drawn.shown} px wide`);
  assert.ok(drawn.colours > 20, `the frames are drawn: ${drawn.colours} colours`);
  const shot = await img.screenshot({ path: process.env.PERFGATE_FLAMEGRAPH_SHOT || path.join(dir, 'flamegraph.png') });
  assert.ok(shot.length > 5000, `screenshot of ${shot.length} bytes`);
  assert.deepEqual(problems, []);
});
