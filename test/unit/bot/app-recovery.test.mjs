// Nothing lost across a crash or an outage: a run's completion that arrives before the request
// it belongs to is recovered is kept and matched later; a completion delivered again is acted
// on when its first job did not do its work; the sweep finds runs whose completion never came;
// a command GitHub's outage kept from starting says so in the pull request once GitHub answers.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  bot, botComments, botEnvironment, command, commentEvent, openPulls, postComment, REPOSITORY, runFolderFiles, settled, spawnBot, startBotOn, startDouble,
  waitFor, workflowRunEvent, writeArtifact,
} from '../../support/bot.mjs';
import { startChaosProxy } from '../../support/github-api/chaos-proxy.mjs';

const jobOf = async (store, key) => store.db.selectFrom('jobs').select(['status', 'attempts']).where('unique_key', '=', key).executeTakeFirst();
const count = async (store, table) => Number((await store.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirst()).n);
const runOf = async (gh, runId) => (await fetch(`${gh.url}/repos/${REPOSITORY}/actions/runs/${runId}`)).json();

describe('a completion that arrives before its request is recovered', () => {
  let gh;
  let folder;
  let env;
  const children = [];
  before(async () => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bot-recovery-'));
    gh = await startDouble({ artifactsDir: path.join(folder, 'artifacts'), prs: [7] });
    // One job at a time; the dead bot's command job is taken back 15 s after it was claimed,
    // well after the completion (delivered as soon as the bot listens again) was looked at.
    env = botEnvironment({ folder, apiUrl: gh.url, extra: { PERFGATE_WORKERS: '1', PERFGATE_JOB_LEASE_SECONDS: '15' } });
  });
  after(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await gh?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('killed mid-dispatch, started again, the completion delivered at once and again: kept, matched once the dispatch is recovered, stored once', async () => {
    const first = await spawnBot({ env });
    children.push(first.child);
    await openPulls(first, [7]);
    const hold = gh.holdNext('actions/create-workflow-dispatch');
    const comment = await postComment(gh, 'maintainer', '/perf quick', { pr: 7 });
    assert.equal((await first.deliver('issue_comment', commentEvent({ comment, pr: 7 }))).status, 202);
    await hold.arrived;
    first.child.kill('SIGKILL');
    await first.exited;
    // GitHub carries out the dispatch nobody hears the answer of; the run starts and completes.
    hold.release();
    const dispatch = await waitFor('the held dispatch', () => gh.state.dispatches.find((d) => d.inputs['request-id'] === `c${comment.id}`));
    writeArtifact(path.join(folder, 'artifacts'), dispatch.runId, 'perfgate-quick', runFolderFiles());
    gh.state.updateWorkflowRun(REPOSITORY, dispatch.runId, { status: 'completed', conclusion: 'success' });
    const run = await runOf(gh, dispatch.runId);

    const second = await spawnBot({ env });
    children.push(second.child);
    const db = await bot.openStore(env.PERFGATE_DATABASE_URL);
    try {
      const completion = workflowRunEvent({ run });
      const delivered = await second.deliver('workflow_run', completion, { deliveryId: 'completion-1' });
      assert.deepEqual([delivered.status, delivered.text], [202, 'queued']);
      await waitFor('the completion to be looked at', async () => (await jobOf(db, `run:${REPOSITORY}/${run.id}/1`))?.status === 'done', { timeoutMs: 10_000 });
      assert.equal((await bot.requestForComment(db, comment.id)).status, 'dispatching', 'looked at before the request was recovered');
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
      // It was kept until the request knew the run, then taken.
      assert.notEqual((await bot.keptRun(db, { repo: REPOSITORY, runId: run.id, attempt: 1 })).takenAt, null);
    } finally {
      await db.close();
    }
    assert.equal(gh.state.dispatches.filter((d) => d.inputs['request-id'] === `c${comment.id}`).length, 1);
    assert.equal(gh.state.checkRuns(REPOSITORY).filter((c) => c.externalId === `c${comment.id}`).length, 1);
    assert.equal(botComments(gh, 7).length, 1);
    second.child.kill('SIGTERM');
    assert.deepEqual(await second.exited, { code: 0, signal: null });
  });
});

describe('completions the bot would otherwise lose', () => {
  let gh;
  let running;
  let artifactsDir;
  let nextPr = 700;
  before(async () => {
    artifactsDir = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bot-sweep-'));
    gh = await startDouble({ artifactsDir, prs: [700, 701, 702] });
    running = await startBotOn(gh, { env: { PERFGATE_SWEEP_SECONDS: '1' }, worker: { backoffFirstMs: 20 } });
    await openPulls(running, [700, 701, 702]);
  });
  after(async () => {
    await running?.close();
    await gh?.close();
    rmSync(artifactsDir, { recursive: true, force: true });
  });

  async function dispatched() {
    const pr = nextPr++;
    const { comment } = await command(gh, running, 'maintainer', '/perf quick', { pr });
    await settled(running);
    const request = await bot.requestForComment(running.store, comment.id);
    assert.equal(request.status, 'dispatched');
    writeArtifact(artifactsDir, request.runId, 'perfgate-quick', runFolderFiles({ pr }));
    gh.state.updateWorkflowRun(REPOSITORY, request.runId, { status: 'completed', conclusion: 'success' });
    return { request, run: await runOf(gh, request.runId) };
  }

  it('a completion whose job failed for good, delivered again: queued again and stored', async () => {
    const { request, run } = await dispatched();
    // GitHub fails every look at the run's artifacts through all the job's tries.
    gh.failNext('actions/list-workflow-run-artifacts', { status: 500, times: 20 });
    const first = await running.deliver('workflow_run', workflowRunEvent({ run }), { deliveryId: 'failing-completion' });
    assert.deepEqual([first.status, first.text], [202, 'queued']);
    await waitFor('the run job to fail for good', async () => (await jobOf(running.store, `run:${REPOSITORY}/${run.id}/1`)).status === 'failed');
    const again = await running.deliver('workflow_run', workflowRunEvent({ run }), { deliveryId: 'failing-completion' });
    assert.deepEqual([again.status, again.text], [202, 'queued again']);
    await waitFor('the request to be completed', async () => (await bot.getRequest(running.store, request.id)).status === 'completed');
    assert.equal(await count(running.store, 'runs'), 1);
  });

  it('a completion never delivered: the sweep finds the run completed and stores it', async () => {
    const { request } = await dispatched();
    const stored = await count(running.store, 'runs');
    await waitFor('the sweep to store the run', async () => (await bot.getRequest(running.store, request.id)).status === 'completed', { timeoutMs: 15_000 });
    assert.equal(await count(running.store, 'runs'), stored + 1);
    assert.ok(running.log.lines.some((line) => line === `info sweep: request ${request.id}: run ${request.runId} completed; its run job queued`));
  });
});

describe('a command while GitHub does not answer', () => {
  let gh;
  let proxy;
  const bots = [];
  before(async () => {
    gh = await startDouble({ prs: [800, 801, 802] });
    proxy = await startChaosProxy(gh.url);
  });
  after(async () => {
    for (const running of bots) await running.close();
    await proxy?.close();
    await gh?.close();
  });

  async function during(outage, { env, pr }) {
    const running = await startBotOn({ url: proxy.url }, { env: { PERFGATE_SWEEP_SECONDS: '1', ...env }, worker: { backoffFirstMs: 20 } });
    bots.push(running);
    await openPulls(running, [pr]);
    proxy.down(outage);
    const { comment, answer } = await command(gh, running, 'maintainer', '/perf quick', { pr });
    assert.equal(answer.status, 202, 'the delivery is taken while GitHub is away');
    // All its tries used (the sweep then queues it again, and again, while GitHub is away).
    await waitFor('the command job to give up', async () => Number((await jobOf(running.store, `command:${comment.id}`)).attempts) >= 5, { timeoutMs: 40_000 });
    const health = await fetch(`${running.url}/healthz`);
    assert.equal(botComments(gh, pr).length, 0);
    proxy.up();
    return { running, comment, health: [health.status, await health.json()] };
  }

  it('/healthz says GitHub is failing while it is, and ok once it answers', async () => {
    const { running, health } = await during('502-before', { env: {}, pr: 802 });
    assert.deepEqual([health[0], health[1].status, health[1].store, health[1].github], [200, 'degraded', 'ok', 'failing']);
    assert.ok(Number.isInteger(health[1].githubFailingSeconds));
    await waitFor('GitHub to be seen answering', async () => (await (await fetch(`${running.url}/healthz`)).json()).github === 'ok');
  });

  it('past its deadline: once GitHub answers again, the pull request hears that it was not started', async () => {
    const pr = 800;
    const { running, comment } = await during('502-before', { env: { PERFGATE_COMMAND_DEADLINE_SECONDS: '1' }, pr });
    const request = await waitFor('the command to be reported', async () => {
      const r = await bot.requestForComment(running.store, comment.id);
      return r.status === 'failed' && r;
    }, { timeoutMs: 15_000 });
    const replies = botComments(gh, pr).map((c) => c.body);
    assert.deepEqual(replies, [`<!-- perfgate:reply comment=${comment.id} -->\n@maintainer \`/perf quick\` was not started: GitHub did not answer me for 1 minute after your comment, longer than a command may wait (1 minute). Nothing was started; comment again to start it.\n`]);
    assert.equal(request.replyId, botComments(gh, pr)[0].id);
    assert.deepEqual(gh.state.dispatches.filter((d) => d.inputs['pull-request'] === String(pr)), []);
  });

  it('within its deadline: once GitHub answers again, the command is started', async () => {
    const pr = 801;
    const { running, comment } = await during('reset-before', { env: {}, pr });
    await waitFor('the command to be dispatched', async () => (await bot.requestForComment(running.store, comment.id)).status === 'dispatched', { timeoutMs: 15_000 });
    assert.equal(gh.state.dispatches.filter((d) => d.inputs['pull-request'] === String(pr)).length, 1);
    await waitFor('the sticky comment saying queued', () => botComments(gh, pr).some((c) => c.body.includes('perfgate quick: queued')));
  });
});
