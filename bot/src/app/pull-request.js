'use strict';
// What the bot does in a pull request through the REST API: the sticky comment, replies, the
// 👍 reaction, check runs. Every write here can be repeated without a second effect (the
// sticky comment by its marker, a reply by its marker, a check run by its external id), since
// a job is run again after a crash.
const core = require('@perfgate/core');
const { replyMarker } = require('./messages');

// GitHub's limits: a check run's summary and text are at most 65,535 characters each.
const CHECK_RUN_TEXT_LIMIT = 65535;

function fit(text, limit, note) {
  if (text.length <= limit) return text;
  const tail = `\n\n_${note}_\n`;
  return text.slice(0, limit - tail.length) + tail;
}

async function allComments(octokit, { owner, repo, prNumber }) {
  return octokit.paginate(octokit.rest.issues.listComments, { owner, repo, issue_number: prNumber, per_page: 100 });
}

/**
 * Creates or edits the pull request's sticky comment of `marker` (the rule of which one it is:
 * core.stickyComments); a body already there is left alone; a duplicate two writers made at
 * once is deleted. Returns {id, action: created | updated | unchanged}.
 */
async function upsertSticky(octokit, where, { marker, author, body }) {
  if (!body.startsWith(marker)) throw new Error('internal: a sticky comment body must start with its marker');
  const { owner, repo, prNumber } = where;
  let { kept, duplicates } = core.stickyComments(await allComments(octokit, where), { marker, author });
  let action = null;
  if (!kept) {
    const { data } = await octokit.rest.issues.createComment({ owner, repo, issue_number: prNumber, body });
    ({ kept, duplicates } = core.stickyComments(await allComments(octokit, where), { marker, author }));
    kept = kept || data;
    action = 'created';
  }
  for (const extra of duplicates) await octokit.rest.issues.deleteComment({ owner, repo, comment_id: extra.id });
  if (kept.body === body) return { id: kept.id, action: action || 'unchanged' };
  await octokit.rest.issues.updateComment({ owner, repo, comment_id: kept.id, body });
  return { id: kept.id, action: action || 'updated' };
}

/**
 * Posts `body` as the reply to a command comment, unless a reply to it is already there
 * (looked for only when `lookFirst`: a job run again after a crash). Returns the reply's id.
 */
async function postReply(octokit, where, { commentId, author, body, lookFirst }) {
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
async function upsertReply(octokit, where, { commentId, replyId, author, body, lookFirst }) {
  const { owner, repo } = where;
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
  const { data } = await octokit.rest.checks.create({
    owner: where.owner, repo: where.repo, name, head_sha: headSha, external_id: externalId, status: 'queued',
    ...(detailsUrl ? { details_url: detailsUrl } : {}),
    output: { title: output.title, summary: fit(output.summary, CHECK_RUN_TEXT_LIMIT, 'cut to fit GitHub') },
  });
  return data.id;
}

async function completeCheckRun(octokit, where, checkRunId, { conclusion, output, detailsUrl }) {
  await octokit.rest.checks.update({
    owner: where.owner, repo: where.repo, check_run_id: checkRunId, status: 'completed', conclusion,
    completed_at: new Date().toISOString(),
    ...(detailsUrl ? { details_url: detailsUrl } : {}),
    output: {
      title: fit(output.title, 1000, 'cut'),
      summary: fit(output.summary, CHECK_RUN_TEXT_LIMIT, "cut to fit GitHub's check run size; the sticky comment and the run's artifact have all of it"),
      ...(output.text ? { text: fit(output.text, CHECK_RUN_TEXT_LIMIT, "cut to fit GitHub's check run size") } : {}),
    },
  });
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

module.exports = { upsertSticky, postReply, upsertReply, acknowledge, ensureCheckRun, completeCheckRun, cancelRun, defaultBranch, fit, CHECK_RUN_TEXT_LIMIT };
