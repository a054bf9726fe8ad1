'use strict';
// Watching main, end to end below the webhooks: judged real runs go through the bot's
// settleMainResult into the history store and a tracker. Written once and run on SQLite
// (test/unit/bot/watch-sqlite.test.js) and on a real MariaDB server
// (test/integration/bot/watch-mariadb.test.js); GitHub Issues is the GitHub double, reached
// with the bot's own Octokit as its App installation.
//
// backend = {name, setup(), teardown(), fresh() -> target of a new empty store}
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const core = require('@perfgate/core');
const store = require('../../bot/src/store');
const { createGitHub } = require('../../bot/src/app/github');
const { githubTracker } = require('../../bot/src/app/tracker');
const { settleMainResult } = require('../../bot/src/app/watch');
const { GOOD, BAD, STILL, FIX, regressed, aa } = require('./watch-runs');

const INSTR = 'instructions_per_query';

const quiet = { info() {}, warn() {}, error() {} };

function watchContract(backend) {
  describe(`watching main on ${backend.name} with GitHub Issues`, () => {
    let gh;
    let support;
    let octokit;
    const stores = [];
    before(async () => {
      await backend.setup();
      support = await import('./bot.mjs');
      gh = await support.startDouble();
      octokit = createGitHub({ appId: support.APP_ID, privateKey: support.appKeys().privateKey, apiUrl: gh.url, pacing: 'none', retryBaseMs: 10 }, quiet)
        .installation(support.INSTALLATION_ID);
    });
    after(async () => {
      for (const s of stores) await s.close().catch(() => {});
      if (gh) await gh.close();
      await backend.teardown();
    });
    const open = async () => {
      const s = await store.openStore(await backend.fresh());
      stores.push(s);
      return s;
    };
    const repo = () => support.REPOSITORY;
    const issues = () => gh.state.issues(repo()).filter((i) => !i.pull);
    const problems = () => gh.problems().map((c) => `${c.method} ${c.path} → ${c.status} ${c.outcome}: ${c.problems.join('; ')}`);

    test('a regression seen twice files one issue and comments once; a commit back within limits closes it, naming the fix', async () => {
      const db = await open();
      const tracker = githubTracker({ octokit, repo: repo() });
      const settle = (extra) => settleMainResult({ db, tracker, repo: repo(), log: quiet, ...extra });
      const before = issues().length;

      // First sighting: not confirmed yet, so the failing microbenchmarks are re-measured.
      const first = await settle({ base: GOOD, head: BAD, verdict: regressed() });
      assert.deepEqual(first, { actions: [], confirm: ['point-query', 'update-index_range=100'] });
      assert.equal(issues().length, before);

      // The re-measurement fails again: filed, once, however often the result arrives.
      const filed = await settle({ base: GOOD, head: BAD, verdict: regressed(), confirmation: regressed() });
      assert.deepEqual(filed.actions.map((a) => [a.action, a.benchKey, a.signal]), [['file', 'point-query', INSTR], ['file', 'update-index_range=100', INSTR]]);
      assert.deepEqual(filed.confirm, []);
      assert.deepEqual((await settle({ base: GOOD, head: BAD, verdict: regressed(), confirmation: regressed() })).actions, []);
      const created = issues().slice(before);
      assert.deepEqual(created.map((i) => i.title), [
        'point-query: 1.088× instructions per query since abc1234',
        'update-index_range=100: 1.049× instructions per query since abc1234',
      ]);
      const pointKey = core.dedupeKey({ repo: repo(), benchKey: 'point-query', signal: INSTR, firstBad: BAD });
      assert.ok(created[0].body.startsWith(`<!-- perfgate:regression ${pointKey} -->`));
      assert.ok(created[0].body.includes(`git log --first-parent --oneline ${GOOD}..${BAD}`));
      assert.deepEqual(created[0].labels.map((l) => l.name ?? l), ['performance', 'regression']);
      const row = await store.regressionByKey(db, pointKey);
      assert.equal(row.status, 'open');
      assert.equal(row.tracker, 'github');
      assert.equal(row.issueKey, String(created[0].number));
      assert.equal(row.issueUrl, `https://github.com/${repo()}/issues/${created[0].number}`);
      assert.equal(row.note, 'confirmed by re-measurement: instr/o 1.088 [1.071, 1.106]');
      assert.deepEqual([row.firstBad, row.lastGood, row.sightings], [BAD, GOOD, 1]);

      // The next main commit, measured against the last good one, still regressed: one comment each.
      const seen = await settle({ base: GOOD, head: STILL, verdict: regressed() });
      assert.deepEqual(seen.actions.map((a) => [a.action, a.benchKey, a.sightings]), [['sighting', 'point-query', 2], ['sighting', 'update-index_range=100', 2]]);
      assert.deepEqual(seen.confirm, []);
      assert.deepEqual((await settle({ base: GOOD, head: STILL, verdict: regressed() })).actions, []);
      assert.equal(issues().length, before + 2);
      const comments = gh.state.comments(repo(), created[0].number);
      assert.equal(comments.length, 1);
      // Each comment opens with its hidden id, by which a comment whose answer was lost is found.
      assert.match(comments[0].body, new RegExp(`^<!-- perfgate:tracker-comment [0-9a-f]{20} -->\nSeen again \\(sighting 2\\) at ${STILL} against ${GOOD}: instr/o 1\\.088`));
      assert.equal((await store.regressionByKey(db, pointKey)).sightings, 2);

      // A later commit back within limits closes both, each naming the fixing commit.
      const fixed = await settle({ base: GOOD, head: FIX, verdict: aa() });
      assert.deepEqual(fixed.actions.map((a) => [a.action, a.benchKey, a.fixedBy]), [['close', 'point-query', FIX], ['close', 'update-index_range=100', FIX]]);
      assert.deepEqual((await settle({ base: GOOD, head: FIX, verdict: aa() })).actions, []);
      const closed = issues().slice(before);
      assert.deepEqual(closed.map((i) => [i.state, i.stateReason]), [['closed', 'completed'], ['closed', 'completed']]);
      const last = gh.state.comments(repo(), created[0].number).at(-1);
      assert.equal(last.body.split('\n').slice(1).join('\n'), `Back within limits at ${FIX} (instr/o 1.001 [0.999, 1.002] against ${GOOD}): fixed by ${FIX}. Closing.\n`);
      const done = await store.regressionByKey(db, pointKey);
      assert.deepEqual([done.status, done.fixedBy, done.sightings, typeof done.closedAt], ['closed', FIX, 2, 'number']);
      assert.deepEqual(problems(), []);
    });

    test('a tracker that fails while filing leaves the regression to be filed when the job runs again, once', async () => {
      const db = await open();
      const github = githubTracker({ octokit, repo: repo() });
      let failures = 1;
      const flaky = { ...github, async file(issue) {
        if (failures > 0) {
          failures -= 1;
          throw new Error('503 the tracker is down');
        }
        return github.file(issue);
      } };
      const before = issues().length;
      // Its own first bad commit: the issues other tests filed for BAD are in the same repository.
      const settle = () => settleMainResult({ db, tracker: flaky, repo: repo(), base: GOOD, head: FIX, verdict: regressed(), confirmation: regressed(), log: quiet });
      await assert.rejects(settle(), /503 the tracker is down/);
      const key = core.dedupeKey({ repo: repo(), benchKey: 'point-query', signal: INSTR, firstBad: FIX });
      assert.equal((await store.regressionByKey(db, key)).status, 'filing');
      const again = await settle();
      assert.deepEqual(again.actions.map((a) => [a.action, a.benchKey]), [['file', 'point-query'], ['file', 'update-index_range=100']]);
      assert.deepEqual((await settle()).actions, []);
      assert.equal(issues().length, before + 2);
      assert.equal((await store.regressionByKey(db, key)).status, 'open');
    });

    test('a job that died after filing, before recording it: run again, it finds the issue by its marker and files nothing twice', async () => {
      const db = await open();
      const github = githubTracker({ octokit, repo: repo() });
      const dying = { ...github, async file(issue) {
        await github.file(issue);
        throw new Error('the process died after GitHub created the issue');
      } };
      const before = issues().length;
      const settle = (tracker) => settleMainResult({ db, tracker, repo: repo(), base: GOOD, head: STILL, verdict: regressed(), confirmation: regressed(), log: quiet });
      await assert.rejects(settle(dying), /died after GitHub created/);
      assert.equal(issues().length, before + 1);
      const again = await settle(github);
      assert.equal(issues().length, before + 2, 'the first issue was found, only the second filed');
      const key = core.dedupeKey({ repo: repo(), benchKey: 'point-query', signal: INSTR, firstBad: STILL });
      const first = issues()[before];
      assert.deepEqual(again.actions.map((a) => [a.action, a.benchKey, a.issue.key]), [['file', 'point-query', String(first.number)], ['file', 'update-index_range=100', String(issues()[before + 1].number)]]);
      assert.deepEqual([(await store.regressionByKey(db, key)).status, (await store.regressionByKey(db, key)).issueKey], ['open', String(first.number)]);
      assert.deepEqual(problems(), []);
    });

    test('a one-off noisy point files nothing and says so in the history', async () => {
      const db = await open();
      const tracker = githubTracker({ octokit, repo: repo() });
      const before = issues().length;
      const settle = () => settleMainResult({ db, tracker, repo: repo(), base: GOOD, head: BAD, verdict: regressed(), confirmation: aa(), log: quiet });
      const result = await settle();
      assert.deepEqual(result.actions.map((a) => [a.action, a.benchKey]), [['noise', 'point-query'], ['noise', 'update-index_range=100']]);
      assert.deepEqual((await settle()).actions, []);
      assert.equal(issues().length, before);
      const rows = await store.regressionsOf(db, { repo: repo() });
      assert.deepEqual(rows.map((r) => [r.benchKey, r.status, r.issueKey, r.firstBad, r.lastGood]),
        [['point-query', 'noise', null, BAD, GOOD], ['update-index_range=100', 'noise', null, BAD, GOOD]]);
      assert.equal(rows[0].note, `not confirmed: instr/o 1.088 [1.071, 1.106] at ${BAD} against ${GOOD} was not reproduced by the re-measurement (instr/o 1.001 [0.999, 1.002], pass), and no change point is there`);
      // A later commit within limits has nothing to close.
      assert.deepEqual((await settleMainResult({ db, tracker, repo: repo(), base: BAD, head: FIX, verdict: aa() })).actions, []);
    });

    test('a change point at the commit confirms a regression the re-measurement missed; change points are kept per series', async () => {
      const db = await open();
      const tracker = githubTracker({ octokit, repo: repo() });
      const before = issues().length;
      const point = { repo: repo(), benchKey: 'point-query', signal: INSTR, sha: BAD, previousSha: GOOD, meanBefore: 42095.4, meanAfter: 45812.1, pvalue: 0.0004, method: 'otava e-divisive' };
      assert.equal((await store.recordChangePoint(db, point)).duplicate, false);
      assert.equal((await store.recordChangePoint(db, point)).duplicate, true);
      const points = await store.changePointsOf(db, { repo: repo(), benchKey: 'point-query' });
      assert.equal(points.length, 1);
      assert.ok(Math.abs(points[0].ratio - 45812.1 / 42095.4) < 1e-12);
      const changePoints = points.map((p) => ({ ...p, description: `${p.method} at ${p.sha}: mean ${p.meanBefore} → ${p.meanAfter} (p = ${p.pvalue})` }));
      const result = await settleMainResult({ db, tracker, repo: repo(), base: GOOD, head: BAD, verdict: regressed(), confirmation: aa(), changePoints, log: quiet });
      assert.deepEqual(result.actions.map((a) => [a.action, a.benchKey]), [['file', 'point-query'], ['noise', 'update-index_range=100']]);
      const [issue] = issues().slice(before);
      assert.ok(issue.body.includes(`- change point over consecutive main commits: otava e-divisive at ${BAD}: mean 42095.4 → 45812.1 (p = 0.0004)`));
      assert.deepEqual(problems(), []);
    });
  });
}

module.exports = { watchContract };
