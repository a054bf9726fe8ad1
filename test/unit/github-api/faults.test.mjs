import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { secondaryRateLimit, startGitHubDouble } from '../../support/github-api/index.mjs';
import { assertNoProblems, doubleOptions, OWNER, plainOctokit, REPO, REPOSITORY, resilientOctokit } from './helpers.mjs';

describe('fault injection, and Octokit\'s retry and throttling plugins recovering from it', () => {
  let gh;
  before(async () => {
    gh = await startGitHubDouble(doubleOptions());
  });
  after(() => gh.close());

  it('502 then 201: the retry plugin makes exactly one comment', async () => {
    gh.failNext('issues/create-comment', { status: 502 });
    const { status, data } = await resilientOctokit(gh).rest.issues.createComment({ owner: OWNER, repo: REPO, issue_number: 7, body: 'after a bad gateway' });
    assert.equal(status, 201);
    const creates = gh.callsTo('issues/create-comment');
    assert.deepEqual(creates.map((call) => [call.status, call.outcome]), [[502, 'fault'], [201, 'ok']]);
    assert.deepEqual(gh.state.comments(REPOSITORY, 7).map((comment) => comment.id), [data.id]);
  });

  it('403 secondary rate limit: the throttling plugin waits retry-after and succeeds', async () => {
    gh.failNext('issues/update-comment', secondaryRateLimit({ retryAfterSeconds: 1 }));
    const octokit = plainOctokit(gh);
    const { data: comment } = await octokit.rest.issues.createComment({ owner: OWNER, repo: REPO, issue_number: 7, body: 'v1' });
    const waits = [];
    const started = Date.now();
    const { data } = await resilientOctokit(gh, { waits }).rest.issues.updateComment({ owner: OWNER, repo: REPO, comment_id: comment.id, body: 'v2' });
    const elapsed = Date.now() - started;
    assert.equal(data.body, 'v2');
    assert.deepEqual(waits, [{ kind: 'secondary', retryAfter: 1, retryCount: 0 }]);
    assert.ok(elapsed >= 900, `the client waited only ${elapsed} ms of the 1 s retry-after`);
    const updates = gh.callsTo('issues/update-comment');
    assert.deepEqual(updates.map((call) => call.status), [403, 200]);
    assert.equal(updates[0].responseHeaders['retry-after'], '1');
  });

  it('a plain client sees the fault as GitHub would send it, and later calls go through', async () => {
    gh.failNext('repos/get', { status: 503, times: 2, headers: { 'x-github-request-id': 'F00D:1' } });
    const octokit = plainOctokit(gh);
    await assert.rejects(octokit.rest.repos.get({ owner: OWNER, repo: REPO }), { status: 503 });
    await assert.rejects(octokit.rest.repos.get({ owner: OWNER, repo: REPO }), (error) => error.response.headers['x-github-request-id'] === 'F00D:1');
    const { status } = await octokit.rest.repos.get({ owner: OWNER, repo: REPO });
    assert.equal(status, 200);
  });

  it('refuses a fault that is not an error status', () => {
    assert.throws(() => gh.failNext('repos/get', { status: 200 }), /status 200 is not valid; expected an HTTP error status/);
    assertNoProblems(assert, gh);
  });
});
