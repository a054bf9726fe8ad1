// A completed workflow run is taken only when it is the run the bot dispatched: its id recorded
// at dispatch, event workflow_dispatch, started and triggered by the App. A pull request's
// workflow can give its run the same run-name and upload a crafted run folder; a person can
// dispatch the workflow by hand with the bot's request id. Neither is stored as main's history
// or as a command's result, and the real run still is.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  bot, command, INSTALLATION_ID, mainPushEvent, openPulls, REPOSITORY, runFolderFiles, settled, startBotOn, startDouble, waitFor, workflowRunEvent, writeArtifact,
} from '../../support/bot.mjs';

const require = createRequire(import.meta.url);
const store = require('../../../bot/src/store');
const { WATCH_RUN_NAME } = require('../../../bot/src/app/watch-main');
const { GOOD, BAD } = require('../../support/watch-runs');

describe('forged workflow runs', () => {
  let gh;
  let running;
  let artifactsDir;
  before(async () => {
    artifactsDir = mkdtempSync(path.join(os.tmpdir(), 'perfgate-forged-runs-'));
    gh = await startDouble({
      artifactsDir,
      prs: [7, 8],
      extra: { workflows: { [REPOSITORY]: [{ file: 'perf-command.yml', runName: bot.contract.RUN_NAME }, { file: 'perf-watch.yml', runName: WATCH_RUN_NAME }] } },
    });
    running = await startBotOn(gh, { env: { PERFGATE_WATCH: 'on' } });
    await openPulls(running, [7, 8]);
  });
  after(async () => {
    await running?.close();
    await gh?.close();
    rmSync(artifactsDir, { recursive: true, force: true });
  });

  const apiRun = async (id) => (await fetch(`${gh.url}/repos/${REPOSITORY}/actions/runs/${id}`)).json();
  const runsStored = async () => Number((await running.store.db.selectFrom('runs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst()).n);

  // A run of `workflow` as GitHub would list it, titled like the bot's, with a valid run folder.
  async function forge({ workflow, title, event, actor, files }) {
    const run = gh.state.addWorkflowRun({ repository: REPOSITORY, workflow, event, actor, displayTitle: title, status: 'completed', conclusion: 'success' });
    writeArtifact(artifactsDir, run.id, 'perfgate-quick', files);
    return apiRun(run.id);
  }

  async function complete(run, workflow) {
    gh.state.updateWorkflowRun(REPOSITORY, run.id, { status: 'completed', conclusion: 'success' });
    const answer = await running.deliver('workflow_run', workflowRunEvent({ run: await apiRun(run.id), workflow }));
    await settled(running);
    return answer;
  }

  it("a pull request's run named like main's watch run, and one dispatched by hand, are not stored; the dispatched run is", async () => {
    const pushed = mainPushEvent({ before: GOOD, after: BAD });
    pushed.installation = { id: INSTALLATION_ID };
    assert.equal((await running.deliver('push', pushed)).status, 202);
    await settled(running);
    const watchRun = await store.watchRunOf(running.store, { repo: REPOSITORY, headSha: BAD, purpose: 'measure', suite: 'quick' });
    assert.equal(watchRun.status, 'dispatched');
    const [dispatched] = gh.state.dispatches.filter((d) => d.workflow === 'perf-watch.yml');
    const title = `perfgate watch quick of ${BAD} (w${watchRun.id})`;
    const files = runFolderFiles({ baseSha: GOOD, headSha: BAD, pr: null });

    const fromPullRequest = await forge({ workflow: 'perf-watch.yml', title, event: 'pull_request', actor: 'contributor', files });
    const byHand = await forge({ workflow: 'perf-watch.yml', title, event: 'workflow_dispatch', actor: 'maintainer', files });
    for (const forged of [fromPullRequest, byHand]) {
      assert.equal(forged.display_title, title);
      assert.equal((await complete(forged, 'perf-watch.yml')).status, 202);
    }
    assert.equal(await runsStored(), 0, 'nothing of the forged runs is stored');
    assert.deepEqual([(await store.getWatchRun(running.store, watchRun.id)).status], ['dispatched']);
    assert.ok(running.log.lines.includes(`warn run ${REPOSITORY}#${fromPullRequest.id}: not a workflow_dispatch of perfgate[bot] (event pull_request, actor contributor, triggered by contributor); ignored`));
    assert.ok(running.log.lines.includes(`warn run ${REPOSITORY}#${byHand.id}: not a workflow_dispatch of perfgate[bot] (event workflow_dispatch, actor maintainer, triggered by maintainer); ignored`));

    assert.equal(watchRun.workflowRunId, dispatched.runId, 'the run id is recorded at dispatch');
    writeArtifact(artifactsDir, dispatched.runId, 'perfgate-quick', files);
    await complete(await apiRun(dispatched.runId), 'perf-watch.yml');
    const stored = await store.getWatchRun(running.store, watchRun.id);
    assert.deepEqual([stored.status, stored.workflowRunId, await runsStored()], ['stored', dispatched.runId, 1]);
  });

  it("a command dispatched without a run id back takes the run GitHub lists as the App's dispatch for it, not a pull request's run of the same name", async () => {
    const { comment } = await command(gh, running, 'maintainer', '/perf quick', { pr: 8 });
    await settled(running);
    let request = await bot.requestForComment(running.store, comment.id);
    assert.equal(request.status, 'dispatched');
    const real = await apiRun(request.runId);
    // As on GitHub Enterprise Server, where the dispatch gives no run id back.
    await bot.updateRequest(running.store, request.id, { runId: null, runUrl: null });
    const forged = await forge({ workflow: 'perf-command.yml', title: real.display_title, event: 'pull_request', actor: 'contributor', files: runFolderFiles({ pr: 8 }) });
    // Even when its delivery claimed a dispatch by the App, the id must be the App's run's.
    const answer = await running.deliver('workflow_run', workflowRunEvent({ run: { ...forged, event: 'workflow_dispatch', actor: real.actor, triggering_actor: real.triggering_actor }, workflow: 'perf-command.yml' }));
    assert.equal(answer.status, 202);
    await settled(running);
    request = await bot.getRequest(running.store, request.id);
    assert.deepEqual([request.status, request.runId, await runsStored()], ['dispatched', null, 1]);

    writeArtifact(artifactsDir, real.id, 'perfgate-quick', runFolderFiles({ pr: 8 }));
    await complete(real, 'perf-command.yml');
    request = await waitFor('the request to complete', async () => {
      const r = await bot.getRequest(running.store, request.id);
      return r.status === 'completed' && r;
    });
    assert.deepEqual([request.runId, await runsStored()], [real.id, 2]);
  });

  it('a run job queued without who started the run (by an older bot) asks GitHub: a pull request\'s run is still ignored', async () => {
    const forged = await forge({ workflow: 'perf-command.yml', title: 'perfgate quick on pull request 7 (c1)', event: 'pull_request', actor: 'contributor', files: runFolderFiles({ pr: 7 }) });
    const payload = { kind: 'run', repo: REPOSITORY, runId: forged.id, attempt: 1, conclusion: 'success', displayTitle: forged.display_title, runUrl: forged.html_url, installationId: INSTALLATION_ID };
    await bot.enqueue(running.store, { kind: 'run', payload }, `run:${REPOSITORY}/${forged.id}/1`);
    running.worker.wake();
    await settled(running);
    assert.ok(gh.callsTo('actions/get-workflow-run').some((c) => c.path.endsWith(`/actions/runs/${forged.id}`)));
    assert.ok(running.log.lines.includes(`warn run ${REPOSITORY}#${forged.id}: not a workflow_dispatch of perfgate[bot] (event pull_request, actor contributor, triggered by contributor); ignored`));
  });

  it("sent nothing that breaks GitHub's description", () => {
    assert.deepEqual(gh.problems().map((c) => `${c.operationId} ${c.status}: ${c.problems.join('; ')}`), []);
  });
});
