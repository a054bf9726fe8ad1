// Issues, pull requests, issue comments and their reactions.
import * as shape from '../objects.mjs';
import { timestamp } from '../state.mjs';
import { created, findRepo, HttpError, noContent, notFound, ok, paginate, requireIdentity, unprocessable } from './common.mjs';

// GitHub refuses comment and issue bodies longer than this.
const BODY_LIMIT = 65536;

function checkBody(body, resource) {
  if (typeof body === 'string' && body.length > BODY_LIMIT) {
    throw unprocessable(`Body is too long (maximum is ${BODY_LIMIT} characters)`, { resource, name: 'body' }, 'custom');
  }
}

function findIssue(repo, number) {
  const entry = repo.issues.get(Number(number));
  if (!entry) throw notFound();
  return entry;
}

/**
 * The author may edit or delete a comment; so may anyone with write access: GITHUB_TOKEN and
 * installation tokens act with the repository's write permission, a person needs write or above.
 */
function mayModify(call, repo, comment) {
  const identity = requireIdentity(call);
  if (comment.user === identity.user || identity.kind !== 'personal') return;
  const level = repo.collaborators.get(identity.user.login.toLowerCase());
  if (!['admin', 'maintain', 'write'].includes(level)) throw new HttpError(403, 'Must have admin rights to Repository.');
}

function findComment(repo, id) {
  const comment = repo.comments.get(Number(id));
  if (!comment) throw notFound();
  return comment;
}

export const operations = {
  'pulls/get': (call) => {
    const repo = findRepo(call);
    const pull = repo.pulls.get(Number(call.params.pull_number));
    if (!pull) throw notFound();
    return ok(shape.pullRequest(call.urls, repo, pull, repo.issues.get(pull.number)));
  },

  'issues/get': (call) => {
    const repo = findRepo(call);
    return ok(shape.issue(call.urls, repo, findIssue(repo, call.params.issue_number)));
  },

  'issues/list-for-repo': (call) => {
    const repo = findRepo(call);
    const state = call.query.state || 'open';
    const wanted = call.query.labels ? String(call.query.labels).split(',').map((name) => name.trim()).filter(Boolean) : [];
    const direction = call.query.direction || 'desc';
    const sort = call.query.sort || 'created';
    const key = { created: (entry) => entry.createdAt + String(entry.number).padStart(10, '0'), updated: (entry) => entry.updatedAt, comments: (entry) => String(entry.commentCount).padStart(10, '0') }[sort];
    const matching = [...repo.issues.values()]
      .filter((entry) => state === 'all' || entry.state === state)
      .filter((entry) => wanted.every((name) => entry.labels.includes(name)))
      .filter((entry) => !call.query.creator || entry.user.login.toLowerCase() === String(call.query.creator).toLowerCase())
      .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0) * (direction === 'asc' ? 1 : -1));
    const { items, headers } = paginate(call, matching);
    return ok(items.map((entry) => shape.issue(call.urls, repo, entry)), headers);
  },

  'issues/create': (call) => {
    const repo = findRepo(call, { write: true });
    checkBody(call.body.body, 'Issue');
    const entry = call.state.addIssue(repo, {
      title: call.body.title,
      body: call.body.body ?? null,
      user: call.identity.user,
      labels: call.body.labels || [],
    });
    const body = shape.issue(call.urls, repo, entry);
    return created(body, body.url);
  },

  'issues/update': (call) => {
    const repo = findRepo(call, { write: true });
    const entry = findIssue(repo, call.params.issue_number);
    checkBody(call.body.body, 'Issue');
    if (call.body.title !== undefined && call.body.title !== null) entry.title = String(call.body.title);
    if (call.body.body !== undefined) entry.body = call.body.body;
    if (call.body.labels !== undefined) call.state.setLabels(repo, entry, call.body.labels);
    if (call.body.state && call.body.state !== entry.state) {
      entry.state = call.body.state;
      entry.closedAt = entry.state === 'closed' ? timestamp() : null;
      entry.stateReason = entry.state === 'closed' ? call.body.state_reason || 'completed' : 'reopened';
    }
    entry.updatedAt = timestamp();
    return ok(shape.issue(call.urls, repo, entry));
  },

  'issues/list-comments': (call) => {
    const repo = findRepo(call);
    const entry = findIssue(repo, call.params.issue_number);
    const since = call.query.since ? Date.parse(call.query.since) : undefined;
    const all = [...repo.comments.values()]
      .filter((comment) => comment.issueNumber === entry.number)
      .filter((comment) => since === undefined || Date.parse(comment.updatedAt) >= since);
    const { items, headers } = paginate(call, all);
    return ok(items.map((comment) => shape.issueComment(call.urls, repo, comment)), headers);
  },

  'issues/create-comment': (call) => {
    const repo = findRepo(call, { write: true });
    const entry = findIssue(repo, call.params.issue_number);
    checkBody(call.body.body, 'IssueComment');
    const now = timestamp();
    const comment = {
      id: call.state.nextId('comment', 1_000_000_000),
      issueNumber: entry.number,
      onPull: entry.pull,
      body: call.body.body,
      user: call.identity.user,
      reactions: [],
      createdAt: now,
      updatedAt: now,
    };
    repo.comments.set(comment.id, comment);
    entry.commentCount += 1;
    entry.updatedAt = now;
    const body = shape.issueComment(call.urls, repo, comment);
    return created(body, body.url);
  },

  'issues/get-comment': (call) => {
    const repo = findRepo(call);
    return ok(shape.issueComment(call.urls, repo, findComment(repo, call.params.comment_id)));
  },

  'issues/update-comment': (call) => {
    const repo = findRepo(call, { write: true });
    const comment = findComment(repo, call.params.comment_id);
    checkBody(call.body.body, 'IssueComment');
    mayModify(call, repo, comment);
    comment.body = call.body.body;
    comment.updatedAt = timestamp();
    return ok(shape.issueComment(call.urls, repo, comment));
  },

  'issues/delete-comment': (call) => {
    const repo = findRepo(call, { write: true });
    const comment = findComment(repo, call.params.comment_id);
    mayModify(call, repo, comment);
    repo.comments.delete(comment.id);
    const entry = repo.issues.get(comment.issueNumber);
    if (entry) entry.commentCount -= 1;
    return noContent();
  },

  'reactions/create-for-issue-comment': (call) => {
    const repo = findRepo(call, { write: true });
    const comment = findComment(repo, call.params.comment_id);
    const user = requireIdentity(call).user;
    const existing = comment.reactions.find((entry) => entry.user === user && entry.content === call.body.content);
    // GitHub answers 200 with the existing reaction when the same user reacts the same way again.
    if (existing) return ok(shape.reaction(call.urls, existing));
    const entry = { id: call.state.nextId('reaction', 300_000_000), user, content: call.body.content, createdAt: timestamp() };
    comment.reactions.push(entry);
    return created(shape.reaction(call.urls, entry));
  },
};
