// Tags and branches: what a release sign-off resolves its refs with.
import { findRepo, ok, paginate } from './common.mjs';

const nodeIdOf = (kind, text) => Buffer.from(`${kind}:${text}`).toString('base64');

export const operations = {
  'repos/list-tags': (call) => {
    const repo = findRepo(call);
    // GitHub lists the newest tag names first.
    const tags = [...repo.tags.entries()].sort(([a], [b]) => b.localeCompare(a, 'en', { numeric: true }));
    const { items, headers } = paginate(call, tags);
    return ok(items.map(([name, sha]) => ({
      name,
      commit: { sha, url: `${call.urls.api}/repos/${repo.fullName}/commits/${sha}` },
      zipball_url: `${call.urls.api}/repos/${repo.fullName}/zipball/refs/tags/${name}`,
      tarball_url: `${call.urls.api}/repos/${repo.fullName}/tarball/refs/tags/${name}`,
      node_id: nodeIdOf('Tag', `${repo.fullName}/${name}`),
    })), headers);
  },

  'repos/list-branches': (call) => {
    const repo = findRepo(call);
    const branches = [...repo.branches.entries()].sort(([a], [b]) => a.localeCompare(b));
    const { items, headers } = paginate(call, branches);
    return ok(items.map(([name, sha]) => ({
      name,
      commit: { sha, url: `${call.urls.api}/repos/${repo.fullName}/commits/${sha}` },
      protected: false,
    })), headers);
  },
};
