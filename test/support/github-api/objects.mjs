// The shapes GitHub answers with (simple-user, repository, issue, check-run, …), built from the
// double's state. Every field the description requires is here; every response is checked
// against the description anyway, so a shape that drifts from GitHub's fails the test that hit it.

const EPOCH = '2020-01-01T00:00:00Z';

export function nodeId(kind, id) {
  return Buffer.from(`0${kind}:${id}`).toString('base64').replace(/=+$/, '');
}

/** The links every user object carries, for a login on this API. */
export function simpleUser(urls, user) {
  const base = `${urls.api}/users/${encodeURIComponent(user.login)}`;
  return {
    login: user.login,
    id: user.id,
    node_id: nodeId(user.type === 'Bot' ? 'Bot' : 'User', user.id),
    avatar_url: `https://avatars.githubusercontent.com/u/${user.id}?v=4`,
    gravatar_id: '',
    url: base,
    html_url: `${urls.html}/${user.type === 'Bot' ? 'apps/' + user.login.replace(/\[bot\]$/, '') : user.login}`,
    followers_url: `${base}/followers`,
    following_url: `${base}/following{/other_user}`,
    gists_url: `${base}/gists{/gist_id}`,
    starred_url: `${base}/starred{/owner}{/repo}`,
    subscriptions_url: `${base}/subscriptions`,
    organizations_url: `${base}/orgs`,
    repos_url: `${base}/repos`,
    events_url: `${base}/events{/privacy}`,
    received_events_url: `${base}/received_events`,
    type: user.type || 'User',
    user_view_type: 'public',
    site_admin: false,
  };
}

function repositoryLinks(urls, fullName) {
  const base = `${urls.api}/repos/${fullName}`;
  return {
    url: base,
    html_url: `${urls.html}/${fullName}`,
    archive_url: `${base}/{archive_format}{/ref}`,
    assignees_url: `${base}/assignees{/user}`,
    blobs_url: `${base}/git/blobs{/sha}`,
    branches_url: `${base}/branches{/branch}`,
    collaborators_url: `${base}/collaborators{/collaborator}`,
    comments_url: `${base}/comments{/number}`,
    commits_url: `${base}/commits{/sha}`,
    compare_url: `${base}/compare/{base}...{head}`,
    contents_url: `${base}/contents/{+path}`,
    contributors_url: `${base}/contributors`,
    deployments_url: `${base}/deployments`,
    downloads_url: `${base}/downloads`,
    events_url: `${base}/events`,
    forks_url: `${base}/forks`,
    git_commits_url: `${base}/git/commits{/sha}`,
    git_refs_url: `${base}/git/refs{/sha}`,
    git_tags_url: `${base}/git/tags{/sha}`,
    hooks_url: `${base}/hooks`,
    issue_comment_url: `${base}/issues/comments{/number}`,
    issue_events_url: `${base}/issues/events{/number}`,
    issues_url: `${base}/issues{/number}`,
    keys_url: `${base}/keys{/key_id}`,
    labels_url: `${base}/labels{/name}`,
    languages_url: `${base}/languages`,
    merges_url: `${base}/merges`,
    milestones_url: `${base}/milestones{/number}`,
    notifications_url: `${base}/notifications{?since,all,participating}`,
    pulls_url: `${base}/pulls{/number}`,
    releases_url: `${base}/releases{/id}`,
    stargazers_url: `${base}/stargazers`,
    statuses_url: `${base}/statuses/{sha}`,
    subscribers_url: `${base}/subscribers`,
    subscription_url: `${base}/subscription`,
    tags_url: `${base}/tags`,
    teams_url: `${base}/teams`,
    trees_url: `${base}/git/trees{/sha}`,
  };
}

/** minimal-repository: what workflow runs and check suites embed. */
export function minimalRepository(urls, repo) {
  return {
    id: repo.id,
    node_id: nodeId('Repository', repo.id),
    name: repo.name,
    full_name: repo.fullName,
    owner: simpleUser(urls, repo.owner),
    private: repo.private,
    description: repo.description,
    fork: Boolean(repo.fork),
    ...repositoryLinks(urls, repo.fullName),
  };
}

/** full-repository: GET /repos/{owner}/{repo}. */
export function fullRepository(urls, repo) {
  return {
    ...minimalRepository(urls, repo),
    git_url: `git://github.com/${repo.fullName}.git`,
    ssh_url: `git@github.com:${repo.fullName}.git`,
    clone_url: `${urls.html}/${repo.fullName}.git`,
    svn_url: `${urls.html}/${repo.fullName}`,
    mirror_url: null,
    homepage: null,
    language: 'C++',
    forks_count: 0,
    forks: 0,
    stargazers_count: 0,
    watchers_count: 0,
    watchers: 0,
    subscribers_count: 0,
    network_count: 0,
    size: 0,
    default_branch: repo.defaultBranch,
    open_issues_count: repo.openIssues,
    open_issues: repo.openIssues,
    is_template: false,
    topics: [],
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    visibility: repo.private ? 'private' : 'public',
    pushed_at: repo.createdAt,
    created_at: repo.createdAt,
    updated_at: repo.createdAt,
    license: null,
  };
}

export function issueComment(urls, repo, comment) {
  return {
    id: comment.id,
    node_id: nodeId('IssueComment', comment.id),
    url: `${urls.api}/repos/${repo.fullName}/issues/comments/${comment.id}`,
    html_url: `${urls.html}/${repo.fullName}/${comment.onPull ? 'pull' : 'issues'}/${comment.issueNumber}#issuecomment-${comment.id}`,
    issue_url: `${urls.api}/repos/${repo.fullName}/issues/${comment.issueNumber}`,
    body: comment.body,
    user: simpleUser(urls, comment.user),
    author_association: comment.user.type === 'Bot' ? 'NONE' : 'MEMBER',
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    reactions: reactionRollup(urls, `${urls.api}/repos/${repo.fullName}/issues/comments/${comment.id}/reactions`, comment.reactions),
  };
}

function reactionRollup(urls, url, reactions) {
  const count = (content) => reactions.filter((reaction) => reaction.content === content).length;
  return {
    url,
    total_count: reactions.length,
    '+1': count('+1'),
    '-1': count('-1'),
    laugh: count('laugh'),
    confused: count('confused'),
    heart: count('heart'),
    hooray: count('hooray'),
    eyes: count('eyes'),
    rocket: count('rocket'),
  };
}

export function reaction(urls, entry) {
  return {
    id: entry.id,
    node_id: nodeId('Reaction', entry.id),
    user: simpleUser(urls, entry.user),
    content: entry.content,
    created_at: entry.createdAt,
  };
}

export function label(urls, repo, entry) {
  return {
    id: entry.id,
    node_id: nodeId('Label', entry.id),
    url: `${urls.api}/repos/${repo.fullName}/labels/${encodeURIComponent(entry.name)}`,
    name: entry.name,
    description: null,
    color: entry.color,
    default: false,
  };
}

export function issue(urls, repo, entry) {
  const base = `${urls.api}/repos/${repo.fullName}/issues/${entry.number}`;
  const result = {
    id: entry.id,
    node_id: nodeId('Issue', entry.id),
    url: base,
    repository_url: `${urls.api}/repos/${repo.fullName}`,
    labels_url: `${base}/labels{/name}`,
    comments_url: `${base}/comments`,
    events_url: `${base}/events`,
    html_url: `${urls.html}/${repo.fullName}/${entry.pull ? 'pull' : 'issues'}/${entry.number}`,
    number: entry.number,
    state: entry.state,
    state_reason: entry.stateReason,
    title: entry.title,
    body: entry.body,
    user: simpleUser(urls, entry.user),
    labels: entry.labels.map((name) => label(urls, repo, repo.labels.get(name))),
    assignee: null,
    assignees: [],
    milestone: null,
    locked: false,
    active_lock_reason: null,
    comments: entry.commentCount,
    closed_at: entry.closedAt,
    created_at: entry.createdAt,
    updated_at: entry.updatedAt,
    author_association: entry.user.type === 'Bot' ? 'NONE' : 'MEMBER',
    reactions: reactionRollup(urls, `${base}/reactions`, []),
    timeline_url: `${base}/timeline`,
  };
  if (entry.pull) {
    const pulls = `${urls.api}/repos/${repo.fullName}/pulls/${entry.number}`;
    result.pull_request = {
      url: pulls,
      html_url: `${urls.html}/${repo.fullName}/pull/${entry.number}`,
      diff_url: `${urls.html}/${repo.fullName}/pull/${entry.number}.diff`,
      patch_url: `${urls.html}/${repo.fullName}/pull/${entry.number}.patch`,
      merged_at: null,
    };
  }
  return result;
}

export function app(urls, config) {
  return {
    id: config.id,
    slug: config.slug,
    client_id: config.clientId,
    node_id: nodeId('Integration', config.id),
    owner: simpleUser(urls, config.owner),
    name: config.name,
    description: config.description,
    external_url: `${urls.html}/${config.owner.login}`,
    html_url: `${urls.html}/apps/${config.slug}`,
    created_at: EPOCH,
    updated_at: EPOCH,
    permissions: config.permissions,
    events: config.events,
    installations_count: config.installations.length,
  };
}

export function installation(urls, config, entry) {
  return {
    id: entry.id,
    client_id: config.clientId,
    account: simpleUser(urls, entry.account),
    repository_selection: 'selected',
    access_tokens_url: `${urls.api}/app/installations/${entry.id}/access_tokens`,
    repositories_url: `${urls.api}/installation/repositories`,
    html_url: `${urls.html}/organizations/${entry.account.login}/settings/installations/${entry.id}`,
    app_id: config.id,
    app_slug: config.slug,
    target_id: entry.account.id,
    target_type: entry.account.type === 'Organization' ? 'Organization' : 'User',
    permissions: config.permissions,
    events: config.events,
    created_at: EPOCH,
    updated_at: EPOCH,
    single_file_name: null,
    has_multiple_single_files: false,
    single_file_paths: [],
    suspended_by: null,
    suspended_at: null,
  };
}

export function checkRun(urls, repo, run) {
  const base = `${urls.api}/repos/${repo.fullName}/check-runs/${run.id}`;
  return {
    id: run.id,
    node_id: nodeId('CheckRun', run.id),
    head_sha: run.headSha,
    external_id: run.externalId,
    url: base,
    html_url: `${urls.html}/${repo.fullName}/runs/${run.id}`,
    details_url: run.detailsUrl,
    status: run.status,
    conclusion: run.conclusion,
    started_at: run.startedAt,
    completed_at: run.completedAt,
    output: {
      title: run.output.title,
      summary: run.output.summary,
      text: run.output.text,
      annotations_count: run.output.annotationsCount,
      annotations_url: `${base}/annotations`,
    },
    name: run.name,
    check_suite: { id: run.checkSuiteId },
    app: run.app,
    pull_requests: run.pullRequests.map((pull) => pullRequestMinimal(urls, repo, pull)),
  };
}

export function pullRequestMinimal(urls, repo, pull) {
  const side = (ref) => ({
    ref: ref.ref,
    sha: ref.sha,
    repo: { id: (ref.repo || repo).id, url: `${urls.api}/repos/${(ref.repo || repo).fullName}`, name: (ref.repo || repo).name },
  });
  return {
    id: pull.id,
    number: pull.number,
    url: `${urls.api}/repos/${repo.fullName}/pulls/${pull.number}`,
    head: side(pull.head),
    base: side(pull.base),
  };
}

/** repository: what a pull request's head and base embed. */
export function repository(urls, repo) {
  const { subscribers_count, network_count, ...rest } = fullRepository(urls, repo);
  return rest;
}

export function pullRequest(urls, repo, pull, issueEntry) {
  const base = `${urls.api}/repos/${repo.fullName}/pulls/${pull.number}`;
  const issueUrl = `${urls.api}/repos/${repo.fullName}/issues/${pull.number}`;
  const html = `${urls.html}/${repo.fullName}/pull/${pull.number}`;
  const side = (ref) => {
    const where = ref.repo || repo;
    return {
      label: `${where.owner.login}:${ref.ref}`,
      ref: ref.ref,
      sha: ref.sha,
      repo: repository(urls, where),
      user: simpleUser(urls, where.owner),
    };
  };
  return {
    url: base,
    id: pull.id,
    node_id: nodeId('PullRequest', pull.id),
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: issueUrl,
    commits_url: `${base}/commits`,
    review_comments_url: `${base}/comments`,
    review_comment_url: `${urls.api}/repos/${repo.fullName}/pulls/comments{/number}`,
    comments_url: `${issueUrl}/comments`,
    statuses_url: `${urls.api}/repos/${repo.fullName}/statuses/${pull.head.sha}`,
    number: pull.number,
    state: issueEntry.state,
    locked: false,
    title: issueEntry.title,
    user: simpleUser(urls, issueEntry.user),
    body: issueEntry.body,
    labels: issueEntry.labels.map((name) => label(urls, repo, repo.labels.get(name))),
    milestone: null,
    active_lock_reason: null,
    created_at: issueEntry.createdAt,
    updated_at: issueEntry.updatedAt,
    closed_at: issueEntry.closedAt,
    merged_at: null,
    merge_commit_sha: null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: side(pull.head),
    base: side(pull.base),
    _links: {
      self: { href: base },
      html: { href: html },
      issue: { href: issueUrl },
      comments: { href: `${issueUrl}/comments` },
      review_comments: { href: `${base}/comments` },
      review_comment: { href: `${urls.api}/repos/${repo.fullName}/pulls/comments{/number}` },
      commits: { href: `${base}/commits` },
      statuses: { href: `${urls.api}/repos/${repo.fullName}/statuses/${pull.head.sha}` },
    },
    author_association: pull.authorAssociation,
    auto_merge: null,
    draft: pull.draft,
    merged: false,
    mergeable: true,
    rebaseable: true,
    mergeable_state: 'clean',
    merged_by: null,
    comments: issueEntry.commentCount,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: pull.commits,
    additions: pull.additions,
    deletions: pull.deletions,
    changed_files: pull.changedFiles,
  };
}

export function commitStatus(urls, repo, entry) {
  return {
    url: `${urls.api}/repos/${repo.fullName}/statuses/${entry.sha}`,
    avatar_url: `https://avatars.githubusercontent.com/u/${entry.creator.id}?v=4`,
    id: entry.id,
    node_id: nodeId('StatusContext', entry.id),
    state: entry.state,
    description: entry.description,
    target_url: entry.targetUrl,
    context: entry.context,
    created_at: entry.createdAt,
    updated_at: entry.createdAt,
    creator: simpleUser(urls, entry.creator),
  };
}

export function workflowRun(urls, repo, run) {
  const base = `${urls.api}/repos/${repo.fullName}/actions/runs/${run.id}`;
  return {
    id: run.id,
    name: run.name,
    node_id: nodeId('WorkflowRun', run.id),
    head_branch: run.headBranch,
    head_sha: run.headSha,
    path: run.path,
    display_title: run.displayTitle,
    run_number: run.runNumber,
    run_attempt: 1,
    event: run.event,
    status: run.status,
    conclusion: run.conclusion,
    workflow_id: run.workflowId,
    check_suite_id: run.id,
    url: base,
    html_url: `${urls.html}/${repo.fullName}/actions/runs/${run.id}`,
    pull_requests: [],
    created_at: run.createdAt,
    updated_at: run.updatedAt,
    run_started_at: run.createdAt,
    actor: simpleUser(urls, run.actor),
    triggering_actor: simpleUser(urls, run.actor),
    jobs_url: `${base}/jobs`,
    logs_url: `${base}/logs`,
    check_suite_url: `${urls.api}/repos/${repo.fullName}/check-suites/${run.id}`,
    artifacts_url: `${base}/artifacts`,
    cancel_url: `${base}/cancel`,
    rerun_url: `${base}/rerun`,
    workflow_url: `${urls.api}/repos/${repo.fullName}/actions/workflows/${run.workflowId}`,
    head_commit: {
      id: run.headSha,
      tree_id: run.headSha,
      message: run.displayTitle,
      timestamp: run.createdAt,
      author: { name: run.actor.login, email: noreplyEmail(run.actor) },
      committer: { name: run.actor.login, email: noreplyEmail(run.actor) },
    },
    repository: minimalRepository(urls, repo),
    head_repository: minimalRepository(urls, repo),
  };
}

/**
 * GitHub's no-reply address for an account. GitHub writes a bot's with "[bot]" in it, which the
 * description's `format: email` refuses; the double leaves the brackets out.
 */
function noreplyEmail(user) {
  return `${user.id}+${user.login.replace(/\[bot\]$/, '')}@users.noreply.github.com`;
}

export function artifact(urls, repo, entry) {
  const base = `${urls.api}/repos/${repo.fullName}/actions/artifacts/${entry.id}`;
  return {
    id: entry.id,
    node_id: nodeId('Artifact', entry.id),
    name: entry.name,
    size_in_bytes: entry.size,
    url: base,
    archive_download_url: `${base}/zip`,
    expired: false,
    digest: entry.digest,
    created_at: entry.createdAt,
    updated_at: entry.createdAt,
    expires_at: entry.expiresAt,
    workflow_run: {
      id: entry.runId,
      repository_id: repo.id,
      head_repository_id: repo.id,
      head_branch: repo.defaultBranch,
      head_sha: entry.headSha,
    },
  };
}

export function basicError(message, status) {
  return { message, documentation_url: 'https://docs.github.com/rest', status: String(status) };
}
