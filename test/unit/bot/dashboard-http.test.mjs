// The dashboard on the bot's own HTTP server (`perfgate bot` in this process, on the GitHub
// double), over a real history of main: off unless turned on; GET and HEAD only; bad query
// parameters answered 400 naming the parameter; every page sent with a Content-Security-Policy
// that allows nothing from elsewhere; what the store holds is escaped.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { botEnvironment, startBotOn, startDouble } from '../../support/bot.mjs';

const require = createRequire(import.meta.url);
const bot = require('../../../bot/src/index.js');
const { storeMainHistory } = require('../../support/dashboard-history.js');
const { createHttpServer } = require('../../../bot/src/app/http-server.js');

const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

describe('the dashboard on the bot HTTP server', () => {
  let gh;
  let running;
  let off;
  let history;
  before(async () => {
    gh = await startDouble();
    running = await startBotOn(gh, { env: { PERFGATE_DASHBOARD: 'on' } });
    off = await startBotOn(gh);
    history = await storeMainHistory(running.store);
  });
  after(async () => {
    await running?.close();
    await off?.close();
    await gh?.close();
  });

  const get = (path, init) => fetch(`${running.url}${path}`, init);
  const history$ = () => `/dashboard/history?repo=${encodeURIComponent(history.repo)}&benchmark=${encodeURIComponent('update-index_range=100')}`;

  it('is off unless PERFGATE_DASHBOARD=on; a bad value is refused at start', async () => {
    assert.equal(off.config.dashboard, false);
    const answer = await fetch(`${off.url}/dashboard`);
    assert.equal(answer.status, 404);
    assert.doesNotMatch(await answer.text(), /dashboard/);
    assert.throws(() => bot.readBotConfig({ env: botEnvironment({ folder: running.folder, apiUrl: gh.url, extra: { PERFGATE_DASHBOARD: 'yes' } }), port: '0' }),
      { message: "environment: PERFGATE_DASHBOARD 'yes' is not valid; expected on or off" });
  });

  it('serves every page with the security headers, and its stylesheet and icon', async () => {
    for (const path of ['/dashboard', '/dashboard/', history$(), '/dashboard/runs', '/dashboard/runs?limit=2', '/dashboard/regressions?status=all', '/dashboard/signoffs']) {
      const answer = await get(path);
      assert.equal(answer.status, 200, path);
      assert.equal(answer.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(answer.headers.get('content-security-policy'), CSP);
      assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
      const html = await answer.text();
      assert.match(html, /^<!doctype html>/);
      // Nothing from the store became markup: the hostile subject, headline and reasons are text.
      assert.doesNotMatch(html, /<script|<img|javascript:/i, path);
      assert.doesNotMatch(html, /src="https?:/, path);
    }
    const css = await get('/dashboard/style.css');
    assert.equal(css.status, 200);
    assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
    assert.match(await css.text(), /svg\.chart/);
    const icon = await get('/dashboard/icon.svg');
    assert.equal(icon.headers.get('content-type'), 'image/svg+xml');
    assert.match(await icon.text(), /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const asked = await get('/dashboard/style.css?v=2');
    assert.equal(asked.status, 400);
    assert.equal(await asked.text(), 'unknown query parameter; /dashboard/style.css takes none\n');
  });

  it('shows the history of main with its change points, the runs, the regressions and the sign-offs', async () => {
    const page = await (await get(history$())).text();
    assert.equal((page.match(/<svg class="chart"/g) || []).length, 5, 'instr/o ratios of the queries\' own threads and of all threads, instructions per query, rQPS and QPS');
    assert.equal((page.match(/<g class="change-point"/g) || []).length, 5, "the instructions change point on both instr/o ratio charts and the absolute one; the rQPS and QPS ones on theirs");
    const instr = /<svg class="chart" data-chart="instructions_ratio".*?<\/svg>/s.exec(page)[0];
    assert.equal((instr.match(/<circle class="point"/g) || []).length, history.instructionSeqs.length);
    assert.match(page, /MDEV-1: faster lookups &lt;script&gt;/);

    const runs = await (await get('/dashboard/runs?limit=3')).text();
    assert.equal((runs.match(/<tr data-run=/g) || []).length, 3);
    // Links go to GitHub's web pages, found from GITHUB_API_URL (here the double's address).
    assert.ok(runs.includes(`<a href="${gh.url}/perf-org/server-fork/pull/42">PR #42</a>`));
    assert.ok(runs.includes(`<a href="${gh.url}/perf-org/server-fork/commit/${'f'.repeat(40)}">ffffffffff</a>`));
    assert.match(runs, /<a href="https:\/\/github.com\/perf-org\/server-fork\/actions\/runs\/777">workflow run<\/a>/);
    const regressions = await (await get('/dashboard/regressions?status=all')).text();
    assert.equal((regressions.match(/<tr data-regression=/g) || []).length, 2);
    assert.match(regressions, /<a href="https:\/\/github.com\/perf-org\/server-fork\/issues\/77">#77 &lt;script&gt;/);
    assert.match(regressions, /jira MDEV-2/, 'a javascript: issue URL is shown as text');
    const signoffs = await (await get('/dashboard/signoffs')).text();
    assert.match(signoffs, /<li>scan_range=100: known: &lt;script&gt;/);
    const overview = await (await get('/dashboard')).text();
    assert.match(overview, /<a href="\/dashboard\/history\?repo=perf-org%2Fserver-fork&amp;benchmark=update-index_range%3D100">update-index_range=100<\/a>/);
  });

  it('HEAD answers the headers of GET without a body', async () => {
    const head = await get('/dashboard/runs', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-security-policy'), CSP);
    assert.ok(Number(head.headers.get('content-length')) > 1000);
    assert.equal(await head.text(), '');
  });

  it('answers anything but GET and HEAD with 405, writing nothing', async () => {
    const runsBefore = (await bot.recentRuns(running.store, { limit: 500 })).length;
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      for (const path of ['/dashboard', '/dashboard/runs', '/dashboard/style.css', '/dashboard/nowhere']) {
        const answer = await get(path, { method, body: ['POST', 'PUT', 'PATCH'].includes(method) ? 'x=1' : undefined });
        assert.equal(answer.status, 405, `${method} ${path}`);
        assert.equal(answer.headers.get('allow'), 'GET, HEAD');
        assert.equal(await answer.text(), `method ${method} is not allowed: the dashboard is read-only; expected GET or HEAD\n`);
      }
    }
    assert.equal((await bot.recentRuns(running.store, { limit: 500 })).length, runsBefore);
  });

  it('answers a bad query parameter with 400 naming it and the form expected', async () => {
    const cases = [
      ['/dashboard/runs?limit=0', "query parameter 'limit' is \"0\"; expected an integer from 1 to 500"],
      ['/dashboard/runs?before=abc', "query parameter 'before' is \"abc\"; expected an integer from 1 to 9007199254740991"],
      ['/dashboard/runs?sort=id', "unknown query parameter 'sort'; expected only repo, suite, before, limit"],
      ['/dashboard/history?repo=perf-org/server-fork', "query parameter 'benchmark' is missing; expected a microbenchmark name such as update-index_range=100"],
      ['/dashboard/history?repo=x&benchmark=point-query', "query parameter 'repo' is \"x\"; expected a repository as owner/name"],
      ['/dashboard/regressions?status=closed', "query parameter 'status' is \"closed\"; expected one of open, all"],
      ['/dashboard?repo=a/b&repo=c/d', "query parameter 'repo' is given 2 times; expected it once"],
      ['/dashboard/signoffs?limit=%3Cscript%3E', "query parameter 'limit' is \"<script>\"; expected an integer from 1 to 500"],
    ];
    for (const [path, line] of cases) {
      const answer = await get(path);
      assert.equal(answer.status, 400, path);
      // Plain text, never rendered as HTML.
      assert.equal(answer.headers.get('content-type'), 'text/plain; charset=utf-8');
      assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(await answer.text(), `${line}\n`);
    }
    const unknown = await get('/dashboard/admin');
    assert.equal(unknown.status, 404);
    assert.equal(await unknown.text(), 'no dashboard page at /dashboard/admin; pages: /dashboard, /dashboard/history, /dashboard/runs, /dashboard/regressions, /dashboard/signoffs, /dashboard/learned.yml\n');
  });

  it('a store that cannot be read is a 500 with one line, and the error in the log', async () => {
    const { dashboardHandler } = require('../../../bot/src/dashboard/handler.js');
    const folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-dashboard-closed-'));
    const store = await bot.openStore(path.join(folder, 'history.db'));
    await store.close();
    const errors = [];
    const log = { error: (m) => errors.push(m) };
    const route = dashboardHandler({ store, apiUrl: 'https://api.github.com', hosts: ['127.0.0.1'], log });
    const server = createHttpServer({ route, limits: { maxConnections: 10, headersTimeoutMs: 5000, requestTimeoutMs: 5000 }, log });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const answer = await fetch(`http://127.0.0.1:${server.address().port}/dashboard/runs`);
      assert.equal(answer.status, 500);
      assert.equal(await answer.text(), 'the dashboard could not read the store; the bot log has the error\n');
      assert.equal(errors.length, 1);
      assert.match(errors[0], /^dashboard \/dashboard\/runs: /);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('answers only the host names it is set to serve (DNS rebinding): another is 421, none is 400', async () => {
    // fetch() sets Host from the URL; http.request lets a test send the Host a rebinding page would.
    const ask = (headers, target = '/dashboard/runs') => new Promise((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: running.port, path: target, headers, setHost: false }, (res) => {
        let body = '';
        res.on('data', (c) => { body += c; });
        res.on('end', () => resolve([res.statusCode, body, res.headers['content-security-policy']]));
      }).on('error', reject);
    });
    const refused = 'the dashboard does not answer for this host name; PERFGATE_DASHBOARD_HOSTS lists the names it answers for\n';
    assert.deepEqual(running.config.dashboardHosts, ['localhost', '127.0.0.1', '::1']);
    for (const host of [`127.0.0.1:${running.port}`, `localhost:${running.port}`, 'LOCALHOST', `[::1]:${running.port}`, 'localhost.']) {
      assert.equal((await ask({ host }))[0], 200, host);
    }
    for (const host of [`rebind.attacker.example:${running.port}`, 'rebind.attacker.example', '127.0.0.1.attacker.example', '[', 'localhost:x']) {
      assert.deepEqual(await ask({ host }), [421, refused, CSP], host);
    }
    assert.deepEqual(await ask({ host: `127.0.0.1:${running.port}` }, 'http://rebind.attacker.example/dashboard'), [421, refused, CSP]);
    // The health check and the webhooks do not look at Host: GitHub's deliveries come through a proxy.
    assert.equal((await ask({ host: 'rebind.attacker.example' }, '/healthz'))[0], 200);
    // HTTP/1.0 without Host.
    const answer = await new Promise((resolve) => {
      const socket = net.connect(running.port, '127.0.0.1', () => socket.end('GET /dashboard HTTP/1.0\r\n\r\n'));
      let text = '';
      socket.on('data', (c) => { text += c; });
      socket.on('close', () => resolve(text));
    });
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.ok(answer.endsWith('\r\n\r\nthe Host header is missing; the dashboard answers only requests that name its host\n'), answer);
    // Set names replace the defaults.
    const named = await startBotOn(gh, { env: { PERFGATE_DASHBOARD: 'on', PERFGATE_DASHBOARD_HOSTS: 'perf.internal.example' } });
    try {
      const to = (host) => new Promise((resolve, reject) => {
        http.get({ host: '127.0.0.1', port: named.port, path: '/dashboard', headers: { host }, setHost: false }, (res) => { res.resume(); resolve(res.statusCode); }).on('error', reject);
      });
      assert.deepEqual([await to('perf.internal.example'), await to(`127.0.0.1:${named.port}`)], [200, 421]);
    } finally {
      await named.close();
    }
  });

  it('leaves the health check and the webhook path as they were', async () => {
    assert.equal((await get('/healthz')).status, 200);
    assert.equal((await get('/dashboardx')).status, 404);
  });
});
