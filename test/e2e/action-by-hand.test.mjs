// The action's entry point run by hand (node action/dist/index.js with INPUT_* variables), as
// perfgate's tracked files have it, against the GitHub double: no artifact service is offered,
// so the upload is skipped with one warning line; and the measure job's source-build path on
// the tiny CMake fork, with the build recipe of the base commit.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BASE_BASEDIR, HEAD_BASEDIR, REPOSITORY, doublePullRequest, exportPerfgate, makeFork, tinySuite, workflowDispatchEvent } from '../support/action-fork.mjs';
import { startGitHubDouble } from '../support/github-api/index.mjs';

const require = createRequire(import.meta.url);
const { RECIPE_FILE, FIXTURE, haveTools } = require('../support/tiny-fork.js');
const GITHUB_TOKEN = 'ghs_perfgateByHandTestTokenForTheDouble001';
let root;
let entryPoint;

before(() => {
  const missing = [BASE_BASEDIR, HEAD_BASEDIR].filter((dir) => !existsSync(dir));
  assert.deepEqual(missing, [], `the by-hand test measures Debian's MariaDB builds: ${missing.join(', ')} missing; run make setup`);
  root = mkdtempSync(path.join(os.tmpdir(), 'perfgate-action-by-hand-'));
  entryPoint = path.join(exportPerfgate(path.join(root, 'perfgate')), 'action', 'dist', 'index.js');
});
after(() => { if (root) rmSync(root, { recursive: true, force: true }); });

/**
 * Runs the bundled entry point as a runner would, minus everything a runner adds for artifacts.
 * Asynchronously: the GitHub double answers from this process.
 */
async function runEntryPoint({ folder, apiUrl, inputs, event, env = {} }) {
  const eventFile = path.join(folder, 'event.json');
  writeFileSync(eventFile, JSON.stringify(event));
  const outputFile = path.join(folder, 'outputs');
  writeFileSync(outputFile, '');
  const child = spawn(process.execPath, [entryPoint], {
    cwd: folder,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GITHUB_API_URL: apiUrl,
      GITHUB_REPOSITORY: REPOSITORY,
      GITHUB_EVENT_NAME: 'workflow_dispatch',
      GITHUB_EVENT_PATH: eventFile,
      GITHUB_RUN_ID: '9',
      GITHUB_OUTPUT: outputFile,
      ...Object.fromEntries(Object.entries({ 'github-token': GITHUB_TOKEN, ...inputs }).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value])),
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => { stdout += chunk; });
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const timer = setTimeout(() => child.kill('SIGTERM'), 600_000);
  const status = await new Promise((resolve) => child.on('close', (code) => resolve(code)));
  clearTimeout(timer);
  const outputs = Object.fromEntries([...readFileSync(outputFile, 'utf8').matchAll(/^([\w-]+)<<(\S+)\n([\s\S]*?)\n\2$/gm)].map((m) => [m[1], m[3]]));
  return { status, stdout, stderr, outputs };
}

describe('the entry point run by hand, measuring the two Debian builds', () => {
  let gh;
  let fork;
  let result;
  let workDir;

  before(async () => {
    const folder = path.join(root, 'prefixes');
    fork = makeFork(folder, { baseSuites: { quick: tinySuite() } });
    workDir = path.join(folder, 'work');
    gh = await startGitHubDouble({
      repositories: [REPOSITORY],
      githubToken: GITHUB_TOKEN,
      permissions: { [REPOSITORY]: { maintainer: 'write' } },
      pullRequests: [doublePullRequest({ number: 5, baseSha: fork.baseSha, headSha: fork.headSha, author: 'maintainer' })],
    });
    result = await runEntryPoint({
      folder,
      apiUrl: gh.url,
      event: workflowDispatchEvent({ workflow: 'perf-command.yml', inputs: {} }),
      inputs: { job: 'measure', 'pull-request': '5', 'base-ref': fork.baseSha, 'head-sha': fork.headSha, source: fork.repo, thresholds: 'perfgate/thresholds', 'base-basedir': BASE_BASEDIR, 'head-basedir': HEAD_BASEDIR, 'work-dir': workDir },
    });
  });
  after(() => gh?.close());

  it('measures, leaves the run folder, and skips the upload with one warning line', () => {
    assert.equal(result.status, 0, result.stdout.slice(-4000) + result.stderr.slice(-4000));
    const warnings = result.stdout.split('\n').filter((line) => line.startsWith('::warning::'));
    assert.deepEqual(warnings, [`::warning::no artifact service (ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL are not set): the run folder ${path.join(workDir, 'perfgate-quick')} is not uploaded`]);
    const runDir = path.join(workDir, 'perfgate-quick');
    assert.equal(result.outputs['report-dir'], runDir);
    const verdict = JSON.parse(readFileSync(path.join(runDir, 'verdict.json'), 'utf8'));
    assert.equal(result.outputs.verdict, verdict.verdict);
    const run = JSON.parse(readFileSync(path.join(runDir, 'action-run.json'), 'utf8'));
    assert.deepEqual({ ...run, thresholds: run.thresholds.commit }, {
      schema: 'perfgate.action-run/v1', suite: 'quick', shard: null, options: {}, pull_request: 5, base_sha: fork.baseSha, head_sha: fork.headSha, thresholds: fork.baseSha, status: 'judged', message: null,
    });
    assert.ok(existsSync(path.join(runDir, 'thresholds', 'suites', 'quick.yml')), 'the limits it used are in the run folder');
  });

  it('asked GitHub only what a read-only token may', () => {
    assert.deepEqual(gh.calls.map((call) => call.operationId), ['pulls/get', 'repos/get-collaborator-permission-level']);
    assert.deepEqual(gh.problems(), []);
  });
});

describe('the measure job building both sides from the fork\'s source (tiny CMake fork)', () => {
  let gh;
  let result;
  let workDir;
  let shas;

  before(async () => {
    assert.ok(haveTools, 'the source-build case needs cmake, ninja, git and a C++ compiler: run make setup');
    const folder = path.join(root, 'source');
    const repo = path.join(folder, 'fork');
    cpSync(FIXTURE, repo, { recursive: true });
    mkdirSync(path.join(repo, 'perfgate/thresholds/suites'), { recursive: true });
    writeFileSync(path.join(repo, 'perfgate/thresholds/suites/quick.yml'), tinySuite());
    writeFileSync(path.join(repo, 'perfgate/thresholds/build.yml'), RECIPE_FILE);
    const git = (...args) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', '-C', repo, ...args], { encoding: 'utf8' }).trim();
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'base');
    const base = git('rev-parse', 'HEAD');
    git('checkout', '-q', '-b', 'broken');
    const plan = path.join(repo, 'core/plan.cc');
    writeFileSync(plan, readFileSync(plan, 'utf8').replace('return rows', 'this_does_not_compile;\n  return rows'));
    // The head also tries to change how it is built: the base's recipe is what counts.
    writeFileSync(path.join(repo, 'perfgate/thresholds/build.yml'), RECIPE_FILE.replace('from-recipe', 'from-the-head'));
    git('commit', '-q', '-am', 'head that does not compile');
    shas = { base, head: git('rev-parse', 'HEAD') };
    workDir = path.join(folder, 'work');
    gh = await startGitHubDouble({
      repositories: [REPOSITORY],
      githubToken: GITHUB_TOKEN,
      permissions: { [REPOSITORY]: { maintainer: 'write' } },
      pullRequests: [doublePullRequest({ number: 6, baseSha: shas.base, headSha: shas.head, author: 'maintainer' })],
    });
    result = await runEntryPoint({
      folder,
      apiUrl: gh.url,
      event: workflowDispatchEvent({ workflow: 'perf-command.yml', inputs: {} }),
      inputs: { job: 'measure', 'pull-request': '6', 'base-ref': shas.base, 'head-sha': shas.head, source: repo, thresholds: 'perfgate/thresholds', 'work-dir': workDir },
      env: { PERFGATE_CACHE: path.join(folder, 'cache') },
    });
  });
  after(() => gh?.close());

  it('builds the base with the base commit\'s recipe, and makes the head\'s compile error an error verdict', () => {
    assert.equal(result.status, 0, result.stdout.slice(-4000) + result.stderr.slice(-4000));
    const runDir = path.join(workDir, 'perfgate-quick');
    const builds = JSON.parse(readFileSync(path.join(runDir, 'build', 'builds.json'), 'utf8'));
    assert.equal(builds.cmake_flags.TINY_GREETING, 'from-recipe');
    assert.equal(builds.sides.base.status, 'ok');
    assert.equal(builds.sides.base.commit, shas.base);
    assert.equal(builds.sides.head.status, 'error');
    const verdict = JSON.parse(readFileSync(path.join(runDir, 'verdict.json'), 'utf8'));
    assert.equal(verdict.verdict, 'error');
    assert.equal(result.outputs.verdict, 'error');
    assert.match(readFileSync(path.join(runDir, 'comment.md'), 'utf8'), /Limits from `perfgate\/thresholds\/` at base commit/);
    assert.match(readFileSync(path.join(runDir, 'build', 'head.log'), 'utf8'), /this_does_not_compile/);
  });
});
