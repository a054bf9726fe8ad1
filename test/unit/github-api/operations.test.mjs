import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGitHubDouble } from '../../support/github-api/index.mjs';
import { BASE_SHA, doubleOptions, HEAD_SHA, OWNER, plainOctokit, REPO, REPOSITORY } from './helpers.mjs';

describe('the rest of what the action and the bot use', () => {
  let gh;
  let octokit;
  before(async () => {
    gh = await startGitHubDouble(
      doubleOptions({
        users: ['maintainer', 'outsider'],
        permissions: { [REPOSITORY]: { maintainer: 'maintain', contributor: 'read' } },
        teams: { 'perfgate-test/perf-team': { maintainer: 'member' } },
        workflows: { [REPOSITORY]: ['perf.yml'] },
      }),
    );
    octokit = plainOctokit(gh);
  });
  after(() => gh.close());

  it('gets the repository and the pull request', async () => {
    const { data: repo } = await octokit.rest.repos.get({ owner: OWNER, repo: REPO });
    assert.equal(repo.full_name, REPOSITORY);
    assert.equal(repo.default_branch, 'main');
    const { data: pull } = await octokit.rest.pulls.get({ owner: OWNER, repo: REPO, pull_number: 7 });
    assert.deepEqual([pull.head.sha, pull.base.sha, pull.user.login, pull.state], [HEAD_SHA, BASE_SHA, 'contributor', 'open']);
    await assert.rejects(octokit.rest.pulls.get({ owner: OWNER, repo: REPO, pull_number: 8 }), { status: 404 });
    await assert.rejects(octokit.rest.repos.get({ owner: OWNER, repo: 'missing' }), { status: 404 });
  });

  it('creates, updates, gets and lists check runs for a ref', async () => {
    const { data: made } = await octokit.rest.checks.create({ owner: OWNER, repo: REPO, name: 'perfgate / quick', head_sha: HEAD_SHA, status: 'in_progress', output: { title: 'measuring', summary: 'round 1 of 6' } });
    assert.equal(made.app.slug, 'github-actions');
    assert.deepEqual(made.pull_requests.map((pull) => pull.number), [7]);
    const { data: done } = await octokit.rest.checks.update({ owner: OWNER, repo: REPO, check_run_id: made.id, conclusion: 'failure', output: { title: 'update-index_range=100 0.90', summary: 'one fail' } });
    assert.equal(done.status, 'completed');
    assert.equal(done.conclusion, 'failure');
    assert.ok(done.completed_at);
    const { data: read } = await octokit.rest.checks.get({ owner: OWNER, repo: REPO, check_run_id: made.id });
    assert.equal(read.output.title, 'update-index_range=100 0.90');
    await octokit.rest.checks.create({ owner: OWNER, repo: REPO, name: 'perfgate / ahi', head_sha: HEAD_SHA });
    const { data: listed } = await octokit.rest.checks.listForRef({ owner: OWNER, repo: REPO, ref: HEAD_SHA, check_name: 'perfgate / quick' });
    assert.deepEqual(listed.check_runs.map((run) => run.id), [made.id]);
    await assert.rejects(
      octokit.rest.checks.update({ owner: OWNER, repo: REPO, check_run_id: made.id, output: { title: 't', summary: 'x'.repeat(65536) } }),
      (error) => error.status === 422 && /properties\/output\.summary/.test(error.message),
    );
  });

  it('creates and lists commit statuses', async () => {
    await octokit.rest.repos.createCommitStatus({ owner: OWNER, repo: REPO, sha: HEAD_SHA, state: 'pending', context: 'perfgate' });
    await octokit.rest.repos.createCommitStatus({ owner: OWNER, repo: REPO, sha: HEAD_SHA, state: 'success', context: 'perfgate', description: 'no regression' });
    const { data } = await octokit.rest.repos.listCommitStatusesForRef({ owner: OWNER, repo: REPO, ref: HEAD_SHA });
    assert.deepEqual(data.map((status) => status.state), ['success', 'pending']);
    assert.equal(data[0].creator.login, 'github-actions[bot]');
  });

  it('creates, updates, gets and lists issues with label and state filters', async () => {
    const { data: regression } = await octokit.rest.issues.create({ owner: OWNER, repo: REPO, title: 'update-index regressed 10%', labels: ['perf-regression'] });
    const { data: other } = await octokit.rest.issues.create({ owner: OWNER, repo: REPO, title: 'unrelated', labels: ['docs'] });
    assert.equal(regression.user.login, 'github-actions[bot]');
    const labelled = await octokit.rest.issues.listForRepo({ owner: OWNER, repo: REPO, labels: 'perf-regression' });
    assert.deepEqual(labelled.data.map((issue) => issue.number), [regression.number]);
    await octokit.rest.issues.update({ owner: OWNER, repo: REPO, issue_number: other.number, state: 'closed' });
    const open = await octokit.rest.issues.listForRepo({ owner: OWNER, repo: REPO, state: 'open' });
    assert.deepEqual(open.data.map((issue) => issue.number).sort(), [7, regression.number].sort());
    const closed = await octokit.rest.issues.listForRepo({ owner: OWNER, repo: REPO, state: 'closed' });
    assert.deepEqual(closed.data.map((issue) => [issue.number, issue.state_reason]), [[other.number, 'completed']]);
    const { data: pullAsIssue } = await octokit.rest.issues.get({ owner: OWNER, repo: REPO, issue_number: 7 });
    assert.ok(pullAsIssue.pull_request, 'a pull request is also an issue');
  });

  it('answers the collaborator permission configured per user', async () => {
    const level = async (username) => (await octokit.rest.repos.getCollaboratorPermissionLevel({ owner: OWNER, repo: REPO, username })).data;
    assert.deepEqual([(await level('maintainer')).permission, (await level('maintainer')).role_name], ['write', 'maintain']);
    assert.equal((await level('contributor')).permission, 'read');
    assert.equal((await level('outsider')).permission, 'read', 'anyone may read a public repository');
    await assert.rejects(level('nobody-at-all'), { status: 404 });
  });

  it('answers team membership', async () => {
    const { data } = await octokit.rest.teams.getMembershipForUserInOrg({ org: OWNER, team_slug: 'perf-team', username: 'maintainer' });
    assert.deepEqual([data.role, data.state], ['member', 'active']);
    await assert.rejects(octokit.rest.teams.getMembershipForUserInOrg({ org: OWNER, team_slug: 'perf-team', username: 'outsider' }), { status: 404 });
  });

  it('records a workflow dispatch with its inputs, and refuses more than 25 inputs or an unknown workflow', async () => {
    const inputs = { suite: 'full', base: BASE_SHA, head: HEAD_SHA, confirm: 'true' };
    const { status } = await octokit.rest.actions.createWorkflowDispatch({ owner: OWNER, repo: REPO, workflow_id: 'perf.yml', ref: 'main', inputs });
    assert.equal(status, 204);
    assert.deepEqual(gh.state.dispatches.at(-1), { repository: REPOSITORY, workflow: 'perf.yml', workflowId: gh.state.dispatches.at(-1).workflowId, ref: 'main', inputs, actor: 'github-actions[bot]' });
    const tooMany = Object.fromEntries(Array.from({ length: 26 }, (_, i) => [`input${i}`, 'x']));
    await assert.rejects(octokit.rest.actions.createWorkflowDispatch({ owner: OWNER, repo: REPO, workflow_id: 'perf.yml', ref: 'main', inputs: tooMany }), { status: 422 });
    await assert.rejects(octokit.rest.actions.createWorkflowDispatch({ owner: OWNER, repo: REPO, workflow_id: 'nope.yml', ref: 'main' }), { status: 404 });
  });

  it('gets and lists workflow runs, including one a dispatch started', async () => {
    gh.state.dispatchStartsRun = true;
    const { status, data } = await octokit.rest.actions.createWorkflowDispatch({ owner: OWNER, repo: REPO, workflow_id: 'perf.yml', ref: 'main', inputs: { suite: 'quick' }, return_run_details: true });
    assert.equal(status, 200);
    const { data: run } = await octokit.rest.actions.getWorkflowRun({ owner: OWNER, repo: REPO, run_id: data.workflow_run_id });
    assert.deepEqual([run.event, run.status, run.path], ['workflow_dispatch', 'queued', '.github/workflows/perf.yml']);
    gh.state.updateWorkflowRun(REPOSITORY, run.id, { status: 'completed', conclusion: 'success' });
    const { data: listed } = await octokit.rest.actions.listWorkflowRunsForRepo({ owner: OWNER, repo: REPO, status: 'success' });
    assert.deepEqual(listed.workflow_runs.map((entry) => entry.id), [run.id]);
  });

  it('answers GET /rate_limit and sends rate-limit headers on every answer', async () => {
    const { data, headers } = await octokit.rest.rateLimit.get();
    assert.equal(data.rate.limit, 5000);
    assert.equal(headers['x-ratelimit-limit'], '5000');
    assert.equal(Number(headers['x-ratelimit-remaining']), data.rate.remaining);
    // The only calls that broke the description are the two this suite sent on purpose.
    assert.deepEqual(gh.problems().map((call) => [call.operationId, call.outcome]), [
      ['checks/update', 'invalid-request'],
      ['actions/create-workflow-dispatch', 'invalid-request'],
    ]);
  });
});
