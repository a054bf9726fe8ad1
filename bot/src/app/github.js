'use strict';
// The bot's GitHub clients: Octokit authenticated as the App (its JWT) and as each
// installation (installation tokens, made and renewed by @octokit/auth-app), with the retry
// plugin (5xx and network errors, 1, 4 and 9 s later) and the throttling plugin (primary and
// secondary rate limits; GitHub's advice of one write per second and one notifying request
// such as a comment per three seconds, per installation, unless pacing is 'none').
//
// Octokit's packages are ES modules; Node 20.19 and later require() them.
const { Octokit } = require('@octokit/core');
const { createAppAuth } = require('@octokit/auth-app');
const { restEndpointMethods } = require('@octokit/plugin-rest-endpoint-methods');
const { paginateRest } = require('@octokit/plugin-paginate-rest');
const { retry } = require('@octokit/plugin-retry');
const { throttling } = require('@octokit/plugin-throttling');

const BotOctokit = Octokit.plugin(restEndpointMethods, paginateRest, retry, throttling);

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
 * @param settings  {appId, privateKey, apiUrl, pacing: 'github' | 'none', retryBaseMs?}
 * @param log       {info, warn, error}
 * @returns {app: Octokit as the App, installation(id): Octokit as that installation}
 */
function createGitHub({ appId, privateKey, apiUrl, pacing = 'github', retryBaseMs = 1000 }, log) {
  const unpaced = pacing === 'none' ? unpacedGroups() : {};
  const options = (id, auth) => ({
    authStrategy: createAppAuth,
    auth: { appId, privateKey, ...auth },
    baseUrl: apiUrl,
    userAgent: 'perfgate-bot',
    log: quietLog(log),
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

/** GitHub's own words for a failed request: its message and status. */
function describeError(error) {
  const message = error && error.response && error.response.data && error.response.data.message;
  return `${error.status || 'error'} ${String(message || error.message || error).split('\n')[0]}`;
}

module.exports = { createGitHub, isPermanent, describeError };
