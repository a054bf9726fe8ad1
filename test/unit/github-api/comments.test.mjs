import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGitHubDouble } from '../../support/github-api/index.mjs';
import { anonymousOctokit, assertNoProblems, doubleOptions, OWNER, plainOctokit, REPO, REPOSITORY } from './helpers.mjs';

describe('issue comments on the GitHub double', () => {
  let gh;
  let octokit;
  before(async () => {
    gh = await startGitHubDouble(doubleOptions({ tokens: { ghp_maintainerToken: 'maintainer' } }));
    octokit = plainOctokit(gh);
  });
  after(() => gh.close());

  it('pages through 250 comments with per_page, page and Link, and finds the last one', async () => {
    for (let i = 1; i <= 250; i += 1) {
      await octokit.rest.issues.createComment({ owner: OWNER, repo: REPO, issue_number: 7, body: `comment ${i}` });
    }
    const first = await octokit.rest.issues.listComments({ owner: OWNER, repo: REPO, issue_number: 7, per_page: 100 });
    assert.equal(first.data.length, 100);
    assert.match(first.headers.link, /[?&]page=2[^>]*>; rel="next"/);
    assert.match(first.headers.link, /[?&]page=3[^>]*>; rel="last"/);

    const all = await octokit.paginate(octokit.rest.issues.listComments, { owner: OWNER, repo: REPO, issue_number: 7, per_page: 100 });
    assert.equal(all.length, 250);
    assert.equal(all.at(-1).body, 'comment 250');
    assert.deepEqual(
      gh.callsTo('issues/list-comments').slice(1).map((call) => call.query.page ?? '1'),
      ['1', '2', '3'],
    );
    const last = gh.callsTo('issues/list-comments').at(-1);
    assert.equal(last.responseHeaders.link.includes('rel="next"'), false, 'the last page has no next link');
    assertNoProblems(assert, gh);
  });

  it('creates, reads, updates and deletes a comment', async () => {
    const { data: made } = await octokit.rest.issues.createComment({ owner: OWNER, repo: REPO, issue_number: 7, body: '<!-- perfgate:quick -->\nfirst' });
    assert.equal(made.body, '<!-- perfgate:quick -->\nfirst');
    const { data: read } = await octokit.rest.issues.getComment({ owner: OWNER, repo: REPO, comment_id: made.id });
    assert.equal(read.id, made.id);
    const { data: edited } = await octokit.rest.issues.updateComment({ owner: OWNER, repo: REPO, comment_id: made.id, body: '<!-- perfgate:quick -->\nsecond' });
    assert.equal(edited.body, '<!-- perfgate:quick -->\nsecond');
    assert.equal(gh.state.comments(REPOSITORY, 7).find((comment) => comment.id === made.id).body, '<!-- perfgate:quick -->\nsecond');
    const removed = await octokit.rest.issues.deleteComment({ owner: OWNER, repo: REPO, comment_id: made.id });
    assert.equal(removed.status, 204);
    await assert.rejects(octokit.rest.issues.getComment({ owner: OWNER, repo: REPO, comment_id: made.id }), { status: 404 });
    assertNoProblems(assert, gh);
  });

  it('records who made each comment: github-actions[bot] for GITHUB_TOKEN, the user for a personal token', async () => {
    const { data: byBot } = await octokit.rest.issues.createComment({ owner: OWNER, repo: REPO, issue_number: 7, body: 'from the workflow' });
    const { data: byPerson } = await plainOctokit(gh, 'ghp_maintainerToken').rest.issues.createComment({ owner: OWNER, repo: REPO, issue_number: 7, body: '/perf full' });
    assert.equal(byBot.user.login, 'github-actions[bot]');
    assert.equal(byBot.user.type, 'Bot');
    assert.equal(byPerson.user.login, 'maintainer');
    assert.equal(byPerson.user.type, 'User');
    const creates = gh.callsTo('issues/create-comment').slice(-2);
    assert.deepEqual(creates.map((call) => call.identity), [
      { kind: 'github-token', login: 'github-actions[bot]' },
      { kind: 'personal', login: 'maintainer' },
    ]);
    await assert.rejects(
      plainOctokit(gh, 'ghp_maintainerToken').rest.issues.updateComment({ owner: OWNER, repo: REPO, comment_id: byBot.id, body: 'edited' }),
      { status: 403 },
      'a person without write access may not edit the bot\'s comment',
    );
  });

  it('adds a reaction to a comment, once per user and content', async () => {
    const { data: comment } = await octokit.rest.issues.createComment({ owner: OWNER, repo: REPO, issue_number: 7, body: '/perf' });
    const first = await octokit.rest.reactions.createForIssueComment({ owner: OWNER, repo: REPO, comment_id: comment.id, content: 'eyes' });
    const again = await octokit.rest.reactions.createForIssueComment({ owner: OWNER, repo: REPO, comment_id: comment.id, content: 'eyes' });
    assert.equal(first.status, 201);
    assert.equal(again.status, 200);
    assert.equal(again.data.id, first.data.id);
    const { data: read } = await octokit.rest.issues.getComment({ owner: OWNER, repo: REPO, comment_id: comment.id });
    assert.equal(read.reactions.eyes, 1);
  });

  it('refuses a comment longer than GitHub allows (65,536 characters) with 422', async () => {
    await assert.rejects(
      octokit.rest.issues.createComment({ owner: OWNER, repo: REPO, issue_number: 7, body: 'x'.repeat(65537) }),
      (error) => error.status === 422 && /maximum is 65536/.test(error.message),
    );
    assert.equal(gh.state.comments(REPOSITORY, 7).some((comment) => comment.body.length > 65536), false);
  });

  it('refuses a comment from a caller with no token (401) and with an unknown token (401)', async () => {
    await assert.rejects(anonymousOctokit(gh).rest.issues.createComment({ owner: OWNER, repo: REPO, issue_number: 7, body: 'anonymous' }), {
      status: 401,
      message: /Requires authentication/,
    });
    await assert.rejects(plainOctokit(gh, 'ghp_unknown').rest.issues.createComment({ owner: OWNER, repo: REPO, issue_number: 7, body: 'stranger' }), {
      status: 401,
      message: /Bad credentials/,
    });
  });
});
