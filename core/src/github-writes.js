'use strict';
// What perfgate writes to GitHub from both sides, the action's jobs and the bot: the sticky
// comment (found by its marker, edited in place) and check runs (created, updated), every body
// fitted to GitHub's limits first (render/github-limits.js), so that no write is refused for
// its size. The caller passes the Octokit it made (the action's @octokit/rest client, the bot's
// installation client; both have .rest and .paginate): core makes no client, holds no token
// and sends nothing on its own.
const { stickyComments } = require('./sticky-comment');
const { fitComment, fitCheckRunOutput } = require('./github-limits');

async function allComments(octokit, { owner, repo, number }) {
  // Every page: a long discussion pushes the comment past the first hundred.
  return octokit.paginate(octokit.rest.issues.listComments, { owner, repo, issue_number: number, per_page: 100 });
}

/**
 * Creates or edits the one comment of `body`'s marker on issue or pull request `number`: the
 * oldest one that starts with the marker and was written by `author` (core.stickyComments). An
 * identical body is left alone; a second comment (two writers that both found none and both
 * created one) is deleted. `note` ends a body cut to fit GitHub's limit.
 * @returns {id, url, action: created | updated | unchanged}
 */
async function upsertStickyComment(octokit, { owner, repo, number }, { marker, author, body, note }) {
  if (!body.startsWith(marker)) throw new Error('internal: a sticky comment body must start with its marker');
  const fitted = fitComment(body, note);
  const identity = { marker, author };
  let { kept, duplicates } = stickyComments(await allComments(octokit, { owner, repo, number }), identity);
  let action = null;
  if (!kept) {
    const { data: made } = await octokit.rest.issues.createComment({ owner, repo, issue_number: number, body: fitted });
    // Another writer may have created one at the same moment: the oldest is the one kept.
    ({ kept, duplicates } = stickyComments(await allComments(octokit, { owner, repo, number }), identity));
    kept = kept || made;
    action = 'created';
  }
  for (const duplicate of duplicates) await octokit.rest.issues.deleteComment({ owner, repo, comment_id: duplicate.id });
  if (kept.body === fitted) return { id: kept.id, url: kept.html_url, action: action || 'unchanged' };
  const { data } = await octokit.rest.issues.updateComment({ owner, repo, comment_id: kept.id, body: fitted });
  return { id: data.id, url: data.html_url, action: action || 'updated' };
}

// Annotations past the first 50 of a request go in updates after it, as GitHub asks.
async function sendLaterAnnotations(octokit, { owner, repo }, id, output, batches) {
  for (const annotations of batches) {
    await octokit.rest.checks.update({ owner, repo, check_run_id: id, output: { title: output.title, summary: output.summary, annotations } });
  }
}

/**
 * Creates a check run (`fields` as GitHub's checks/create takes them); its output fitted to
 * GitHub's limits, `note` ending a summary or text that had to be cut.
 * @returns the check run as GitHub answers it
 */
async function createCheckRun(octokit, { owner, repo }, fields, { note } = {}) {
  if (!fields.output) return (await octokit.rest.checks.create({ owner, repo, ...fields })).data;
  const { output, laterAnnotations } = fitCheckRunOutput(fields.output, note);
  const { data } = await octokit.rest.checks.create({ owner, repo, ...fields, output });
  await sendLaterAnnotations(octokit, { owner, repo }, data.id, output, laterAnnotations);
  return data;
}

/** Updates check run `checkRunId` (`fields` as checks/update takes them), its output fitted. */
async function updateCheckRun(octokit, { owner, repo }, checkRunId, fields, { note } = {}) {
  if (!fields.output) return (await octokit.rest.checks.update({ owner, repo, check_run_id: checkRunId, ...fields })).data;
  const { output, laterAnnotations } = fitCheckRunOutput(fields.output, note);
  const { data } = await octokit.rest.checks.update({ owner, repo, check_run_id: checkRunId, ...fields, output });
  await sendLaterAnnotations(octokit, { owner, repo }, checkRunId, output, laterAnnotations);
  return data;
}

module.exports = { upsertStickyComment, createCheckRun, updateCheckRun };
