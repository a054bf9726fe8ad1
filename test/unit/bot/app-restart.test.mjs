// `perfgate bot` killed (SIGKILL) in the middle of its queue, at the worst moment: its
// dispatch reached GitHub but the answer never came back. Restarted on the same database, it
// finishes every job, and each command is dispatched, checked and commented on exactly once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bot, botComments, commentEvent, killedDuring, openPulls, postComment, REPOSITORY, spawnedBots, waitFor,
} from '../../support/bot.mjs';

describe('perfgate bot killed mid-queue and started again', () => {
  // One job at a time, so the second command waits in the queue; a short lease, so the
  // restarted bot takes the dead one's job back within seconds.
  const fx = spawnedBots({ prs: [7, 8, 9], extra: { PERFGATE_WORKERS: '1', PERFGATE_JOB_LEASE_SECONDS: '2' } });

  it('completes each job once', async () => {
    const first = await fx.spawn();
    await openPulls(first, [7, 8, 9]);
    const hold = fx.gh.holdNext('actions/create-workflow-dispatch');
    const quick = await postComment(fx.gh, 'maintainer', '/perf quick', { pr: 7 });
    assert.equal((await first.deliver('issue_comment', commentEvent({ comment: quick, pr: 7 }))).status, 202);
    await hold.arrived;
    const full = await postComment(fx.gh, 'admin', '/perf full', { pr: 8 });
    assert.equal((await first.deliver('issue_comment', commentEvent({ comment: full, pr: 8 }))).status, 202);

    first.child.kill('SIGKILL');
    assert.deepEqual(await first.exited, { code: null, signal: 'SIGKILL' });
    // GitHub carries out the dispatch whose answer nobody reads any more.
    hold.release();
    await waitFor('the held dispatch to reach the double', () => fx.gh.state.dispatches.length === 1);

    const second = await fx.spawn();
    const store = await bot.openStore(fx.env.PERFGATE_DATABASE_URL);
    try {
      await waitFor('both commands to be dispatched', async () => {
        const requests = await Promise.all([quick.id, full.id].map((id) => bot.requestForComment(store, id)));
        const depth = await bot.queueDepth(store);
        return requests.every((r) => r.status === 'dispatched' && r.checkRunId) && depth.queued === 0 && depth.running === 0;
      }, { timeoutMs: 30_000 });
      // The sweeps each start queues look at what is unfinished, and find it in hand.
      const jobs = await store.db.selectFrom('jobs').select(['unique_key', 'status', 'attempts']).where('kind', '!=', 'sweep').orderBy('id').execute();
      assert.deepEqual(jobs.map((j) => [j.unique_key, j.status, Number(j.attempts)]), [[`command:${quick.id}`, 'done', 2], [`command:${full.id}`, 'done', 1]]);
    } finally {
      await store.close();
    }
    const forComment = (id) => fx.gh.state.dispatches.filter((d) => d.inputs['request-id'] === `c${id}`);
    assert.equal(forComment(quick.id).length, 1, 'the command the dead bot dispatched was not dispatched again');
    assert.equal(forComment(full.id).length, 1);
    for (const [pr, comment] of [[7, quick], [8, full]]) {
      assert.equal(botComments(fx.gh, pr).length, 1, `one sticky comment on #${pr}`);
      assert.equal(fx.gh.state.checkRuns(REPOSITORY).filter((c) => c.externalId === `c${comment.id}`).length, 1, `one check run for #${pr}`);
      assert.deepEqual(fx.gh.state.comments(REPOSITORY, pr).find((c) => c.id === comment.id).reactions.map((r) => r.content), ['+1']);
    }

    second.child.kill('SIGTERM');
    assert.deepEqual(await second.exited, { code: 0, signal: null });
    assert.match(second.stderr(), /perfgate bot: SIGTERM: stopping .*\nperfgate bot: stopped\n$/);
    assert.deepEqual(fx.gh.problems().map((c) => `${c.operationId} ${c.status}: ${c.problems.join('; ')}`), []);
  });

  it('killed after the dispatch, while its check run is being made: the check run is found, not made twice', async () => {
    const comment = await killedDuring(fx.gh, await fx.spawn(), 'checks/create', { body: '/perf quick rounds=3', pr: 9 });
    await waitFor('the held check run to be made', () => fx.gh.state.checkRuns(REPOSITORY).some((c) => c.externalId === `c${comment.id}`));

    const second = await fx.spawn();
    const store = await bot.openStore(fx.env.PERFGATE_DATABASE_URL);
    try {
      const request = await waitFor('the request to have its check run', async () => {
        const r = await bot.requestForComment(store, comment.id);
        const depth = await bot.queueDepth(store);
        return r.checkRunId && depth.queued === 0 && depth.running === 0 && r;
      }, { timeoutMs: 30_000 });
      const checks = fx.gh.state.checkRuns(REPOSITORY).filter((c) => c.externalId === `c${comment.id}`);
      assert.deepEqual(checks.map((c) => c.id), [request.checkRunId]);
    } finally {
      await store.close();
    }
    assert.equal(fx.gh.state.dispatches.filter((d) => d.inputs['request-id'] === `c${comment.id}`).length, 1);
    assert.equal(botComments(fx.gh, 9).length, 1, 'the sticky comment the dead bot never wrote is there');
    second.child.kill('SIGTERM');
    await second.exited;
  });
});
