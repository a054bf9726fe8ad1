// Watching main through the bot's jobs: GitHub's published push payloads triaged, the watch
// workflow dispatched with pinned SHAs against the GitHub double (the previous main result as
// base), the re-measurement dispatched for the failing microbenchmarks only, the results
// stored along main, and the regression filed, then closed by a later push.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createRequire } from 'node:module';
import {
  APP_ID, INSTALLATION_ID, REPOSITORY, appKeys, botEnvironment, mainPushEvent, published, runFolderFiles, settled, startBotOn, startDouble, waitFor, workflowRunEvent, writeArtifact,
} from '../../support/bot.mjs';

const require = createRequire(import.meta.url);
const core = require('@perfgate/core');
const store = require('../../../bot/src/store');
const { createGitHub } = require('../../../bot/src/app/github');
const { defaultBranch } = require('../../../bot/src/app/pull-request');
const { readBotConfig } = require('../../../bot/src/app/config');
const YAML = require('yaml');
const { mainPush, watchPushJob, dispatchInputs, watchRunCompleted, WATCH_RUN_NAME } = require('../../../bot/src/app/watch-main');

const FIXTURES = path.join(import.meta.dirname, '../../fixtures');
const load = (file) => JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8'));
const quiet = { info() {}, warn() {}, error() {} };
const { GOOD, BAD, FIX, NEXT, regressedRun: regressed, aaRun: aa } = require('../../support/watch-runs');

describe('which pushes are watched', () => {
  test('a push to the default branch is; tags, other branches, deletions and a watch turned off are not', () => {
    const tag = published('push', undefined, (e) => e.ref.startsWith('refs/tags/') && !e.deleted);
    assert.deepEqual(mainPush(tag), { ignore: 'a push to refs/tags/simple-tag, not to the watched branch master' });
    const onMaster = published('push', undefined, (e) => e.ref === 'refs/heads/master');
    const work = mainPush(onMaster).work;
    assert.equal(work.kind, 'watch-push');
    assert.equal(work.headSha, onMaster.after);
    assert.deepEqual(work.commits.map((c) => c.sha).at(-1), onMaster.after);
    assert.deepEqual(mainPush(mainPushEvent({ before: GOOD, after: BAD })).work,
      { kind: 'watch-push', headSha: BAD, before: GOOD, commits: [{ sha: BAD, subject: 'Faster update-index', committedAt: Date.parse(mainPushEvent({ before: GOOD, after: BAD }).commits[0].timestamp) }] });
    assert.deepEqual(mainPush(mainPushEvent({ before: GOOD, after: BAD, ref: 'refs/heads/feature' })), { ignore: 'a push to refs/heads/feature, not to the watched branch main' });
    assert.deepEqual(mainPush(mainPushEvent({ before: GOOD, after: BAD, ref: 'refs/heads/release' }), { branch: 'release' }).work.headSha, BAD);
    assert.deepEqual(mainPush({ ...mainPushEvent({ before: GOOD, after: BAD }), deleted: true }), { ignore: 'the branch main was deleted' });
    assert.deepEqual(mainPush(mainPushEvent({ before: GOOD, after: BAD }), { enabled: false }), { ignore: 'watching main is off (PERFGATE_WATCH)' });
    assert.equal(mainPush(mainPushEvent({ before: '0'.repeat(40), after: BAD })).work.before, null);
  });
});

// A store and a GitHub double for one describe's tests, the bot watching `suites`.
function watching(suites) {
  const env = {};
  before(async () => {
    env.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-watch-main-'));
    env.gh = await startDouble({
      extra: { workflows: { [REPOSITORY]: ['perf-command.yml', { file: 'perf-watch.yml', runName: WATCH_RUN_NAME }] } },
    });
    env.db = await store.openStore(path.join(env.dir, 'history.db'));
    const github = createGitHub({ appId: APP_ID, privateKey: appKeys().privateKey, apiUrl: env.gh.url, pacing: 'none', retryBaseMs: 10 }, quiet);
    env.ctx = { store: env.db, github, log: quiet, botLogin: 'perfgate[bot]', defaultBranch, config: { watch: { workflow: 'perf-watch.yml', suites }, thresholds: core.loadThresholds(core.SHIPPED_THRESHOLDS_DIR) } };
  });
  after(async () => {
    if (env.db) await env.db.close();
    if (env.gh) await env.gh.close();
    fs.rmSync(env.dir, { recursive: true, force: true });
  });
  return env;
}

describe('a push to main, measured, re-measured, filed and closed', () => {
  const env = watching(['quick']);
  let gh;
  let db;
  let ctx;
  before(() => ({ gh, db, ctx } = env));
  const job = (payload) => ({ payload: { repo: REPOSITORY, installationId: INSTALLATION_ID, ...mainPush(payload).work } });
  const dispatches = () => gh.callsTo('actions/create-workflow-dispatch').map((c) => ({ status: c.status, ...c.requestBody }));

  test('the pushed commit is measured against the main tip before it, once however often the push arrives', async () => {
    await watchPushJob(ctx, job(mainPushEvent({ before: GOOD, after: BAD })));
    await watchPushJob(ctx, job(mainPushEvent({ before: GOOD, after: BAD })));
    const measure = await store.watchRunOf(db, { repo: REPOSITORY, headSha: BAD, purpose: 'measure', suite: 'quick' });
    assert.deepEqual(dispatches(), [{
      status: 200, ref: 'main', return_run_details: true,
      inputs: { 'base-sha': GOOD, 'head-sha': BAD, suite: 'quick', options: '', purpose: 'measure', 'request-id': `w${measure.id}` },
    }]);
    assert.deepEqual([measure.status, measure.baseSha], ['dispatched', GOOD]);
    assert.deepEqual([await store.mainSeqOf(db, { repo: REPOSITORY, sha: GOOD }), await store.mainSeqOf(db, { repo: REPOSITORY, sha: BAD })], [0, 1]);
  });

  test('a fail is re-measured with the failing microbenchmarks only, on the same pinned pair; confirmed, it is filed', async () => {
    const measure = await store.watchRunOf(db, { repo: REPOSITORY, headSha: BAD, purpose: 'measure', suite: 'quick' });
    const first = await watchRunCompleted(ctx, { watchRun: measure, workflowRunId: 9100, ...regressed() });
    assert.deepEqual(first.actions, []);
    assert.deepEqual(first.confirming.tests, ['point-query', 'update-index_range=100']);
    assert.deepEqual(dispatches().at(-1).inputs, {
      'base-sha': GOOD, 'head-sha': BAD, suite: 'quick', options: 'tests=point-query,update-index_range=100', purpose: 'confirm', 'request-id': `w${first.confirming.id}`,
    });
    assert.equal(gh.state.issues(REPOSITORY).filter((i) => !i.pull).length, 0);
    const confirm = await store.getWatchRun(db, first.confirming.id);
    const second = await watchRunCompleted(ctx, { watchRun: confirm, workflowRunId: 9101, ...regressed() });
    assert.deepEqual(second.actions.map((a) => [a.action, a.benchKey]), [['file', 'point-query'], ['file', 'update-index_range=100']]);
    assert.equal(second.confirming, null);
    assert.deepEqual(gh.state.issues(REPOSITORY).filter((i) => !i.pull).map((i) => i.title), [
      'point-query: 1.088× instructions per query since abc1234', 'update-index_range=100: 1.049× instructions per query since abc1234']);
    // The history holds the series along main: QPS of the base (the tip before) and the head.
    const series = await store.mainSeries(db, { repo: REPOSITORY, microbenchmark: 'point-query', signal: 'qps' });
    assert.deepEqual([...new Set(series.map((p) => [p.seq, p.sha].join(' ')))], [`0 ${GOOD}`, `1 ${BAD}`]);
    assert.equal(dispatches().length, 2);
  });

  test('while the regression is open, the next push is measured against its last good commit, and a commit within limits closes it', async () => {
    await watchPushJob(ctx, job(mainPushEvent({ before: BAD, after: FIX })));
    assert.deepEqual(dispatches().at(-1).inputs, {
      'base-sha': GOOD, 'head-sha': FIX, suite: 'quick', options: '', purpose: 'measure', 'request-id': dispatches().at(-1).inputs['request-id'],
    });
    const measure = await store.watchRunOf(db, { repo: REPOSITORY, headSha: FIX, purpose: 'measure', suite: 'quick' });
    const done = await watchRunCompleted(ctx, { watchRun: measure, workflowRunId: 9102, ...aa() });
    assert.deepEqual(done.actions.map((a) => [a.action, a.benchKey, a.fixedBy]), [['close', 'point-query', FIX], ['close', 'update-index_range=100', FIX]]);
    assert.equal(done.confirming, null);
    assert.deepEqual(gh.state.issues(REPOSITORY).filter((i) => !i.pull).map((i) => i.state), ['closed', 'closed']);
    assert.deepEqual([await store.mainSeqOf(db, { repo: REPOSITORY, sha: BAD }), await store.mainSeqOf(db, { repo: REPOSITORY, sha: FIX })], [1, 2]);
    // Nothing open: the next push is measured against the latest measured main commit.
    await watchPushJob(ctx, job(mainPushEvent({ before: FIX, after: NEXT })));
    assert.deepEqual([dispatches().at(-1).inputs['base-sha'], dispatches().at(-1).inputs['head-sha']], [FIX, NEXT]);
    assert.deepEqual(gh.problems(), []);
  });

  test('a dispatch GitHub refuses leaves the watch run failed, saying why; it is not asked again', async () => {
    const other = 'e'.repeat(40);
    gh.failNext('actions/create-workflow-dispatch', { status: 422, body: { message: "Workflow does not have 'workflow_dispatch' trigger", documentation_url: 'https://docs.github.com', status: '422' } });
    const calls = dispatches().length;
    await watchPushJob(ctx, job(mainPushEvent({ before: GOOD, after: other })));
    const failed = await store.watchRunOf(db, { repo: REPOSITORY, headSha: other, purpose: 'measure', suite: 'quick' });
    assert.deepEqual([failed.status, failed.detail, failed.workflowRunId], ['failed', "GitHub refused to run perf-watch.yml: 422 Workflow does not have 'workflow_dispatch' trigger", null]);
    await watchPushJob(ctx, job(mainPushEvent({ before: GOOD, after: other })));
    assert.equal(dispatches().length, calls + 1);
  });
});

describe('watching main with two suites', () => {
  const env = watching(['quick', 'tpcc']);
  let gh;
  let db;
  let ctx;
  before(() => ({ gh, db, ctx } = env));
  const job = (payload) => ({ payload: { repo: REPOSITORY, installationId: INSTALLATION_ID, ...mainPush(payload).work } });
  const sent = () => gh.callsTo('actions/create-workflow-dispatch').map((c) => c.requestBody.inputs);

  test('each suite is dispatched, re-measured and based on its own runs; a regression of one suite moves only its base', async () => {
    await watchPushJob(ctx, job(mainPushEvent({ before: GOOD, after: BAD })));
    await watchPushJob(ctx, job(mainPushEvent({ before: GOOD, after: BAD })));
    assert.deepEqual(sent().map((i) => [i.suite, i['base-sha'], i['head-sha'], i.purpose]), [['quick', GOOD, BAD, 'measure'], ['tpcc', GOOD, BAD, 'measure']]);
    const quick = await store.watchRunOf(db, { repo: REPOSITORY, headSha: BAD, purpose: 'measure', suite: 'quick' });
    const tpcc = await store.watchRunOf(db, { repo: REPOSITORY, headSha: BAD, purpose: 'measure', suite: 'tpcc' });
    assert.notEqual(quick.id, tpcc.id);
    assert.equal((await watchRunCompleted(ctx, { watchRun: tpcc, workflowRunId: 9500, ...aa() })).confirming, null);
    const first = await watchRunCompleted(ctx, { watchRun: quick, workflowRunId: 9501, ...regressed() });
    assert.deepEqual([first.confirming.suite, sent().at(-1).suite, sent().at(-1).purpose], ['quick', 'quick', 'confirm']);
    const filed = await watchRunCompleted(ctx, { watchRun: await store.getWatchRun(db, first.confirming.id), workflowRunId: 9502, ...regressed() });
    assert.deepEqual(filed.actions.map((a) => a.action), ['file', 'file']);
    // The quick suite's rows regressed: its next run is against their last good commit; TPC-C's
    // against the commit it measured last.
    await watchPushJob(ctx, job(mainPushEvent({ before: BAD, after: FIX })));
    assert.deepEqual(sent().slice(-2).map((i) => [i.suite, i['base-sha'], i['head-sha']]), [['quick', GOOD, FIX], ['tpcc', BAD, FIX]]);
    assert.deepEqual(gh.problems(), []);
  });
});

describe('the bot service watching main (PERFGATE_WATCH=on)', () => {
  let gh;
  let artifactsDir;
  before(async () => {
    artifactsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-watch-artifacts-'));
    gh = await startDouble({ artifactsDir, extra: { workflows: { [REPOSITORY]: ['perf-command.yml', { file: 'perf-watch.yml', runName: WATCH_RUN_NAME }] } } });
  });
  after(async () => {
    if (gh) await gh.close();
    fs.rmSync(artifactsDir, { recursive: true, force: true });
  });

  test('a signed push delivery to main dispatches the watch workflow once; with the watch off it is ignored', async () => {
    const payload = () => {
      const p = mainPushEvent({ before: GOOD, after: BAD });
      p.installation = { id: INSTALLATION_ID };
      return p;
    };
    const off = await startBotOn(gh);
    try {
      const answer = await off.deliver('push', payload());
      assert.deepEqual([answer.status, answer.text], [200, 'ignored: watching main is off (PERFGATE_WATCH)']);
    } finally {
      await off.close();
    }
    const on = await startBotOn(gh, { env: { PERFGATE_WATCH: 'on' } });
    try {
      const first = await on.deliver('push', payload());
      assert.deepEqual([first.status, first.text], [202, 'queued']);
      const again = await on.deliver('push', payload());
      assert.deepEqual([again.status, again.text], [200, 'duplicate push']);
      const calls = await waitFor('the watch dispatch', () => {
        const found = gh.callsTo('actions/create-workflow-dispatch');
        return found.length ? found : null;
      });
      assert.equal(calls.length, 1);
      assert.equal(calls[0].path, `/repos/${REPOSITORY}/actions/workflows/perf-watch.yml/dispatches`);
      assert.deepEqual(calls[0].requestBody, { ref: 'main', inputs: { 'base-sha': GOOD, 'head-sha': BAD, suite: 'quick', options: '', purpose: 'measure', 'request-id': 'w1' }, return_run_details: true });
      // The run completes with its run folder (no pull request: a main commit): stored along main.
      const { workflow_runs: runs } = await (await fetch(`${gh.url}/repos/${REPOSITORY}/actions/runs`)).json();
      const run = runs.find((r) => r.display_title === `perfgate watch quick of ${BAD} (w1)`);
      assert.ok(run, `no run named for w1 among ${runs.map((r) => r.display_title).join(', ')}`);
      writeArtifact(artifactsDir, run.id, 'perfgate-quick', runFolderFiles({ baseSha: GOOD, headSha: BAD, pr: null }));
      gh.state.updateWorkflowRun(REPOSITORY, run.id, { status: 'completed', conclusion: 'success' });
      const completed = await on.deliver('workflow_run', workflowRunEvent({ run, workflow: 'perf-watch.yml' }));
      assert.deepEqual([completed.status, completed.text], [202, 'queued']);
      await settled(on);
      const stored = await store.watchRunOf(on.store, { repo: REPOSITORY, headSha: BAD, purpose: 'measure', suite: 'quick' });
      assert.deepEqual([stored.status, stored.workflowRunId, typeof stored.runId], ['stored', run.id, 'number']);
      const series = await store.mainSeries(on.store, { repo: REPOSITORY, microbenchmark: 'point-query', signal: 'qps' });
      assert.deepEqual([...new Set(series.map((p) => `${p.seq} ${p.sha}`))], [`0 ${GOOD}`, `1 ${BAD}`]);
      // The quick-tiny run has no fail: nothing is re-measured, nothing filed.
      assert.equal(gh.callsTo('actions/create-workflow-dispatch').length, 1);
      assert.deepEqual(gh.problems(), []);
    } finally {
      await on.close();
    }
  });
});

test('the watch settings: off by default, on with its branch and workflow, a bad value named', () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-watch-config-'));
  try {
    const env = (extra) => botEnvironment({ folder, apiUrl: 'http://127.0.0.1:1', extra });
    assert.deepEqual([readBotConfig({ env: env(), port: '0' }).watch, readBotConfig({ env: env(), port: '0' }).tracker],
      [{ enabled: false, branch: null, workflow: 'perf-watch.yml', suites: ['quick'], changePointPython: null }, 'github']);
    assert.deepEqual(readBotConfig({ env: env({ PERFGATE_WATCH: 'on', PERFGATE_WATCH_BRANCH: 'release/11.4', PERFGATE_WATCH_WORKFLOW: 'watch.yaml' }), port: '0' }).watch,
      { enabled: true, branch: 'release/11.4', workflow: 'watch.yaml', suites: ['quick'], changePointPython: null });
    assert.throws(() => readBotConfig({ env: env({ PERFGATE_WATCH: 'yes' }), port: '0' }), /PERFGATE_WATCH.*'yes'.*expected on or off/);
    assert.deepEqual(readBotConfig({ env: env({ PERFGATE_WATCH: 'on', PERFGATE_WATCH_SUITES: 'quick, tpcc,quick ddl' }), port: '0' }).watch.suites, ['quick', 'tpcc', 'ddl']);
    for (const bad of ['quick;rm -rf /', 'Quick', ',', 'a,b,c,d,e,f,g,h,i', `${'q'.repeat(65)}`]) {
      assert.throws(() => readBotConfig({ env: env({ PERFGATE_WATCH: 'on', PERFGATE_WATCH_SUITES: bad }), port: '0' }), /PERFGATE_WATCH_SUITES .*expected one to eight suite names separated by commas, such as quick,tpcc/, bad);
    }
    assert.throws(() => readBotConfig({ env: env({ PERFGATE_WATCH: 'on', PERFGATE_WATCH_SUITES: 'quick,nightly' }), port: '0' }), /^UsageError: PERFGATE_WATCH_SUITES 'nightly' is not a suite of .*thresholds; expected one of: .*quick.*tpcc/);
    assert.deepEqual(readBotConfig({ env: env({ PERFGATE_WATCH_SUITES: 'nightly' }), port: '0' }).watch.suites, ['nightly'], 'not checked while watching is off');
    assert.throws(() => readBotConfig({ env: env({ PERFGATE_WATCH: 'on', PERFGATE_WATCH_SUITES: 'quick,contention-quick' }), port: '0' }), /^UsageError: PERFGATE_WATCH_SUITES: quick and contention-quick both have the row 'point-query'; expected suites with no row in common/);
    assert.deepEqual(readBotConfig({ env: env({ PERFGATE_WATCH: 'on', PERFGATE_WATCH_SUITES: 'quick,full,tpcc,ddl,ahi' }), port: '0' }).watch.suites, ['quick', 'full', 'tpcc', 'ddl', 'ahi'], 'the same catalogue names at other thread counts are other rows');
    assert.throws(() => readBotConfig({ env: env({ PERFGATE_TRACKER: 'bugzilla' }), port: '0' }), /PERFGATE_TRACKER.*'bugzilla'.*expected github or jira/);
    assert.throws(() => readBotConfig({ env: env({ PERFGATE_TRACKER: 'jira', PERFGATE_JIRA_URL: 'https://example.atlassian.net' }), port: '0' }),
      /^UsageError: PERFGATE_JIRA_PROJECT is not set: .*PERFGATE_TRACKER=jira needs it$/);
    const jira = { PERFGATE_TRACKER: 'jira', PERFGATE_JIRA_URL: 'https://example.atlassian.net/', PERFGATE_JIRA_PROJECT: 'PERF', PERFGATE_JIRA_USER: 'bot@example.com' };
    assert.deepEqual(readBotConfig({ env: env({ ...jira, PERFGATE_JIRA_TOKEN: 'sekret-token' }), port: '0' }).jira,
      { url: 'https://example.atlassian.net', project: 'PERF', issueType: 'Bug', user: 'bot@example.com', token: 'sekret-token' });
    assert.throws(() => readBotConfig({ env: env({ ...jira, PERFGATE_JIRA_PROJECT: 'perf team', PERFGATE_JIRA_TOKEN: 'sekret-token' }), port: '0' }),
      (err) => /PERFGATE_JIRA_PROJECT 'perf team' is not valid; expected a Jira project key such as PERF/.test(err.message) && !err.message.includes('sekret'));
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
});

test('the example perf-watch.yml declares every input the bot sends and names its runs as the bot finds them', () => {
  const workflow = YAML.parse(fs.readFileSync(path.join(import.meta.dirname, '../../../.github/examples/perf-watch.yml'), 'utf8'));
  assert.equal(workflow['run-name'], WATCH_RUN_NAME);
  const sent = dispatchInputs({ watchRun: { id: 3, repo: REPOSITORY, baseSha: GOOD, headSha: BAD, purpose: 'confirm', suite: 'quick', tests: ['point-query'] } });
  assert.deepEqual(Object.keys(sent).sort(), Object.keys(workflow.on.workflow_dispatch.inputs).sort());
  assert.deepEqual(sent, { 'base-sha': GOOD, 'head-sha': BAD, suite: 'quick', options: 'tests=point-query', purpose: 'confirm', 'request-id': 'w3' });
  // No pull request, no gate: the measure job runs the action on the pinned pair only.
  const measure = workflow.jobs.measure.steps.find((step) => String(step.uses).startsWith('perfgate/perfgate/action@'));
  assert.deepEqual([measure.with['base-ref'], measure.with['head-sha'], measure.with['pull-request']], ['${{ inputs.base-sha }}', '${{ inputs.head-sha }}', undefined]);
  assert.equal(workflow.jobs.gate, undefined);
});

// A history on SQLite and a bot context against the GitHub double, for one describe block.
function watchContext() {
  const env = {};
  before(async () => {
    env.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-watch-points-'));
    env.gh = await startDouble();
    env.db = await store.openStore(path.join(env.dir, 'history.db'));
    const github = createGitHub({ appId: APP_ID, privateKey: appKeys().privateKey, apiUrl: env.gh.url, pacing: 'none', retryBaseMs: 10 }, quiet);
    env.ctx = { store: env.db, github, log: quiet, botLogin: 'perfgate[bot]', defaultBranch, config: { watch: { workflow: 'perf-watch.yml', suites: ['quick'] }, thresholds: core.loadThresholds(core.SHIPPED_THRESHOLDS_DIR) } };
  });
  after(async () => {
    if (env.db) await env.db.close();
    if (env.gh) await env.gh.close();
    fs.rmSync(env.dir, { recursive: true, force: true });
  });
  return env;
}

// Stores the judged runs of main commits 1..18 (each against the one before it) and the watch
// run that measured commit 12, and records commit 12's fail of update-index_range=100 on
// instructions as dismissed noise. -> {commits, key, last}: last is the judged run of commit 19.
async function historyWithDismissedFail(env, judged) {
  const commits = Array.from({ length: 20 }, (_, i) => (0xc0ffee00 + i).toString(16).padStart(40, 'd'));
  await store.recordMainline(env.db, { repo: REPOSITORY, commits: commits.map((sha) => ({ sha })), firstSeq: 0 });
  for (let i = 1; i < 19; i += 1) {
    const { runId } = await store.storeRun(env.db, { request: { repo: REPOSITORY, runKey: `main-${i}`, base: { sha: commits[i - 1] }, head: { sha: commits[i] } }, ...judged(i) });
    if (i !== 12) continue;
    const { watchRun } = await store.claimWatchRun(env.db, { repo: REPOSITORY, headSha: commits[12], baseSha: commits[11], purpose: 'measure', suite: 'quick', installationId: INSTALLATION_ID });
    await store.updateWatchRun(env.db, watchRun.id, { status: 'stored', runId });
  }
  const key = core.dedupeKey({ repo: REPOSITORY, benchKey: 'update-index_range=100', signal: 'instructions_per_query', firstBad: commits[12] });
  await store.claimRegression(env.db, {
    dedupeKey: key, repo: REPOSITORY, benchKey: 'update-index_range=100', signal: 'instructions_per_query', firstBad: commits[12], lastGood: commits[11],
    status: 'noise', note: 'one noisy point',
  });
  const last = await store.claimWatchRun(env.db, { repo: REPOSITORY, headSha: commits[19], baseSha: commits[18], purpose: 'measure', suite: 'quick', installationId: INSTALLATION_ID });
  return { commits, key, last };
}

describe('a change point over main confirms a fail once dismissed as noise', () => {
  const env = watchContext();

  test('the step Otava finds at the dismissed commit files it then, once', async () => {
    // Instructions per query of update-index_range=100 along 20 main commits: the ten real A/A
    // runs' levels, with the +31.6% step perfgate bisect measured from the 13th commit on.
    const series = load('watch/update-index-instr-aa-series.json');
    const values = series.points.map((p, i) => p.instructions_per_query * (i >= 12 ? series.step_ratio : 1));
    // Each commit measured against the one before it (real runs; their levels set to the series).
    const judged = (i) => {
      const { results, verdict } = i === 12 ? regressed() : aa();
      const item = verdict.benchmarks.find((b) => b.id === 'update-index_range=100');
      item.instructions.per_query = { ...item.instructions.per_query, base: values[i - 1], head: values[i] };
      return { results, verdict };
    };
    // The fail at the 13th commit was not reproduced by its re-measurement: noise, nothing filed.
    const { commits, key, last } = await historyWithDismissedFail(env, judged);
    const { db, gh, ctx } = env;
    await watchRunCompleted(ctx, { watchRun: last.watchRun, workflowRunId: 9300, ...judged(19) });

    const points = await store.changePointsOf(db, { repo: REPOSITORY, benchKey: 'update-index_range=100' });
    assert.deepEqual(points.map((p) => [p.signal, p.sha]), [['instructions_per_query', commits[12]]]);
    assert.ok(Math.abs(points[0].ratio - series.step_ratio) < 0.03, `ratio ${points[0].ratio}`);
    const issues = gh.state.issues(REPOSITORY).filter((i) => !i.pull);
    assert.deepEqual(issues.map((i) => i.title), [`update-index_range=100: 1.049× instructions per query since ${commits[12].slice(0, 7)}`]);
    assert.match(issues[0].body, /- change point over consecutive main commits: Apache Otava's E-Divisive means over main: instructions per query 200\.\dk → 26\d\.\dk \(×1\.\d{3}, p = [0-9.e-]+\) from /);
    const row = await store.regressionByKey(db, key);
    assert.deepEqual([row.status, row.issueKey, row.lastGood], ['open', String(issues[0].number), commits[11]]);
    assert.match(row.note, /^confirmed by change point: /);
    // Settled once: the next result finds the same change point and files nothing more.
    const next = await store.claimWatchRun(db, { repo: REPOSITORY, headSha: commits[19], baseSha: commits[18], purpose: 'confirm', suite: 'quick', installationId: INSTALLATION_ID });
    await watchRunCompleted(ctx, { watchRun: next.watchRun, workflowRunId: 9301, ...judged(19) });
    assert.equal(gh.state.issues(REPOSITORY).filter((i) => !i.pull).length, 1);
    assert.deepEqual(gh.problems(), []);
  });
});

describe('a dismissed fail decided by the instructions of all threads is looked for in their series', () => {
  const env = watchContext();

  test('work added to purge: the queries\' own level is flat, all threads step, and the change point files it', async () => {
    // The queries' own instructions per query along main: the ten real A/A runs' levels, no
    // step. The background work drained after each window (the same A/A run's purge, about as
    // much again per query) grows by 10% from the 13th commit on, with a ±0.4% wobble.
    const series = load('watch/update-index-instr-aa-series.json');
    const own = series.points.map((p) => p.instructions_per_query);
    const background = own.map((_, i) => 189_000 * (i >= 12 ? 1.10 : 1) * (1 + 0.002 * (((i * 7) % 5) - 2)));
    const judged = (i) => {
      const { results, verdict } = aa();
      // The windows as the harness would have counted them (the store keeps each), and the
      // verdict's per-side levels of them.
      const counted = results.benchmarks.find((b) => b.id === 'update-index_range=100').instructions;
      for (const [side, k] of [['base', i - 1], ['head', i]]) {
        for (const w of counted[side].windows) Object.assign(w, { connection: { ...w.connection, per_query: own[k] }, background: { ...w.background, per_query: background[k] } });
      }
      const item = verdict.benchmarks.find((b) => b.id === 'update-index_range=100');
      item.instructions.per_query = { base: own[i - 1], head: own[i], base_background: background[i - 1], head_background: background[i] };
      if (i === 12) {
        // As the rule judged it: the queries' own threads unchanged, all threads beyond the fail limit.
        Object.assign(item, {
          verdict: 'fail', instructions_verdict: 'fail', instructions_threads: 'all',
          all_threads_per_query: { ...item.all_threads_per_query, estimate: 1.049, low: 1.046, high: 1.052 },
        });
      }
      return { results, verdict };
    };
    const { commits, key, last } = await historyWithDismissedFail(env, judged);
    const { db, gh, ctx } = env;
    // An older fail of the same microbenchmark and signal, dismissed too, whose measurement is
    // not in the history: it is watched on the queries' own threads, beside the one above.
    await store.claimRegression(db, {
      dedupeKey: core.dedupeKey({ repo: REPOSITORY, benchKey: 'update-index_range=100', signal: 'instructions_per_query', firstBad: commits[5] }),
      repo: REPOSITORY, benchKey: 'update-index_range=100', signal: 'instructions_per_query', firstBad: commits[5], lastGood: commits[4], status: 'noise', note: 'older',
    });
    await watchRunCompleted(ctx, { watchRun: last.watchRun, workflowRunId: 9400, ...judged(19) });

    const points = await store.changePointsOf(db, { repo: REPOSITORY, benchKey: 'update-index_range=100' });
    assert.deepEqual(points.map((p) => [p.signal, p.sha]), [['instructions_per_query', commits[12]]]);
    const issues = gh.state.issues(REPOSITORY).filter((i) => !i.pull);
    assert.deepEqual(issues.map((i) => i.title), [`update-index_range=100: 1.049× instructions per query of all threads since ${commits[12].slice(0, 7)}`]);
    assert.match(issues[0].body, /Apache Otava's E-Divisive means over main: instructions per query of all threads 38\d\.\dk → 40\d\.\dk \(×1\.0[45]\d/);
    assert.equal((await store.regressionByKey(db, key)).status, 'open');
    // The dashboard's series of the judged all-threads ratio holds every stored run's interval.
    const judgedAll = await store.verdictSeries(db, { repo: REPOSITORY, microbenchmark: 'update-index_range=100', signal: 'all_threads_per_query' });
    assert.equal(judgedAll.length, 19);
    assert.equal(judgedAll.find((p) => p.sha === commits[12]).estimate, 1.049);
    assert.deepEqual(gh.problems(), []);
  });

  test('a confirmed fail decided by all threads is recorded with their interval, not the queries\' own', async () => {
    const { settleMainResult } = require('../../../bot/src/app/watch');
    const purgeFail = () => {
      const { verdict } = aa();
      const item = verdict.benchmarks.find((b) => b.id === 'update-index_range=100');
      Object.assign(item, {
        verdict: 'fail', instructions_verdict: 'fail', instructions_threads: 'all',
        all_threads_per_query: { ...item.all_threads_per_query, estimate: 1.051, low: 1.047, high: 1.055 },
      });
      verdict.verdict = 'fail';
      return verdict;
    };
    const filed = [];
    const tracker = { name: 'test', find: async () => null, file: async (issue) => { filed.push(issue.title); return { key: String(filed.length), url: 'https://tracker.example/1' }; } };
    const repo = 'perfgate-test/purge';
    const result = await settleMainResult({ db: env.db, tracker, repo, base: GOOD, head: BAD, verdict: purgeFail(), confirmation: purgeFail() });
    assert.deepEqual(result.actions.map((a) => a.action), ['file']);
    assert.deepEqual(filed, [`update-index_range=100: 1.051× instructions per query of all threads since ${BAD.slice(0, 7)}`]);
    const [row] = await store.regressionsOf(env.db, { repo });
    assert.deepEqual([row.estimate, row.low, row.high], [1.051, 1.047, 1.055]);
  });
});
