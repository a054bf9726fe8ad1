// The sticky comment and the retries, through the action's Octokit against the GitHub double
// (core's upsertStickyComment, which the bot uses too): every page of comments is searched,
// only our account's comment with the marker counts, an identical body is not rewritten, a
// duplicate from a race is removed, 5xx and secondary rate limits are retried, a body over
// GitHub's limit is cut to fit with a note.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { Octokit } from '@octokit/rest';
import { makeOctokit } from '../../../action/src/github.js';
import { secondaryRateLimit, startGitHubDouble } from '../../support/github-api/index.mjs';

const REPOSITORY = 'perfgate-test/fork';
const REPO = { owner: 'perfgate-test', repo: 'fork' };
const TOKEN = 'ghs_stickyCommentTestTokenForTheDouble01';
const PAT = 'ghp_someoneElsesPersonalAccessToken0001';
const MARKER = '<!-- perfgate:comment suite=quick -->';
const AUTHOR = 'github-actions[bot]';
let gh;
let octokit;
let other;

before(async () => {
  gh = await startGitHubDouble({
    repositories: [REPOSITORY],
    githubToken: TOKEN,
    tokens: { [PAT]: 'someone' },
    pullRequests: [1, 2, 3, 4, 5].map((number) => ({ repository: REPOSITORY, number, head: { ref: `b${number}`, sha: 'a'.repeat(40) }, base: { ref: 'main', sha: 'b'.repeat(40) } })),
  });
  octokit = makeOctokit({ token: TOKEN, apiUrl: gh.url });
  // A person's client, without throttling: the filler comments need not wait between posts.
  other = new Octokit({ auth: PAT, baseUrl: gh.url });
});
after(() => gh?.close());

const require = createRequire(import.meta.url);
const { upsertStickyComment: upsert } = require('@perfgate/core');
const upsertStickyComment = (client, repo, number, fields) => upsert(client, { ...repo, number }, fields);
const bodies = (number) => gh.state.comments(REPOSITORY, number).map((comment) => comment.body);

describe('upsertStickyComment', () => {
  it('creates the comment once, then edits it; an identical body is left alone', async () => {
    const made = await upsertStickyComment(octokit, REPO, 1, { marker: MARKER, author: AUTHOR, body: `${MARKER}\nfirst` });
    assert.equal(made.action, 'created');
    assert.equal(made.url, `https://github.com/${REPOSITORY}/pull/1#issuecomment-${made.id}`);
    const edited = await upsertStickyComment(octokit, REPO, 1, { marker: MARKER, author: AUTHOR, body: `${MARKER}\nsecond` });
    assert.deepEqual([edited.action, edited.id], ['updated', made.id]);
    const calls = gh.calls.length;
    const same = await upsertStickyComment(octokit, REPO, 1, { marker: MARKER, author: AUTHOR, body: `${MARKER}\nsecond` });
    assert.deepEqual([same.action, same.id], ['unchanged', made.id]);
    assert.deepEqual(gh.calls.slice(calls).map((call) => call.operationId), ['issues/list-comments']);
    assert.deepEqual(bodies(1), [`${MARKER}\nsecond`]);
  });

  it('finds its comment past the first page, and ignores the marker in someone else\'s comment', async () => {
    await other.rest.issues.createComment({ ...REPO, issue_number: 2, body: `${MARKER}\nquoted by a person` });
    const mine = await upsertStickyComment(octokit, REPO, 2, { marker: MARKER, author: AUTHOR, body: `${MARKER}\nv1` });
    for (let i = 0; i < 120; i += 1) await other.rest.issues.createComment({ ...REPO, issue_number: 2, body: `discussion ${i}` });
    const again = await upsertStickyComment(octokit, REPO, 2, { marker: MARKER, author: AUTHOR, body: `${MARKER}\nv2` });
    assert.deepEqual([again.action, again.id], ['updated', mine.id]);
    assert.equal(bodies(2)[0], `${MARKER}\nquoted by a person`);
    assert.ok(gh.callsTo('issues/list-comments').some((call) => call.query.page === '2'), 'read the second page');
  });

  it('removes a duplicate two runs made at the same moment, keeping the oldest', async () => {
    const first = await octokit.rest.issues.createComment({ ...REPO, issue_number: 3, body: `${MARKER}\nrace A` });
    await octokit.rest.issues.createComment({ ...REPO, issue_number: 3, body: `${MARKER}\nrace B` });
    const kept = await upsertStickyComment(octokit, REPO, 3, { marker: MARKER, author: AUTHOR, body: `${MARKER}\nafter the race` });
    assert.deepEqual([kept.action, kept.id], ['updated', first.data.id]);
    assert.deepEqual(bodies(3), [`${MARKER}\nafter the race`]);
  });

  it('retries a 502 and waits out a secondary rate limit: one comment in the end', async () => {
    gh.failNext('issues/create-comment', { status: 502 });
    gh.failNext('issues/list-comments', secondaryRateLimit({ retryAfterSeconds: 1 }));
    const started = Date.now();
    // What the action prints meanwhile: a retried attempt is a log line, never an ::error::
    // annotation (the runner would show it as the job's failure).
    const printed = [];
    const write = process.stdout.write;
    process.stdout.write = (chunk, ...rest) => { printed.push(String(chunk)); return write.call(process.stdout, chunk, ...rest); };
    try {
      await upsertStickyComment(octokit, REPO, 4, { marker: MARKER, author: AUTHOR, body: `${MARKER}\nafter faults` });
    } finally {
      process.stdout.write = write;
    }
    assert.deepEqual(printed.filter((line) => line.startsWith('::error')), []);
    assert.ok(printed.some((line) => line.startsWith('GitHub request failed: GET /repos/')), printed.join(''));
    assert.ok(Date.now() - started >= 1000, 'waited for retry-after');
    assert.deepEqual(bodies(4), [`${MARKER}\nafter faults`]);
    const statuses = gh.calls.filter((call) => call.path.includes('/issues/4/')).map((call) => `${call.operationId} ${call.status}`);
    assert.deepEqual(statuses.slice(0, 4), ['issues/list-comments 403', 'issues/list-comments 200', 'issues/create-comment 502', 'issues/create-comment 201']);
    assert.deepEqual(gh.problems(), []);
  });

  it('cuts a body longer than GitHub takes (65,536 characters) and says so, instead of failing', async () => {
    const body = `${MARKER}\n${'x'.repeat(70_000)}`;
    const made = await upsertStickyComment(octokit, REPO, 5, { marker: MARKER, author: AUTHOR, body, note: 'the artifact holds all of it' });
    assert.equal(made.action, 'created');
    const [kept] = bodies(5);
    assert.equal(kept.length, 65536);
    assert.ok(kept.startsWith(`${MARKER}\nxxx`));
    assert.ok(kept.endsWith('\n\n_the artifact holds all of it_\n'));
    // The same long body again is the same cut body: nothing is rewritten.
    const again = await upsertStickyComment(octokit, REPO, 5, { marker: MARKER, author: AUTHOR, body, note: 'the artifact holds all of it' });
    assert.equal(again.action, 'unchanged');
  });

  it('refuses a body without its marker', async () => {
    await assert.rejects(upsertStickyComment(octokit, REPO, 1, { marker: MARKER, author: AUTHOR, body: 'no marker' }), { message: 'internal: a sticky comment body must start with its marker' });
  });
});
