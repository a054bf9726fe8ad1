'use strict';
// What the bot does in a pull request through the REST API: the sticky comment, replies, the
// 👍 reaction, check runs. Every write here can be repeated without a second effect (the
// sticky comment by its marker, a reply by its marker, a check run by its external id), since
// a job is run again after a crash. The sticky comment and check runs are core's writes, the
// action's too; every body is fitted to GitHub's limits before it is sent.
const core = require('@perfgate/core');
const { replyMarker } = require('./messages');

async function allComments(octokit, { owner, repo, prNumber }) {
  return octokit.paginate(octokit.rest.issues.listComments, { owner, repo, issue_number: prNumber, per_page: 100 });
}

/**
 * Creates or edits the pull request's sticky comment of `marker` (the rule of which one it is:
 * core.stickyComments); a body already there is left alone; a duplicate two writers made at
 * once is deleted. Returns {id, action: created | updated | unchanged}.
 */
async function upsertSticky(octokit, where, { marker, author, body }) {
  const { id, action } = await core.upsertStickyComment(octokit, { owner: where.owner, repo: where.repo, number: where.prNumber }, {
    marker, author, body, note: "Cut to fit GitHub's comment size; the run's artifact holds all of it.",
  });
  return { id, action };
}

/**
 * Posts `body` as the reply to a command comment, unless a reply to it is already there
 * (looked for only when `lookFirst`: a job run again after a crash). Returns the reply's id.
 */
async function postReply(octokit, where, { commentId, author, body: whole, lookFirst }) {
  const body = core.fitComment(whole);
  if (lookFirst) {
    const marker = replyMarker(commentId);
    const existing = (await allComments(octokit, where)).find((c) => c.user && c.user.login === author && String(c.body).startsWith(marker));
    if (existing) return existing.id;
  }
  const { data } = await octokit.rest.issues.createComment({ owner: where.owner, repo: where.repo, issue_number: where.prNumber, body });
  return data.id;
}

/**
 * The reply to a command comment that says where a measuring command stands, edited in place:
 * `replyId` when the request knows it, else found by its marker (when `lookFirst`), else made.
 * Returns its id.
 */
async function upsertReply(octokit, where, { commentId, replyId, author, body: whole, lookFirst }) {
  const { owner, repo } = where;
  const body = core.fitComment(whole);
  let id = replyId;
  if (!id && lookFirst) {
    const marker = replyMarker(commentId);
    const existing = (await allComments(octokit, where)).find((c) => c.user && c.user.login === author && String(c.body).startsWith(marker));
    id = existing ? existing.id : null;
  }
  if (id) {
    try {
      await octokit.rest.issues.updateComment({ owner, repo, comment_id: id, body });
      return id;
    } catch (err) {
      // Someone deleted it: a new one says it again.
      if (err.status !== 404) throw err;
    }
  }
  const { data } = await octokit.rest.issues.createComment({ owner, repo, issue_number: where.prNumber, body });
  return data.id;
}

/** 👍 on the command comment. GitHub answers the same reaction by the same App with the existing one. */
async function acknowledge(octokit, where, commentId) {
  await octokit.rest.reactions.createForIssueComment({ owner: where.owner, repo: where.repo, comment_id: commentId, content: '+1' });
}

/**
 * The check run of a request, made once: found by its external id when `lookFirst`, else
 * created. Returns its id.
 */
async function ensureCheckRun(octokit, where, { name, headSha, externalId, detailsUrl, output, lookFirst }) {
  if (lookFirst) {
    const { data } = await octokit.rest.checks.listForRef({ owner: where.owner, repo: where.repo, ref: headSha, check_name: name, filter: 'all', per_page: 100 });
    const existing = data.check_runs.find((run) => run.external_id === externalId);
    if (existing) return existing.id;
  }
  const made = await core.createCheckRun(octokit, where, {
    name, head_sha: headSha, external_id: externalId, status: 'queued',
    ...(detailsUrl ? { details_url: detailsUrl } : {}),
    output: { title: output.title, summary: output.summary },
  });
  return made.id;
}

async function completeCheckRun(octokit, where, checkRunId, { conclusion, output, detailsUrl }) {
  await core.updateCheckRun(octokit, where, checkRunId, {
    status: 'completed', conclusion, completed_at: new Date().toISOString(),
    ...(detailsUrl ? { details_url: detailsUrl } : {}),
    output: { title: output.title, summary: output.summary, ...(output.text ? { text: output.text } : {}) },
  }, { note: "Cut to fit GitHub's check run size; the sticky comment and the run's artifact have all of it." });
}

/** The repository's default branch: where perf-command.yml is read from and dispatched on. */
/** Stops a workflow run; one that finished already (409) or is gone (404) leaves nothing to stop. */
async function cancelRun(octokit, { owner, repo }, runId) {
  try {
    await octokit.rest.actions.cancelWorkflowRun({ owner, repo, run_id: runId });
  } catch (err) {
    if (err.status !== 409 && err.status !== 404) throw err;
  }
}

async function defaultBranch(octokit, { owner, repo }) {
  const { data } = await octokit.rest.repos.get({ owner, repo });
  return data.default_branch;
}

module.exports = { upsertSticky, postReply, upsertReply, acknowledge, ensureCheckRun, completeCheckRun, cancelRun, defaultBranch };
