// The whole loop once, with the workflow a fork copies: a maintainer comments `/perf quick` on a
// pull request → `perfgate bot` (its own process, SQLite) checks the permission, pins base and
// head and dispatches .github/examples/perf-command.yml → that workflow runs under act on this
// host with perfgate's action (gate, measure on the two real MariaDB builds, report: check run
// and sticky comment) and uploads its run folder → GitHub's workflow_run.completed reaches the
// bot → it downloads the artifact, checks it, stores every round, and its reply says so. The
// GitHub side is the double; the fork is laid out as the action's own act tests lay it out.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAct, stepLog } from '../support/act.mjs';
import { BASE_BASEDIR, exportPerfgate, HEAD_BASEDIR, requireActAndServers, makeFork, pinnedAction, tinySuite, workflowDispatchEvent } from '../support/action-fork.mjs';
import {
  bot, botComments, botEnvironment, commentEvent, openPulls, postComment, REPOSITORY, spawnBot, startDouble, stopSpawnedBot, waitFor, workflowRunEvent,
} from '../support/bot.mjs';
import { ciTool } from '../support/ci-tools.mjs';

const GITHUB_TOKEN = 'ghs_botLoopWorkflowTokenForTheDouble01';
const MARKER = '<!-- perfgate:comment suite=quick -->';

describe('/perf quick → perfgate bot → perf-command.yml under act on two real servers → run folder stored', () => {
  let folder;
  let gh;
  let botProcess;
  let fork;
  let artifactsDir;
  let perfgateExport;
  let act;
  let comment;
  before(async () => {
    requireActAndServers("the bot's loop");
    folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bot-loop-'));
    perfgateExport = exportPerfgate(path.join(folder, 'perfgate'));
    // The fork keeps a tiny quick suite in its thresholds: one microbenchmark, 1 s rounds.
    fork = makeFork(folder, { baseSuites: { quick: tinySuite({ limits: { warn: 0.5, fail: 0.2 } }) } });
    assert.equal(execFileSync(ciTool('actionlint'), ['-no-color'], { cwd: fork.repo, encoding: 'utf8' }), '', 'the fork\'s copied workflows lint clean');
    artifactsDir = path.join(folder, 'artifacts');
    gh = await startDouble({ artifactsDir, baseSha: fork.baseSha, headSha: fork.headSha, extra: { githubToken: GITHUB_TOKEN } });
    botProcess = await spawnBot({ env: botEnvironment({ folder, apiUrl: gh.url, extra: { PERFGATE_REPORT: 'workflow' } }) });
    await openPulls(botProcess, [7], { headSha: fork.headSha });
  });
  after(() => stopSpawnedBot({ botProcess, gh, folder }));

  it('dispatches perf-command.yml with the pinned and approved commits when a maintainer comments /perf quick', async () => {
    comment = await postComment(gh, 'maintainer', 'Let us measure it.\n\n/perf quick');
    const answer = await botProcess.deliver('issue_comment', commentEvent({ comment }));
    assert.equal(answer.status, 202, answer.text);
    await waitFor('the dispatch and the reply', () => gh.state.dispatches.length === 1 && botComments(gh).length === 1);
    assert.equal(gh.state.dispatches[0].workflow, 'perf-command.yml');
    assert.deepEqual(gh.state.dispatches[0].inputs, {
      'pull-request': '7', 'base-sha': fork.baseSha, 'head-sha': fork.headSha, 'approved-sha': fork.headSha, suite: 'quick', options: '', 'request-id': `c${comment.id}`,
    });
    assert.match(botComments(gh)[0].body, new RegExp(`^<!-- perfgate:reply comment=${comment.id} -->\\n⏳ \`/perf quick\` from @maintainer: head`));
  });

  it('runs the dispatched workflow under act: gate, measure on the two servers, report', async () => {
    const dispatch = gh.state.dispatches[0];
    act = await runAct({
      workdir: fork.repo,
      workflow: '.github/workflows/perf-command.yml',
      event: 'workflow_dispatch',
      payload: workflowDispatchEvent({ workflow: 'perf-command.yml', inputs: dispatch.inputs }),
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
    assert.deepEqual(act.jobs, { gate: 'success', measure: 'success', report: 'success' });
    assert.ok(existsSync(path.join(artifactsDir, String(dispatch.runId), 'perfgate-quick', 'perfgate-quick.zip')), 'the run folder was uploaded');
    // The workflow's report job wrote the sticky comment and completed the check run.
    const sticky = gh.state.comments(REPOSITORY, 7).filter((c) => c.body.startsWith(MARKER));
    assert.deepEqual(sticky.map((c) => c.user.login), ['github-actions[bot]']);
    assert.match(sticky[0].body, /\| point-query \| \d\.\d\d \|/, 'the rQPS table has the measured row');
    assert.equal(gh.state.checkRuns(REPOSITORY).filter((c) => c.status === 'completed').length, 1);
  });

  it('stores the run when GitHub says it completed, and says so in its reply', async () => {
    const dispatch = gh.state.dispatches[0];
    gh.state.updateWorkflowRun(REPOSITORY, dispatch.runId, { status: 'completed', conclusion: 'success' });
    const run = await (await fetch(`${gh.url}/repos/${REPOSITORY}/actions/runs/${dispatch.runId}`)).json();
    assert.equal(run.display_title, `perfgate quick on pull request 7 (c${comment.id})`);
    const answer = await botProcess.deliver('workflow_run', workflowRunEvent({ run }));
    assert.equal(answer.status, 202, answer.text);
    const store = await bot.openStore(path.join(folder, 'history.db'));
    try {
      const request = await waitFor('the request to complete', async () => {
        const r = await bot.requestForComment(store, comment.id);
        return ['completed', 'failed'].includes(r.status) && r;
      }, { timeoutMs: 60_000 });
      assert.equal(request.status, 'completed', request.detail);
      const stored = await store.db.selectFrom('runs as r').innerJoin('run_sides as s', 's.run_id', 'r.id').innerJoin('commits as c', 'c.id', 's.commit_id')
        .select(['r.run_key', 's.side', 'c.sha', 's.version', 'r.suite']).where('r.request_id', '=', request.id).orderBy('s.side').execute();
      assert.deepEqual(stored.map((s) => [s.run_key, s.side, s.sha, s.suite]), [
        [`${REPOSITORY}/${dispatch.runId}/1/perfgate-quick`, 'base', fork.baseSha, 'quick'],
        [`${REPOSITORY}/${dispatch.runId}/1/perfgate-quick`, 'head', fork.headSha, 'quick'],
      ]);
      assert.match(stored[0].version, /^10\.11\.18-MariaDB/);
      assert.match(stored[1].version, /^10\.11\.19-MariaDB/);
      const rounds = await store.db.selectFrom('rounds').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
      assert.ok(Number(rounds.n) >= 6, `every round stored (${rounds.n})`);
    } finally {
      await store.close();
    }
    const mine = botComments(gh);
    assert.equal(mine.length, 1, 'one reply, edited in place; no sticky comment of the bot beside the workflow\'s');
    assert.match(mine[0].body, new RegExp(`📦 \`/perf quick\` from @maintainer: the \\[workflow run\\]\\([^)]+\\) of head \`${fork.headSha.slice(0, 12)}\` against base \`${fork.baseSha.slice(0, 12)}\` is done and its run folder is stored; (pass|warn|undecided|fail): `));
    assert.equal(gh.state.checkRuns(REPOSITORY).length, 1, 'the bot made no check run of its own');
    assert.deepEqual(gh.problems().map((c) => `${c.operationId} ${c.status}: ${c.problems.join('; ')}`), []);
  });
});
