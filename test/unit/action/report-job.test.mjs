// The report job end to end against the GitHub double: the run folder artifact is listed and
// downloaded through the REST API (@actions/artifact, as on GitHub), read through core's run
// folder reader, and delivered. A hostile run folder (its verdict written by a runner that built
// a pull request's code) becomes text within GitHub's limits in the check run, the sticky
// comment and the job summary; a run folder of another suite is named, not a crash.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { marked } from 'marked';
import { BASE_SHA, HEAD_SHA, runFolderFiles, writeArtifact } from '../../support/bot.mjs';
import { startGitHubDouble } from '../../support/github-api/index.mjs';
import { checkRunName } from '../../../action/src/gate.js';
import { readSettings as readSettingsOf } from '../../../action/src/settings.js';

const REPOSITORY = 'perfgate-test/fork';
const TOKEN = 'ghs_reportJobTestTokenForTheGitHubDouble1';
const MARKER = '<!-- perfgate:comment suite=quick -->';
const HOSTILE = '@perfgate-test/maintainers @admin look: ![x](https://evil.example/a.png) [click](https://evil.example/x) <img src=x onerror=alert(1)> `code` | cell\n# heading';

describe('the report job', () => {
  let gh;
  let folder;
  let report;
  let readSettings;
  let makeOctokit;
  let runId = 7000;
  const saved = {};

  before(async () => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-report-job-'));
    gh = await startGitHubDouble({
      repositories: [REPOSITORY],
      githubToken: TOKEN,
      artifactsDir: path.join(folder, 'artifacts'),
      pullRequests: [7, 8, 9, 10, 11, 12].map((number) => ({ repository: REPOSITORY, number, head: { ref: `b${number}`, sha: HEAD_SHA }, base: { ref: 'main', sha: BASE_SHA } })),
    });
    // @actions/github reads its API URL when it is first imported: set it before the action is.
    for (const name of ['GITHUB_API_URL', 'GITHUB_SERVER_URL', 'GITHUB_STEP_SUMMARY']) saved[name] = process.env[name];
    process.env.GITHUB_API_URL = gh.url;
    process.env.GITHUB_SERVER_URL = 'https://github.com';
    ({ report } = await import('../../../action/src/report.js'));
    ({ readSettings } = await import('../../../action/src/settings.js'));
    ({ makeOctokit } = await import('../../../action/src/github.js'));
  });
  after(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await gh?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  /** Runs job=report for pull request `pr` on a run whose artifact holds `files`. */
  async function reportRun(pr, files, { serverUrl = 'https://github.com', options = '', failOn = '' } = {}) {
    runId += 1;
    writeArtifact(path.join(folder, 'artifacts'), runId, 'perfgate-quick', files);
    // @actions/artifact reads the server from the environment, as on a runner.
    process.env.GITHUB_SERVER_URL = serverUrl;
    const summaryFile = path.join(folder, `summary-${runId}.md`);
    writeFileSync(summaryFile, '');
    process.env.GITHUB_STEP_SUMMARY = summaryFile;
    const inputs = {
      job: 'report', suite: 'quick', 'pull-request': String(pr), 'head-sha': HEAD_SHA, 'measure-result': 'success', 'github-token': TOKEN, 'work-dir': path.join(folder, `work-${runId}`), options, 'fail-on': failOn,
    };
    const env = { GITHUB_REPOSITORY: REPOSITORY, GITHUB_RUN_ID: String(runId), GITHUB_SERVER_URL: serverUrl, GITHUB_API_URL: gh.url, GITHUB_EVENT_NAME: 'workflow_dispatch' };
    const settings = readSettings({ input: (name) => inputs[name] || '', env, event: {} });
    let outputs;
    try {
      outputs = await report(settings, makeOctokit(settings));
    } finally {
      process.env.GITHUB_SERVER_URL = 'https://github.com';
    }
    const comments = gh.state.comments(REPOSITORY, pr).filter((c) => c.body.startsWith(MARKER));
    assert.equal(comments.length, 1, 'one sticky comment');
    const check = gh.state.checkRuns(REPOSITORY).at(-1);
    return { outputs, comment: comments[0].body, check, summary: readFileSync(summaryFile, 'utf8') };
  }

  // Links and images a rendered markdown text holds, and any HTML an attacker could have put in.
  function live(markdown) {
    const html = marked.parse(markdown, { gfm: true });
    return {
      links: [...html.matchAll(/<a href="([^"]*)"/g)].map((m) => m[1]),
      images: [...html.matchAll(/<img/g)].length,
      html: [...html.matchAll(/<(script|img|h1)\b/g)].map((m) => m[1]),
      mentions: html.replace(/<[^>]*>/g, '').match(/(^|[^\w])@[A-Za-z0-9]/g) || [],
    };
  }

  it('shows a hostile verdict as text, within GitHub\'s limits: comment, check run, job summary', async () => {
    const files = runFolderFiles({
      pr: 7,
      edit: (f) => {
        const verdict = f['verdict.json'];
        verdict.headline = `${HOSTILE} ${'A'.repeat(70_000)}`;
        verdict.benchmarks[0].reason = `${HOSTILE} <script>alert(1)</script>`;
        verdict.doctor = [HOSTILE];
      },
    });
    const { outputs, comment, check, summary } = await reportRun(7, files);
    assert.equal(outputs.verdict, JSON.parse(files['verdict.json']).verdict);
    assert.ok(comment.length <= 65536, comment.length);
    assert.ok(check.output.summary.length <= 65535 && check.output.text.length <= 65535 && check.output.title.length <= 1000);
    for (const [where, markdown] of [['comment', comment], ['check run summary', check.output.summary], ['check run text', check.output.text], ['job summary', summary]]) {
      const found = live(markdown);
      assert.deepEqual(found.html, [], `${where}: no HTML of the artifact's`);
      assert.equal(found.images, 0, `${where}: no image`);
      assert.deepEqual(found.links.filter((href) => href.includes('evil')), [], `${where}: no link of the artifact's`);
      assert.deepEqual(found.mentions, [], `${where}: no mention`);
    }
    // The words are all there, as text.
    assert.ok(comment.includes('[click\\](https:\u200d//evil.example/x)'), 'the link is shown, not made');
    assert.match(comment, /A{500}/);
    assert.deepEqual(gh.problems(), []);
  });

  it('a run folder whose verdict is of another suite: an error naming both suites and the artifact, not a crash', async () => {
    const files = runFolderFiles({ pr: 8, edit: (f) => { f['verdict.json'].suite = 'full'; } });
    const { outputs, comment, check } = await reportRun(8, files);
    const why = 'perfgate-quick/verdict.json: suite is "full", but input suite is quick';
    assert.equal(outputs.verdict, 'error');
    assert.ok(comment.startsWith(`${MARKER}\n### 💥 perfgate quick: error\n\n**Error: no verdict for head ${HEAD_SHA.slice(0, 12)}: ${why}.**`), comment);
    assert.deepEqual([check.conclusion, check.output.title], ['failure', `perfgate quick — Error: ${why}`]);
  });

  // A writer's `/perf quick tests=point-query` (or a hand dispatch with options) measures a part of
  // the suite: its check run must not be the `perfgate quick` a branch protection rule requires.
  it('a run narrowed by options completes a check run named with them, never the suite\'s own', async () => {
    const files = runFolderFiles({ pr: 10, edit: (f) => { f['action-run.json'].options = { tests: 'point-query', rounds: '1' }; } });
    const { outputs, check } = await reportRun(10, files, { options: 'tests=point-query rounds=1' });
    assert.equal(outputs.verdict, JSON.parse(files['verdict.json']).verdict);
    assert.equal(check.name, 'perfgate quick (rounds=1 tests=point-query)');
    assert.deepEqual(gh.state.checkRuns(REPOSITORY).filter((c) => c.id === Number(outputs['check-run-id'])).map((c) => c.name), ['perfgate quick (rounds=1 tests=point-query)']);
  });

  it('a run folder measured with other options than input options says: an error, under the name the input gives', async () => {
    const files = runFolderFiles({ pr: 11, edit: (f) => { f['action-run.json'].options = { tests: 'point-query' }; } });
    const { outputs, check } = await reportRun(11, files);
    const why = "perfgate-quick/action-run.json: options are 'tests=point-query', but input options is empty";
    assert.equal(outputs.verdict, 'error');
    assert.deepEqual([check.name, check.conclusion, check.output.title], ['perfgate quick', 'failure', `perfgate quick — Error: ${why}`]);
  });

  // GitHub counts a neutral check as passing a required one: fail-on warn must block it too.
  it('an undecided run completes the check run as fail-on says: neutral by default, failure with fail-on warn', async () => {
    const files = runFolderFiles({ pr: 12, edit: (f) => { f['verdict.json'].verdict = 'undecided'; } });
    assert.equal((await reportRun(12, files)).check.conclusion, 'neutral');
    const strict = await reportRun(12, files, { failOn: 'warn' });
    assert.equal(strict.outputs.verdict, 'undecided');
    assert.equal(strict.check.conclusion, 'failure');
  });

  it('on GitHub Enterprise Server: the check run and the comment say why there is no verdict and what to do', async () => {
    const GHES = 'https://github.acme.example';
    const { outputs, comment, check } = await reportRun(9, runFolderFiles({ pr: 9 }), { serverUrl: GHES });
    assert.equal(outputs.verdict, 'error');
    assert.equal(check.conclusion, 'failure');
    assert.match(check.output.title, /^perfgate quick — Error: https:\/\/github\.acme\.example is a GitHub Enterprise Server, and @actions\/artifact/);
    assert.match(comment, /GitHub Enterprise Server, and @\u200dactions\/artifact, which carries perfgate's run folders from the measure jobs to the report and signoff jobs, works only on github\.com and GHE\.com\. Run the perfgate workflows on github\.com or GHE\.com; on GitHub Enterprise Server run the perfgate command in a job of your own \(docs\/action\.md, "GitHub Enterprise Server"\)/);
  });
});

describe('the check run a run completes', () => {
  const env = { GITHUB_REPOSITORY: 'o/r', GITHUB_EVENT_NAME: 'workflow_dispatch' };
  const settingsWith = (extra) => readSettingsOf({ input: (name) => ({ job: 'gate', suite: 'quick', 'pull-request': '7', 'github-token': 't', ...extra })[name] || '', env, event: {} });

  it('is `perfgate <suite>` only for the suite as its limits define it', () => {
    const cases = [
      [{}, 'perfgate quick'],
      [{ options: 'tests=point-query' }, 'perfgate quick (tests=point-query)'],
      [{ options: 'tests=point-query rounds=1' }, 'perfgate quick (rounds=1 tests=point-query)'],
      [{ options: 'rounds=1 tests=point-query' }, 'perfgate quick (rounds=1 tests=point-query)'],
      [{ options: 'threads=1,4' }, 'perfgate quick (threads=1,4)'],
      [{ options: 'metric=time' }, 'perfgate quick (metric=time)'],
      [{ suite: 'ahi-quick' }, 'perfgate ahi-quick'],
      [{ suite: 'full', shard: '2/4' }, 'perfgate full'],
    ];
    for (const [inputs, name] of cases) assert.equal(checkRunName(settingsWith(inputs)), name, JSON.stringify(inputs));
  });

  it('the bot names the check run of a command as the action does', () => {
    const core = createRequire(import.meta.url)('@perfgate/core');
    assert.equal(core.checkRunName('quick', { rounds: 8, threads: [1, 4] }), checkRunName(settingsWith({ options: 'threads=1,4 rounds=8' })));
    assert.equal(core.checkRunName('quick', {}), 'perfgate quick');
  });
});
