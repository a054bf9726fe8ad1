// PERFGATE_REPORT=workflow, the default: the dispatched workflow (the example perf-command.yml
// and perf-full.yml) writes the check run and the sticky comment, and the bot keeps one reply
// per measuring command current — queued, cancelled, stored, or no verdict — and stores every
// run folder, shards included.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { marked } from 'marked';
import {
  BASE_SHA, bot, botComments, command, HEAD_SHA, openPulls, pushEvent, REPOSITORY, runFolderFiles, settled, startBotOn, startDouble, workflowRunEvent, writeArtifact,
} from '../../support/bot.mjs';

const short = (sha) => sha.slice(0, 12);

describe('when the dispatched workflow reports', () => {
  let gh;
  let running;
  let artifactsDir;
  let nextPr = 400;
  before(async () => {
    artifactsDir = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bot-workflow-reports-'));
    const prs = Array.from({ length: 8 }, (_, i) => 400 + i);
    gh = await startDouble({ artifactsDir, prs });
    running = await startBotOn(gh, { env: { PERFGATE_REPORT: 'workflow' } });
    await openPulls(running, prs);
  });
  after(async () => {
    await running?.close();
    await gh?.close();
    rmSync(artifactsDir, { recursive: true, force: true });
  });

  async function dispatched(body, login = 'maintainer') {
    const pr = nextPr++;
    const { comment } = await command(gh, running, login, body, { pr });
    await settled(running);
    const request = await bot.requestForComment(running.store, comment.id);
    const run = request.runId && await (await fetch(`${gh.url}/repos/${REPOSITORY}/actions/runs/${request.runId}`)).json();
    const reply = () => {
      const mine = botComments(gh, pr);
      assert.equal(mine.length, 1, 'one reply of the bot, edited in place');
      assert.ok(mine[0].body.startsWith(`<!-- perfgate:reply comment=${comment.id} -->\n`));
      return mine[0].body.split('\n').slice(1).join('\n').trimEnd();
    };
    return { pr, comment, request, run, reply };
  }

  async function complete(run, conclusion = 'success') {
    gh.state.updateWorkflowRun(REPOSITORY, run.id, { status: 'completed', conclusion });
    await running.deliver('workflow_run', workflowRunEvent({ run, conclusion }));
    await settled(running);
  }

  it('dispatches perf-command.yml and replies "queued"; no check run and no sticky comment of its own', async () => {
    const { request, run, reply } = await dispatched('/perf quick rounds=4 metric=instructions');
    assert.deepEqual(gh.state.dispatches.at(-1).inputs, {
      'pull-request': String(request.prNumber), 'base-sha': BASE_SHA, 'head-sha': HEAD_SHA, 'approved-sha': HEAD_SHA, suite: 'quick', options: 'rounds=4', 'request-id': `c${request.commentId}`,
    });
    assert.equal(reply(), `⏳ \`/perf quick rounds=4 metric=instructions\` from @maintainer: head \`${short(HEAD_SHA)}\` against base \`${short(BASE_SHA)}\`, [workflow run](${run.html_url}) queued (\`metric=\` not passed on: the workflow's options take rounds, threads and tests). Its check run and sticky comment will have the verdict.`);
    assert.deepEqual(gh.state.checkRuns(REPOSITORY).filter((c) => c.externalId === `c${request.commentId}`), []);
    assert.equal(request.checkRunId, null);
  });

  it('stores the run folder when the run completes, and edits the reply', async () => {
    const { pr, request, run, reply } = await dispatched('/perf quick');
    const files = runFolderFiles({ pr });
    writeArtifact(artifactsDir, run.id, 'perfgate-quick', files);
    await complete(run);
    const verdict = JSON.parse(files['verdict.json']);
    assert.equal(reply(), `📦 \`/perf quick\` from @maintainer: the [workflow run](${run.html_url}) of head \`${short(HEAD_SHA)}\` against base \`${short(BASE_SHA)}\` is done and its run folder is stored; ${verdict.verdict}: ${verdict.headline.replace(/\.$/, '')}.`);
    const runs = await running.store.db.selectFrom('runs').select('run_key').where('request_id', '=', request.id).execute();
    assert.deepEqual(runs.map((r) => r.run_key), [`${REPOSITORY}/${run.id}/1/perfgate-quick`]);
  });

  it('/perf full dispatches perf-full.yml, and every shard\'s run folder is stored', async () => {
    const { pr, request, run, reply } = await dispatched('/perf full', 'admin');
    assert.equal(gh.state.dispatches.at(-1).workflow, 'perf-full.yml');
    for (const index of [1, 2]) {
      writeArtifact(artifactsDir, run.id, `perfgate-full-shard-${index}-of-2`, runFolderFiles({ pr, suite: 'full', shard: { index, count: 2 } }));
    }
    await complete(run);
    assert.equal(reply(), `📦 \`/perf full\` from @admin: the [workflow run](${run.html_url}) of head \`${short(HEAD_SHA)}\` against base \`${short(BASE_SHA)}\` is done and its 2 run folders (shards) are stored.`);
    const runs = await running.store.db.selectFrom('runs').select('run_key').where('request_id', '=', request.id).orderBy('run_key').execute();
    assert.deepEqual(runs.map((r) => r.run_key), [1, 2].map((k) => `${REPOSITORY}/${run.id}/1/perfgate-full-shard-${k}-of-2`));
  });

  it('a run without a run folder: the reply says so, nothing is stored', async () => {
    const { request, run, reply } = await dispatched('/perf ahi');
    await complete(run, 'failure');
    assert.equal(reply(), `💥 \`/perf ahi\` from @maintainer: the [workflow run](${run.html_url}) (head \`${short(HEAD_SHA)}\`, base \`${short(BASE_SHA)}\`) left nothing perfgate could use: the run ended failure (\`the run uploaded no run folder (an artifact perfgate-ahi, or its shards)\`). Nothing was stored; \`/perf rerun\` measures it again.`);
    assert.equal((await bot.getRequest(running.store, request.id)).status, 'failed');
  });

  it('a push cancels the run and the reply says why', async () => {
    const { pr, run, reply } = await dispatched('/perf quick');
    const newHead = 'c'.repeat(40);
    gh.state.repoByFullName('r', REPOSITORY).pulls.get(pr).head.sha = newHead;
    await running.deliver('pull_request', pushEvent({ pr, headSha: newHead }));
    await settled(running);
    assert.equal(reply(), `⏹️ \`/perf quick\` from @maintainer (head \`${short(HEAD_SHA)}\`) was cancelled: new commits were pushed (head now \`${short(newHead)}\`); comment again to measure them.`);
    const after = gh.state.repoByFullName('r', REPOSITORY).runs.get(run.id);
    assert.deepEqual([after.status, after.conclusion], ['completed', 'cancelled']);
  });

  it('a hostile headline of 70,000 characters (mentions, links, images, HTML) is text in the reply, which fits; the request completes', async () => {
    const { pr, request, run } = await dispatched('/perf quick');
    const hostile = '@perfgate-test/perf-team @admin see ![x](https://evil.example/a.png) [click](https://evil.example/x) <img src=x onerror=alert(1)> `code` | cell';
    writeArtifact(artifactsDir, run.id, 'perfgate-quick', runFolderFiles({ pr, edit: (f) => { f['verdict.json'].headline = `${hostile} ${'A'.repeat(70_000)}`; } }));
    await complete(run);
    assert.equal((await bot.getRequest(running.store, request.id)).status, 'completed');
    const [body] = botComments(gh, pr).map((c) => c.body);
    assert.ok(body.length <= 65536, body.length);
    const html = marked.parse(body, { gfm: true });
    // The bot's own words keep their link and mention; nothing of the headline is live.
    assert.deepEqual([...html.matchAll(/<a href="([^"]*)"/g)].map((m) => m[1]), [run.html_url]);
    assert.doesNotMatch(html, /<img|<script/);
    assert.deepEqual(html.replace(/<[^>]*>/g, '').match(/@[A-Za-z0-9][\w/-]*/g), ['@maintainer']);
    assert.ok(body.includes('@\u200dperfgate-test/perf-team @\u200dadmin see ![x\\](https:\u200d//evil.example/a.png) [click\\](https:\u200d//evil.example/x) \\<img src=x onerror=alert(1)> \\`code\\` \\| cell AAA'), body.slice(0, 600));
  });

  it("sent nothing that breaks GitHub's description", () => {
    assert.deepEqual(gh.problems().map((c) => `${c.operationId} ${c.status}: ${c.problems.join('; ')}`), []);
  });
});
