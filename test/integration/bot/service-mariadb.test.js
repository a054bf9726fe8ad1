'use strict';
// The GitHub App on a real MariaDB server (test/support/mariadb-server.js) instead of SQLite:
// duplicated deliveries at once, a command, its run's artifact, and a restart on the same
// database. The GitHub side is the double, as in test/unit/bot/.
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startMariadb } = require('../../support/mariadb-server');

describe('perfgate bot on MariaDB', () => {
  let t;
  let server;
  let gh;
  let running;
  let artifactsDir;
  before(async () => {
    t = await import('../../support/bot.mjs');
    server = await startMariadb();
    artifactsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-bot-mariadb-artifacts-'));
    gh = await t.startDouble({ artifactsDir, prs: [7, 8, 9] });
    running = await t.startBotOn(gh, { databaseUrl: server.url, workers: 4 });
    await t.openPulls(running, [7, 8, 9]);
  });
  after(async () => {
    if (running) await running.close();
    if (gh) await gh.close();
    if (server) await server.stop();
    if (artifactsDir) fs.rmSync(artifactsDir, { recursive: true, force: true });
  });

  test('the store is MariaDB', () => {
    assert.match(running.store.where, /^mysql:\/\/root@127\.0\.0\.1:\d+\/perfgate$/);
    assert.equal(running.store.dialect, 'mysql');
  });

  test('the same delivery 20 times at once, and the same comment in 20 deliveries at once: one dispatch each', async () => {
    const comment = await t.postComment(gh, 'maintainer', '/perf quick', { pr: 7 });
    const payload = t.commentEvent({ comment, pr: 7 });
    const deliveryId = 'f00dcafe-0000-4000-8000-000000000001';
    const same = await Promise.all(Array.from({ length: 20 }, () => running.deliver('issue_comment', payload, { deliveryId })));
    assert.deepEqual(same.map((a) => a.status).sort(), [...Array(19).fill(200), 202]);
    const other = await t.postComment(gh, 'admin', '/perf full', { pr: 8 });
    const redelivered = await Promise.all(Array.from({ length: 20 }, () => running.deliver('issue_comment', t.commentEvent({ comment: other, pr: 8 }))));
    assert.deepEqual(redelivered.map((a) => a.status).sort(), [...Array(19).fill(200), 202]);
    await t.settled(running, 30_000);
    for (const id of [comment.id, other.id]) {
      assert.equal(gh.state.dispatches.filter((d) => d.inputs['request-id'] === `c${id}`).length, 1);
    }
    const count = async (table, where = (q) => q) => Number((await where(running.store.db.selectFrom(table)).select((eb) => eb.fn.countAll().as('n')).executeTakeFirst()).n);
    // The three pull requests' openings, the one delivery of the first comment, twenty of the second;
    // the reconciliation sweeps the bot queues on its own clock are not the commands' jobs.
    const commandJobs = (q) => q.where('kind', '!=', 'sweep');
    assert.deepEqual([await count('deliveries'), await count('requests'), await count('jobs', commandJobs)], [3 + 1 + 20, 2, 2]);
  });

  test('a command, its run folder stored, and a rejected artifact that stores nothing', async () => {
    const { comment } = await t.command(gh, running, 'maintainer', '/perf quick rounds=4', { pr: 9 });
    await t.settled(running, 30_000);
    const request = await t.bot.requestForComment(running.store, comment.id);
    const run = await (await fetch(`${gh.url}/repos/${t.REPOSITORY}/actions/runs/${request.runId}`)).json();
    t.writeArtifact(artifactsDir, run.id, 'perfgate-quick', t.runFolderFiles({ pr: 9, edit: (f) => { f['action-run.json'].options = { rounds: '4' }; } }));
    gh.state.updateWorkflowRun(t.REPOSITORY, run.id, { status: 'completed', conclusion: 'success' });
    await running.deliver('workflow_run', t.workflowRunEvent({ run }));
    await t.settled(running, 30_000);
    const stored = await running.store.db.selectFrom('runs').select(['id', 'request_id']).execute();
    assert.deepEqual(stored.map((r) => Number(r.request_id)), [request.id]);
    const rounds = await running.store.db.selectFrom('rounds').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
    assert.ok(Number(rounds.n) > 0);
    assert.equal((await t.bot.getRequest(running.store, request.id)).status, 'completed');
    assert.match(t.botComments(gh, 9)[0].body, /^<!-- perfgate:comment suite=quick -->\n### ❔ perfgate quick: undecided/);

    // The /perf full of #8, whose artifact measured another head.
    const full = await t.bot.latestRequest(running.store, { repo: t.REPOSITORY, prNumber: 8, commands: ['full'] });
    const fullRun = await (await fetch(`${gh.url}/repos/${t.REPOSITORY}/actions/runs/${full.runId}`)).json();
    t.writeArtifact(artifactsDir, fullRun.id, 'perfgate-full', t.runFolderFiles({ pr: 8, suite: 'full', headSha: 'e'.repeat(40) }));
    gh.state.updateWorkflowRun(t.REPOSITORY, fullRun.id, { status: 'completed', conclusion: 'success' });
    await running.deliver('workflow_run', t.workflowRunEvent({ run: fullRun }));
    await t.settled(running, 30_000);
    assert.equal((await running.store.db.selectFrom('runs').select('id').execute()).length, 1);
    assert.equal((await t.bot.getRequest(running.store, full.id)).status, 'failed');
  });

  test("sent nothing that breaks GitHub's description", () => {
    assert.deepEqual(gh.problems().map((c) => `${c.operationId} ${c.status}: ${c.problems.join('; ')}`), []);
  });
});
