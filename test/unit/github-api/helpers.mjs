// Clients for the GitHub double, configured the way perfgate's action and bot use Octokit.
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';

export const REPOSITORY = 'perfgate-test/fork';
export const OWNER = 'perfgate-test';
export const REPO = 'fork';
export const GITHUB_TOKEN = 'ghs_fixtureGithubTokenForTheDouble0001';
export const HEAD_SHA = 'a'.repeat(40);
export const BASE_SHA = 'b'.repeat(40);

/** The options most tests start the double with: one repository, one open pull request #7. */
export function doubleOptions(extra = {}) {
  return {
    repositories: [REPOSITORY],
    githubToken: GITHUB_TOKEN,
    pullRequests: [{ repository: REPOSITORY, number: 7, title: 'Faster update-index', user: 'contributor', head: { ref: 'feature', sha: HEAD_SHA }, base: { ref: 'main', sha: BASE_SHA } }],
    ...extra,
  };
}

/** A plain client: no retries, no throttling, so every answer reaches the test as it was. */
export function plainOctokit(gh, auth = GITHUB_TOKEN) {
  return new Octokit({ auth, baseUrl: gh.url, log: quietLog() });
}

/** A client with no credentials at all. */
export function anonymousOctokit(gh) {
  return new Octokit({ baseUrl: gh.url, log: quietLog() });
}

/**
 * The client an action should use: retry (5xx) and throttling (primary and secondary rate
 * limits) plugins. `waits` collects what the throttling plugin was told to wait.
 */
export function resilientOctokit(gh, { auth = GITHUB_TOKEN, waits = [] } = {}) {
  const ResilientOctokit = Octokit.plugin(retry, throttling);
  return new ResilientOctokit({
    auth,
    baseUrl: gh.url,
    log: quietLog(),
    retry: { retryAfterBaseValue: 50 },
    throttle: {
      onRateLimit: (retryAfter, options, octokit, retryCount) => {
        waits.push({ kind: 'primary', retryAfter, retryCount });
        return retryCount < 2;
      },
      onSecondaryRateLimit: (retryAfter, options, octokit, retryCount) => {
        waits.push({ kind: 'secondary', retryAfter, retryCount });
        return retryCount < 2;
      },
    },
  });
}

function quietLog() {
  return { debug() {}, info() {}, warn() {}, error() {} };
}

/** Fails with every call that broke the description, was not implemented or hit no route. */
export function assertNoProblems(assert, gh) {
  const problems = gh.problems().map((call) => `${call.method} ${call.path} → ${call.status} ${call.outcome}: ${call.problems.join('; ')}`);
  assert.deepEqual(problems, [], 'the double saw calls that break GitHub\'s description');
}
