'use strict';
// The bot's GitHub clients: Octokit authenticated as the App (its JWT) and as each
// installation (installation tokens, made and renewed by @octokit/auth-app), with the retry
// plugin (5xx and network errors, 1, 4 and 9 s later) and the throttling plugin (primary and
// secondary rate limits; GitHub's advice of one write per second and one notifying request
// such as a comment per three seconds, per installation, unless pacing is 'none').
//
// Exactly once: the retry plugin retries only what can be asked again without a second effect.
// A write that makes something new (WRITE_ONCE_ROUTES) is never retried by it: GitHub may have
// carried it out before its answer was lost, and octokit.writeOnce (write-once.js) looks for it
// by its own id before sending it again. Every call has a timeout (a hung connection is a
// failure like a reset one) and ends at once when the bot stops.
//
// Octokit's packages are ES modules; Node 20.19 and later require() them.
const { Octokit } = require('@octokit/core');
const { createAppAuth } = require('@octokit/auth-app');
const { restEndpointMethods } = require('@octokit/plugin-rest-endpoint-methods');
const { paginateRest } = require('@octokit/plugin-paginate-rest');
const { retry } = require('@octokit/plugin-retry');
const { throttling } = require('@octokit/plugin-throttling');
const { writeOnce } = require('./write-once');

// The writes that make something new each time they are sent, as Octokit names their routes.
const WRITE_ONCE_ROUTES = Object.freeze([
  'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
  'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
  'POST /repos/{owner}/{repo}/check-runs',
  'POST /repos/{owner}/{repo}/issues',
]);

// An installation token is asked for on behalf of another call, which the retry plugin retries
// whole (asking for the token again): retried on its own as well, each try of that call would
// ask up to four times.
const TOKEN_ROUTE = 'POST /app/installations/{installation_id}/access_tokens';

/**
 * The plugin of the bot's own rules: no library retry of WRITE_ONCE_ROUTES, octokit.writeOnce
 * (its pauses after the retry plugin's), and GitHub's state as the bot last saw it (healthz).
 */
function botRules(octokit, options) {
  const { health = null } = options.perfgate || {};
  octokit.hook.before('request', (request) => {
    const route = `${request.method} ${request.url}`;
    if (WRITE_ONCE_ROUTES.includes(route) || route === TOKEN_ROUTE) request.request = { ...request.request, retries: 0 };
  });
  if (health) {
    octokit.hook.after('request', () => health.answered());
    octokit.hook.error('request', (error) => {
      // GitHub answered (4xx): it is there. No answer, or a 5xx: it is not, for now.
      if (error && Number.isInteger(error.status) && error.status < 500 && error.response) health.answered();
      else health.failed(error);
      throw error;
    });
  }
  const baseMs = (options.retry && options.retry.retryAfterBaseValue) || 1000;
  return {
    writeOnce: (spec) => writeOnce({ pauseMs: (n) => baseMs * n * n, log: octokit.log, ...spec }),
  };
}

const BotOctokit = Octokit.plugin(restEndpointMethods, paginateRest, retry, throttling, botRules);

// fetch with a deadline for each call, its body included (the retry plugin's attempts are calls
// of their own), ended too by the bot's stop signal or the caller's. An AbortController and a
// timer of our own: the timer holds the controller until it fires, where Node's
// AbortSignal.timeout, held weakly, can be collected with the call still hanging. The calls
// alive are kept in one set, so that the stop signal has one listener however many there are.
function timedFetch(timeoutMs, stop) {
  const live = new Set();
  if (stop) stop.addEventListener('abort', () => { for (const controller of live) controller.abort(stop.reason); }, { once: true });
  return (url, init = {}) => {
    const controller = new AbortController();
    const caller = init.signal;
    const onCaller = () => controller.abort(caller.reason);
    const done = () => {
      clearTimeout(timer);
      live.delete(controller);
      if (caller) caller.removeEventListener('abort', onCaller);
    };
    const timer = setTimeout(() => {
      controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError'));
      done();
    }, timeoutMs);
    timer.unref();
    live.add(controller);
    if (stop && stop.aborted) controller.abort(stop.reason);
    if (caller && caller.aborted) onCaller();
    else if (caller) caller.addEventListener('abort', onCaller, { once: true });
    // Kept until the deadline once answered: the body is read after fetch resolves.
    return fetch(url, { ...init, signal: controller.signal }).catch((err) => {
      done();
      throw err;
    });
  };
}

/**
 * What the bot last heard from GitHub: 'unknown' until the first call, then 'ok' or 'failing'
 * (since when). onRecovered(): GitHub answers again after failing.
 */
function githubHealth({ clock = Date.now, onRecovered = () => {} } = {}) {
  let state = { status: 'unknown', since: clock() };
  return {
    answered() {
      if (state.status === 'ok') return;
      const was = state.status;
      state = { status: 'ok', since: clock() };
      if (was === 'failing') onRecovered();
    },
    failed() {
      if (state.status !== 'failing') state = { status: 'failing', since: clock() };
    },
    get: () => ({ ...state }),
  };
}

// Rate-limited requests are tried again this many times, after GitHub's retry-after.
const RATE_LIMIT_RETRIES = 3;
// 409 (a run that already finished cannot be cancelled) is an answer, not a fault.
const DO_NOT_RETRY = [400, 401, 403, 404, 409, 410, 422, 451];

function quietLog(log) {
  return {
    debug: () => {},
    info: () => {},
    warn: (message) => log.warn(`github: ${message}`),
    error: (message) => log.error(`github: ${message}`),
  };
}

/** Limiter groups with no pacing between writes (a GitHub double, a GHES without secondary limits). */
function unpacedGroups() {
  const Bottleneck = require('bottleneck/light.js');
  const group = (id) => new Bottleneck.Group({ id, maxConcurrent: null, minTime: 0 });
  return { write: group('perfgate-write'), notifications: group('perfgate-notifications'), search: group('perfgate-search') };
}

/**
 * @param settings  {appId, privateKey, apiUrl, pacing: 'github' | 'none', retryBaseMs?, timeoutMs?,
 *                  signal?: stops every call (the bot stopping), health?: githubHealth()}
 * @param log       {info, warn, error}
 * @returns {app: Octokit as the App, installation(id): Octokit as that installation, health}
 */
function createGitHub({ appId, privateKey, apiUrl, pacing = 'github', retryBaseMs = 1000, timeoutMs = 30_000, signal = null, health = githubHealth() }, log) {
  const unpaced = pacing === 'none' ? unpacedGroups() : {};
  const options = (id, auth) => ({
    authStrategy: createAppAuth,
    auth: { appId, privateKey, ...auth },
    baseUrl: apiUrl,
    userAgent: 'perfgate-bot',
    log: quietLog(log),
    request: { fetch: timedFetch(timeoutMs, signal) },
    perfgate: { health },
    retry: { doNotRetry: DO_NOT_RETRY, retryAfterBaseValue: retryBaseMs },
    throttle: {
      id,
      ...unpaced,
      onRateLimit: (retryAfter, request, octokit, retryCount) => {
        log.warn(`github: rate limit on ${request.method} ${request.url}; ${retryCount < RATE_LIMIT_RETRIES ? `retrying in ${retryAfter} s` : 'giving up'}`);
        return retryCount < RATE_LIMIT_RETRIES;
      },
      onSecondaryRateLimit: (retryAfter, request, octokit, retryCount) => {
        log.warn(`github: secondary rate limit on ${request.method} ${request.url}; ${retryCount < RATE_LIMIT_RETRIES ? `retrying in ${retryAfter} s` : 'giving up'}`);
        return retryCount < RATE_LIMIT_RETRIES;
      },
    },
  });
  const app = new BotOctokit(options('app', {}));
  const installations = new Map();
  return {
    app,
    health,
    // One client per installation: auth-app keeps its token and renews it before it expires.
    installation(id) {
      if (!Number.isInteger(id)) throw new Error(`github: installation id ${JSON.stringify(id)} is not an integer`);
      if (!installations.has(id)) installations.set(id, new BotOctokit(options(`installation-${id}`, { installationId: id })));
      return installations.get(id);
    },
  };
}

/** A GitHub answer that will not change if asked again (4xx other than rate limits). */
function isPermanent(error) {
  return Boolean(error && Number.isInteger(error.status) && error.status >= 400 && error.status < 500 && error.status !== 429
    && !(error.status === 403 && /rate limit/i.test(error.message || '')));
}

/** The bot stopping ended the call (its signal), not GitHub. */
function isStopped(error) {
  return Boolean(error && error.name === 'AbortError');
}

/** GitHub's own words for a failed request: its message and status. */
function describeError(error) {
  const message = error && error.response && error.response.data && error.response.data.message;
  return `${error.status || 'error'} ${String(message || error.message || error).split('\n')[0]}`;
}

module.exports = { createGitHub, githubHealth, isPermanent, isStopped, describeError, WRITE_ONCE_ROUTES };
