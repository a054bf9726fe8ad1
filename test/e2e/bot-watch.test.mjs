// Watching main, the whole loop once with the workflow a fork copies: a push to the fork's
// default branch → `perfgate bot` (its own process, PERFGATE_WATCH=on) places the commits on
// main and dispatches .github/examples/perf-watch.yml with the pushed commit and the tip before
// it pinned → that workflow runs under act on this host with perfgate's action (measure on the
// two real MariaDB builds with no pull request, report: a check run on the commit) → GitHub's
// workflow_run.completed reaches the bot → it checks the run folder and stores it along main.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAct, stepLog } from '../support/act.mjs';
import { BASE_BASEDIR, exportPerfgate, HEAD_BASEDIR, requireActAndServers, makeFork, pinnedAction, tinySuite, workflowDispatchEvent } from '../support/action-fork.mjs';
import { bot, botEnvironment, INSTALLATION_ID, published, REPOSITORY, spawnBot, startDouble, stopSpawnedBot, waitFor, workflowRunEvent } from '../support/bot.mjs';
import { ciTool } from '../support/ci-tools.mjs';

const GITHUB_TOKEN = 'ghs_botWatchWorkflowTokenForTheDouble1';
const RUN_NAME = 'perfgate watch ${{ inputs.suite }} of ${{ inputs.head-sha }} (${{ inputs.request-id }})';

// GitHub's published push to the default branch, moved to the fork: `before` → `after`.
function pushEvent({ before: from, after: to }) {
  const payload = published('push', undefined, (e) => e.ref.startsWith('refs/heads/') && e.installation);
  const [owner, name] = REPOSITORY.split('/');
  Object.assign(payload.repository, { full_name: REPOSITORY, name, default_branch: 'main', owner: { ...payload.repository.owner, login: owner } });
  Object.assign(payload, { ref: 'refs/heads/main', before: from, after: to, installation: { id: INSTALLATION_ID } });
  payload.commits = [{ ...payload.commits[0], id: to, message: 'head' }];
  return payload;
}

describe('a push to main → perfgate bot → perf-watch.yml under act on two real servers → stored along main', () => {
  let folder;
  let gh;
  let botProcess;
  let fork;
  let artifactsDir;
  let perfgateExport;
  before(async () => {
    requireActAndServers('watching main');
    folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bot-watch-'));
    perfgateExport = exportPerfgate(path.join(folder, 'perfgate'));
    fork = makeFork(folder, { baseSuites: { quick: tinySuite({ limits: { warn: 0.5, fail: 0.2 } }) } });
    // The head lands on main: a fast-forward push.
    execFileSync('git', ['checkout', '-q', 'main'], { cwd: fork.repo });
    execFileSync('git', ['merge', '-q', '--ff-only', 'feature'], { cwd: fork.repo });
    assert.equal(execFileSync(ciTool('actionlint'), ['-no-color'], { cwd: fork.repo, encoding: 'utf8' }), '', 'the fork\'s copied workflows lint clean');
    artifactsDir = path.join(folder, 'artifacts');
    gh = await startDouble({
      artifactsDir, baseSha: fork.baseSha, headSha: fork.headSha,
      extra: { githubToken: GITHUB_TOKEN, workflows: { [REPOSITORY]: [{ file: 'perf-watch.yml', runName: RUN_NAME }] } },
    });
    botProcess = await spawnBot({ env: botEnvironment({ folder, apiUrl: gh.url, extra: { PERFGATE_WATCH: 'on' } }) });
  });
  after(() => stopSpawnedBot({ botProcess, gh, folder }));

  it('measures the pushed commit against the tip before it, stores it along main', async () => {
    const answer = await botProcess.deliver('push', pushEvent({ before: fork.baseSha, after: fork.headSha }));
    assert.equal(answer.status, 202, answer.text);
    await waitFor('the watch dispatch', () => gh.state.dispatches.length === 1);
    const dispatch = gh.state.dispatches[0];
    assert.equal(dispatch.workflow, 'perf-watch.yml');
    assert.deepEqual(dispatch.inputs, { 'base-sha': fork.baseSha, 'head-sha': fork.headSha, suite: 'quick', options: '', purpose: 'measure', 'request-id': 'w1' });

    const act = await runAct({
      workdir: fork.repo,
      workflow: '.github/workflows/perf-watch.yml',
      event: 'workflow_dispatch',
      payload: workflowDispatchEvent({ workflow: 'perf-watch.yml', inputs: dispatch.inputs }),
      apiUrl: gh.url,
      repository: REPOSITORY,
      runId: dispatch.runId,
      artifactsDir,
      secrets: { GITHUB_TOKEN },
      vars: { PERFGATE_BASE_BASEDIR: BASE_BASEDIR, PERFGATE_HEAD_BASEDIR: HEAD_BASEDIR },
      localRepositories: { [pinnedAction()]: perfgateExport },
      timeoutMs: 600_000,
    });
    writeFileSync(path.join(folder, 'act.log'), stepLog(act));
    assert.equal(act.exitCode, 0, `act failed:\n${stepLog(act).slice(-6000)}\n${act.stderr.slice(-2000)}`);
    assert.deepEqual(act.jobs, { measure: 'success', report: 'success' });
    assert.ok(existsSync(path.join(artifactsDir, String(dispatch.runId), 'perfgate-quick', 'perfgate-quick.zip')), 'the run folder was uploaded');
    // No pull request: no comment; the report job completed a check run on the pushed commit.
    const checks = gh.state.checkRuns(REPOSITORY);
    assert.deepEqual(checks.map((c) => [c.headSha ?? c.head_sha, c.status]), [[fork.headSha, 'completed']]);

    gh.state.updateWorkflowRun(REPOSITORY, dispatch.runId, { status: 'completed', conclusion: 'success' });
    const run = await (await fetch(`${gh.url}/repos/${REPOSITORY}/actions/runs/${dispatch.runId}`)).json();
    assert.equal(run.display_title, `perfgate watch quick of ${fork.headSha} (w1)`);
    const completed = await botProcess.deliver('workflow_run', workflowRunEvent({ run, workflow: 'perf-watch.yml' }));
    assert.equal(completed.status, 202, completed.text);
    const store = await bot.openStore(path.join(folder, 'history.db'));
    try {
      const watchRun = await waitFor('the watch run to be stored', async () => {
        const w = await bot.watchRunOf(store, { repo: REPOSITORY, headSha: fork.headSha, purpose: 'measure', suite: 'quick' });
        return w && ['stored', 'failed'].includes(w.status) && w;
      }, { timeoutMs: 60_000 });
      assert.equal(watchRun.status, 'stored', watchRun.detail);
      const series = await bot.mainSeries(store, { repo: REPOSITORY, microbenchmark: 'point-query', signal: 'qps' });
      assert.deepEqual([...new Set(series.map((p) => `${p.seq} ${p.sha} ${p.side}`))], [`0 ${fork.baseSha} base`, `1 ${fork.headSha} head`]);
    } finally {
      await store.close();
    }
    assert.deepEqual(gh.problems().map((c) => `${c.operationId} ${c.status}: ${c.problems.join('; ')}`), []);
  });
});
