// Repositories, check runs, commit statuses, collaborator permissions, team memberships, rate limit.
import * as shape from '../objects.mjs';
import { timestamp } from '../state.mjs';
import { created, findRepo, HttpError, notFound, ok, paginate, requireIdentity, unprocessable } from './common.mjs';

// The limits on a check run's output (65,535 characters of summary and of text, 50 annotations
// per request) are in GitHub's description, so request validation enforces them.

// What GitHub reports as `permission` for each role: maintain counts as write, triage as read.
const PERMISSION_OF_ROLE = { admin: 'admin', maintain: 'write', write: 'write', triage: 'read', read: 'read', none: 'none' };

/** The App a check run belongs to: the caller's App, or GitHub Actions for GITHUB_TOKEN. */
function checkRunApp(call) {
  const identity = call.identity;
  if (identity.kind === 'installation') return shape.app(call.urls, call.authority.app);
  if (identity.kind === 'github-token') {
    const owner = call.state.addUser({ login: 'github', type: 'Organization' });
    return shape.app(call.urls, {
      id: 15368,
      slug: 'github-actions',
      clientId: 'Iv1.05c79e9ad1f6bdfa',
      name: 'GitHub Actions',
      description: 'Automate your workflow from idea to production',
      owner,
      permissions: { checks: 'write', issues: 'write', pull_requests: 'write', statuses: 'write', actions: 'write', metadata: 'read' },
      events: ['check_run', 'pull_request', 'push'],
      installations: [],
    });
  }
  // GitHub: "You must authenticate via a GitHub App" for check runs made with a personal token.
  throw new HttpError(403, 'You must authenticate via a GitHub App.');
}

function applyCheckRunChanges(run, body) {
  const now = timestamp();
  for (const [field, key] of [['name', 'name'], ['details_url', 'detailsUrl'], ['external_id', 'externalId'], ['started_at', 'startedAt']]) {
    if (body[field] !== undefined) run[key] = body[field];
  }
  if (body.output) {
    run.output.title = body.output.title ?? run.output.title;
    run.output.summary = body.output.summary ?? run.output.summary;
    run.output.text = body.output.text ?? run.output.text;
    run.output.annotationsCount += (body.output.annotations || []).length;
  }
  if (body.status) run.status = body.status;
  // Giving a conclusion completes the run, as on GitHub.
  if (body.conclusion) {
    run.conclusion = body.conclusion;
    run.status = 'completed';
  }
  if (run.status === 'completed') run.completedAt = body.completed_at || run.completedAt || now;
  if (run.status === 'completed' && !run.conclusion) {
    throw unprocessable('Conclusion is required when status is completed', { resource: 'CheckRun', name: 'conclusion' }, 'missing_field');
  }
}

function pullsForSha(repo, sha) {
  return [...repo.pulls.values()].filter((pull) => pull.head.sha === sha && repo.issues.get(pull.number)?.state === 'open');
}

export const operations = {
  'repos/get': (call) => ok(shape.fullRepository(call.urls, findRepo(call))),

  'checks/create': (call) => {
    const repo = findRepo(call, { write: true });
    const app = checkRunApp(call);
    const run = {
      id: call.state.nextId('check-run', 20_000_000_000),
      name: call.body.name,
      headSha: call.body.head_sha,
      status: 'queued',
      conclusion: null,
      detailsUrl: null,
      externalId: null,
      startedAt: timestamp(),
      completedAt: null,
      output: { title: null, summary: null, text: null, annotationsCount: 0 },
      checkSuiteId: call.state.nextId('check-suite', 25_000_000_000),
      app,
      pullRequests: pullsForSha(repo, call.body.head_sha),
    };
    applyCheckRunChanges(run, call.body);
    repo.checkRuns.set(run.id, run);
    const body = shape.checkRun(call.urls, repo, run);
    return created(body, body.url);
  },

  'checks/update': (call) => {
    const repo = findRepo(call, { write: true });
    const run = repo.checkRuns.get(Number(call.params.check_run_id));
    if (!run) throw notFound();
    applyCheckRunChanges(run, call.body);
    return ok(shape.checkRun(call.urls, repo, run));
  },

  'checks/get': (call) => {
    const repo = findRepo(call);
    const run = repo.checkRuns.get(Number(call.params.check_run_id));
    if (!run) throw notFound();
    return ok(shape.checkRun(call.urls, repo, run));
  },

  'checks/list-for-ref': (call) => {
    const repo = findRepo(call);
    const ref = call.params.ref;
    let runs = [...repo.checkRuns.values()].filter((run) => run.headSha === ref);
    if (call.query.check_name) runs = runs.filter((run) => run.name === call.query.check_name);
    if (call.query.status) runs = runs.filter((run) => run.status === call.query.status);
    if ((call.query.filter || 'latest') === 'latest') {
      const latest = new Map();
      for (const run of runs) latest.set(run.name, run);
      runs = [...latest.values()];
    }
    runs.sort((a, b) => b.id - a.id);
    const { items, headers } = paginate(call, runs);
    return ok({ total_count: runs.length, check_runs: items.map((run) => shape.checkRun(call.urls, repo, run)) }, headers);
  },

  'repos/create-commit-status': (call) => {
    const repo = findRepo(call, { write: true });
    const now = timestamp();
    const entry = {
      id: call.state.nextId('status', 30_000_000_000),
      sha: call.params.sha,
      state: call.body.state,
      description: call.body.description ?? null,
      targetUrl: call.body.target_url ?? null,
      context: call.body.context || 'default',
      creator: requireIdentity(call).user,
      createdAt: now,
    };
    repo.statuses.push(entry);
    const body = shape.commitStatus(call.urls, repo, entry);
    return created(body, body.url);
  },

  'repos/list-commit-statuses-for-ref': (call) => {
    const repo = findRepo(call);
    const statuses = repo.statuses.filter((entry) => entry.sha === call.params.ref).reverse();
    const { items, headers } = paginate(call, statuses);
    return ok(items.map((entry) => shape.commitStatus(call.urls, repo, entry)), headers);
  },

  'repos/get-collaborator-permission-level': (call) => {
    const repo = findRepo(call);
    requireIdentity(call);
    const user = call.state.user(call.params.username);
    if (!user) throw new HttpError(404, `${call.params.username} is not a user`);
    const role = repo.collaborators.get(user.login.toLowerCase()) || (repo.private ? 'none' : 'read');
    const permission = PERMISSION_OF_ROLE[role];
    const collaborator = {
      ...shape.simpleUser(call.urls, user),
      permissions: {
        admin: role === 'admin',
        maintain: ['admin', 'maintain'].includes(role),
        push: ['admin', 'maintain', 'write'].includes(role),
        triage: ['admin', 'maintain', 'write', 'triage'].includes(role),
        pull: role !== 'none',
      },
      role_name: role,
    };
    return ok({ permission, role_name: role, user: collaborator });
  },

  'teams/get-membership-for-user-in-org': (call) => {
    requireIdentity(call);
    const members = call.state.teams.get(`${call.params.org}/${call.params.team_slug}`.toLowerCase());
    const role = members?.get(String(call.params.username).toLowerCase());
    if (!role) throw notFound();
    return ok({
      url: `${call.urls.api}/organizations/${call.state.user(call.params.org).id}/team/${encodeURIComponent(call.params.team_slug)}/memberships/${encodeURIComponent(call.params.username)}`,
      role,
      state: 'active',
    });
  },

  'rate-limit/get': (call) => {
    const rate = call.rateLimit();
    const resources = {};
    for (const name of ['core', 'search', 'graphql', 'integration_manifest', 'code_search', 'actions_runner_registration', 'scim']) {
      resources[name] = name === 'core' ? rate : { limit: 30, used: 0, remaining: 30, reset: rate.reset };
    }
    return ok({ resources, rate });
  },
};
