// Commits: one commit by ref (SHA, branch or tag), and the comparison of two commits (whether
// one is an ancestor of the other), from the history a test gives the double (options.commits).
import { nodeId } from '../objects.mjs';
import { findRepo, HttpError, notFound, ok } from './common.mjs';

const WHEN = '2026-01-01T00:00:00Z';

function commitShape(urls, repo, commit) {
  const api = `${urls.api}/repos/${repo.fullName}`;
  const html = `${urls.html}/${repo.fullName}`;
  const person = { name: 'perfgate test', email: 'test@example.com', date: WHEN };
  return {
    url: `${api}/commits/${commit.sha}`,
    sha: commit.sha,
    node_id: nodeId('Commit', commit.sha),
    html_url: `${html}/commit/${commit.sha}`,
    comments_url: `${api}/commits/${commit.sha}/comments`,
    commit: {
      url: `${api}/git/commits/${commit.sha}`,
      author: person,
      committer: person,
      message: commit.message,
      comment_count: 0,
      // The double keeps no trees: the commit's own SHA stands in for its tree's.
      tree: { sha: commit.sha, url: `${api}/git/trees/${commit.sha}` },
    },
    author: null,
    committer: null,
    parents: commit.parents.map((sha) => ({ sha, url: `${api}/commits/${sha}`, html_url: `${html}/commit/${sha}` })),
  };
}

function resolve(call, repo, ref) {
  const commit = call.state.resolveCommit(repo, ref);
  if (!commit) throw new HttpError(422, `No commit found for SHA: ${ref}`);
  return commit;
}

// Every commit reachable from `sha`, with its distance (fewest steps), itself at 0.
function ancestry(repo, sha) {
  const seen = new Map([[sha, 0]]);
  const queue = [sha];
  while (queue.length) {
    const at = queue.shift();
    for (const parent of repo.commits.get(at)?.parents || []) {
      if (!seen.has(parent)) {
        seen.set(parent, seen.get(at) + 1);
        queue.push(parent);
      }
    }
  }
  return seen;
}

export const operations = {
  'repos/get-commit': (call) => {
    const repo = findRepo(call);
    const commit = call.state.resolveCommit(repo, call.params.ref);
    if (!commit) throw new HttpError(422, `No commit found for SHA: ${call.params.ref}`);
    return ok(commitShape(call.urls, repo, commit));
  },

  'repos/compare-commits-with-basehead': (call) => {
    const repo = findRepo(call);
    const match = /^(.+?)\.\.\.(.+)$/.exec(call.params.basehead);
    if (!match) throw notFound();
    const base = resolve(call, repo, match[1]);
    const head = resolve(call, repo, match[2]);
    const ofHead = ancestry(repo, head.sha);
    const ofBase = ancestry(repo, base.sha);
    // The merge base: the common ancestor nearest the head.
    const common = [...ofHead.keys()].filter((sha) => ofBase.has(sha)).sort((a, b) => ofHead.get(a) - ofHead.get(b));
    if (!common.length) throw notFound();
    const mergeBase = repo.commits.get(common[0]);
    const ahead = [...ofHead.keys()].filter((sha) => !ofBase.has(sha));
    const behind = [...ofBase.keys()].filter((sha) => !ofHead.has(sha));
    const status = !ahead.length && !behind.length ? 'identical' : !behind.length ? 'ahead' : !ahead.length ? 'behind' : 'diverged';
    const html = `${call.urls.html}/${repo.fullName}/compare/${call.params.basehead}`;
    const commits = ahead.sort((a, b) => ofHead.get(b) - ofHead.get(a)).slice(0, 250).map((sha) => commitShape(call.urls, repo, repo.commits.get(sha)));
    return ok({
      url: `${call.urls.api}/repos/${repo.fullName}/compare/${call.params.basehead}`,
      html_url: html,
      permalink_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      base_commit: commitShape(call.urls, repo, base),
      merge_base_commit: commitShape(call.urls, repo, mergeBase),
      status,
      ahead_by: ahead.length,
      behind_by: behind.length,
      total_commits: ahead.length,
      commits,
      files: [],
    });
  },
};
