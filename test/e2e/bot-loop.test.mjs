// The whole loop once: a maintainer comments `/perf quick` on a pull request → `perfgate bot`
// (its own process, SQLite) authorizes it, pins base and head and dispatches perf-command.yml
// → the workflow runs under act on this host, measuring the two real MariaDB builds with
// perfgate compare, and uploads its run folder → GitHub's workflow_run.completed reaches the
// bot → it downloads the artifact, checks it, stores it, and the sticky comment shows the table.
// The GitHub side is the double; the workflow and its action are fixtures that keep the bot's
// contract (test/fixtures/workflows/perf-command.yml).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAct, stepLog } from '../support/act.mjs';
import {
  bot, botComments, botEnvironment, commentEvent, postComment, published, REPOSITORY, ROOT, spawnBot, startDouble, waitFor, workflowRunEvent,
} from '../support/bot.mjs';
import { ciTool } from '../support/ci-tools.mjs';

const CACHE = process.env.PERFGATE_CACHE || path.join(os.homedir(), '.cache', 'perfgate');
const BASE_PREFIX = process.env.PERFGATE_BASE || path.join(CACHE, 'servers/mariadb-10.11.18/usr');
const HEAD_PREFIX = process.env.PERFGATE_HEAD || path.join(CACHE, 'servers/mariadb-10.11.19/usr');

function requireTools() {
  ciTool('act');
  ciTool('actionlint');
  for (const prefix of [BASE_PREFIX, HEAD_PREFIX]) {
    if (!existsSync(path.join(prefix, 'sbin/mariadbd'))) {
      throw new Error(`${prefix}/sbin/mariadbd is missing: run \`make setup\` (scripts/fetch-servers.sh unpacks Debian's MariaDB 10.11.18 and 10.11.19), or set PERFGATE_BASE and PERFGATE_HEAD`);
    }
  }
  try {
    execFileSync('sysbench', ['--version']);
  } catch {
    throw new Error('sysbench is missing: run `make setup` (it installs Debian\'s sysbench 1.0.20)');
  }
}

/** A fork as a git repository: the fixture workflow and action, then a base and a head commit. */
function layOutFork(folder) {
  const repo = path.join(folder, 'fork');
  mkdirSync(path.join(repo, '.github/workflows'), { recursive: true });
  cpSync(path.join(ROOT, 'test/fixtures/workflows/perf-command.yml'), path.join(repo, '.github/workflows/perf-command.yml'));
  cpSync(path.join(ROOT, 'test/fixtures/actions/perf-command'), path.join(repo, '.github/actions/perf-command'), { recursive: true });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(repo, 'node_modules'));
  const git = (...args) => execFileSync('git', ['-c', 'user.name=perfgate test', '-c', 'user.email=test@perfgate.invalid', ...args], { cwd: repo, encoding: 'utf8' }).trim();
  git('init', '-q', '-b', 'main');
  writeFileSync(path.join(repo, 'storage.c'), 'int page_size = 16384;\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  const baseSha = git('rev-parse', 'HEAD');
  writeFileSync(path.join(repo, 'storage.c'), 'int page_size = 16384;\nint prefetch = 1;\n');
  git('commit', '-q', '-am', 'head: prefetch');
  return { repo, baseSha, headSha: git('rev-parse', 'HEAD') };
}

describe('/perf quick → dispatch → the workflow under act on two real servers → artifact → sticky comment', () => {
  let folder;
  let gh;
  let botProcess;
  let fork;
  let artifactsDir;
  let act;
  let comment;
  before(async () => {
    requireTools();
    folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bot-loop-'));
    fork = layOutFork(folder);
    assert.equal(execFileSync(ciTool('actionlint'), ['-no-color'], { cwd: fork.repo, encoding: 'utf8' }), '', 'the fixture workflow lints clean');
    artifactsDir = path.join(folder, 'artifacts');
    gh = await startDouble({ artifactsDir, baseSha: fork.baseSha, headSha: fork.headSha });
    botProcess = await spawnBot({ env: botEnvironment({ folder, apiUrl: gh.url }) });
  });
  after(async () => {
    if (botProcess && botProcess.child.exitCode === null) {
      botProcess.child.kill('SIGTERM');
      await botProcess.exited;
    }
    await gh?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('dispatches the pinned commits when a maintainer comments /perf quick', async () => {
    comment = await postComment(gh, 'maintainer', 'Let us measure it.\n\n/perf quick tests=point-query rounds=2 metric=time');
    const answer = await botProcess.deliver('issue_comment', commentEvent({ comment }));
    assert.equal(answer.status, 202, answer.text);
    await waitFor('the dispatch', () => gh.state.dispatches.length === 1 && botComments(gh).length === 1);
    assert.deepEqual(gh.state.dispatches[0].inputs, {
      pr: '7', 'base-sha': fork.baseSha, 'head-sha': fork.headSha, suite: 'quick', options: '{"tests":["point-query"],"rounds":2,"metric":"time"}', 'request-id': String(comment.id),
    });
    assert.match(botComments(gh)[0].body, /### ⏳ perfgate quick: queued/);
  });

  it('runs the dispatched workflow under act: perfgate compare on the two servers, the run folder uploaded', async () => {
    const dispatch = gh.state.dispatches[0];
    const event = published('workflow_dispatch', undefined);
    event.inputs = dispatch.inputs;
    event.ref = `refs/heads/${dispatch.ref}`;
    event.workflow = '.github/workflows/perf-command.yml';
    event.repository = { ...event.repository, name: 'fork', full_name: REPOSITORY, owner: { ...event.repository.owner, login: 'perfgate-test' } };
    event.sender = { ...event.sender, login: 'perfgate[bot]', type: 'Bot' };
    act = await runAct({
      workdir: fork.repo,
      workflow: '.github/workflows/perf-command.yml',
      event: 'workflow_dispatch',
      payload: event,
      apiUrl: gh.url,
      repository: REPOSITORY,
      runId: dispatch.runId,
      artifactsDir,
      env: { PERFGATE_CLI: path.join(ROOT, 'cli/bin/perfgate.js'), PERFGATE_BASE_PREFIX: BASE_PREFIX, PERFGATE_HEAD_PREFIX: HEAD_PREFIX },
      timeoutMs: 600_000,
    });
    writeFileSync(path.join(folder, 'act.log'), stepLog(act));
    assert.equal(act.exitCode, 0, `act failed:\n${stepLog(act).slice(-6000)}\n${act.stderr.slice(-2000)}`);
    assert.deepEqual(act.jobs, { measure: 'success' });
    assert.match(act.outputs.measure['exit-code'], /^[013]$/);
    assert.ok(existsSync(path.join(artifactsDir, String(dispatch.runId), `perfgate-${comment.id}`, `perfgate-${comment.id}.zip`)));
  });

  it('stores the run and shows the table in the sticky comment when GitHub says the run completed', async () => {
    const dispatch = gh.state.dispatches[0];
    gh.state.updateWorkflowRun(REPOSITORY, dispatch.runId, { status: 'completed', conclusion: 'success' });
    const run = await (await fetch(`${gh.url}/repos/${REPOSITORY}/actions/runs/${dispatch.runId}`)).json();
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
        .select(['s.side', 'c.sha', 's.version', 'r.suite']).where('r.request_id', '=', request.id).orderBy('s.side').execute();
      assert.deepEqual(stored.map((s) => [s.side, s.sha, s.suite]), [['base', fork.baseSha, 'quick'], ['head', fork.headSha, 'quick']]);
      assert.match(stored[0].version, /^10\.11\.18-MariaDB/);
      assert.match(stored[1].version, /^10\.11\.19-MariaDB/);
    } finally {
      await store.close();
    }
    const [sticky] = botComments(gh);
    assert.match(sticky.body, /^<!-- perfgate:comment suite=quick -->\n### (✅|⚠️|❔|❌) perfgate quick: (pass|warn|inconclusive|fail)\n/);
    assert.match(sticky.body, /\| point-query \| \d\.\d\d \|/, 'the rQPS table has the measured row');
    assert.match(sticky.body, new RegExp(`@ ${fork.headSha.slice(0, 12)} against base .* @ ${fork.baseSha.slice(0, 12)}`));
    const check = gh.state.checkRuns(REPOSITORY).find((c) => c.externalId === String(comment.id));
    assert.equal(check.status, 'completed');
    assert.ok(['success', 'neutral', 'failure'].includes(check.conclusion));
    assert.equal(check.headSha, fork.headSha);
    assert.deepEqual(gh.problems().map((c) => `${c.operationId} ${c.status}: ${c.problems.join('; ')}`), []);
  });
});
