'use strict';
// The commit a ref names in a repository, as GitHub resolves it (a branch, a tag, a SHA or an
// abbreviation of one).
const { describeError } = require('./github');

/** -> {sha} or {error: GitHub's answer} when GitHub knows no such commit (or several). */
async function resolveCommit(octokit, { owner, repo }, ref) {
  try {
    const { data } = await octokit.rest.repos.getCommit({ owner, repo, ref, per_page: 1 });
    return { sha: data.sha };
  } catch (err) {
    if (err.status === 404 || err.status === 422) return { error: describeError(err) };
    throw err;
  }
}

module.exports = { resolveCommit };
