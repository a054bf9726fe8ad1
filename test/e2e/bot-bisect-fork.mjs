// /perf bisect, the whole loop once on the real MariaDB fork that test/e2e/run.sh builds: a
// maintainer comments `/perf bisect base bisect-tip tests=update-index_range=100` → `perfgate
// bot` (its own process, SQLite) resolves both refs through the API, pins them and dispatches
// .github/examples/perf-bisect.yml → that workflow runs under act on this host with perfgate's
// action (job: bisect): it builds (from the build cache run.sh filled) and measures the fork's
// commits under callgrind, uploading bisect.json after every step → the bot, looking at the
// run's artifacts from its queue, edits its reply as the steps come → workflow_run.completed →
// the bot checks the result artifact and its reply names the culprit, the commit tagged
// bisect-slow, with row_upd_sec_index_entry among the functions that grew. The GitHub side is
// the double. The fork is not changed: the workflow's repository is a clone of it sharing its
// objects, whose default branch holds only the copied workflow and the e2e suite's limits.
//
// Needs: run.sh's fork and builds (PERFGATE_E2E_FORK, default ~/.cache/perfgate/e2e/mariadb-fork),
// act (make setup), valgrind and sysbench. Run by test/e2e/run.sh after its own bisection (not by make test-act: the fork is the e2e tier's).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runAct, stepLog } from '../support/act.mjs';
import { EXAMPLES, exportPerfgate, pinnedAction, workflowDispatchEvent } from '../support/action-fork.mjs';
import {
  bot, botComments, botEnvironment, commentEvent, postComment, REPOSITORY, spawnBot, startDouble, waitFor, workflowRunEvent,
} from '../support/bot.mjs';
import { ciTool } from '../support/ci-tools.mjs';

const CACHE = process.env.PERFGATE_CACHE || path.join(os.homedir(), '.cache', 'perfgate');
const FORK = process.env.PERFGATE_E2E_FORK || path.join(CACHE, 'e2e', 'mariadb-fork');
const E2E_SUITE = fileURLToPath(new URL('thresholds/suites/e2e.yml', import.meta.url));
const GITHUB_TOKEN = 'ghs_botBisectWorkflowTokenForTheDouble1';
const LINE = '/perf bisect base bisect-tip tests=update-index_range=100';
const git = (cwd, ...args) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8' }).trim();
const GIT_IDENTITY = ['-c', 'user.name=perfgate test', '-c', 'user.email=test@perfgate.invalid'];

function requireTools() {
  ciTool('act');
  for (const [tool, args] of [['valgrind', ['--version']], ['sysbench', ['--version']]]) {
    try {
      execFileSync(tool, args, { stdio: 'ignore' });
    } catch {
      throw new Error(`${tool} is missing: run make setup (it installs Debian's ${tool})`);
    }
  }
  for (const ref of ['base', 'bisect-tip', 'bisect-slow']) {
    try {
      git(FORK, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
    } catch {
      throw new Error(`the e2e fork ${FORK} has no ${ref}: run test/e2e/run.sh first (it prepares and builds the fork)`);
    }
  }
}

/** The commits of base..bisect-tip and base, as the double's history (for resolving refs). */
function forkHistory() {
  const lines = git(FORK, 'log', '--format=%H %P', 'bisect-tip').split('\n');
  const base = git(FORK, 'rev-parse', 'base^{commit}');
  const commits = [];
  for (const line of lines) {
    const [sha, ...parents] = line.split(' ').filter(Boolean);
    commits.push({ sha, parents, message: sha === base ? 'base' : `commit ${sha.slice(0, 7)}` });
    if (sha === base) break;
  }
  const refs = Object.fromEntries(['base', 'bisect-tip', 'bisect-slow'].map((ref) => [ref, git(FORK, 'rev-parse', `${ref}^{commit}`)]));
  return { commits, refs };
}

/**
 * The workflow's repository: a clone sharing the fork's objects (nothing of the fork is
 * written), whose default branch `main` holds only what a fork adds for perfgate: the copied
 * perf-bisect.yml and the e2e suite as perfgate/thresholds.
 */
function workflowRepository(folder) {
  const repo = path.join(folder, 'fork');
  execFileSync('git', ['clone', '--quiet', '--shared', '--no-checkout', FORK, repo]);
  // The clone's own main (a copy of the fork's) makes way for the default branch a fork's
  // perfgate files live on; the fork's main stays as origin/main.
  git(repo, 'update-ref', '-d', 'refs/heads/main');
  git(repo, 'checkout', '--quiet', '--orphan', 'main');
  mkdirSync(path.join(repo, '.github', 'workflows'), { recursive: true });
  cpSync(path.join(EXAMPLES, 'perf-bisect.yml'), path.join(repo, '.github', 'workflows', 'perf-bisect.yml'));
  mkdirSync(path.join(repo, 'perfgate', 'thresholds', 'suites'), { recursive: true });
  cpSync(E2E_SUITE, path.join(repo, 'perfgate', 'thresholds', 'suites', 'e2e.yml'));
  git(repo, 'add', '.github', 'perfgate');
  execFileSync('git', ['-C', repo, ...GIT_IDENTITY, 'commit', '--quiet', '-m', 'perfgate: bisect workflow and limits']);
  return repo;
}

describe('/perf bisect → perfgate bot → perf-bisect.yml under act on the MariaDB fork → culprit bisect-slow in the reply', () => {
  let folder;
  let gh;
  let botProcess;
  let comment;
  let history;
  let repo;
  let perfgateExport;
  let artifactsDir;
  before(async () => {
    requireTools();
    folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bot-bisect-'));
    history = forkHistory();
    repo = workflowRepository(folder);
    perfgateExport = exportPerfgate(path.join(folder, 'perfgate'));
    artifactsDir = path.join(folder, 'artifacts');
    gh = await startDouble({
      artifactsDir,
      extra: {
        githubToken: GITHUB_TOKEN,
        workflows: { [REPOSITORY]: [{ file: 'perf-bisect.yml', runName: bot.bisectContract.RUN_NAME }] },
        commits: { [REPOSITORY]: history },
      },
    });
    botProcess = await spawnBot({ env: botEnvironment({ folder, apiUrl: gh.url, extra: { PERFGATE_REPORT: 'workflow', PERFGATE_BISECT_POLL_SECONDS: '5' } }) });
  });
  after(async () => {
    if (botProcess && botProcess.child.exitCode === null) {
      botProcess.child.kill('SIGTERM');
      await botProcess.exited;
    }
    await gh?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  const reply = () => botComments(gh).find((c) => c.body.startsWith(`<!-- perfgate:reply comment=${comment.id} -->`));

  it('bisects base..bisect-tip and names bisect-slow, showing the steps as they come', async () => {
    const started = performance.now();
    comment = await postComment(gh, 'maintainer', `update-index got slower somewhere here.\n\n${LINE}`);
    const answer = await botProcess.deliver('issue_comment', commentEvent({ comment }));
    assert.equal(answer.status, 202, answer.text);
    await waitFor('the dispatch and the reply', () => gh.state.dispatches.length === 1 && reply());
    const dispatch = gh.state.dispatches[0];
    assert.deepEqual(dispatch.inputs, {
      'pull-request': '7', 'good-sha': history.refs.base, 'bad-sha': history.refs['bisect-tip'], 'good-ref': 'base', 'bad-ref': 'bisect-tip', tests: 'update-index_range=100', 'request-id': `c${comment.id}`,
    });
    assert.match(reply().body, /### 🔎 perfgate bisect: queued/);

    // The reply as the bot edits it while the workflow runs.
    const seen = new Set();
    const watching = setInterval(() => {
      const body = reply()?.body;
      if (body) seen.add(body);
    }, 500);
    let act;
    try {
      act = await runAct({
        workdir: repo,
        workflow: '.github/workflows/perf-bisect.yml',
        event: 'workflow_dispatch',
        payload: workflowDispatchEvent({ workflow: 'perf-bisect.yml', inputs: dispatch.inputs }),
        apiUrl: gh.url,
        repository: REPOSITORY,
        runId: dispatch.runId,
        artifactsDir,
        secrets: { GITHUB_TOKEN },
        vars: { PERFGATE_BISECT_SUITE: 'e2e' },
        localRepositories: { [pinnedAction()]: perfgateExport },
        scratchParent: folder,
        timeoutMs: 45 * 60 * 1000,
      });
    } finally {
      clearInterval(watching);
    }
    writeFileSync(path.join(folder, 'act.log'), stepLog(act));
    assert.equal(act.exitCode, 0, `act failed:\n${stepLog(act).slice(-8000)}\n${act.stderr.slice(-2000)}`);
    assert.deepEqual(act.jobs, { bisect: 'success' });
    assert.ok(existsSync(path.join(artifactsDir, String(dispatch.runId), 'perfgate-bisect', 'perfgate-bisect.zip')), 'the result was uploaded');
    const progress = [...seen].filter((body) => /perfgate bisect: running/.test(body));
    assert.ok(progress.length >= 1, `the reply showed the bisection while it ran: ${[...seen].map((b) => b.split('\n')[1]).join(' | ')}`);

    gh.state.updateWorkflowRun(REPOSITORY, dispatch.runId, { status: 'completed', conclusion: 'success' });
    const run = await (await fetch(`${gh.url}/repos/${REPOSITORY}/actions/runs/${dispatch.runId}`)).json();
    const delivered = await botProcess.deliver('workflow_run', workflowRunEvent({ run, workflow: 'perf-bisect.yml' }));
    assert.ok([200, 202].includes(delivered.status), delivered.text);
    const store = await bot.openStore(path.join(folder, 'history.db'));
    let request;
    let bisection;
    try {
      request = await waitFor('the request to complete', async () => {
        const r = await bot.requestForComment(store, comment.id);
        return ['completed', 'failed'].includes(r.status) && r;
      }, { timeoutMs: 120_000 });
      bisection = await bot.getBisection(store, request.id);
    } finally {
      await store.close();
    }
    const seconds = (performance.now() - started) / 1000;
    const slow = history.refs['bisect-slow'];
    assert.equal(request.status, 'completed', request.detail);
    assert.equal(request.detail, `found: culprit ${slow}`);
    const body = reply().body;
    assert.match(body, /### 🎯 perfgate bisect: culprit found/);
    assert.match(body, new RegExp(`\\*\\*Culprit:\\*\\* \`${slow}\``));
    assert.match(body, /^- `row_upd_sec_index_entry/m);
    assert.match(body, new RegExp(`\nculprit: ${slow}\n`));
    assert.deepEqual([bisection.status, bisection.culpritSha, bisection.culpritParentSha], ['found', slow, git(FORK, 'rev-parse', `${slow}^`)]);
    const steps = bisection.steps.length;
    // run.sh keeps the reply beside its run folders.
    if (process.env.E2E_OUT) writeFileSync(path.join(process.env.E2E_OUT, 'bot-bisect-reply.md'), body);
    process.stderr.write(`bot-bisect: culprit ${slow} named in the reply ${seconds.toFixed(0)} s after the command (act ${(act.durationMs / 1000).toFixed(0)} s, ${steps} steps, ${progress.length} progress edits seen)\n`);
    assert.deepEqual(gh.problems().map((c) => `${c.operationId} ${c.status}: ${c.problems.join('; ')}`), []);
  });
});
