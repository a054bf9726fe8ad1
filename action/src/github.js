// Talking to GitHub's REST API: one Octokit with GitHub's recommended retries (5xx) and
// throttling (primary and secondary rate limits), the sticky comment and the check run.
import * as core from '@actions/core';
import perfgateCore from '@perfgate/core';
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
    log: { debug: () => {}, info: () => {}, warn: (message) => core.warning(message), error: (message) => core.error(message) },
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

/** The author's permission on the repository: admin, write (also for maintain), read or none. */
export async function authorPermission(octokit, { owner, repo }, username) {
  const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ owner, repo, username });
  return data.permission;
}

// Which comment is the sticky one is core's rule, the one the bot follows too.
async function stickyComments(octokit, { owner, repo }, number, identity) {
  // Every page: a long discussion pushes the comment past the first hundred.
  const all = await octokit.paginate(octokit.rest.issues.listComments, { owner, repo, issue_number: number, per_page: 100 });
  const { kept, duplicates } = perfgateCore.stickyComments(all, identity);
  return kept ? [kept, ...duplicates] : [];
}

/**
 * Creates or edits the one comment of `body`'s marker on the pull request. The comment is the
 * oldest one that starts with the marker and was written by `author`; an identical body is left
 * alone; a second comment (two runs that both found none and both created one) is deleted.
 * @returns {id, url, action: created|updated|unchanged}
 */
export async function upsertStickyComment(octokit, { owner, repo }, number, { marker, author, body }) {
  if (!body.startsWith(marker)) throw new Error('internal: a sticky comment body must start with its marker');
  const identity = { marker, author };
  let [kept, ...extra] = await stickyComments(octokit, { owner, repo }, number, identity);
  let action;
  if (!kept) {
    const { data: made } = await octokit.rest.issues.createComment({ owner, repo, issue_number: number, body });
    // Another run may have created one at the same moment: the oldest is the one we keep.
    [kept, ...extra] = await stickyComments(octokit, { owner, repo }, number, identity);
    kept ??= made;
    action = 'created';
  }
  for (const duplicate of extra) {
    await octokit.rest.issues.deleteComment({ owner, repo, comment_id: duplicate.id });
  }
  if (kept.body === body) return { id: kept.id, url: kept.html_url, action: action || 'unchanged' };
  const { data } = await octokit.rest.issues.updateComment({ owner, repo, comment_id: kept.id, body });
  return { id: data.id, url: data.html_url, action: action || 'updated' };
}

export async function createCheckRun(octokit, { owner, repo }, fields) {
  const { data } = await octokit.rest.checks.create({ owner, repo, ...fields });
  return data;
}

export async function updateCheckRun(octokit, { owner, repo }, checkRunId, fields) {
  const { data } = await octokit.rest.checks.update({ owner, repo, check_run_id: checkRunId, ...fields });
  return data;
}

/** A commit status (perfgate/signoff) on `sha`: state, context, description, target_url. */
export async function createCommitStatus(octokit, { owner, repo }, sha, fields) {
  const { data } = await octokit.rest.repos.createCommitStatus({ owner, repo, sha, ...fields });
  return data;
}
