// What the double remembers between calls: repositories and what lives in them (issues and pull
// requests, comments, reactions, check runs, statuses, workflows, runs, dispatches), users,
// collaborator permissions and team memberships. Built from the options a test starts it with.

export const GITHUB_ACTIONS_BOT = Object.freeze({ login: 'github-actions[bot]', id: 41898282, type: 'Bot' });

const PERMISSION_LEVELS = ['admin', 'maintain', 'write', 'triage', 'read', 'none'];
const TEAM_ROLES = ['member', 'maintainer'];

/** GitHub's timestamps: UTC, whole seconds. */
export function timestamp(date = new Date()) {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function optionError(key, value, expected) {
  return new Error(`GitHub double option ${key}: ${JSON.stringify(value)} is not valid; expected ${expected}`);
}

function splitFullName(key, fullName) {
  const match = typeof fullName === 'string' && /^([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+)$/.exec(fullName);
  if (!match) throw optionError(key, fullName, '"owner/name"');
  return { owner: match[1], name: match[2] };
}

export class GitHubState {
  constructor(options = {}) {
    this.counters = new Map();
    this.users = new Map();
    this.repos = new Map();
    this.teams = new Map();
    this.dispatches = [];
    this.dispatchStartsRun = Boolean(options.dispatchStartsRun);
    for (const user of options.users || []) this.addUser(user);
    for (const repo of options.repositories || []) this.addRepository(repo);
    for (const [fullName, levels] of Object.entries(options.permissions || {})) {
      for (const [login, level] of Object.entries(levels)) this.setPermission(fullName, login, level);
    }
    for (const [team, members] of Object.entries(options.teams || {})) {
      for (const [login, role] of Object.entries(members)) this.setTeamMember(team, login, role);
    }
    for (const [fullName, files] of Object.entries(options.workflows || {})) {
      for (const file of files) this.addWorkflow(fullName, file);
    }
    for (const pull of options.pullRequests || []) this.addPullRequest(pull);
    for (const [fullName, history] of Object.entries(options.commits || {})) this.addCommits(fullName, history);
    for (const [fullName, refs] of Object.entries(options.refs || {})) this.setRefs(fullName, refs);
  }

  /**
   * Commits of a repository and the refs (branches, tags) that name them:
   * {commits: [{sha, parents: [sha], message}], refs: {name: sha}}.
   */
  addCommits(fullName, { commits = [], refs = {} }) {
    const repo = this.repoByFullName(`commits["${fullName}"]`, fullName);
    for (const commit of commits) {
      if (!/^[0-9a-f]{40}$/.test(commit.sha || '')) throw optionError(`commits["${fullName}"].commits[].sha`, commit.sha, '40 hex digits');
      repo.commits.set(commit.sha, { sha: commit.sha, parents: [...(commit.parents || [])], message: commit.message || '' });
    }
    for (const [name, sha] of Object.entries(refs)) {
      if (!repo.commits.has(sha)) throw optionError(`commits["${fullName}"].refs["${name}"]`, sha, 'the SHA of one of its commits');
      repo.refs.set(name, sha);
    }
  }

  /** The commit a ref names (a full or abbreviated SHA, a branch or a tag), or null. */
  resolveCommit(repo, ref) {
    if (repo.refs.has(ref)) return repo.commits.get(repo.refs.get(ref));
    const bare = String(ref).replace(/^refs\/(heads|tags)\//, '');
    if (repo.refs.has(bare)) return repo.commits.get(repo.refs.get(bare));
    if (/^[0-9a-f]{7,40}$/.test(ref)) {
      const found = [...repo.commits.keys()].filter((sha) => sha.startsWith(ref));
      if (found.length === 1) return repo.commits.get(found[0]);
    }
    return null;
  }

  nextId(kind, start) {
    const next = (this.counters.get(kind) ?? start) + 1;
    this.counters.set(kind, next);
    return next;
  }

  /** A user or organization account; known logins are what permission checks can name. */
  addUser(spec) {
    const user = typeof spec === 'string' ? { login: spec } : { ...spec };
    if (!user.login || typeof user.login !== 'string') throw optionError('users[].login', user.login, 'a login');
    const existing = this.users.get(user.login.toLowerCase());
    if (existing) return existing;
    const entry = {
      login: user.login,
      id: user.id ?? this.nextId('user', 5_000_000),
      type: user.type || 'User',
    };
    this.users.set(entry.login.toLowerCase(), entry);
    return entry;
  }

  user(login) {
    return this.users.get(String(login).toLowerCase());
  }

  addRepository(spec) {
    const options = typeof spec === 'string' ? { fullName: spec } : spec;
    const { owner, name } = splitFullName('repositories[].fullName', options.fullName);
    const repo = {
      id: options.id ?? this.nextId('repository', 700_000_000),
      owner: this.addUser({ login: owner, type: options.ownerType || 'Organization' }),
      name,
      fullName: `${owner}/${name}`,
      private: Boolean(options.private),
      fork: Boolean(options.fork),
      description: options.description ?? null,
      defaultBranch: options.defaultBranch || 'main',
      createdAt: timestamp(new Date('2024-01-01T00:00:00Z')),
      labels: new Map(),
      issues: new Map(),
      pulls: new Map(),
      comments: new Map(),
      checkRuns: new Map(),
      statuses: [],
      workflows: new Map(),
      runs: new Map(),
      commits: new Map(),
      refs: new Map(),
      collaborators: new Map(),
      tags: new Map(),
      branches: new Map(),
      get openIssues() {
        return [...this.issues.values()].filter((issue) => issue.state === 'open').length;
      },
    };
    this.repos.set(repo.fullName.toLowerCase(), repo);
    return repo;
  }

  repo(owner, name) {
    return this.repos.get(`${owner}/${name}`.toLowerCase());
  }

  repoByFullName(key, fullName) {
    const { owner, name } = splitFullName(key, fullName);
    const repo = this.repo(owner, name);
    if (!repo) throw optionError(key, fullName, `one of the double's repositories (${[...this.repos.values()].map((r) => r.fullName).join(', ') || 'none'})`);
    return repo;
  }

  /** Tags and branches of a repository: {tags: {name: sha}, branches: {name: sha}}. */
  setRefs(fullName, { tags = {}, branches = {} }) {
    const repo = this.repoByFullName(`refs["${fullName}"]`, fullName);
    for (const [kind, map, names] of [['tags', repo.tags, tags], ['branches', repo.branches, branches]]) {
      for (const [name, sha] of Object.entries(names)) {
        if (!/^[0-9a-f]{40}$/.test(sha)) throw optionError(`refs["${fullName}"].${kind}["${name}"]`, sha, '40 hex digits');
        map.set(name, sha);
      }
    }
  }

  setPermission(fullName, login, level) {
    if (!PERMISSION_LEVELS.includes(level)) throw optionError(`permissions["${fullName}"]["${login}"]`, level, PERMISSION_LEVELS.join(' | '));
    const repo = this.repoByFullName(`permissions["${fullName}"]`, fullName);
    this.addUser(login);
    repo.collaborators.set(login.toLowerCase(), level);
  }

  setTeamMember(team, login, role) {
    const match = /^([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+)$/.exec(team);
    if (!match) throw optionError('teams', team, '"org/team-slug"');
    if (!TEAM_ROLES.includes(role)) throw optionError(`teams["${team}"]["${login}"]`, role, TEAM_ROLES.join(' | '));
    this.addUser({ login: match[1], type: 'Organization' });
    this.addUser(login);
    const key = team.toLowerCase();
    if (!this.teams.has(key)) this.teams.set(key, new Map());
    this.teams.get(key).set(login.toLowerCase(), role);
  }

  label(repo, name) {
    if (!repo.labels.has(name)) {
      const id = this.nextId('label', 9_000_000_000);
      repo.labels.set(name, { id, name, color: 'ededed' });
    }
    return repo.labels.get(name);
  }

  addIssue(repo, { title, body = null, user, labels = [], pull = false, number }) {
    const now = timestamp();
    const entry = {
      id: this.nextId('issue', 2_000_000_000),
      number: number ?? Math.max(0, ...repo.issues.keys()) + 1,
      title: String(title),
      body,
      user,
      labels: [],
      state: 'open',
      stateReason: null,
      pull,
      commentCount: 0,
      createdAt: now,
      updatedAt: now,
      closedAt: null,
    };
    if (repo.issues.has(entry.number)) throw new Error(`GitHub double: ${repo.fullName} already has issue or pull request #${entry.number}`);
    this.setLabels(repo, entry, labels);
    repo.issues.set(entry.number, entry);
    return entry;
  }

  setLabels(repo, entry, labels) {
    entry.labels = [...new Set(labels.map((item) => (typeof item === 'string' ? item : item.name)))];
    for (const name of entry.labels) this.label(repo, name);
  }

  /**
   * A pull request (and the issue every pull request also is). `spec.repository` is
   * "owner/name"; head and base are { ref, sha }; head.repository names a fork it comes from.
   */
  addPullRequest(spec) {
    const repo = this.repoByFullName('pullRequests[].repository', spec.repository);
    for (const side of ['head', 'base']) {
      const ref = spec[side];
      if (!ref || typeof ref.ref !== 'string' || !/^[0-9a-f]{40}$/.test(ref.sha || '')) {
        throw optionError(`pullRequests[].${side}`, ref, '{ ref: "branch", sha: "<40 hex digits>" }');
      }
    }
    // A head in another repository (a fork; GitHub lists it as head.repo): added if unknown.
    const headRepo = spec.head.repository
      ? this.repo(...spec.head.repository.split('/')) || this.addRepository({ fullName: spec.head.repository, ownerType: 'User', fork: true })
      : repo;
    const user = this.addUser(spec.user || 'octocat');
    const issueEntry = this.addIssue(repo, {
      title: spec.title || 'A pull request',
      body: spec.body ?? null,
      user,
      labels: spec.labels || [],
      pull: true,
      number: spec.number,
    });
    const pull = {
      id: spec.id ?? this.nextId('pull', 1_500_000_000),
      number: issueEntry.number,
      head: { ref: spec.head.ref, sha: spec.head.sha, repo: headRepo },
      base: { ref: spec.base.ref, sha: spec.base.sha },
      draft: Boolean(spec.draft),
      authorAssociation: spec.authorAssociation || 'CONTRIBUTOR',
      commits: spec.commits ?? 1,
      additions: spec.additions ?? 1,
      deletions: spec.deletions ?? 0,
      changedFiles: spec.changedFiles ?? 1,
    };
    repo.pulls.set(pull.number, pull);
    return pull;
  }

  /**
   * Workflows are named by file (perf.yml) or id, as the REST API accepts both. A workflow is
   * "perf.yml" or { file: "perf.yml", runName: "perf ${{ inputs.pr }}" }: runName is the
   * workflow's `run-name:`, which becomes the display title of the runs a dispatch starts
   * (only `${{ inputs.<name> }}` expressions are evaluated, and `${{ inputs.<name> ||
   * github.ref_name }}`, the ref the run is on when the input is empty).
   */
  addWorkflow(fullName, spec) {
    const repo = this.repoByFullName(`workflows["${fullName}"]`, fullName);
    const { file, runName = null } = typeof spec === 'string' ? { file: spec } : spec || {};
    if (typeof file !== 'string' || !/^[A-Za-z0-9._-]+\.ya?ml$/.test(file)) {
      throw optionError(`workflows["${fullName}"]`, file, 'a workflow file name such as "perf.yml"');
    }
    if (runName !== null && typeof runName !== 'string') throw optionError(`workflows["${fullName}"].runName`, runName, 'a run-name template');
    const workflow = { id: this.nextId('workflow', 80_000_000), file, path: `.github/workflows/${file}`, runName };
    repo.workflows.set(file, workflow);
    return workflow;
  }

  /** The display title GitHub gives a dispatched run: the workflow's run-name with its inputs, else the file. */
  displayTitle(workflow, inputs = {}, refName = '') {
    if (!workflow.runName) return workflow.file;
    return workflow.runName.replace(/\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*(\|\|\s*github\.ref_name\s*)?\}\}/g, (_, name, orRef) => String(inputs[name] || (orRef ? refName : '') || ''));
  }

  workflow(repo, workflowId) {
    const key = String(workflowId);
    return repo.workflows.get(key) || [...repo.workflows.values()].find((workflow) => String(workflow.id) === key);
  }

  /** A workflow run, as GitHub would list it. `id` may be chosen to match act's GITHUB_RUN_ID. */
  addWorkflowRun(spec) {
    const repo = this.repoByFullName('workflowRuns[].repository', spec.repository);
    const workflow = this.workflow(repo, spec.workflow) || this.addWorkflow(repo.fullName, spec.workflow);
    const now = timestamp();
    const run = {
      id: spec.id ?? this.nextId('run', 9_000_000_000),
      name: spec.name || workflow.file.replace(/\.ya?ml$/, ''),
      workflowId: workflow.id,
      path: workflow.path,
      event: spec.event || 'workflow_dispatch',
      status: spec.status || 'queued',
      conclusion: spec.conclusion ?? null,
      headBranch: spec.headBranch || repo.defaultBranch,
      headSha: spec.headSha || '0'.repeat(40),
      displayTitle: spec.displayTitle || this.displayTitle(workflow, spec.inputs, spec.headBranch || repo.defaultBranch),
      runNumber: repo.runs.size + 1,
      actor: this.addUser(spec.actor || 'octocat'),
      inputs: spec.inputs || {},
      createdAt: now,
      updatedAt: now,
    };
    repo.runs.set(run.id, run);
    return run;
  }

  updateWorkflowRun(repository, id, changes) {
    const repo = this.repoByFullName('repository', repository);
    const run = repo.runs.get(Number(id));
    if (!run) throw new Error(`GitHub double: ${repo.fullName} has no workflow run ${id}`);
    Object.assign(run, changes, { updatedAt: timestamp() });
    return run;
  }

  /** The comments on one issue or pull request, oldest first. */
  comments(repository, issueNumber) {
    const repo = this.repoByFullName('repository', repository);
    return [...repo.comments.values()].filter((comment) => comment.issueNumber === Number(issueNumber));
  }

  checkRuns(repository) {
    return [...this.repoByFullName('repository', repository).checkRuns.values()];
  }

  issues(repository) {
    return [...this.repoByFullName('repository', repository).issues.values()];
  }

  statuses(repository) {
    return [...this.repoByFullName('repository', repository).statuses];
  }
}
