// The perfgate action as GitHub runs it: the example workflows a fork copies (.github/examples),
// run by act on this host with perfgate's action fetched "from GitHub" (act --local-repository:
// perfgate's tracked files at the pinned SHA), GitHub's published webhook payloads, the REST API
// double, act's artifact server, and the two Debian MariaDB builds as prebuilt prefixes (the
// repository variables PERFGATE_BASE_BASEDIR / PERFGATE_HEAD_BASEDIR) at a tiny scale.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAct, stepLog } from '../support/act.mjs';
import {
  BASE_BASEDIR, HEAD_BASEDIR, REPOSITORY, doublePullRequest, exportPerfgate, killServerWhenUp, makeFork,
  pinnedAction, pullRequestEvent, serversUnder, tinyPullRequestSuites, tinySuite, workflowDispatchEvent,
} from '../support/action-fork.mjs';
import { ciTool } from '../support/ci-tools.mjs';
import { secondaryRateLimit, startGitHubDouble } from '../support/github-api/index.mjs';

const GITHUB_TOKEN = 'ghs_perfgateActionTestTokenForTheDouble01';
const MARKER = '<!-- perfgate:comment suite=quick -->';
const AHI_MARKER = '<!-- perfgate:comment suite=ahi-quick -->';
// perf-pr.yml's suites: one check run, one sticky comment and one artifact each.
const PR_SUITES = ['quick', 'ahi-quick', 'ddl-quick', 'contention-quick'];
const byName = (names) => [...names].sort();
const CONCLUSION = { pass: 'success', warn: 'neutral', undecided: 'neutral', fail: 'failure', error: 'failure' };
// Loose enough that the same two servers pass on a noisy machine at 3 rounds of 1 s.
const BASE_LIMITS = { warn: 0.5, fail: 0.2 };
// What the head commit writes over them: a pull request trying to loosen its own gate.
const HEAD_LIMITS = { warn: 0.1, fail: 0.05 };

let root;
let perfgateExport;

function missingServers() {
  return [BASE_BASEDIR, HEAD_BASEDIR].filter((dir) => !existsSync(dir));
}

before(() => {
  ciTool('act');
  const missing = missingServers();
  assert.deepEqual(missing, [], `the action's act tests measure Debian's MariaDB builds: ${missing.join(', ')} missing; run make setup`);
  root = mkdtempSync(path.join(os.tmpdir(), 'perfgate-action-e2e-'));
  perfgateExport = exportPerfgate(path.join(root, 'perfgate'));
});

after(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

/** One scenario: a fork, the double holding its pull requests, and act runs of its workflows. */
async function scenario(name, { baseSuites, headSuites, pulls, permissions = { maintainer: 'write' } }) {
  const folder = path.join(root, name);
  const fork = makeFork(folder, { baseSuites, headSuites });
  const artifactsDir = path.join(folder, 'artifacts');
  const gh = await startGitHubDouble({
    repositories: [REPOSITORY],
    githubToken: GITHUB_TOKEN,
    artifactsDir,
    permissions: { [REPOSITORY]: permissions },
    pullRequests: pulls(fork).map(doublePullRequest),
  });
  const lint = execFileSync(ciTool('actionlint'), ['-no-color'], { cwd: fork.repo, encoding: 'utf8' });
  assert.equal(lint, '', 'the fork\'s copied workflows lint clean');
  const run = (workflow, event, payload, { runId, vars = {} } = {}) => runAct({
    workdir: fork.repo,
    workflow: `.github/workflows/${workflow}`,
    event,
    payload,
    apiUrl: gh.url,
    repository: REPOSITORY,
    runId,
    artifactsDir,
    secrets: { GITHUB_TOKEN },
    vars: { PERFGATE_BASE_BASEDIR: BASE_BASEDIR, PERFGATE_HEAD_BASEDIR: HEAD_BASEDIR, ...vars },
    localRepositories: { [pinnedAction()]: perfgateExport },
    scratchParent: folder,
    timeoutMs: 300_000,
  });
  return { folder, fork, gh, artifactsDir, run };
}

function artifactsOf(artifactsDir, runId) {
  const dir = path.join(artifactsDir, String(runId));
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

function readZipEntry(zipFile, entry) {
  return execFileSync('python3', ['-c', 'import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())', zipFile, entry], { encoding: 'utf8' });
}

function verdictIn(artifactsDir, runId, name) {
  return JSON.parse(readZipEntry(path.join(artifactsDir, String(runId), name, `${name}.zip`), 'verdict.json'));
}

function commentUrl(number, id) {
  return `https://github.com/${REPOSITORY}/pull/${number}#issuecomment-${id}`;
}

function explain(result) {
  // What failed first (the step's ::error:: lines, each leg by name), then the log's tail.
  const log = stepLog(result);
  const failures = log.split('\n').filter((line) => /::error::|Failure - |❌/.test(line)).slice(0, 20).join('\n');
  return `act exit ${result.exitCode}, jobs ${JSON.stringify(result.jobs)}, legs ${JSON.stringify(result.legs)}\n${failures}\n${log.slice(-12000)}\n${result.stderr.slice(-2000)}`;
}

function problemsOf(gh) {
  return gh.problems().map((call) => `${call.method} ${call.path}: ${call.outcome} ${JSON.stringify(call.problems || call.responseBody)}`);
}

describe('a trusted pull request (perf-pr.yml, pull_request_target)', () => {
  let s;
  let first;
  let rerun;
  const number = 11;
  const runId = 5101;

  before(async () => {
    s = await scenario('trusted', {
      baseSuites: tinyPullRequestSuites({ limits: BASE_LIMITS }),
      headSuites: tinyPullRequestSuites({ limits: HEAD_LIMITS }),
      pulls: (fork) => [{ number, baseSha: fork.baseSha, headSha: fork.headSha, author: 'maintainer', association: 'MEMBER' }],
    });
    const payload = pullRequestEvent({ number, baseSha: s.fork.baseSha, headSha: s.fork.headSha, author: 'maintainer', association: 'MEMBER' });
    first = await s.run('perf-pr.yml', 'pull_request_target', payload, { runId });
    first.comments = structuredClone(s.gh.state.comments(REPOSITORY, number));
    // The re-run uploads its run folder under the same name: keep this attempt's verdict.
    first.verdict = verdictIn(s.artifactsDir, runId, 'perfgate-quick');
    first.ahiVerdict = verdictIn(s.artifactsDir, runId, 'perfgate-ahi-quick');
    first.ddlVerdict = verdictIn(s.artifactsDir, runId, 'perfgate-ddl-quick');
    first.contentionVerdict = verdictIn(s.artifactsDir, runId, 'perfgate-contention-quick');
    first.checkRuns = structuredClone(s.gh.state.checkRuns(REPOSITORY));
    // GitHub's "re-run all jobs": the same run id, the same event.
    rerun = await s.run('perf-pr.yml', 'pull_request_target', payload, { runId });
  });
  after(async () => { await s?.gh.close(); });

  it('runs gate, then measure and report once per suite, to success', () => {
    assert.equal(first.exitCode, 0, explain(first));
    assert.deepEqual(first.jobs, { gate: 'success', measure: 'success', report: 'success' }, explain(first));
    assert.deepEqual(first.legs, Object.fromEntries(['measure', 'report'].flatMap((job) => PR_SUITES.map((suite) => [`${job} (${suite})`, 'success']))), explain(first));
  });

  it('measures every suite on the one pull request: an artifact each, the AHI slice off and on at 2% updates, a DDL statement, a hot row at more threads', () => {
    assert.deepEqual(artifactsOf(s.artifactsDir, runId), byName(PR_SUITES.map((suite) => `perfgate-${suite}`)));
    assert.deepEqual(first.ddlVerdict.benchmarks.map((b) => b.id), ['add-index']);
    assert.deepEqual(first.contentionVerdict.benchmarks.map((b) => [b.id, b.threads]), [['update-one_range=100', 4]]);
    assert.equal(first.verdict.suite, 'quick');
    assert.equal(first.ahiVerdict.suite, 'ahi-quick');
    assert.deepEqual(first.ahiVerdict.benchmarks.map((b) => b.id), [
      'point-select ahi=off threads=1', 'point-select ahi=on threads=1',
      'point-select+2%update-index ahi=off threads=1', 'point-select+2%update-index ahi=on threads=1',
    ]);
    assert.deepEqual(first.ahiVerdict.ahi.map((cell) => cell.id), ['point-select@1:ahi-gain', 'point-select+2%update-index@1:ahi-gain']);
    assert.ok(first.ahiVerdict.ahi.every((cell) => cell.gain.base > 0 && cell.gain.head > 0), JSON.stringify(first.ahiVerdict.ahi));
    assert.equal(first.ahiVerdict.limits.default.warn, BASE_LIMITS.warn, 'the AHI slice is judged by the base commit\'s limits too');
  });

  it('delivers each suite in its own check run and its own sticky comment', () => {
    const runs = first.checkRuns;
    assert.deepEqual(runs.map((run) => run.name).sort(), byName(PR_SUITES.map((suite) => `perfgate ${suite}`)));
    const verdicts = { quick: first.verdict, 'ahi-quick': first.ahiVerdict, 'ddl-quick': first.ddlVerdict, 'contention-quick': first.contentionVerdict };
    for (const [suite, verdict] of Object.entries(verdicts)) {
      const run = runs.find((entry) => entry.name === `perfgate ${suite}`);
      assert.equal(run.headSha, s.fork.headSha);
      assert.equal(run.status, 'completed');
      assert.equal(run.conclusion, CONCLUSION[verdict.verdict], `${suite}: ${verdict.verdict}`);
      assert.match(run.output.title, new RegExp(`^perfgate ${suite} — ${verdict.verdict[0].toUpperCase()}${verdict.verdict.slice(1)}: `));
    }
    const creates = s.gh.callsTo('checks/create').slice(0, PR_SUITES.length);
    assert.deepEqual(creates.map((call) => [call.requestBody.name, call.requestBody.status]), PR_SUITES.map((suite) => [`perfgate ${suite}`, 'in_progress']), 'all started by the gate');
    const [quick, ahi] = ['quick', 'ahi-quick'].map((suite) => first.comments.find((comment) => comment.body.startsWith(`<!-- perfgate:comment suite=${suite} -->\n`)));
    assert.ok(quick && ahi, first.comments.map((comment) => comment.body.slice(0, 80)).join('\n'));
    assert.notEqual(quick.id, ahi.id);
    assert.match(ahi.body, new RegExp(`perfgate ahi-quick: ${first.ahiVerdict.verdict}`));
    assert.match(ahi.body, /point-select\+2%update-index/);
    assert.doesNotMatch(quick.body, /update-index ahi=/, 'each comment holds its own suite only');
  });

  it('completes the check run on the head with the conclusion of the verdict, the table as summary', () => {
    const { verdict } = first;
    const runs = s.gh.state.checkRuns(REPOSITORY).filter((run) => run.name === 'perfgate quick');
    assert.equal(runs.length, 2, 'one check run per attempt');
    const [run] = runs;
    assert.equal(run.name, 'perfgate quick');
    assert.equal(run.headSha, s.fork.headSha);
    assert.equal(run.status, 'completed');
    assert.equal(run.conclusion, CONCLUSION[verdict.verdict]);
    assert.match(run.output.title, new RegExp(`^perfgate quick — ${verdict.verdict[0].toUpperCase()}${verdict.verdict.slice(1)}: `));
    assert.match(run.output.summary, /\| point-query \|/);
    assert.ok(!run.output.summary.includes(MARKER), 'the marker is the comment\'s, not the check run\'s');
    const [create] = s.gh.callsTo('checks/create');
    assert.equal(create.requestBody.status, 'in_progress', 'started in_progress by the gate, before measuring');
  });

  it('makes one comment per suite, by github-actions[bot], starting with the marker, with the limits of the base commit', () => {
    assert.equal(first.comments.length, PR_SUITES.length);
    assert.ok(first.comments.every((comment) => comment.user.login === 'github-actions[bot]'));
    const comment = first.comments.find((entry) => entry.body.startsWith(`${MARKER}\n`));
    assert.ok(first.comments.some((entry) => entry.body.startsWith(`${AHI_MARKER}\n`)));
    assert.equal(comment.user.login, 'github-actions[bot]');
    assert.ok(comment.body.startsWith(`${MARKER}\n`), comment.body.slice(0, 200));
    assert.match(comment.body, /point-query/);
    assert.ok(comment.body.includes(`Limits from \`perfgate/thresholds/\` at base commit \`${s.fork.baseSha.slice(0, 12)}\`.`), comment.body);
    assert.match(comment.body, new RegExp(`Full report: https://github\\.com/${REPOSITORY}/actions/runs/${runId}/artifacts/\\d+`));
  });

  it('judges with the base commit\'s limits, not the ones the head commit wrote', () => {
    const { verdict } = first;
    assert.equal(verdict.limits.default.warn, BASE_LIMITS.warn);
    assert.equal(verdict.limits.default.fail, BASE_LIMITS.fail);
  });

  it('writes the job summary and sets the report step\'s outputs', () => {
    const reportSummaries = first.summaries.filter((entry) => entry.job === 'report').map((entry) => entry.content);
    assert.equal(reportSummaries.length, PR_SUITES.length, JSON.stringify(first.summaries.map((entry) => entry.job)));
    for (const suite of PR_SUITES) assert.ok(reportSummaries.some((content) => new RegExp(`^## .* perfgate ${suite}: `).test(content)), suite);
    const outputs = Object.values(first.outputs).find((values) => values['comment-url']);
    assert.ok(outputs, JSON.stringify(first.outputs));
    assert.ok(first.comments.some((comment) => outputs['comment-url'] === commentUrl(number, comment.id)), outputs['comment-url']);
    assert.match(outputs.verdict, /^(pass|warn|undecided|fail)$/);
  });

  it('a re-run of the workflow edits the same comments and adds none', () => {
    assert.equal(rerun.exitCode, 0, explain(rerun));
    const comments = s.gh.state.comments(REPOSITORY, number);
    assert.deepEqual(comments.map((comment) => comment.id).sort(), first.comments.map((comment) => comment.id).sort());
    assert.equal(s.gh.callsTo('issues/create-comment').length, PR_SUITES.length);
    const runs = s.gh.state.checkRuns(REPOSITORY);
    assert.ok(runs.every((run) => run.status === 'completed'), JSON.stringify(runs.map((run) => run.status)));
  });

  it('sent the double nothing that breaks GitHub\'s description', () => {
    assert.deepEqual(problemsOf(s.gh), []);
  });
});

describe('pull requests from a fork (perf-pr.yml and perf-command.yml)', () => {
  let s;
  let refused;
  let approved;
  let moved;
  const base = { baseSuites: { quick: tinySuite({ limits: BASE_LIMITS }) } };

  before(async () => {
    s = await scenario('fork', {
      ...base,
      pulls: (fork) => [
        { number: 21, baseSha: fork.baseSha, headSha: fork.headSha, author: 'contributor', fork: 'contributor/fork' },
        { number: 22, baseSha: fork.baseSha, headSha: fork.headSha, author: 'contributor', fork: 'contributor/fork' },
        // Approved at head, then pushed to: GitHub now has another head.
        { number: 23, baseSha: fork.baseSha, headSha: 'f'.repeat(40), author: 'contributor', fork: 'contributor/fork' },
      ],
    });
    // The 502 on the first comment the gate makes: GitHub answers 502, the retry gets 201.
    s.gh.failNext('issues/create-comment', { status: 502 });
    refused = await s.run('perf-pr.yml', 'pull_request_target',
      pullRequestEvent({ number: 21, baseSha: s.fork.baseSha, headSha: s.fork.headSha, author: 'contributor', fork: 'contributor/fork' }), { runId: 5201 });
    approved = await s.run('perf-command.yml', 'workflow_dispatch', workflowDispatchEvent({
      workflow: 'perf-command.yml',
      inputs: { 'pull-request': 22, 'base-sha': s.fork.baseSha, 'head-sha': s.fork.headSha, 'approved-sha': s.fork.headSha, suite: 'quick', options: '', 'request-id': 'c22' },
    }), { runId: 5202 });
    moved = await s.run('perf-command.yml', 'workflow_dispatch', workflowDispatchEvent({
      workflow: 'perf-command.yml',
      inputs: { 'pull-request': 23, 'base-sha': s.fork.baseSha, 'head-sha': s.fork.headSha, 'approved-sha': s.fork.headSha, suite: 'quick', options: '', 'request-id': 'c23' },
    }), { runId: 5203 });
  });
  after(async () => { await s?.gh.close(); });

  it('without approval: refused at the gate, before any checkout or build', () => {
    assert.equal(refused.exitCode, 0, explain(refused));
    assert.deepEqual(refused.jobs, { gate: 'success' }, 'measure and report never started');
    assert.deepEqual(refused.outputs.quick, { allowed: 'false', 'base-sha': s.fork.baseSha, 'head-sha': s.fork.headSha, 'check-run-id': String(s.gh.state.checkRuns(REPOSITORY)[0].id), 'comment-url': commentUrl(21, s.gh.state.comments(REPOSITORY, 21)[0].id), verdict: 'refused' });
    assert.deepEqual(artifactsOf(s.artifactsDir, 5201), [], 'no run folder');
    assert.ok(!refused.entries.some((entry) => entry.jobID === 'measure'), 'no step of the measure job ran');
    for (const suite of PR_SUITES.slice(1)) {
      assert.equal(refused.outputs[suite], undefined, `the ${suite} gate did not run`);
      assert.ok(!s.gh.state.checkRuns(REPOSITORY).some((run) => run.name === `perfgate ${suite}`), 'one check run, the quick suite\'s, asks for a maintainer');
    }
  });

  it('without approval: the check run asks for a maintainer and the comment says how to approve', () => {
    const run = s.gh.state.checkRuns(REPOSITORY).find((entry) => entry.pullRequests.some((pull) => pull.number === 21)) || s.gh.state.checkRuns(REPOSITORY)[0];
    assert.equal(run.conclusion, 'action_required');
    assert.equal(run.output.title, 'perfgate quick: waiting for a maintainer');
    const comments = s.gh.state.comments(REPOSITORY, 21);
    assert.equal(comments.length, 1, 'the 502 and its retry left exactly one comment');
    assert.equal(comments[0].body, [
      MARKER,
      '### 🔒 perfgate quick: waiting for a maintainer',
      '',
      `**This pull request was not built or measured:** the head branch is in contributor/fork, not in ${REPOSITORY}, and no maintainer has approved head ${s.fork.headSha.slice(0, 12)}.`,
      '',
      'perfgate runs on a self-hosted runner, which would build and run this code. A pull request from a fork, or by an author without write access, runs there only after a maintainer has read it.',
      '',
      `A maintainer approves head \`${s.fork.headSha.slice(0, 12)}\` by commenting \`/perf quick\` on this pull request. The perfgate bot pins that commit; a later push needs a new \`/perf quick\`.`,
      '',
    ].join('\n'));
    const creates = s.gh.callsTo('issues/create-comment').filter((call) => call.path.endsWith('/issues/21/comments'));
    assert.deepEqual(creates.map((call) => call.status), [502, 201]);
  });

  it('with approved-sha equal to the head it checks out: measured and reported', () => {
    assert.equal(approved.exitCode, 0, explain(approved));
    assert.deepEqual(approved.jobs, { gate: 'success', measure: 'success', report: 'success' }, explain(approved));
    assert.deepEqual(artifactsOf(s.artifactsDir, 5202), ['perfgate-quick']);
    const verdict = verdictIn(s.artifactsDir, 5202, 'perfgate-quick');
    const comments = s.gh.state.comments(REPOSITORY, 22);
    assert.equal(comments.length, 1);
    assert.ok(comments[0].body.startsWith(MARKER));
    assert.match(comments[0].body, new RegExp(`perfgate quick: ${verdict.verdict}`));
  });

  it('a head that moved after the approval: refused, nothing measured', () => {
    assert.equal(moved.exitCode, 0, explain(moved));
    assert.deepEqual(moved.jobs, { gate: 'success' });
    assert.equal(moved.outputs.gate.allowed, 'false');
    assert.deepEqual(artifactsOf(s.artifactsDir, 5203), []);
    const [comment] = s.gh.state.comments(REPOSITORY, 23);
    assert.match(comment.body, new RegExp(`${s.fork.headSha.slice(0, 12)} was approved, but the pull request's head has since moved to ffffffffffff`));
  });

  it('sent the double nothing that breaks GitHub\'s description', () => {
    assert.deepEqual(problemsOf(s.gh), []);
  });
});

describe('faults: a server killed while measuring, a secondary rate limit', () => {
  let s;
  let killed;
  let victim;
  const number = 31;

  before(async () => {
    s = await scenario('faults', {
      // Long enough that the head server is killed in the middle of the rounds.
      baseSuites: tinyPullRequestSuites({ limits: BASE_LIMITS, quick: { rounds: 4, seconds: 2 } }),
      pulls: (fork) => [{ number, baseSha: fork.baseSha, headSha: fork.headSha, author: 'maintainer', association: 'MEMBER' }],
    });
    // A pass from an earlier push is on the pull request: the error must replace it.
    s.gh.state.repoByFullName('repository', REPOSITORY).comments.set(1, {
      id: 1, issueNumber: number, onPull: true, body: `${MARKER}\n### ✅ perfgate quick: pass\n`, user: s.gh.state.user('github-actions[bot]') || s.gh.state.addUser({ login: 'github-actions[bot]', id: 41898282, type: 'Bot' }), reactions: [], createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z',
    });
    s.gh.failNext('checks/update', secondaryRateLimit({ retryAfterSeconds: 1 }));
    const watcher = killServerWhenUp({ marker: s.folder, side: 'head', run: 'perfgate-quick', afterMs: 4000 });
    try {
      killed = await s.run('perf-pr.yml', 'pull_request_target',
        pullRequestEvent({ number, baseSha: s.fork.baseSha, headSha: s.fork.headSha, author: 'maintainer', association: 'MEMBER' }), { runId: 5301 });
    } finally {
      watcher.stop();
    }
    victim = await watcher.done;
  });
  after(async () => { await s?.gh.close(); });

  it('killed the head server during the run', () => {
    assert.ok(victim, `no head server under ${s.folder} was seen:\n${explain(killed)}`);
    assert.deepEqual(serversUnder(s.folder), [], 'no server of the run is left');
  });

  it('the check run reports an error, after backing off from the secondary rate limit', () => {
    const run = s.gh.state.checkRuns(REPOSITORY).find((entry) => entry.name === 'perfgate quick');
    assert.equal(run.status, 'completed');
    assert.equal(run.conclusion, 'failure');
    assert.match(run.output.title, /^perfgate quick — Error: /);
    // Every suite's report job completes its check run, in any order: the first update
    // answered 403 and was retried on the same check run.
    const updates = s.gh.callsTo('checks/update');
    assert.deepEqual(updates.map((call) => call.status).sort(), [...PR_SUITES.map(() => 200), 403]);
    const limited = updates.findIndex((call) => call.status === 403);
    assert.equal(updates.slice(limited + 1).find((call) => call.path === updates[limited].path)?.status, 200);
  });

  it('no comment claims a pass: the quick suite\'s comment now says error, the AHI slice has its own', () => {
    const comments = s.gh.state.comments(REPOSITORY, number);
    assert.equal(comments.length, PR_SUITES.length);
    const quick = comments.find((comment) => comment.body.startsWith(MARKER));
    assert.equal(quick.id, 1);
    assert.match(quick.body, /perfgate quick: error/);
    assert.doesNotMatch(quick.body, /perfgate quick: pass/);
    assert.ok(comments.some((comment) => comment.body.startsWith(AHI_MARKER) && comment.id !== 1));
  });

  it('fails the quick suite\'s report job (fail-on: fail), not the other suites\'', () => {
    assert.equal(killed.legs['report (quick)'], 'failure', explain(killed));
    assert.equal(killed.legs['measure (quick)'], 'success', 'the measure job delivered an error run folder');
    for (const suite of PR_SUITES.slice(1)) assert.equal(killed.legs[`report (${suite})`], 'success', `${suite}: ${explain(killed)}`);
  });
});

describe('the full suite in two shards (perf-full.yml)', () => {
  let s;
  let result;
  const number = 41;
  const runId = 5401;

  before(async () => {
    const full = tinySuite({ suite: 'full', limits: BASE_LIMITS, benchmarks: ['point-query', 'update-index_range=100'] });
    s = await scenario('full', {
      baseSuites: { full },
      pulls: (fork) => [{ number, baseSha: fork.baseSha, headSha: fork.headSha, author: 'maintainer', association: 'MEMBER' }],
    });
    result = await s.run('perf-full.yml', 'workflow_dispatch', workflowDispatchEvent({
      workflow: 'perf-full.yml',
      inputs: { 'pull-request': number, 'base-sha': s.fork.baseSha, 'head-sha': s.fork.headSha, 'approved-sha': '', suite: 'full', shards: '["1/2", "2/2"]', options: '', 'request-id': 'f41' },
    }), { runId });
  });
  after(async () => { await s?.gh.close(); });

  it('measures each shard in its own job and uploads its run folder', () => {
    assert.equal(result.exitCode, 0, explain(result));
    assert.deepEqual(artifactsOf(s.artifactsDir, runId), ['perfgate-full-shard-1-of-2', 'perfgate-full-shard-2-of-2']);
    assert.deepEqual(verdictIn(s.artifactsDir, runId, 'perfgate-full-shard-1-of-2').benchmarks.map((b) => b.id), ['point-query']);
    assert.deepEqual(verdictIn(s.artifactsDir, runId, 'perfgate-full-shard-2-of-2').benchmarks.map((b) => b.id), ['update-index_range=100']);
  });

  it('merges and judges them into one comment and one completed check run', () => {
    const comments = s.gh.state.comments(REPOSITORY, number);
    assert.equal(comments.length, 1);
    assert.ok(comments[0].body.startsWith('<!-- perfgate:comment suite=full -->'));
    assert.match(comments[0].body, /\| point-query \|/);
    assert.match(comments[0].body, /\| update-index_range=100 \|/);
    const runs = s.gh.state.checkRuns(REPOSITORY);
    assert.equal(runs.length, 1);
    assert.equal(runs[0].status, 'completed');
    assert.equal(s.gh.callsTo('issues/create-comment').length, 1);
  });

  it('sent the double nothing that breaks GitHub\'s description', () => {
    assert.deepEqual(problemsOf(s.gh), []);
  });
});
