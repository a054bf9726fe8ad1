'use strict';
// The sign-off tables' tests, written once and run on every database the store supports:
// test/unit/bot/signoff-store-sqlite.test.js (SQLite files) and
// test/integration/bot/signoff-store-mariadb.test.js (a real MariaDB server).
// backend = {name, setup(), teardown(), fresh() -> target of a new empty store}
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const bot = require('../../bot/src');
const { readVerdict } = require('../../core');

const REPO = 'perfgate/mariadb-fork';
const SUITES = ['full', 'tpcc'];
const VERDICT = JSON.parse(fs.readFileSync(path.join(__dirname, '../fixtures/verdicts/full-4-shards/verdict.json'), 'utf8'));
const CANDIDATE = { ref: 'mariadb-10.11.19', sha: '1'.repeat(40) };
const PREVIOUS = { ref: 'mariadb-10.11.18', sha: '8'.repeat(40) };

function signoffStoreContract(backend) {
  describe(`sign-offs and their waivers on ${backend.name}`, () => {
    let store;
    let requestId = 0;
    before(async () => {
      await backend.setup();
      store = await bot.openStore(await backend.fresh());
    });
    after(async () => {
      if (store) await store.close();
      await backend.teardown();
    });
    const newRequest = async (issue) => {
      requestId += 1;
      return (await bot.recordRequest(store, { commentId: 5000 + requestId, repo: REPO, prNumber: issue, author: 'maintainer', command: { name: 'signoff', args: {}, line: '/perf signoff x' } })).id;
    };

    test('one sign-off per request, however often it is recorded; the latest of an issue is found', async () => {
      const first = await newRequest(41);
      const made = await bot.recordSignoff(store, { requestId: first, repo: REPO, issueNumber: 41, candidate: CANDIDATE, previous: PREVIOUS, suites: SUITES });
      assert.equal(made.duplicate, false);
      assert.deepEqual([made.signoff.candidate, made.signoff.previous, made.signoff.status, made.signoff.state, made.signoff.suites, made.signoff.verdicts], [CANDIDATE, PREVIOUS, 'dispatched', 'pending', SUITES, null]);
      const again = await bot.recordSignoff(store, { requestId: first, repo: REPO, issueNumber: 41, candidate: CANDIDATE, previous: PREVIOUS, suites: SUITES });
      assert.deepEqual([again.duplicate, again.signoff.id], [true, made.signoff.id]);
      const second = await newRequest(41);
      const later = await bot.recordSignoff(store, { requestId: second, repo: REPO, issueNumber: 41, candidate: { ref: 'mariadb-10.11.20', sha: '2'.repeat(40) }, previous: CANDIDATE, suites: SUITES });
      assert.equal((await bot.latestSignoffIn(store, { repo: REPO, issueNumber: 41 })).id, later.signoff.id);
      assert.equal(await bot.latestSignoffIn(store, { repo: REPO, issueNumber: 42 }), null);
      assert.equal((await bot.signoffForRequest(store, first)).id, made.signoff.id);
    });

    test('each suite\'s verdict, or why it has none, and the decision are kept whole', async () => {
      const id = await newRequest(43);
      const { signoff } = await bot.recordSignoff(store, { requestId: id, repo: REPO, issueNumber: 43, candidate: CANDIDATE, previous: PREVIOUS, suites: SUITES });
      const verdicts = [{ suite: 'full', verdict: VERDICT, problem: null }, { suite: 'tpcc', verdict: null, problem: 'its measure job failed' }];
      const done = await bot.updateSignoff(store, signoff.id, { status: 'completed', state: 'failure', verdicts, summary: '37 of 42 not within limits', replyId: 9_000_000_123, completedAt: 1_700_000_000_000 });
      // The captured verdict is a v1 document, as a bot before perfgate.verdict/v2 stored it: it
      // reads back as v2.
      assert.deepEqual(done.verdicts, [{ suite: 'full', verdict: readVerdict(VERDICT).verdict, problem: null }, verdicts[1]]);
      assert.equal(done.verdicts[0].verdict.schema, 'perfgate.verdict/v2');
      assert.deepEqual([done.status, done.state, done.summary, done.replyId, done.completedAt], ['completed', 'failure', '37 of 42 not within limits', 9_000_000_123, 1_700_000_000_000]);
      await assert.rejects(bot.updateSignoff(store, signoff.id, { status: 'maybe' }), /sign-off status 'maybe' is not one of dispatched, completed, failed/);
      await assert.rejects(bot.updateSignoff(store, signoff.id, { colour: 'red' }), /a sign-off has no field 'colour'/);
      await assert.rejects(bot.recordSignoff(store, { requestId: await newRequest(43), repo: REPO, issueNumber: 43, candidate: CANDIDATE, previous: PREVIOUS, suites: [] }), /missing 'suites'/);
    });

    test('a sign-off stored before it had suites reads as one of the full suite, its verdict as that suite\'s', async () => {
      const id = await newRequest(45);
      const { signoff } = await bot.recordSignoff(store, { requestId: id, repo: REPO, issueNumber: 45, candidate: CANDIDATE, previous: PREVIOUS, suites: SUITES });
      await store.db.updateTable('signoffs').set({ suites: null, verdicts: null, verdict: JSON.stringify(VERDICT) }).where('id', '=', signoff.id).execute();
      const earlier = await bot.signoffForRequest(store, id);
      assert.deepEqual([earlier.suites, earlier.verdicts], [['full'], [{ suite: 'full', verdict: readVerdict(VERDICT).verdict, problem: null }]]);
    });

    test('waivers: who, what, why; the same microbenchmark again replaces the reason', async () => {
      const id = await newRequest(44);
      const { signoff } = await bot.recordSignoff(store, { requestId: id, repo: REPO, issueNumber: 44, candidate: CANDIDATE, previous: PREVIOUS, suites: SUITES });
      assert.deepEqual(await bot.recordSignoffWaiver(store, { signoffId: signoff.id, microbenchmark: 'scan_range=100', reason: 'first reason', author: 'alice' }), { id: 1, replaced: false });
      await bot.recordSignoffWaiver(store, { signoffId: signoff.id, microbenchmark: 'update-index_range=100', reason: 'known, MDEV-1', author: 'bob' });
      const replaced = await bot.recordSignoffWaiver(store, { signoffId: signoff.id, microbenchmark: 'scan_range=100', reason: 'a better reason', author: 'carol' });
      assert.deepEqual(replaced, { id: 1, replaced: true });
      const waivers = await bot.signoffWaivers(store, signoff.id);
      assert.deepEqual(waivers.map((w) => [w.microbenchmark, w.reason, w.author]), [['scan_range=100', 'a better reason', 'carol'], ['update-index_range=100', 'known, MDEV-1', 'bob']]);
      assert.ok(waivers.every((w) => Number.isFinite(w.createdAt)));
      await assert.rejects(bot.recordSignoffWaiver(store, { signoffId: signoff.id, microbenchmark: 'scan_range=100', reason: '' }), /missing 'reason'/);
    });
  });
}

module.exports = { signoffStoreContract };
