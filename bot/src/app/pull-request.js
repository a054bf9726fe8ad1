'use strict';
// What the bot does in a pull request through the REST API: the sticky comment, replies, the
// 👍 reaction, check runs. Every write here can be repeated without a second effect (the
// sticky comment by its marker, a reply by its marker, a check run by its external id), since
// a job is run again after a crash; what a write makes is made through octokit.writeOnce
// (write-once.js), which looks for it by those ids before sending it again. The sticky comment
// and check runs are core's writes, the action's too; every body is fitted to GitHub's limits
// before it is sent.
const core = require('@perfgate/core');
const { replyMarker } = require('./messages');

async function allComments(octokit, { owner, repo, prNumber }) {
  return octokit.paginate(octokit.rest.issues.listComments, { owner, repo, issue_number: prNumber, per_page: 100 });
}

const STICKY_NOTE = "Cut to fit GitHub's comment size; the run's artifact holds all of it.";

/**
 * Creates or edits the pull request's sticky comment of `marker` (the rule of which one it is:
 * core.stickyComments); a body already there is left alone; a duplicate two writers made at
 * once is deleted. Returns {id, action: created | updated | unchanged}.
 */
async function upsertSticky(octokit, where, { marker, author, body }) {
  const fitted = core.fitComment(body, STICKY_NOTE);
  return octokit.writeOnce({
    what: `the sticky comment ${marker} on #${where.prNumber}`,
    // An upsert whose answer was lost is done when the comment says what it was to say.
    async find() {
      const { kept } = core.stickyComments(await allComments(octokit, where), { marker, author });
      return kept && kept.body === fitted ? { id: kept.id, action: 'unchanged' } : null;
    },
    async write() {
      const { id, action } = await core.upsertStickyComment(octokit, { owner: where.owner, repo: where.repo, number: where.prNumber }, { marker, author, body, note: STICKY_NOTE });
      return { id, action };
    },
  });
}

// The reply to command comment `commentId` already there, by its marker, or null.
async function findReply(octokit, where, { commentId, author }) {
  const marker = replyMarker(commentId);
  const existing = (await allComments(octokit, where)).find((c) => c.user && c.user.login === author && String(c.body).startsWith(marker));
  return existing ? existing.id : null;
}

// The reply made, once: looked for by its marker first when `lookFirst`, and before it is sent again.
function createReply(octokit, where, { commentId, author, body, lookFirst }) {
  return octokit.writeOnce({
    what: `the reply to comment ${commentId}`,
    lookFirst,
    find: () => findReply(octokit, where, { commentId, author }),
    write: async () => (await octokit.rest.issues.createComment({ owner: where.owner, repo: where.repo, issue_number: where.prNumber, body })).data.id,
  });
}

/**
 * Posts `body` as the reply to a command comment, unless a reply to it is already there
 * (looked for first only when `lookFirst`: a job run again after a crash). Returns the reply's id.
 */
async function postReply(octokit, where, { commentId, author, body: whole, lookFirst }) {
  return createReply(octokit, where, { commentId, author, body: core.fitComment(whole), lookFirst });
}

/**
 * The reply to a command comment that says where a measuring command stands, edited in place:
 * `replyId` when the request knows it, else found by its marker (when `lookFirst`), else made.
 * Returns its id.
 */
async function upsertReply(octokit, where, { commentId, replyId, author, body: whole, lookFirst }) {
  const { owner, repo } = where;
  const body = core.fitComment(whole);
  const id = replyId || (lookFirst ? await findReply(octokit, where, { commentId, author }) : null);
  if (id) {
    try {
      await octokit.rest.issues.updateComment({ owner, repo, comment_id: id, body });
      return id;
    } catch (err) {
      // Someone deleted it: a new one says it again.
      if (err.status !== 404) throw err;
    }
  }
  return createReply(octokit, where, { commentId, author, body, lookFirst: false });
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
  return octokit.writeOnce({
    what: `the check run ${externalId}`,
    lookFirst,
    async find() {
      const { data } = await octokit.rest.checks.listForRef({ owner: where.owner, repo: where.repo, ref: headSha, check_name: name, filter: 'all', per_page: 100 });
      const existing = data.check_runs.find((run) => run.external_id === externalId);
      return existing ? existing.id : null;
    },
    async write() {
      const made = await core.createCheckRun(octokit, where, {
        name, head_sha: headSha, external_id: externalId, status: 'queued',
        ...(detailsUrl ? { details_url: detailsUrl } : {}),
        output: { title: output.title, summary: output.summary },
      });
      return made.id;
    },
  });
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
