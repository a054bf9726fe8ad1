// Talking to GitHub's REST API: one Octokit with GitHub's recommended retries (5xx) and
// throttling (primary and secondary rate limits), and the reads and writes only the action
// makes. The sticky comment and check runs are written through core (upsertStickyComment,
// createCheckRun, updateCheckRun), as the bot writes them.
import * as core from '@actions/core';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';

const RetryingOctokit = Octokit.plugin(retry, throttling);
// Rate-limited requests are retried this many times after GitHub's retry-after.
const RATE_LIMIT_RETRIES = 3;

export function makeOctokit({ token, apiUrl }) {
  return new RetryingOctokit({
    auth: token,
    baseUrl: apiUrl,
    userAgent: 'perfgate-action',
    // Octokit logs every failed attempt, also one the throttling retries to success (a
    // secondary rate limit): as an annotation that would read as the job's failure. A request
    // that fails for good throws, and main reports it once; the attempts are log lines.
    log: { debug: () => {}, info: () => {}, warn: (message) => core.warning(message), error: (message) => core.info(`GitHub request failed: ${message}`) },
    throttle: {
      onRateLimit: (retryAfter, options, octokit, retryCount) => {
        core.warning(`GitHub rate limit on ${options.method} ${options.url}; retrying in ${retryAfter} s`);
        return retryCount < RATE_LIMIT_RETRIES;
      },
      onSecondaryRateLimit: (retryAfter, options, octokit, retryCount) => {
        core.warning(`GitHub secondary rate limit on ${options.method} ${options.url}; retrying in ${retryAfter} s`);
        return retryCount < RATE_LIMIT_RETRIES;
      },
    },
  });
}

/** The pull request as GitHub has it now (head SHA, head repository, author). */
export async function getPullRequest(octokit, { owner, repo }, number) {
  const { data } = await octokit.rest.pulls.get({ owner, repo, pull_number: number });
  return data;
}

/**
 * How `base` stands to `head` in GitHub's compare (base...head): identical, ahead (head is ahead:
 * base is its ancestor), behind, diverged; 'not found' when GitHub knows no such commit or no
 * common history.
 */
export async function compareStatus(octokit, { owner, repo }, base, head) {
  try {
    const { data } = await octokit.rest.repos.compareCommitsWithBasehead({ owner, repo, basehead: `${base}...${head}`, per_page: 1 });
    return data.status;
  } catch (error) {
    if (error.status === 404 || error.status === 422) return 'not found';
    throw error;
  }
}

/** The author's permission on the repository: admin, write (also for maintain), read or none. */
export async function authorPermission(octokit, { owner, repo }, username) {
  const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ owner, repo, username });
  return data.permission;
}

/** A commit status (perfgate/signoff) on `sha`: state, context, description, target_url. */
export async function createCommitStatus(octokit, { owner, repo }, sha, fields) {
  const { data } = await octokit.rest.repos.createCommitStatus({ owner, repo, sha, ...fields });
  return data;
}
