'use strict';
// The dashboard's routes on the bot's HTTP server: read-only pages under /dashboard. Only GET
// and HEAD are answered (anything else is 405); query parameters are checked first (400 naming
// the parameter); each page is one bounded set of store reads, then a pure renderer.
//
// No login: the dashboard is meant for a private network, and it is off unless the bot's
// settings turn it on (PERFGATE_DASHBOARD=on). The Content-Security-Policy lets a page load
// only its own stylesheet: no script, no frame, no font, image or request to another origin.
const store = require('../store');
const pages = require('./pages');
const { readParameters, ParameterError } = require('./params');
const { LEARN, learnedFileText } = require('@perfgate/core');

const BASE = '/dashboard';

const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** The web address of GitHub for an API URL: https://api.github.com → https://github.com, https://HOST/api/v3 → https://HOST. */
function webUrlOf(apiUrl) {
  const url = new URL(apiUrl);
  if (url.hostname === 'api.github.com') return 'https://github.com';
  const path = url.pathname.replace(/\/api\/v3\/?$/, '').replace(/\/+$/, '');
  return `${url.origin}${path}`;
}

// path → [page whose parameters apply, how to read and render it]
const ROUTES = {
  [BASE]: ['overview', async (db, p, site) => {
    const [catalogue, regressions, runs, learned] = await Promise.all([
      store.mainCatalogue(db, { repo: p.repo }),
      store.regressionList(db, { repo: p.repo, status: 'open' }),
      store.recentRuns(db, { repo: p.repo, limit: 1 }),
      store.learnedFromMain(db, { repo: p.repo }),
    ]);
    return pages.overviewPage({ ...site, catalogue, regressions, runs, learned, minRuns: LEARN.min_runs });
  }],
  [`${BASE}/history`]: ['history', async (db, p, site) => {
    const history = await store.mainHistory(db, { repo: p.repo, microbenchmark: p.benchmark, threads: p.threads, ahi: p.ahi, last: p.last });
    return pages.historyPage({ ...site, history, params: p });
  }],
  [`${BASE}/runs`]: ['runs', async (db, p, site) => pages.runsPage({ ...site, runs: await store.recentRuns(db, p), params: p })],
  [`${BASE}/regressions`]: ['regressions', async (db, p, site) => pages.regressionsPage({ ...site, regressions: await store.regressionList(db, p), params: p })],
  [`${BASE}/signoffs`]: ['signoffs', async (db, p, site) => pages.signoffsPage({ ...site, signoffs: await store.signoffList(db, p), params: p })],
  // The learned file for a maintainer to commit on the base branch (the bot never writes a gate's limits).
  [`${BASE}/learned.yml`]: ['learned', async (db, p) => {
    const [learned] = await store.learnedFromMain(db, { repo: p.repo, suite: p.suite });
    if (!learned) return { status: 404, type: 'text/plain; charset=utf-8', body: `no run of suite ${p.suite} on main of ${p.repo} is stored\n` };
    const body = learnedFileText({ suite: p.suite, learned: learned.rows, runner: learned.runner, runs: learned.runs });
    return { type: 'application/yaml; charset=utf-8', body, headers: { 'content-disposition': `attachment; filename="${p.suite}.yml"` } };
  }],
};
ROUTES[`${BASE}/`] = ROUTES[BASE];

// The page's own files: its stylesheet and its icon.
const ASSETS = {
  [`${BASE}/style.css`]: { type: 'text/css; charset=utf-8', body: pages.STYLESHEET },
  [`${BASE}/icon.svg`]: { type: 'image/svg+xml', body: pages.ICON },
};

const isDashboardPath = (path) => path === BASE || path.startsWith(`${BASE}/`);

/**
 * @param options {store, apiUrl (GitHub's REST API, for links to commits), hosts (the host names
 *                the dashboard answers for), log}
 * @returns async (request, response, target) => void, for targets where isDashboardPath(target.path);
 *          target = {path, query, host} as the HTTP server parsed it (app/http-server.js)
 */
function dashboardHandler({ store: db, apiUrl, hosts, log }) {
  const site = { base: BASE, webUrl: webUrlOf(apiUrl) };
  const allowed = new Set(hosts);
  return async (request, response, { path, query, host }) => {
    const send = (status, type, body, extra = {}) => {
      response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...SECURITY_HEADERS, ...extra });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    const text = (status, line, extra) => send(status, 'text/plain; charset=utf-8', `${line}\n`, extra);
    // A page asked for under another name is a page some other site's script may be reading
    // (DNS rebinding: the attacker's name resolved to this address): not answered.
    if (!request.headers.host && !/^https?:/i.test(request.url)) {
      text(400, 'the Host header is missing; the dashboard answers only requests that name its host');
      return;
    }
    if (!allowed.has(host)) {
      text(421, 'the dashboard does not answer for this host name; PERFGATE_DASHBOARD_HOSTS lists the names it answers for');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      text(405, `method ${request.method} is not allowed: the dashboard is read-only; expected GET or HEAD`, { allow: 'GET, HEAD' });
      return;
    }
    const asset = ASSETS[path];
    if (asset) {
      if ([...query.keys()].length) {
        text(400, `unknown query parameter; ${path} takes none`);
        return;
      }
      send(200, asset.type, asset.body, { 'cache-control': 'max-age=300' });
      return;
    }
    const route = ROUTES[path];
    if (!route) {
      text(404, `no dashboard page at ${path}; pages: ${Object.keys(ROUTES).filter((p) => !p.endsWith('/')).join(', ')}`);
      return;
    }
    const [page, render] = route;
    let params;
    try {
      params = readParameters(page, query);
    } catch (err) {
      if (!(err instanceof ParameterError)) throw err;
      text(400, err.message);
      return;
    }
    let answer;
    try {
      answer = await render(db, params, site);
    } catch (err) {
      log.error(`dashboard ${path}: ${err.stack || err.message}`);
      text(500, 'the dashboard could not read the store; the bot log has the error');
      return;
    }
    // A page is HTML; a file route says its own status, type and headers.
    if (typeof answer === 'string') send(200, 'text/html; charset=utf-8', answer);
    else send(answer.status || 200, answer.type, answer.body, answer.headers);
  };
}

module.exports = { dashboardHandler, isDashboardPath, webUrlOf, DASHBOARD_PATH: BASE, SECURITY_HEADERS };
