// Release sign-off with the workflow a fork copies (.github/examples/perf-signoff.yml), run
// under act on this host with perfgate's action, on the two real MariaDB builds (the previous
// release 10.11.18, the candidate 10.11.19): the full suite (time and instructions) in two
// shards and a DDL suite beside it:
//   - `/perf signoff mariadb-10.11.19` in a release issue → `perfgate bot` (its own process)
//     pins both tags and the suites, sets perfgate/signoff pending, dispatches → the workflow:
//     refs, three measure jobs (no write token), the signoff job merges and judges each suite,
//     uploads perfgate-signoff-<suite> and the report → GitHub's workflow_run.completed → the
//     bot checks those folders, sets the final status and posts the report;
//   - a pushed release tag, no bot: the refs job finds the previous release by the tag's name,
//     the suites come from the repository's variable, and the signoff job sets perfgate/signoff
//     itself.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAct, stepLog } from '../support/act.mjs';
import {
  BASE_BASEDIR, exportPerfgate, HEAD_BASEDIR, makeFork, pinnedAction, requireActAndServers, tinyDdlSuite, tinySuite, workflowDispatchEvent,
} from '../support/action-fork.mjs';
import {
  botComments, botEnvironment, commentEvent, postComment, published, REPOSITORY, spawnBot, startDouble, stopSpawnedBot, waitFor, workflowRunEvent,
} from '../support/bot.mjs';
import { ciTool } from '../support/ci-tools.mjs';

const require = createRequire(import.meta.url);
const core = require('@perfgate/core');
const { SIGNOFF_RUN_NAME } = require('../../bot/src/app/signoff-contract');

const GITHUB_TOKEN = 'ghs_signoffWorkflowTokenForTheDouble01';
const PREVIOUS_TAG = 'mariadb-10.11.18';
const CANDIDATE_TAG = 'mariadb-10.11.19';
const SHARDS = '["1/2", "2/2"]';
// Two microbenchmarks, one per shard: a read and a write (whose windows change rows, so the
// timed rounds start from the tables as loaded). The sign-off must come out within limits on
// both signals: time limits far below anything these two releases differ by, and six pairs of
// 1-second rounds, since an open time interval stays open whatever instructions say (three
// pairs on a host running two other measurements spread point-query over 0.17–3.33).
const FULL = tinySuite({
  suite: 'full', benchmarks: ['point-query', 'update-index_range=100'], rounds: 6, limits: { warn: 0.3, fail: 0.1 }, instructions: { warn: 1.5, fail: 2 },
});

// One index build beside them, at the act tier's small scale: a statement of a few milliseconds
// on a server restarted for each round, whose time a busy host spreads over two orders of
// magnitude (1.24 [0.04, 41.39] from three pairs beside a MySQL measurement): six pairs, and
// limits that only a broken run reaches, since this test is about the sign-off's plumbing.
const DDL = tinyDdlSuite({ suite: 'ddl', limits: { warn: 0.02, fail: 0.01 }, rounds: 6 });

const signoffStatuses = (gh, sha) => gh.state.statuses(REPOSITORY).filter((s) => s.sha === sha && s.context === core.SIGNOFF_CONTEXT);
const artifact = (artifactsDir, runId, name) => path.join(artifactsDir, String(runId), name, `${name}.zip`);

describe('perf-signoff.yml under act on two real servers', () => {
  let folder;
  let gh;
  let botProcess;
  let fork;
  let artifactsDir;
  let perfgateExport;
  before(async () => {
    requireActAndServers('the release sign-off workflow');
    folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-signoff-workflow-'));
    perfgateExport = exportPerfgate(path.join(folder, 'perfgate'));
    fork = makeFork(folder, { baseSuites: { full: FULL, ddl: DDL } });
    const git = (...args) => execFileSync('git', ['-c', 'user.name=release', '-c', 'user.email=release@perfgate.invalid', ...args], { cwd: fork.repo, encoding: 'utf8' });
    // Both releases are commits of main, each tagged (one annotated, as release tags often are).
    git('checkout', '-q', 'main');
    git('merge', '-q', '--ff-only', 'feature');
    git('tag', '-a', '-m', 'MariaDB 10.11.18', PREVIOUS_TAG, fork.baseSha);
    git('tag', CANDIDATE_TAG, fork.headSha);
    assert.equal(execFileSync(ciTool('actionlint'), ['-no-color'], { cwd: fork.repo, encoding: 'utf8' }), '', 'the fork\'s copied workflows lint clean');
    artifactsDir = path.join(folder, 'artifacts');
    gh = await startDouble({
      artifactsDir, baseSha: fork.baseSha, headSha: fork.headSha,
      extra: {
        githubToken: GITHUB_TOKEN,
        workflows: { [REPOSITORY]: [{ file: 'perf-signoff.yml', runName: SIGNOFF_RUN_NAME }] },
        refs: { [REPOSITORY]: { tags: { [PREVIOUS_TAG]: fork.baseSha, [CANDIDATE_TAG]: fork.headSha }, branches: { main: fork.headSha } } },
      },
    });
    botProcess = await spawnBot({ env: botEnvironment({ folder, apiUrl: gh.url, extra: { PERFGATE_SIGNOFF_SUITES: 'full,ddl' } }) });
  });
  after(() => stopSpawnedBot({ botProcess, gh, folder }));

  const runSignoff = (options) => runAct({
    workdir: fork.repo,
    workflow: '.github/workflows/perf-signoff.yml',
    apiUrl: gh.url,
    repository: REPOSITORY,
    artifactsDir,
    secrets: { GITHUB_TOKEN },
    vars: { PERFGATE_SIGNOFF_SUITES: 'full', PERFGATE_SIGNOFF_SHARDS: SHARDS, PERFGATE_PREVIOUS_BASEDIR: BASE_BASEDIR, PERFGATE_CANDIDATE_BASEDIR: HEAD_BASEDIR },
    localRepositories: { [pinnedAction()]: perfgateExport },
    timeoutMs: 900_000,
    ...options,
  });

  it('/perf signoff → bot → two shards and a DDL suite measured, each judged → perfgate-signoff-<suite> → the bot sets perfgate/signoff and posts the report', async () => {
    const issue = gh.state.addIssue(gh.state.repoByFullName('repository', REPOSITORY), { title: 'Release 10.11.19', user: gh.state.user('maintainer') }).number;
    const comment = await postComment(gh, 'maintainer', `/perf signoff ${CANDIDATE_TAG}`, { pr: issue });
    const payload = commentEvent({ comment, pr: issue });
    delete payload.issue.pull_request;
    const answer = await botProcess.deliver('issue_comment', payload);
    assert.equal(answer.status, 202, answer.text);
    await waitFor('the sign-off dispatch', () => gh.state.dispatches.length === 1);
    const dispatch = gh.state.dispatches[0];
    assert.deepEqual(dispatch.inputs, {
      'candidate-ref': CANDIDATE_TAG, 'candidate-sha': fork.headSha, 'previous-ref': PREVIOUS_TAG, 'previous-sha': fork.baseSha, conversation: String(issue), 'request-id': `c${comment.id}`, suites: 'full ddl',
    });
    await waitFor('the pending status', () => signoffStatuses(gh, fork.headSha).length === 1);

    const act = await runSignoff({
      event: 'workflow_dispatch',
      payload: workflowDispatchEvent({ workflow: 'perf-signoff.yml', inputs: dispatch.inputs }),
      runId: dispatch.runId,
    });
    writeFileSync(path.join(folder, 'act-dispatch.log'), stepLog(act));
    assert.equal(act.exitCode, 0, `act failed:\n${stepLog(act).slice(-6000)}\n${act.stderr.slice(-2000)}`);
    assert.deepEqual(act.jobs, { refs: 'success', measure: 'success', signoff: 'success' });
    for (const name of ['perfgate-full-shard-1-of-2', 'perfgate-full-shard-2-of-2', 'perfgate-ddl', core.signoffArtifact('full'), core.signoffArtifact('ddl'), core.SIGNOFF_ARTIFACT]) {
      assert.ok(existsSync(artifact(artifactsDir, dispatch.runId, name)), `artifact ${name} was uploaded`);
    }
    const summary = act.summaries.find((s) => s.job === 'signoff');
    assert.ok(summary, 'the signoff job wrote the job summary');
    assert.match(summary.content, new RegExp(`Release sign-off: \`${CANDIDATE_TAG}\` against \`${PREVIOUS_TAG}\` — success`));
    assert.match(summary.content, /point-query/);
    assert.match(summary.content, /update-index_range=100/);
    assert.match(summary.content, /### ddl: /);
    assert.match(summary.content, /\| add-index \|/);
    // Dispatched by the bot: the workflow set no status (the bot does, with its waivers).
    assert.deepEqual(signoffStatuses(gh, fork.headSha).map((s) => [s.state, s.creator.login]), [['pending', 'perfgate[bot]']]);

    gh.state.updateWorkflowRun(REPOSITORY, dispatch.runId, { status: 'completed', conclusion: 'success' });
    const run = await (await fetch(`${gh.url}/repos/${REPOSITORY}/actions/runs/${dispatch.runId}`)).json();
    assert.equal(run.display_title, `perfgate signoff ${CANDIDATE_TAG} against ${PREVIOUS_TAG} (c${comment.id})`);
    const completed = await botProcess.deliver('workflow_run', workflowRunEvent({ run, workflow: 'perf-signoff.yml' }));
    assert.equal(completed.status, 202, completed.text);
    const final = await waitFor('the final perfgate/signoff status', () => {
      const all = signoffStatuses(gh, fork.headSha);
      return all.length === 2 && all[1];
    }, { timeoutMs: 60_000 });
    assert.deepEqual([final.state, final.creator.login], ['success', 'perfgate[bot]'], final.description);
    assert.equal(final.description, 'All 3 microbenchmarks within limits');
    const report = botComments(gh, issue).find((c) => c.body.includes(`Release sign-off: \`${CANDIDATE_TAG}\``));
    assert.ok(report, 'the bot replied with the report');
    assert.match(report.body, /— success/);
    assert.match(report.body, /instr\/o/, 'the report shows instructions per query');
    assert.deepEqual(gh.problems().map((c) => `${c.operationId} ${c.status}: ${c.problems.join('; ')}`), []);
  });

  it('a pushed release tag, no bot: the previous release found by the tag\'s name, perfgate/signoff set by the signoff job', async () => {
    const statusesBefore = signoffStatuses(gh, fork.headSha).length;
    const push = published('push', undefined, (e) => e.ref.startsWith('refs/'));
    const [owner, name] = REPOSITORY.split('/');
    Object.assign(push.repository, { full_name: REPOSITORY, name, default_branch: 'main', owner: { ...push.repository.owner, login: owner } });
    Object.assign(push, { ref: `refs/tags/${CANDIDATE_TAG}`, before: '0'.repeat(40), after: fork.headSha, base_ref: 'refs/heads/main', created: true });
    const runId = 9201;
    const act = await runSignoff({ event: 'push', payload: push, runId });
    writeFileSync(path.join(folder, 'act-tag.log'), stepLog(act));
    assert.equal(act.exitCode, 0, `act failed:\n${stepLog(act).slice(-6000)}\n${act.stderr.slice(-2000)}`);
    assert.deepEqual(act.jobs, { refs: 'success', measure: 'success', signoff: 'success' });
    assert.deepEqual(act.outputs.refs, {
      'candidate-ref': CANDIDATE_TAG, 'candidate-sha': fork.headSha, 'previous-ref': PREVIOUS_TAG, 'previous-sha': fork.baseSha,
    });
    assert.ok(existsSync(artifact(artifactsDir, runId, core.signoffArtifact('full'))), 'the merged run folder was uploaded');
    assert.ok(!existsSync(artifact(artifactsDir, runId, core.signoffArtifact('ddl'))), 'the repository\'s variable names the full suite alone');
    const set = signoffStatuses(gh, fork.headSha).slice(statusesBefore);
    assert.deepEqual(set.map((s) => [s.state, s.creator.login, s.description]), [['success', 'github-actions[bot]', 'All 2 microbenchmarks within limits']]);
    assert.deepEqual(gh.problems().map((c) => `${c.operationId} ${c.status}: ${c.problems.join('; ')}`), []);
  });

  it('a dispatched ref holding a newline is refused by the refs job: it cannot add an output line of its own', async () => {
    // Without the check, "previous-ref=...\ncandidate-sha=<another commit>" written to
    // GITHUB_OUTPUT after the checked SHAs would replace the candidate the measure jobs build.
    const inputs = {
      'candidate-ref': CANDIDATE_TAG, 'candidate-sha': fork.headSha, 'previous-ref': `${PREVIOUS_TAG}\ncandidate-sha=${fork.baseSha}`, 'previous-sha': fork.baseSha, conversation: '', 'request-id': 'hand',
    };
    const runId = 9203;
    const act = await runSignoff({ event: 'workflow_dispatch', payload: workflowDispatchEvent({ workflow: 'perf-signoff.yml', inputs, sender: 'maintainer' }), runId });
    writeFileSync(path.join(folder, 'act-newline.log'), stepLog(act));
    assert.notEqual(act.exitCode, 0);
    assert.equal(act.jobs.refs, 'failure');
    assert.notEqual(act.jobs.measure, 'success');
    assert.match(stepLog(act), /candidate-ref and previous-ref must be ref names of letters, digits and \. _ \/ \+ -/);
    assert.equal(existsSync(artifact(artifactsDir, runId, core.signoffArtifact('full'))), false, 'nothing measured, nothing uploaded');
  });

  it('dispatched suites or shards that are not plain names are refused by the refs job before any measure job is planned', async () => {
    for (const [runId, extra, message] of [
      [9204, { suites: 'full\nmatrix={"include":[]}' }, /suites must be suite names/],
      [9205, { suites: 'full full' }, /suites must be suite names of letters, digits and \. _ - \(a letter or digit first\) separated by spaces, each once/],
      [9207, { suites: 'full ..' }, /suites must be suite names/],
      [9206, { suites: 'full', shards: '["1/2", "$(id)"]' }, /shards must be a JSON list of K\/N/],
    ]) {
      const inputs = {
        'candidate-ref': CANDIDATE_TAG, 'candidate-sha': fork.headSha, 'previous-ref': PREVIOUS_TAG, 'previous-sha': fork.baseSha, conversation: '', 'request-id': 'hand', ...extra,
      };
      const act = await runSignoff({ event: 'workflow_dispatch', payload: workflowDispatchEvent({ workflow: 'perf-signoff.yml', inputs, sender: 'maintainer' }), runId });
      assert.notEqual(act.exitCode, 0, JSON.stringify(extra));
      assert.equal(act.jobs.refs, 'failure', JSON.stringify(extra));
      assert.notEqual(act.jobs.measure, 'success', JSON.stringify(extra));
      assert.match(stepLog(act), message, JSON.stringify(extra));
    }
  });

  it('an untagged candidate is refused before anything is built: the sign-off is an error, nothing is uploaded for the bot', async () => {
    // A commit in the repository that no tag points at (as a pull request's head can be).
    const untagged = execFileSync('git', ['-c', 'user.name=x', '-c', 'user.email=x@perfgate.invalid', 'commit-tree', `${fork.headSha}^{tree}`, '-p', fork.headSha, '-m', 'not released'], { cwd: fork.repo, encoding: 'utf8' }).trim();
    const inputs = { 'candidate-ref': 'not-a-release', 'candidate-sha': untagged, 'previous-ref': PREVIOUS_TAG, 'previous-sha': fork.baseSha, conversation: '', 'request-id': 'hand' };
    const runId = 9202;
    const act = await runSignoff({ event: 'workflow_dispatch', payload: workflowDispatchEvent({ workflow: 'perf-signoff.yml', inputs, sender: 'maintainer' }), runId });
    writeFileSync(path.join(folder, 'act-untagged.log'), stepLog(act));
    assert.notEqual(act.exitCode, 0);
    assert.deepEqual(act.jobs, { refs: 'success', measure: 'failure', signoff: 'failure' });
    assert.match(stepLog(act), /refused before building: the candidate [0-9a-f]{12} is not a commit any tag of this repository points at/);
    assert.equal(existsSync(path.join(artifactsDir, String(runId))) && existsSync(artifact(artifactsDir, runId, core.signoffArtifact('full'))), false, 'no merged folder for the bot');
    const summary = act.summaries.find((s) => s.job === 'signoff');
    assert.match(summary.content, /Release sign-off: `not-a-release` against `mariadb-10\.11\.18` — error/);
    assert.deepEqual(signoffStatuses(gh, untagged), [], 'dispatched (not a tag push): the workflow sets no status');
  });
});
