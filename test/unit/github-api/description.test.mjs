import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGitHubDouble } from '../../support/github-api/index.mjs';
import { doubleOptions, GITHUB_TOKEN, HEAD_SHA, OWNER, plainOctokit, REPO, REPOSITORY } from './helpers.mjs';

describe('the double holds both sides to GitHub\'s OpenAPI description', () => {
  let gh;
  let octokit;
  before(async () => {
    gh = await startGitHubDouble(doubleOptions());
    octokit = plainOctokit(gh);
  });
  after(() => gh.close());

  it('refuses a request body that breaks the description with 422 naming the field, and records it as invalid', async () => {
    await assert.rejects(
      octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { owner: OWNER, repo: REPO, issue_number: 7, body: 42 }),
      (error) => error.status === 422 && /For 'properties\/body', 42 must be string/.test(error.message),
    );
    await assert.rejects(
      octokit.request('POST /repos/{owner}/{repo}/statuses/{sha}', { owner: OWNER, repo: REPO, sha: HEAD_SHA, state: 'green' }),
      (error) => error.status === 422 && /properties\/state/.test(error.message) && /"success"/.test(error.message),
    );
    await assert.rejects(
      octokit.request('POST /repos/{owner}/{repo}/check-runs', { owner: OWNER, repo: REPO, head_sha: HEAD_SHA }),
      (error) => error.status === 422 && /"name" wasn't supplied/.test(error.message),
    );
    const invalid = gh.invalidCalls();
    assert.deepEqual(invalid.map((call) => [call.operationId, call.status, call.outcome]), [
      ['issues/create-comment', 422, 'invalid-request'],
      ['repos/create-commit-status', 422, 'invalid-request'],
      ['checks/create', 422, 'invalid-request'],
    ]);
    assert.match(invalid[0].problems.join(), /\/requestBody\/body must be string/);
    assert.deepEqual(invalid[0].requestBody, { body: 42 });
    assert.equal(gh.state.comments(REPOSITORY, 7).length, 0, 'an invalid request changes nothing');
  });

  it('refuses a body that is not JSON with 400', async () => {
    const response = await fetch(`${gh.url}/repos/${REPOSITORY}/issues/7/comments`, {
      method: 'POST',
      headers: { authorization: `token ${GITHUB_TOKEN}`, 'content-type': 'application/json' },
      body: '{"body": ',
    });
    assert.equal(response.status, 400);
    assert.equal((await response.json()).message, 'Problems parsing JSON');
    assert.equal(gh.calls.at(-1).outcome, 'invalid-request');
  });

  it('answers 501 for an operation in the description that the double does not implement, and records it', async () => {
    await assert.rejects(octokit.rest.repos.listContributors({ owner: OWNER, repo: REPO }), (error) => error.status === 501 && /repos\/list-contributors/.test(error.message));
    assert.deepEqual(gh.unimplementedCalls().map((call) => [call.operationId, call.identity.login]), [['repos/list-contributors', 'github-actions[bot]']]);
  });

  it('answers 404 for a path that is not in the description, and records it', async () => {
    await assert.rejects(octokit.request('GET /repos/{owner}/{repo}/no-such-thing', { owner: OWNER, repo: REPO }), { status: 404 });
    const call = gh.calls.at(-1);
    assert.equal(call.outcome, 'not-found');
    assert.equal(call.operationId, null);
  });

  it('answers 500 and records a defect when its own answer breaks the description', async () => {
    const { data: run } = await octokit.rest.checks.create({ owner: OWNER, repo: REPO, name: 'perfgate', head_sha: HEAD_SHA, status: 'in_progress' });
    // A state no GitHub check run can be in: the double's answer must not pass as GitHub's.
    gh.state.repo(OWNER, REPO).checkRuns.get(run.id).status = 'exploded';
    await assert.rejects(octokit.rest.checks.get({ owner: OWNER, repo: REPO, check_run_id: run.id }), (error) => error.status === 500 && /breaks GitHub's description/.test(error.message));
    const call = gh.calls.at(-1);
    assert.equal(call.outcome, 'invalid-response');
    assert.match(call.problems.join(), /\/status must be equal to one of the allowed values/);
    assert.equal(call.invalidResponse.body.status, 'exploded');
  });

  it('lists every problem call in problems()', () => {
    assert.deepEqual(
      [...new Set(gh.problems().map((call) => call.outcome))].sort(),
      ['invalid-request', 'invalid-response', 'not-found', 'not-implemented'],
    );
  });
});

describe('start-up', () => {
  it('loads the description, cut to the implemented operations, in a few hundred milliseconds', async () => {
    const gh = await startGitHubDouble(doubleOptions());
    try {
      const { parseMs, cutMs, initMs } = gh.descriptionTimings;
      // Measured here: about 200-300 ms to parse the 13 MB file, 10-30 ms to cut, 7-20 ms to
      // build the backend. Building every validator up front took 8 s and the whole
      // description 31 s: this bound catches a return to either.
      assert.ok(parseMs + cutMs + initMs < 4000, `description load took ${Math.round(parseMs + cutMs + initMs)} ms`);
      const again = await startGitHubDouble(doubleOptions());
      await again.close();
      assert.ok(again.startupMs < 500, `a second double in the same process took ${Math.round(again.startupMs)} ms`);
      assert.match(gh.descriptionVersion, /^\d+\.\d+\.\d+$/);
    } finally {
      await gh.close();
    }
  });
});

describe('options', () => {
  it('refuses bad options with one line naming the option, the value and what is expected', async () => {
    await assert.rejects(startGitHubDouble({ repositories: ['not a repository'] }), {
      message: 'GitHub double option repositories[].fullName: "not a repository" is not valid; expected "owner/name"',
    });
    await assert.rejects(startGitHubDouble({ repositories: [REPOSITORY], permissions: { [REPOSITORY]: { alice: 'owner' } } }), {
      message: `GitHub double option permissions["${REPOSITORY}"]["alice"]: "owner" is not valid; expected admin | maintain | write | triage | read | none`,
    });
    await assert.rejects(startGitHubDouble({ repositories: [REPOSITORY], app: { id: 1, slug: 'perfgate', publicKey: 'not a key' } }), {
      message: /^GitHub double option app\.publicKey: "not a key" is not valid; expected a PEM public key/,
    });
    await assert.rejects(startGitHubDouble({ pullRequests: [{ repository: 'perfgate-test/elsewhere', head: { ref: 'a', sha: HEAD_SHA }, base: { ref: 'b', sha: HEAD_SHA } }] }), {
      message: 'GitHub double option pullRequests[].repository: "perfgate-test/elsewhere" is not valid; expected one of the double\'s repositories (none)',
    });
  });
});
