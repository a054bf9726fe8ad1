'use strict';
// Where confirmed regressions are filed. One interface, whatever the tracker:
//
//   tracker.name                         'github' | 'jira' (stored in regressions.tracker)
//   tracker.file({title, body, labels})  -> {key, url}: a new issue
//   tracker.comment(key, body)           one comment on that issue
//   tracker.close(key, body)             a last comment, then the issue closed as done
//
// The bodies are markdown rendered by core (regressionIssue, sightingComment, recoveryComment).

// Labels a filed issue carries on GitHub (GitHub creates a label the first time it is used).
const GITHUB_LABELS = ['performance', 'regression'];

function splitRepo(repo) {
  const m = /^([^/\s]+)\/([^/\s]+)$/.exec(String(repo || ''));
  if (!m) throw new Error(`tracker: repository ${JSON.stringify(repo)} is not owner/name`);
  return { owner: m[1], repo: m[2] };
}

function issueNumber(key) {
  const n = Number(key);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`tracker github: issue key ${JSON.stringify(key)} is not an issue number`);
  return n;
}

/**
 * GitHub Issues of the watched repository, through the bot's Octokit (an installation client:
 * bot/src/app/github.js, with its retries and pacing).
 */
function githubTracker({ octokit, repo, labels = GITHUB_LABELS }) {
  const where = splitRepo(repo);
  return {
    name: 'github',
    async file({ title, body }) {
      const { data } = await octokit.rest.issues.create({ ...where, title, body, labels });
      return { key: String(data.number), url: data.html_url };
    },
    async comment(key, body) {
      await octokit.rest.issues.createComment({ ...where, issue_number: issueNumber(key), body });
    },
    async close(key, body) {
      const issue_number = issueNumber(key);
      await octokit.rest.issues.createComment({ ...where, issue_number, body });
      await octokit.rest.issues.update({ ...where, issue_number, state: 'closed', state_reason: 'completed' });
    },
  };
}

module.exports = { githubTracker, GITHUB_LABELS };
