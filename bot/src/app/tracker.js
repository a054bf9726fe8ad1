'use strict';
// Where confirmed regressions are filed. One interface, whatever the tracker:
//
//   tracker.name                           'github' | 'jira' (stored in regressions.tracker)
//   tracker.file({title, body, dedupeKey}) -> {key, url}: a new issue, findable by its key (an
//                                          answer lost on the way: found by it, not filed twice)
//   tracker.find(dedupeKey)                -> {key, url} of the issue filed for it, or null
//   tracker.comment(key, body)             one comment on that issue
//   tracker.close(key, body)               a last comment, then the issue closed as done
//
// The bodies are markdown rendered by core (regressionIssue, sightingComment, recoveryComment);
// an issue body starts with core's regressionMarker(dedupeKey). `find` is asked before filing
// again a regression whose earlier filing never got recorded (the process died, or a retried
// job overlapped it), so that it is filed once.
const { createHash } = require('node:crypto');
const core = require('@perfgate/core');
const { writeOnce } = require('./write-once');

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

// A tracker comment's own id: a hidden first line made from its text, so that a comment whose
// answer was lost is found before it is sent again (octokit.writeOnce).
function commentMarker(body) {
  return `<!-- perfgate:tracker-comment ${createHash('sha256').update(body).digest('hex').slice(0, 20)} -->`;
}

/**
 * GitHub Issues of the watched repository, through the bot's Octokit (an installation client:
 * bot/src/app/github.js, with its retries and pacing). Issues and comments are made once
 * (octokit.writeOnce): looked for by the issue's key and the comment's marker before they are
 * sent again.
 */
function githubTracker({ octokit, repo, labels = GITHUB_LABELS }) {
  const where = splitRepo(repo);
  // Among the issues with perfgate's labels, open or closed, the one whose body carries the key.
  async function find(dedupeKey) {
    const marker = core.regressionMarker(dedupeKey);
    const listed = await octokit.paginate(octokit.rest.issues.listForRepo, { ...where, state: 'all', labels: labels.join(','), per_page: 100 });
    const found = listed.find((issue) => !issue.pull_request && String(issue.body || '').includes(marker));
    return found ? { key: String(found.number), url: found.html_url } : null;
  }
  async function comment(key, text) {
    const issue_number = issueNumber(key);
    const body = core.fitComment(`${commentMarker(text)}\n${text}`);
    const marker = body.split('\n')[0];
    await octokit.writeOnce({
      what: `a comment on issue #${issue_number}`,
      async find() {
        const comments = await octokit.paginate(octokit.rest.issues.listComments, { ...where, issue_number, per_page: 100 });
        return comments.some((c) => String(c.body || '').startsWith(marker)) || null;
      },
      write: () => octokit.rest.issues.createComment({ ...where, issue_number, body }),
    });
  }
  return {
    name: 'github',
    // dedupeKey: the regression's key, whose marker opens the body (a body cut to GitHub's
    // limit keeps it); the issue is found by it before it is filed again.
    async file({ title, body, dedupeKey }) {
      return octokit.writeOnce({
        what: `the issue ${title}`,
        find: () => (dedupeKey ? find(dedupeKey) : null),
        async write() {
          const { data } = await octokit.rest.issues.create({ ...where, title, body: core.fitComment(body), labels });
          return { key: String(data.number), url: data.html_url };
        },
      });
    },
    find,
    comment,
    async close(key, body) {
      await comment(key, body);
      await octokit.rest.issues.update({ ...where, issue_number: issueNumber(key), state: 'closed', state_reason: 'completed' });
    },
  };
}

// Jira labels may not hold spaces; the same two words as on GitHub.
const JIRA_LABELS = GITHUB_LABELS;

/**
 * The label that finds one regression's Jira issue again: JQL matches labels exactly, while its
 * text search drops the punctuation a key is made of.
 */
function jiraKeyLabel(dedupeKey) {
  return `perfgate-${createHash('sha256').update(dedupeKey).digest('hex').slice(0, 20)}`;
}
// Jira refuses a summary longer than this.
const JIRA_SUMMARY_LIMIT = 255;

/**
 * A Jira Cloud or Data Center REST client (jira.js, API version 2: plain-text bodies). Every
 * call ends after timeoutMs: a Jira that does not answer holds a job, never the bot.
 */
function createJiraClient({ url, user, token }, { timeoutMs = 30_000 } = {}) {
  const { Version2Client } = require('jira.js');
  return new Version2Client({ host: url, authentication: { basic: { email: user, apiToken: token } }, baseRequestConfig: { timeout: timeoutMs } });
}

// jira.js passes axios's errors on: the HTTP status where Jira answered, none where it did not
// (a reset or a timeout), which writeOnce takes as "may have happened".
function jiraError(err) {
  const status = err && (err.status || (err.response && err.response.status));
  if (Number.isInteger(status) && err.status !== status) err.status = status;
  return err;
}

/**
 * Jira issues of one project, through jira.js. The description and comments are the same
 * markdown as on GitHub, sent as text; a recovery moves the issue along the first transition
 * that leads to a status of the done category.
 */
function jiraTracker({ client, url, projectKey, issueType = 'Bug', labels = JIRA_LABELS, log = null, pauseMs }) {
  const browse = (key) => `${String(url).replace(/\/+$/, '')}/browse/${key}`;
  // Issues and comments are made once, as on GitHub: looked for by the issue's label and the
  // comment's marker before they are sent again (write-once.js).
  const once = (what, find, write) => writeOnce({ what, find, log, ...(pauseMs ? { pauseMs } : {}),
    write: () => write().catch((err) => { throw jiraError(err); }) });
  // Jira shows an HTML comment as text: a comment is found again by its whole text, which names
  // its commit and figures.
  async function comment(key, text) {
    await once(`a comment on ${key}`, async () => {
      const { comments = [] } = await client.issueComments.getComments({ issueIdOrKey: key, maxResults: 100, orderBy: '-created' });
      return comments.some((c) => String(c.body || '').trim() === text.trim()) || null;
    }, () => client.issueComments.addComment({ issueIdOrKey: key, comment: text }));
  }
  const tracker = {
    name: 'jira',
    async file({ title, body, dedupeKey }) {
      if (typeof dedupeKey !== 'string' || !dedupeKey) throw new Error('tracker jira: file needs the regression\'s dedupeKey (its issue is found again by it)');
      return once(`the issue ${title}`, () => tracker.find(dedupeKey), async () => {
        const created = await client.issues.createIssue({
          fields: { project: { key: projectKey }, issuetype: { name: issueType }, summary: title.slice(0, JIRA_SUMMARY_LIMIT), description: body, labels: [...labels, jiraKeyLabel(dedupeKey)] },
        });
        return { key: created.key, url: browse(created.key) };
      });
    },
    async find(dedupeKey) {
      const jql = `project = "${projectKey}" AND labels = "${jiraKeyLabel(dedupeKey)}" ORDER BY created ASC`;
      let answer;
      try {
        // Jira Cloud's search; Data Center has only the older /search.
        answer = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({ jql, fields: ['summary'], maxResults: 1 });
      } catch (err) {
        if (![404, 405].includes(err && (err.status || (err.response && err.response.status)))) throw err;
        answer = await client.issueSearch.searchForIssuesUsingJql({ jql, fields: ['summary'], maxResults: 1 });
      }
      const [found] = answer.issues || [];
      return found ? { key: found.key, url: browse(found.key) } : null;
    },
    comment,
    async close(key, body) {
      await comment(key, body);
      const { transitions = [] } = await client.issues.getTransitions({ issueIdOrKey: key });
      const done = transitions.find((t) => t.to && t.to.statusCategory && t.to.statusCategory.key === 'done');
      if (!done) throw new Error(`tracker jira: issue ${key} has no transition to a done status (it has: ${transitions.map((t) => t.name).join(', ') || 'none'})`);
      await client.issues.doTransition({ issueIdOrKey: key, transition: { id: done.id } });
    },
  };
  return tracker;
}

/** The tracker the settings name, for one repository (octokit: the installation's client). */
function trackerFor(config, { octokit, repo, log = null }) {
  if (config.tracker === 'jira') {
    const { jira } = config;
    const client = createJiraClient(jira, { timeoutMs: config.githubTimeoutMs });
    return jiraTracker({ client, url: jira.url, projectKey: jira.project, issueType: jira.issueType, log });
  }
  return githubTracker({ octokit, repo });
}

module.exports = { githubTracker, jiraTracker, createJiraClient, trackerFor, jiraKeyLabel, GITHUB_LABELS };
