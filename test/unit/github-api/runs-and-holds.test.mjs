// What the bot needs of the double beyond the action: dispatched runs titled by the workflow's
// run-name, cancelling a run, and holding a call so that a test can act between a client's
// request and GitHub's answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGitHubDouble } from '../../support/github-api/index.mjs';
import { assertNoProblems, doubleOptions, OWNER, plainOctokit, REPO, REPOSITORY } from './helpers.mjs';

describe('workflow run names, cancelling runs, held calls', () => {
  let gh;
  let octokit;
  before(async () => {
    gh = await startGitHubDouble(
      doubleOptions({
        workflows: { [REPOSITORY]: ['plain.yml', { file: 'perf-command.yml', runName: 'perfgate ${{ inputs.suite }} #${{inputs.pr}} (${{ inputs.request-id }})' }] },
        dispatchStartsRun: true,
      }),
    );
    octokit = plainOctokit(gh);
  });
  after(() => gh.close());

  const dispatch = (workflow, inputs) =>
    octokit.rest.actions.createWorkflowDispatch({ owner: OWNER, repo: REPO, workflow_id: workflow, ref: 'main', inputs, return_run_details: true });

  it("titles a dispatched run with the workflow's run-name, its inputs filled in", async () => {
    const { data } = await dispatch('perf-command.yml', { suite: 'quick', pr: '7', 'request-id': '1234' });
    const { data: run } = await octokit.rest.actions.getWorkflowRun({ owner: OWNER, repo: REPO, run_id: data.workflow_run_id });
    assert.equal(run.display_title, 'perfgate quick #7 (1234)');
    const { data: plain } = await dispatch('plain.yml', { suite: 'quick' });
    const { data: plainRun } = await octokit.rest.actions.getWorkflowRun({ owner: OWNER, repo: REPO, run_id: plain.workflow_run_id });
    assert.equal(plainRun.display_title, 'plain.yml');
  });

  it('cancels a queued run (202) and refuses to cancel a completed one (409)', async () => {
    const { data } = await dispatch('perf-command.yml', { suite: 'full', pr: '7', 'request-id': '99' });
    const { status } = await octokit.rest.actions.cancelWorkflowRun({ owner: OWNER, repo: REPO, run_id: data.workflow_run_id });
    assert.equal(status, 202);
    const { data: run } = await octokit.rest.actions.getWorkflowRun({ owner: OWNER, repo: REPO, run_id: data.workflow_run_id });
    assert.deepEqual([run.status, run.conclusion], ['completed', 'cancelled']);
    await assert.rejects(octokit.rest.actions.cancelWorkflowRun({ owner: OWNER, repo: REPO, run_id: data.workflow_run_id }), { status: 409 });
    await assert.rejects(octokit.rest.actions.cancelWorkflowRun({ owner: OWNER, repo: REPO, run_id: 1 }), { status: 404 });
  });

  it('holds a call until it is released, with no effect before', async () => {
    const before = gh.state.comments(REPOSITORY, 7).length;
    const hold = gh.holdNext('issues/create-comment');
    let answered = false;
    const pending = octokit.rest.issues.createComment({ owner: OWNER, repo: REPO, issue_number: 7, body: 'held' }).then((r) => {
      answered = true;
      return r;
    });
    await hold.arrived;
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(answered, false, 'the held call was answered before its release');
    assert.equal(gh.state.comments(REPOSITORY, 7).length, before, 'the held call had an effect before its release');
    hold.release();
    const { status } = await pending;
    assert.equal(status, 201);
    assert.equal(gh.state.comments(REPOSITORY, 7).length, before + 1);
    // Only the next call was held.
    const { status: next } = await octokit.rest.issues.createComment({ owner: OWNER, repo: REPO, issue_number: 7, body: 'not held' });
    assert.equal(next, 201);
    assertNoProblems(assert, gh);
  });
});
