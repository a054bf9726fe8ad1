// Every write that makes something on GitHub is carried out once, whatever happens to its
// answer: a proxy between the bot and the GitHub double forwards the write, then answers 502,
// resets the connection or never answers. One workflow run, one reply, one check run, one
// sticky comment, one issue, one issue comment, for each. Reads are still retried by Octokit.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRequire } from 'node:module';
import {
  APP_ID, INSTALLATION_ID, REPOSITORY, appKeys, bot, botComments, botInProcess, command, settled, startDouble,
} from '../../support/bot.mjs';
import { startChaosProxy } from '../../support/github-api/chaos-proxy.mjs';

const require = createRequire(import.meta.url);
const core = require('@perfgate/core');
const { createGitHub, WRITE_ONCE_ROUTES } = require('../../../bot/src/app/github');
const { githubTracker } = require('../../../bot/src/app/tracker');

const FAULTS = ['502-after', 'reset-after', 'hang-after'];
const quiet = { info() {}, warn() {}, error() {} };
const REPO_PATH = `/repos/${REPOSITORY}`;

describe('exactly once through a proxy that loses answers', () => {
  // A hung call is abandoned after 3 s; the one place that writes again looks first.
  const fx = botInProcess({
    prs: Array.from({ length: 30 }, (_, i) => 600 + i), env: { PERFGATE_GITHUB_TIMEOUT_SECONDS: '3' }, front: (gh) => startChaosProxy(gh.url),
  });
  let nextPr = 600;

  const requestIdOf = (comment) => `c${comment.id}`;
  const runsOf = (comment) => fx.gh.state.dispatches.filter((d) => d.inputs['request-id'] === requestIdOf(comment));
  const checkRunsOf = (comment) => fx.gh.state.checkRuns(REPOSITORY).filter((c) => c.externalId === requestIdOf(comment));

  it('Octokit retries none of the writes that make something new', () => {
    assert.deepEqual(WRITE_ONCE_ROUTES, [
      'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
      'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
      'POST /repos/{owner}/{repo}/check-runs',
      'POST /repos/{owner}/{repo}/issues',
    ]);
  });

  for (const fault of FAULTS) {
    it(`the dispatch carried out, then ${fault.replace('-after', '')}: one workflow run`, async () => {
      const pr = nextPr++;
      fx.front.failNext({ method: 'POST', path: /\/actions\/workflows\/perf-command\.yml\/dispatches$/, fault });
      const { comment } = await command(fx.gh, fx.running, 'maintainer', '/perf quick', { pr });
      await settled(fx.running, 60_000);
      assert.equal(runsOf(comment).length, 1);
      const request = await bot.requestForComment(fx.running.store, comment.id);
      assert.deepEqual([request.status, request.runId], ['dispatched', runsOf(comment)[0].runId]);
      assert.equal(checkRunsOf(comment).length, 1);
      assert.equal(botComments(fx.gh, pr).length, 1);
    });

    it(`the check run made, then ${fault.replace('-after', '')}: one check run`, async () => {
      const pr = nextPr++;
      fx.front.failNext({ method: 'POST', path: /\/check-runs$/, fault });
      const { comment } = await command(fx.gh, fx.running, 'maintainer', '/perf quick', { pr });
      await settled(fx.running, 60_000);
      assert.deepEqual([runsOf(comment).length, checkRunsOf(comment).length], [1, 1]);
      assert.equal((await bot.requestForComment(fx.running.store, comment.id)).checkRunId, checkRunsOf(comment)[0].id);
    });

    it(`the sticky comment made, then ${fault.replace('-after', '')}: one sticky comment`, async () => {
      const pr = nextPr++;
      fx.front.failNext({ method: 'POST', path: new RegExp(`/issues/${pr}/comments$`), fault });
      await command(fx.gh, fx.running, 'maintainer', '/perf quick', { pr });
      await settled(fx.running, 60_000);
      const stickies = botComments(fx.gh, pr).filter((c) => c.body.startsWith(core.commentMarker('quick')));
      assert.equal(stickies.length, 1);
      assert.equal(botComments(fx.gh, pr).length, 1);
    });

    it(`the reply made, then ${fault.replace('-after', '')}: one reply`, async () => {
      const pr = nextPr++;
      fx.front.failNext({ method: 'POST', path: new RegExp(`/issues/${pr}/comments$`), fault });
      const { comment } = await command(fx.gh, fx.running, 'reader', '/perf help', { pr });
      await settled(fx.running, 60_000);
      const replies = botComments(fx.gh, pr).filter((c) => c.body.startsWith(`<!-- perfgate:reply comment=${comment.id} -->`));
      assert.equal(replies.length, 1);
      assert.equal((await bot.requestForComment(fx.running.store, comment.id)).replyId, replies[0].id);
    });
  }

  it('a read that fails is retried by Octokit within the job', async () => {
    const pr = nextPr++;
    fx.front.failNext({ method: 'GET', path: new RegExp(`/pulls/${pr}$`), fault: '502-before', times: 2 });
    const { comment } = await command(fx.gh, fx.running, 'maintainer', '/perf quick', { pr });
    await settled(fx.running, 60_000);
    assert.equal(fx.front.calls('GET', new RegExp(`^${REPO_PATH}/pulls/${pr}$`)).length, 3);
    const job = await fx.running.store.db.selectFrom('jobs').select(['attempts', 'status']).where('unique_key', '=', `command:${comment.id}`).executeTakeFirst();
    assert.deepEqual([Number(job.attempts), job.status, runsOf(comment).length], [1, 'done', 1]);
  });

  it("sent nothing that breaks GitHub's description", () => {
    assert.deepEqual(fx.gh.problems().map((c) => `${c.operationId} ${c.status}: ${c.problems.join('; ')}`), []);
  });
});

describe('an issue and its comments filed once through a proxy that loses answers', () => {
  let gh;
  let proxy;
  let tracker;
  before(async () => {
    gh = await startDouble();
    proxy = await startChaosProxy(gh.url);
    const octokit = createGitHub({ appId: APP_ID, privateKey: appKeys().privateKey, apiUrl: proxy.url, pacing: 'none', retryBaseMs: 20, timeoutMs: 3000 }, quiet).installation(INSTALLATION_ID);
    tracker = githubTracker({ octokit, repo: REPOSITORY });
  });
  after(async () => {
    await proxy?.close();
    await gh?.close();
  });
  const issues = () => gh.state.issues(REPOSITORY).filter((i) => !i.pull);

  for (const fault of FAULTS) {
    it(`filed, then ${fault.replace('-after', '')}: one issue; commented on, then ${fault.replace('-after', '')}: one comment`, async () => {
      const dedupeKey = `perfgate-test/fork:point-query:instructions:${fault}`;
      const before = issues().length;
      proxy.failNext({ method: 'POST', path: /\/issues$/, fault });
      const filed = await tracker.file({ title: `point-query slower (${fault})`, body: `${core.regressionMarker(dedupeKey)}\nslower`, dedupeKey });
      assert.equal(issues().length, before + 1);
      assert.equal(filed.key, String(issues().at(-1).number));
      proxy.failNext({ method: 'POST', path: new RegExp(`/issues/${filed.key}/comments$`), fault });
      await tracker.comment(filed.key, 'Seen again.');
      assert.deepEqual(gh.state.comments(REPOSITORY, Number(filed.key)).map((c) => c.body.split('\n').slice(1).join('\n')), ['Seen again.']);
    });
  }
});
