// The plumbing the action's and the bot's end-to-end tests stand on: a workflow file run by act
// on this host (no Docker) for a pull_request event GitHub published, its local JavaScript action
// talking to the GitHub double through GITHUB_API_URL and uploading an artifact to act's artifact
// server, and everything it delivered read back the way GitHub would show it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runAct, stepLog } from '../support/act.mjs';
import { ciTool } from '../support/ci-tools.mjs';
import { startGitHubDouble } from '../support/github-api/index.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REPOSITORY = 'perfgate-test/fork';
const GITHUB_TOKEN = 'ghs_actPlumbingTokenForTheGitHubDouble01';
const RUN_ID = 4242;

/** GitHub's published example of a pull_request "opened" delivery. */
function publishedPullRequestEvent() {
  const examples = require('@octokit/webhooks-examples');
  const event = examples.find((entry) => entry.name === 'pull_request').examples.find((example) => example.action === 'opened');
  return structuredClone(event);
}

/** The same delivery, moved to the test repository and to the commit act will check out. */
function pointAt(event, { repository, number, headSha }) {
  const [owner, name] = repository.split('/');
  for (const repo of [event.repository, event.pull_request.base.repo, event.pull_request.head.repo]) {
    repo.name = name;
    repo.full_name = repository;
    repo.owner.login = owner;
  }
  event.number = number;
  event.pull_request.number = number;
  event.pull_request.head.sha = headSha;
  return event;
}

/**
 * A repository laid out as a fork would have it: the fixture workflow under .github/workflows,
 * the fixture action under .github/actions, committed. node_modules links to this repository's
 * so the action's imports resolve; act's checkout copies the link, not the packages.
 */
function layOutRepository(folder) {
  const repo = path.join(folder, 'repo');
  mkdirSync(path.join(repo, '.github', 'workflows'), { recursive: true });
  cpSync(path.join(ROOT, 'test/fixtures/workflows/pr-comment.yml'), path.join(repo, '.github/workflows/pr-comment.yml'));
  cpSync(path.join(ROOT, 'test/fixtures/actions/pr-comment'), path.join(repo, '.github/actions/pr-comment'), { recursive: true });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(repo, 'node_modules'));
  const git = (...args) => execFileSync('git', ['-c', 'user.name=perfgate test', '-c', 'user.email=test@perfgate.invalid', ...args], { cwd: repo, encoding: 'utf8' }).trim();
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'fixture repository');
  return { repo, headSha: git('rev-parse', 'HEAD') };
}

function readZipEntry(zipFile, entry) {
  // Python's zipfile reads the archive: an independent reader of what @actions/artifact wrote.
  return execFileSync('python3', ['-c', 'import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())', zipFile, entry], { encoding: 'utf8' });
}

describe('a workflow under act, delivering to the GitHub double', () => {
  let folder;
  let gh;
  let result;
  let event;

  before(async () => {
    ciTool('act');
    folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-act-plumbing-'));
    const { repo, headSha } = layOutRepository(folder);
    event = pointAt(publishedPullRequestEvent(), { repository: REPOSITORY, number: 7, headSha });
    const artifactsDir = path.join(folder, 'artifacts');
    gh = await startGitHubDouble({
      repositories: [REPOSITORY],
      githubToken: GITHUB_TOKEN,
      artifactsDir,
      pullRequests: [
        {
          repository: REPOSITORY,
          number: 7,
          title: event.pull_request.title,
          user: event.pull_request.user.login,
          head: { ref: event.pull_request.head.ref, sha: headSha },
          base: { ref: event.pull_request.base.ref, sha: event.pull_request.base.sha },
        },
      ],
    });
    const lint = execFileSync(ciTool('actionlint'), ['-no-color'], { cwd: repo, encoding: 'utf8' });
    assert.equal(lint, '', 'the laid-out workflow lints clean');
    result = await runAct({
      workdir: repo,
      workflow: '.github/workflows/pr-comment.yml',
      event: 'pull_request',
      payload: event,
      apiUrl: gh.url,
      repository: REPOSITORY,
      runId: RUN_ID,
      artifactsDir,
      secrets: { GITHUB_TOKEN },
    });
    writeFileSync(path.join(folder, 'act.log'), stepLog(result));
  });

  after(async () => {
    await gh?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('runs the job to success', () => {
    assert.equal(result.exitCode, 0, `act failed:\n${stepLog(result)}\n${result.stderr}`);
    assert.deepEqual(result.jobs, { comment: 'success' });
    assert.equal(result.steps.fixture, 'success');
  });

  it('made one comment on the pull request, as github-actions[bot], and set its id as the step output', () => {
    const comments = gh.state.comments(REPOSITORY, 7);
    assert.equal(comments.length, 1);
    assert.equal(comments[0].user.login, 'github-actions[bot]');
    assert.match(comments[0].body, new RegExp(`^<!-- pr-comment-fixture -->\\nfixture comment on #7 at ${event.pull_request.head.sha}$`));
    assert.deepEqual(result.outputs.fixture, { 'comment-id': String(comments[0].id), 'node-version': process.version });
    const [create] = gh.callsTo('issues/create-comment');
    assert.deepEqual(create.identity, { kind: 'github-token', login: 'github-actions[bot]' });
  });

  it("ran the action's `using: node24` with the host's node, as perfgate's own action.yml asks (act v0.2.89 knows node24)", () => {
    for (const file of ['test/fixtures/actions/pr-comment/action.yml', 'action/action.yml']) {
      assert.match(readFileSync(path.join(ROOT, file), 'utf8'), /\nruns:\n {2}using: node24\n/, file);
    }
    // The node on PATH (this test's own), whatever `using:` says; on GitHub the runner's node 24.
    assert.equal(result.outputs.fixture['node-version'], process.version);
  });

  it('wrote the job summary', () => {
    assert.deepEqual(result.summaries, [
      { job: 'comment', step: 'fixture', content: '<h1>pr-comment fixture</h1>\ncommented on #7 as github-actions[bot]\n' },
    ]);
  });

  it('uploaded an artifact that the REST API lists and downloads', async () => {
    const headers = { authorization: `token ${GITHUB_TOKEN}` };
    const listing = await (await fetch(`${gh.url}/repos/${REPOSITORY}/actions/runs/${RUN_ID}/artifacts`, { headers })).json();
    assert.deepEqual(listing.artifacts.map((artifact) => artifact.name), ['fixture-report']);
    const download = await fetch(listing.artifacts[0].archive_download_url, { headers });
    assert.equal(download.status, 200);
    assert.ok(download.redirected, 'the download went through the 302 to a short-lived URL');
    const zipFile = path.join(folder, 'downloaded.zip');
    writeFileSync(zipFile, Buffer.from(await download.arrayBuffer()));
    const comment = gh.state.comments(REPOSITORY, 7)[0];
    assert.deepEqual(JSON.parse(readZipEntry(zipFile, 'report.json')), { pull_request: 7, comment: comment.id });
  });

  it('sent the double nothing that breaks GitHub\'s description and nothing it does not implement', () => {
    assert.deepEqual(gh.problems(), []);
    assert.deepEqual(
      gh.calls.map((call) => call.operationId ?? call.path.replace(/[0-9a-f]{32}/, '<key>')),
      ['issues/create-comment', 'actions/list-workflow-run-artifacts', 'actions/download-artifact', '/_double/artifact-blobs/<key>/fixture-report.zip'],
    );
  });
});
