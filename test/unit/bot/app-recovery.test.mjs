// Nothing lost across a crash or an outage: a run's completion that arrives before the request
// it belongs to is recovered is kept and matched later; a completion delivered again is acted
// on when its first job did not do its work; the sweep finds runs whose completion never came;
// a command GitHub's outage kept from starting says so in the pull request once GitHub answers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bot, botComments, botInProcess, command, killedDuring, openPulls, REPOSITORY, runFolderFiles, settled, spawnedBots, waitFor, workflowRunEvent, writeArtifact,
} from '../../support/bot.mjs';
import { startChaosProxy } from '../../support/github-api/chaos-proxy.mjs';

const jobOf = async (store, key) => store.db.selectFrom('jobs').select(['status', 'attempts']).where('unique_key', '=', key).executeTakeFirst();
const count = async (store, table) => Number((await store.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirst()).n);
const runOf = async (gh, runId) => (await fetch(`${gh.url}/repos/${REPOSITORY}/actions/runs/${runId}`)).json();

describe('a completion that arrives before its request is recovered', () => {
  // One job at a time; the dead bot's command job is taken back 15 s after it was claimed,
  // well after the completion (delivered as soon as the bot listens again) was looked at.
  const fx = spawnedBots({ prs: [7], extra: { PERFGATE_WORKERS: '1', PERFGATE_JOB_LEASE_SECONDS: '15' } });

  it('killed mid-dispatch, started again, the completion delivered at once and again: kept, matched once the dispatch is recovered, stored once', async () => {
    const first = await fx.spawn();
    await openPulls(first, [7]);
    // GitHub carries out the dispatch nobody hears the answer of; the run starts and completes.
    const comment = await killedDuring(fx.gh, first, 'actions/create-workflow-dispatch', { body: '/perf quick', pr: 7 });
    const dispatch = await waitFor('the held dispatch', () => fx.gh.state.dispatches.find((d) => d.inputs['request-id'] === `c${comment.id}`));
    writeArtifact(fx.artifactsDir, dispatch.runId, 'perfgate-quick', runFolderFiles());
    fx.gh.state.updateWorkflowRun(REPOSITORY, dispatch.runId, { status: 'completed', conclusion: 'success' });
    const run = await runOf(fx.gh, dispatch.runId);

    const second = await fx.spawn();
    const db = await bot.openStore(fx.env.PERFGATE_DATABASE_URL);
    try {
      const completion = workflowRunEvent({ run });
      const delivered = await second.deliver('workflow_run', completion, { deliveryId: 'completion-1' });
      assert.deepEqual([delivered.status, delivered.text], [202, 'queued']);
      const looked = await waitFor('the completion to be looked at', async () => {
        const job = await jobOf(db, `run:${REPOSITORY}/${run.id}/1`);
        return ['done', 'kept'].includes(job?.status) && job;
      }, { timeoutMs: 10_000 });
      assert.equal((await bot.requestForComment(db, comment.id)).status, 'dispatching', 'looked at before the request was recovered');
      assert.equal(looked.status, 'kept', 'not ignored: no request knew its run yet');
      // GitHub delivers it again (the same delivery): not swallowed, its first job kept it.
      const again = await second.deliver('workflow_run', completion, { deliveryId: 'completion-1' });
      assert.deepEqual([again.status, again.text], [202, 'queued again']);

      const request = await waitFor('the request to be recovered and its run stored', async () => {
        const r = await bot.requestForComment(db, comment.id);
        const depth = await bot.queueDepth(db);
        return r.status === 'completed' && depth.queued === 0 && depth.running === 0 && r;
      }, { timeoutMs: 40_000 });
      assert.equal(request.runId, run.id);
      assert.equal(await count(db, 'runs'), 1);
      assert.equal((await jobOf(db, `run:${REPOSITORY}/${run.id}/1`)).status, 'done');
    } finally {
      await db.close();
    }
    assert.equal(fx.gh.state.dispatches.filter((d) => d.inputs['request-id'] === `c${comment.id}`).length, 1);
    assert.equal(fx.gh.state.checkRuns(REPOSITORY).filter((c) => c.externalId === `c${comment.id}`).length, 1);
    assert.equal(botComments(fx.gh, 7).length, 1);
    second.child.kill('SIGTERM');
    assert.deepEqual(await second.exited, { code: 0, signal: null });
  });
});

describe('completions the bot would otherwise lose', () => {
  const fx = botInProcess({ prs: [700, 701, 702], artifacts: true, env: { PERFGATE_SWEEP_SECONDS: '1' }, worker: { backoffFirstMs: 20 } });
  let nextPr = 700;

  async function dispatched() {
    const pr = nextPr++;
    const { comment } = await command(fx.gh, fx.running, 'maintainer', '/perf quick', { pr });
    await settled(fx.running);
    const request = await bot.requestForComment(fx.running.store, comment.id);
    assert.equal(request.status, 'dispatched');
    writeArtifact(fx.artifactsDir, request.runId, 'perfgate-quick', runFolderFiles({ pr }));
    fx.gh.state.updateWorkflowRun(REPOSITORY, request.runId, { status: 'completed', conclusion: 'success' });
    return { request, run: await runOf(fx.gh, request.runId) };
  }

  it('a completion whose job failed for good, delivered again: queued again and stored', async () => {
    const { request, run } = await dispatched();
    // GitHub fails every look at the run's artifacts through all the job's tries.
    fx.gh.failNext('actions/list-workflow-run-artifacts', { status: 500, times: 20 });
    const first = await fx.running.deliver('workflow_run', workflowRunEvent({ run }), { deliveryId: 'failing-completion' });
    assert.deepEqual([first.status, first.text], [202, 'queued']);
    await waitFor('the run job to fail for good', async () => (await jobOf(fx.running.store, `run:${REPOSITORY}/${run.id}/1`)).status === 'failed');
    const again = await fx.running.deliver('workflow_run', workflowRunEvent({ run }), { deliveryId: 'failing-completion' });
    assert.deepEqual([again.status, again.text], [202, 'queued again']);
    await waitFor('the request to be completed', async () => (await bot.getRequest(fx.running.store, request.id)).status === 'completed');
    assert.equal(await count(fx.running.store, 'runs'), 1);
  });

  it('a completion never delivered: the sweep finds the run completed and stores it', async () => {
    const { request } = await dispatched();
    const stored = await count(fx.running.store, 'runs');
    await waitFor('the sweep to store the run', async () => (await bot.getRequest(fx.running.store, request.id)).status === 'completed', { timeoutMs: 15_000 });
    assert.equal(await count(fx.running.store, 'runs'), stored + 1);
    assert.ok(fx.running.log.lines.some((line) => line === `info sweep: request ${request.id}: run ${request.runId} completed; its run job queued`));
  });
});

describe('a command while GitHub does not answer', () => {
  // The bot behind a proxy that takes GitHub away, with `env`; the sweep once a second.
  const behindProxy = (pr, env = {}) => botInProcess({
    prs: [pr], env: { PERFGATE_SWEEP_SECONDS: '1', ...env }, worker: { backoffFirstMs: 20 }, front: (gh) => startChaosProxy(gh.url),
  });

  // GitHub away (`fault`) while a /perf quick comes, until its job has used all its tries; then
  // back. -> {comment, health: /healthz meanwhile}
  async function during(fx, fault, pr) {
    fx.front.down(fault);
    const { comment, answer } = await command(fx.gh, fx.running, 'maintainer', '/perf quick', { pr });
    assert.equal(answer.status, 202, 'the delivery is taken while GitHub is away');
    // All its tries used (the sweep then queues it again, and again, while GitHub is away).
    await waitFor('the command job to give up', async () => Number((await jobOf(fx.running.store, `command:${comment.id}`)).attempts) >= 5, { timeoutMs: 40_000 });
    const health = await fetch(`${fx.running.url}/healthz`);
    assert.equal(botComments(fx.gh, pr).length, 0);
    fx.front.up();
    return { comment, health: [health.status, await health.json()] };
  }

  describe('/healthz', () => {
    const fx = behindProxy(802);
    it('says GitHub is failing while it is, and ok once it answers', async () => {
      const { health } = await during(fx, '502-before', 802);
      assert.deepEqual([health[0], health[1].status, health[1].store, health[1].github], [200, 'degraded', 'ok', 'failing']);
      assert.ok(Number.isInteger(health[1].githubFailingSeconds));
      await waitFor('GitHub to be seen answering', async () => (await (await fetch(`${fx.running.url}/healthz`)).json()).github === 'ok');
    });
  });

  describe('past its deadline', () => {
    const fx = behindProxy(800, { PERFGATE_COMMAND_DEADLINE_SECONDS: '1' });
    it('once GitHub answers again, the pull request hears that it was not started', async () => {
      const { comment } = await during(fx, '502-before', 800);
      const request = await waitFor('the command to be reported', async () => {
        const r = await bot.requestForComment(fx.running.store, comment.id);
        return r.status === 'failed' && r;
      }, { timeoutMs: 15_000 });
      assert.deepEqual(botComments(fx.gh, 800).map((c) => c.body), [`<!-- perfgate:reply comment=${comment.id} -->\n@maintainer \`/perf quick\` was not started: GitHub did not answer me for 1 minute after your comment, longer than a command may wait (1 minute). Nothing was started; comment again to start it.\n`]);
      assert.equal(request.replyId, botComments(fx.gh, 800)[0].id);
      assert.deepEqual(fx.gh.state.dispatches, []);
    });
  });

  describe('within its deadline', () => {
    const fx = behindProxy(801);
    it('once GitHub answers again, the command is started', async () => {
      const { comment } = await during(fx, 'reset-before', 801);
      await waitFor('the command to be dispatched', async () => (await bot.requestForComment(fx.running.store, comment.id)).status === 'dispatched', { timeoutMs: 15_000 });
      assert.equal(fx.gh.state.dispatches.length, 1);
      await waitFor('the sticky comment saying queued', () => botComments(fx.gh, 801).some((c) => c.body.includes('perfgate quick: queued')));
    });
  });
});
