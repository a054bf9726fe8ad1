// Release sign-off against the GitHub double: /perf signoff in a release tracking issue → refs
// pinned to SHAs, the sign-off recorded, commit status perfgate/signoff pending on the candidate,
// perf-signoff.yml dispatched; its run completed → the merged run folder stored, the report as
// the reply, the final status; /perf waive there → waiver recorded, status and report updated;
// /perf cancel there → run stopped, status error; refusals. The run folders are real: the full
// suite measured in two shards at a tiny scale (test/fixtures/results/full-shards-tiny), merged
// and judged by core as `perfgate merge` does.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  bot, botComments, command, PR, pushEvent, REPOSITORY, settled, startBotOn, writeArtifact,
} from '../../support/bot.mjs';
import {
  completeSignoffRun, mergedRunFolder, newIssue, ONE_FAILS, onIssue as onIssueOf, sha, signoffStatuses, startSignoffDouble, TAGS, tpccRunFolder,
} from '../../support/signoff.mjs';

const require = createRequire(import.meta.url);
const core = require('@perfgate/core');
const FULL_ARTIFACT = core.signoffArtifact('full');
const { SIGNOFF_REPLIES } = require('../../../bot/src/app/signoff');
const { REPLIES } = require('../../../bot/src/app/messages');

const FULL_NAMES = core.findSuite(core.loadThresholds(), 'full').names;

describe('release sign-off', () => {
  let gh;
  let running;
  let artifactsDir;
  before(async () => {
    artifactsDir = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bot-signoff-'));
    gh = await startSignoffDouble({ artifactsDir });
    running = await startBotOn(gh, { env: { PERFGATE_SIGNOFF_SUITES: 'full' } });
  });
  after(async () => {
    await running?.close();
    await gh?.close();
    rmSync(artifactsDir, { recursive: true, force: true });
  });

  const onIssue = (issue, login, body) => onIssueOf(gh, running, issue, login, body);
  const statuses = (commit) => signoffStatuses(gh, commit);
  const complete = (request, conclusion) => completeSignoffRun(gh, running, request, conclusion);

  it('/perf signoff without vs: the previous release by tag naming, both pinned, pending status, dispatch, reply', async () => {
    const issue = newIssue(gh);
    const r = await onIssue(issue, 'maintainer', '/perf signoff mariadb-10.11.19');
    assert.equal(r.dispatches.length, 1);
    const d = r.dispatches[0];
    assert.deepEqual([d.workflow, d.ref, d.actor], ['perf-signoff.yml', 'main', 'perfgate[bot]']);
    assert.deepEqual(d.inputs, {
      'candidate-ref': 'mariadb-10.11.19', 'candidate-sha': TAGS['mariadb-10.11.19'], 'previous-ref': 'mariadb-10.11.18', 'previous-sha': TAGS['mariadb-10.11.18'],
      conversation: String(issue), 'request-id': `c${r.comment.id}`, suites: 'full',
    });
    assert.deepEqual([r.request.status, r.request.baseSha, r.request.headSha, r.request.suite], ['dispatched', TAGS['mariadb-10.11.18'], TAGS['mariadb-10.11.19'], 'full']);
    const signoff = await bot.signoffForRequest(running.store, r.request.id);
    assert.deepEqual([signoff.issueNumber, signoff.candidate, signoff.previous, signoff.status, signoff.state],
      [issue, { ref: 'mariadb-10.11.19', sha: TAGS['mariadb-10.11.19'] }, { ref: 'mariadb-10.11.18', sha: TAGS['mariadb-10.11.18'] }, 'dispatched', 'pending']);
    assert.deepEqual(statuses(TAGS['mariadb-10.11.19']).map((s) => [s.state, s.description, s.creator.login]), [['pending', 'Being measured against mariadb-10.11.18: full', 'perfgate[bot]']]);
    const run = await (await fetch(`${gh.url}/repos/${REPOSITORY}/actions/runs/${r.request.runId}`)).json();
    assert.equal(run.display_title, `perfgate signoff mariadb-10.11.19 against mariadb-10.11.18 (c${r.comment.id})`);
    assert.deepEqual(r.reply(), [SIGNOFF_REPLIES.queued({ author: 'maintainer', candidate: signoff.candidate, previous: signoff.previous, suites: ['full'], runUrl: run.html_url })]);
  });

  it('completed: the merged run folder stored, the report as the reply, failure with a failing microbenchmark; waived → success, the report lists the waiver', async () => {
    const issue = newIssue(gh);
    const statusesBefore = gh.state.statuses(REPOSITORY).length;
    const r = await onIssue(issue, 'admin', '/perf signoff mariadb-10.11.19 vs mariadb-10.11.17');
    const candidate = TAGS['mariadb-10.11.19'];
    const statuses = (commit) => gh.state.statuses(REPOSITORY).slice(statusesBefore).filter((s) => s.sha === commit && s.context === 'perfgate/signoff');
    const { files, verdict } = mergedRunFolder({ previousSha: TAGS['mariadb-10.11.17'], candidateSha: candidate, limits: ONE_FAILS });
    assert.deepEqual(verdict.counts, { pass: 41, warn: 0, undecided: 0, fail: 1, error: 0 });
    writeArtifact(artifactsDir, r.request.runId, FULL_ARTIFACT, files);
    const run = await complete(r.request);

    const signoff = await bot.signoffForRequest(running.store, r.request.id);
    assert.deepEqual([signoff.status, signoff.state, signoff.summary], ['completed', 'failure', '1 of 42 not within limits (scan_range=100 fail)']);
    assert.deepEqual(signoff.verdicts.map((p) => [p.suite, p.verdict.benchmarks.length, p.problem]), [['full', 42, null]]);
    const stored = await running.store.db.selectFrom('runs').selectAll().where('run_key', '=', `${REPOSITORY}/${run.id}/1/${FULL_ARTIFACT}`).executeTakeFirst();
    assert.equal(Number(stored.id), signoff.runId);
    assert.deepEqual(statuses(candidate).map((s) => s.state), ['pending', 'failure']);
    assert.equal(statuses(candidate)[1].targetUrl, run.html_url);
    const waivers = [];
    const report = () => core.renderSignoff(signoff.verdicts, { candidate: signoff.candidate, previous: signoff.previous, waivers, runUrl: run.html_url }).files['signoff.md'].trimEnd();
    assert.deepEqual(r.reply(), [report()], 'the queued reply became the report');
    assert.equal((await bot.getRequest(running.store, r.request.id)).status, 'completed');

    // A waiver in the same issue: the status is decided again and the report updated in place.
    const w = await onIssue(issue, 'maintainer', '/perf waive scan_range=100 -- the scan got a new plan on purpose; tracked in MDEV-1');
    const [waiver] = await bot.signoffWaivers(running.store, signoff.id);
    assert.deepEqual([waiver.microbenchmark, waiver.author, waiver.reason], ['scan_range=100', 'maintainer', 'the scan got a new plan on purpose; tracked in MDEV-1']);
    waivers.push(waiver);
    assert.deepEqual(statuses(candidate).map((s) => [s.state, s.description]).at(-1), ['success', 'All 42 microbenchmarks within limits, 1 waived']);
    assert.deepEqual(r.reply(), [report()]);
    assert.match(r.reply()[0], /\| scan_range=100 \| fail \| @maintainer \| the scan got a new plan on purpose; tracked in MDEV-1 \|/);
    assert.deepEqual(w.reply(), [SIGNOFF_REPLIES.waived({
      author: 'maintainer', microbenchmark: 'scan_range=100', reason: 'the scan got a new plan on purpose; tracked in MDEV-1', candidate: signoff.candidate,
      decision: { state: 'success', description: 'All 42 microbenchmarks within limits, 1 waived' }, replaced: false,
    })]);
    assert.equal((await bot.signoffForRequest(running.store, r.request.id)).state, 'success');
  });

  it('a waiver written while the run goes counts when it completes; a second waiver of the same microbenchmark replaces the first', async () => {
    const issue = newIssue(gh);
    const candidate = TAGS['mariadb-10.11.20'];
    const r = await onIssue(issue, 'maintainer', '/perf signoff mariadb-10.11.20 vs mariadb-10.11.19');
    const early = await onIssue(issue, 'maintainer', '/perf waive scan_range=100 -- first thought');
    const signoff = await bot.signoffForRequest(running.store, r.request.id);
    assert.deepEqual(early.reply(), [SIGNOFF_REPLIES.waived({ author: 'maintainer', microbenchmark: 'scan_range=100', reason: 'first thought', candidate: signoff.candidate, decision: null, replaced: false })]);
    assert.match(early.reply()[0], /It counts when the run completes\.$/);
    const again = await onIssue(issue, 'admin', '/perf waive scan_range=100 -- the planned change of the scan');
    assert.match(again.reply()[0], /^@admin waiver replaced for `scan_range=100`/);
    writeArtifact(artifactsDir, r.request.runId, FULL_ARTIFACT, mergedRunFolder({ previousSha: TAGS['mariadb-10.11.19'], candidateSha: candidate, limits: ONE_FAILS }).files);
    await complete(r.request);
    assert.deepEqual(statuses(candidate).map((x) => x.state), ['pending', 'success']);
    assert.match(r.reply()[0], /\| scan_range=100 \| fail \| @admin \| the planned change of the scan \|/);
  });

  it('the shipped limits on the tiny run: failure, and the report says which rows block', async () => {
    const issue = newIssue(gh);
    const r = await onIssue(issue, 'maintainer', `/perf signoff ${TAGS['mariadb-10.11.19']} vs mariadb-10.11.18`);
    const { files, verdict } = mergedRunFolder({ previousSha: TAGS['mariadb-10.11.18'], candidateSha: TAGS['mariadb-10.11.19'] });
    writeArtifact(artifactsDir, r.request.runId, FULL_ARTIFACT, files);
    await complete(r.request);
    const blocking = verdict.benchmarks.filter((b) => !['pass', 'warn'].includes(b.verdict)).length;
    assert.deepEqual(statuses(TAGS['mariadb-10.11.19']).at(-1).state, 'failure');
    assert.match(r.reply()[0], new RegExp(`^<!-- perfgate:signoff -->\\n## ❌ Release sign-off: \`${TAGS['mariadb-10.11.19']}\` against \`mariadb-10.11.18\` — failure\\n\\n\\*\\*${blocking} of 42 not within limits`));
  });

  it('a run that failed without a run folder: status error, the reply says why', async () => {
    const issue = newIssue(gh);
    const r = await onIssue(issue, 'maintainer', '/perf signoff mariadb-10.11.20');
    assert.equal(r.dispatches[0].inputs['previous-ref'], 'mariadb-10.11.19');
    await complete(r.request, 'failure');
    const why = 'the run ended failure (the run uploaded no run folder (an artifact perfgate-signoff-full))';
    assert.deepEqual(statuses(TAGS['mariadb-10.11.20']).map((s) => [s.state, s.description]).at(-1), ['error', `the full suite left no verdict: ${why}`]);
    assert.match(r.reply()[0], /^<!-- perfgate:signoff -->\n## 💥 Release sign-off: `mariadb-10.11.20` against `mariadb-10.11.19` — error/);
    const signoff = await bot.signoffForRequest(running.store, r.request.id);
    assert.deepEqual([signoff.status, signoff.failure], ['failed', `full: ${why}`]);
    assert.equal((await bot.getRequest(running.store, r.request.id)).status, 'failed');
  });

  it('a run folder of other commits than the pinned ones is rejected: nothing stored, status error', async () => {
    const issue = newIssue(gh);
    const r = await onIssue(issue, 'maintainer', '/perf signoff mariadb-10.11.19 vs mariadb-10.11.9');
    writeArtifact(artifactsDir, r.request.runId, FULL_ARTIFACT, mergedRunFolder({ previousSha: sha('e'), candidateSha: TAGS['mariadb-10.11.19'] }).files);
    const runsBefore = Number((await running.store.db.selectFrom('runs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst()).n);
    await complete(r.request);
    assert.equal(Number((await running.store.db.selectFrom('runs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst()).n), runsBefore);
    assert.equal(statuses(TAGS['mariadb-10.11.19']).at(-1).state, 'error');
    assert.match(statuses(TAGS['mariadb-10.11.19']).at(-1).description, /^the full suite left no verdict: its artifact was rejected: perfgate-signoff-full\/results\.json: sides\.base\.commit is "e+…$/);
  });

  it('refusals: a read-only user (nothing dispatched, no status, no sign-off), a waiver outside the full suite, a waiver where there is no sign-off, refs that name nothing', async () => {
    const issue = newIssue(gh);
    const statusesBefore = gh.state.statuses(REPOSITORY).length;
    const reader = await onIssue(issue, 'reader', '/perf signoff mariadb-10.11.19');
    assert.deepEqual(reader.dispatches, []);
    assert.equal(gh.state.statuses(REPOSITORY).length, statusesBefore);
    assert.equal(await bot.signoffForRequest(running.store, reader.request.id), null);
    assert.deepEqual(reader.reply(), [`Sorry @reader, \`/perf signoff mariadb-10.11.19\` needs write access to ${REPOSITORY} or membership of \`perfgate-test/perf-team\`. Nothing was started.`]);

    const none = await onIssue(issue, 'maintainer', '/perf waive scan_range=100 -- fine');
    assert.deepEqual(none.reply(), [SIGNOFF_REPLIES.noSignoff({ author: 'maintainer' })]);

    await onIssue(issue, 'maintainer', '/perf signoff mariadb-10.11.19');
    // The reader was refused in this issue within the hour: refused again, without a second reply.
    const readerWaives = await onIssue(issue, 'reader', '/perf waive scan_range=100 -- fine');
    assert.deepEqual(readerWaives.reply(), []);
    assert.deepEqual([readerWaives.request.status, readerWaives.request.detail], ['refused', `not answered: @reader may not run commands, and their comment ${reader.comment.id}, less than 60 minutes earlier, takes the one reply that allows`]);
    const ahi = await onIssue(issue, 'maintainer', '/perf waive point-select -- not ours');
    assert.deepEqual(ahi.reply(), [`@maintainer \`point-select\` is not a microbenchmark of the full suite this sign-off runs, nor one of them as a whole, so there is nothing to waive. Allowed: ${[...FULL_NAMES, ...core.suiteWideNames('full')].join(', ')}.`]);
    const signoff = await bot.latestSignoffIn(running.store, { repo: REPOSITORY, issueNumber: issue });
    assert.deepEqual(await bot.signoffWaivers(running.store, signoff.id), []);

    const nowhere = await onIssue(newIssue(gh), 'maintainer', '/perf signoff mariadb-12.0.0');
    assert.deepEqual(nowhere.reply(), [SIGNOFF_REPLIES.unresolved({ author: 'maintainer', ref: 'mariadb-12.0.0' })]);
    assert.deepEqual(nowhere.dispatches, []);
    // Only tagged commits: a branch, or a SHA no tag points at, is refused before anything starts.
    for (const line of [`/perf signoff ${sha('3')} vs mariadb-10.11.18`, '/perf signoff main vs mariadb-10.11.18', `/perf signoff mariadb-10.11.19 vs ${sha('3')}`]) {
      const refused = await onIssue(newIssue(gh), 'maintainer', line);
      const ref = line.split(' ').find((w) => w === 'main' || w === sha('3'));
      assert.deepEqual(refused.reply(), [SIGNOFF_REPLIES.unresolved({ author: 'maintainer', ref })], line);
      assert.deepEqual(refused.dispatches, [], line);
    }
    const bySha = await onIssue(newIssue(gh), 'maintainer', `/perf signoff ${TAGS['mariadb-10.11.19']}`);
    assert.deepEqual(bySha.reply(), [`@maintainer \`${TAGS['mariadb-10.11.19']}\` is not a release tag (a name ending in a version, such as mariadb-10.11.19), so I cannot tell which release came before it: name the previous release with \`vs <previous>\`, e.g. \`/perf signoff mariadb-10.11.19 vs mariadb-10.11.18\`. Nothing was started.`]);
    const first = await onIssue(newIssue(gh), 'maintainer', '/perf signoff mariadb-10.11.9');
    assert.deepEqual(first.reply(), ['@maintainer no release tag named `mariadb-<version>` comes before `mariadb-10.11.9`: name the previous release with `vs <previous>`, e.g. `/perf signoff mariadb-10.11.19 vs mariadb-10.11.18`. Nothing was started.']);
  });

  it('in a pull request: a push leaves the sign-off running; /perf cancel stops it, status error, the report says who', async () => {
    const { comment } = await command(gh, running, 'maintainer', '/perf signoff mariadb-10.11.19 vs mariadb-10.11.18', { pr: PR });
    await settled(running);
    const request = await bot.requestForComment(running.store, comment.id);
    assert.equal(request.status, 'dispatched');
    const cancels = () => gh.calls.filter((c) => c.operationId === 'actions/cancel-workflow-run').map((c) => c.path);
    await running.deliver('pull_request', pushEvent({ headSha: sha('c'), pr: PR, at: new Date(Date.now() + 60_000) }));
    await settled(running);
    assert.equal((await bot.getRequest(running.store, request.id)).status, 'dispatched');
    assert.deepEqual(cancels(), []);
    const statusesBefore = gh.state.statuses(REPOSITORY).length;
    await command(gh, running, 'maintainer', '/perf cancel', { pr: PR });
    await settled(running);
    assert.equal((await bot.getRequest(running.store, request.id)).status, 'cancelled');
    assert.deepEqual(cancels(), [`/repos/${REPOSITORY}/actions/runs/${request.runId}/cancel`]);
    const signoff = await bot.signoffForRequest(running.store, request.id);
    assert.deepEqual([signoff.status, signoff.state, signoff.failure], ['failed', 'error', '@maintainer cancelled it with `/perf cancel`']);
    const set = gh.state.statuses(REPOSITORY).slice(statusesBefore).filter((st) => st.context === 'perfgate/signoff');
    assert.deepEqual(set.map((st) => [st.sha, st.state, st.description]), [[TAGS['mariadb-10.11.19'], 'error', 'The sign-off run failed: @maintainer cancelled it with `/perf cancel`']]);
    const reply = botComments(gh, PR).find((c) => c.body.startsWith(`<!-- perfgate:reply comment=${comment.id} -->`));
    assert.match(reply.body, /Release sign-off: `mariadb-10\.11\.19` against `mariadb-10\.11\.18` — error/);
    // The reason is plain text to the report: shown as written, the mention and code not live.
    assert.ok(reply.body.includes('@\u200dmaintainer cancelled it with \\`/perf cancel\\`'), reply.body);
    // The cancelled run's completion changes nothing.
    const before = gh.state.statuses(REPOSITORY).length;
    await complete(request, 'cancelled');
    assert.equal(gh.state.statuses(REPOSITORY).length, before);
  });

  it('/perf cancel in a release issue stops its sign-off; with nothing running it says so', async () => {
    const issue = newIssue(gh);
    const r = await onIssue(issue, 'maintainer', '/perf signoff mariadb-10.11.20');
    assert.equal(r.request.status, 'dispatched');
    const cancel = await onIssue(issue, 'maintainer', '/perf cancel');
    assert.equal((await bot.getRequest(running.store, r.request.id)).status, 'cancelled');
    assert.equal((await bot.signoffForRequest(running.store, r.request.id)).state, 'error');
    assert.deepEqual(cancel.reply(), [REPLIES.cancelled({ author: 'maintainer', count: 1 })]);
    const again = await onIssue(issue, 'maintainer', '/perf cancel');
    assert.deepEqual(again.reply(), [REPLIES.cancelled({ author: 'maintainer', count: 0 })]);
  });

  it("sent nothing that breaks GitHub's description", () => {
    assert.deepEqual(gh.problems().map((c) => `${c.operationId} ${c.status}: ${c.problems.join('; ')}`), []);
  });
});

describe('release sign-off of several suites (PERFGATE_SIGNOFF_SUITES=full,tpcc)', () => {
  let gh;
  let running;
  let artifactsDir;
  before(async () => {
    artifactsDir = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bot-signoff-suites-'));
    gh = await startSignoffDouble({ artifactsDir });
    running = await startBotOn(gh, { env: { PERFGATE_SIGNOFF_SUITES: 'full,tpcc' } });
  });
  after(async () => {
    await running?.close();
    await gh?.close();
    rmSync(artifactsDir, { recursive: true, force: true });
  });
  const onIssue = (issue, login, body) => onIssueOf(gh, running, issue, login, body);
  const pair = { previousSha: TAGS['mariadb-10.11.18'], candidateSha: TAGS['mariadb-10.11.19'] };

  it('dispatches both suites; each suite\'s judged folder stored; a TPC-C row beyond its limits blocks until waived by its name', async () => {
    const issue = newIssue(gh);
    const r = await onIssue(issue, 'maintainer', '/perf signoff mariadb-10.11.19');
    assert.equal(r.dispatches[0].inputs.suites, 'full tpcc');
    assert.match(r.reply()[0], /: the suites full, tpcc are \[running\]/);
    const full = mergedRunFolder({ ...pair, limits: { default: { warn: 0.0002, fail: 0.0001 } } });
    assert.equal(full.verdict.verdict, 'pass');
    const tpcc = tpccRunFolder(pair);
    assert.equal(tpcc.verdict.benchmarks[0].verdict, 'undecided', 'the A/A run\'s interval reaches the fail limit');
    writeArtifact(artifactsDir, r.request.runId, core.signoffArtifact('full'), full.files);
    writeArtifact(artifactsDir, r.request.runId, core.signoffArtifact('tpcc'), tpcc.files);
    // Named like the suite's shards, and broken: never downloaded, so it changes nothing.
    writeArtifact(artifactsDir, r.request.runId, `${core.signoffArtifact('tpcc')}-shard-1-of-2`, { 'results.json': '{"not": "a run"' });
    const run = await completeSignoffRun(gh, running, r.request);
    const signoff = await bot.signoffForRequest(running.store, r.request.id);
    assert.deepEqual([signoff.status, signoff.state, signoff.summary], ['completed', 'failure', '1 of 43 not within limits (tpcc undecided)']);
    assert.deepEqual(signoff.verdicts.map((p) => [p.suite, p.verdict.benchmarks.length]), [['full', 42], ['tpcc', 1]]);
    for (const suite of ['full', 'tpcc']) {
      const stored = await running.store.db.selectFrom('runs').selectAll().where('run_key', '=', `${REPOSITORY}/${run.id}/1/${core.signoffArtifact(suite)}`).executeTakeFirst();
      assert.ok(stored, `the ${suite} run is in the history`);
    }
    assert.match(r.reply()[0], /### tpcc: /);
    const w = await onIssue(issue, 'maintainer', '/perf waive tpcc -- one warehouse on a shared runner; rerun on the bare-metal runner');
    assert.match(w.reply()[0], /The sign-off is now \*\*success\*\*: All 43 microbenchmarks within limits, 1 waived/);
    const suiteWide = await onIssue(issue, 'maintainer', '/perf waive full-suite.write -- accepted');
    assert.match(suiteWide.reply()[0], /^@maintainer waiver recorded for `full-suite\.write`/);
    const ddl = await onIssue(issue, 'maintainer', '/perf waive add-index -- not measured here');
    assert.match(ddl.reply()[0], /is not a microbenchmark of the suites full, tpcc this sign-off runs/);
  });

  it('a suite whose folder is missing makes the sign-off an error naming it; the other suite is still stored and shown', async () => {
    const issue = newIssue(gh);
    const r = await onIssue(issue, 'maintainer', '/perf signoff mariadb-10.11.19 vs mariadb-10.11.18');
    writeArtifact(artifactsDir, r.request.runId, core.signoffArtifact('full'), mergedRunFolder({ ...pair, limits: { default: { warn: 0.0002, fail: 0.0001 } } }).files);
    await completeSignoffRun(gh, running, r.request, 'failure');
    const signoff = await bot.signoffForRequest(running.store, r.request.id);
    assert.deepEqual([signoff.status, signoff.state], ['completed', 'error']);
    assert.equal(signoff.summary, 'the tpcc suite left no verdict: the run ended failure (the run uploaded no run folder (an artifact perfgate-signoff-tpcc))');
    assert.match(r.reply()[0], /### tpcc\n\nNo verdict: the run ended failure/);
    assert.match(r.reply()[0], /### full: Writes/);
  });
});
