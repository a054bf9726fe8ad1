'use strict';
// The dashboard's store queries over a real history (test/support/dashboard-history.js) in a
// SQLite file: what each returns, the window of main commits, paging, and that reading writes
// nothing.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const bot = require('../../../bot/src');
const { sql } = require('kysely');
const { storeMainHistory, sha } = require('../../support/dashboard-history');

// Rows inserted, updated or deleted through the store's SQLite connection since it opened.
const changesSoFar = async (store) => Number((await sql`select total_changes() as n`.execute(store.db)).rows[0].n);

test('dashboard queries over a stored history of main', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-dashboard-store-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'history.db');
  const store = await bot.openStore(file);
  t.after(() => store.close());
  const stored = await storeMainHistory(store);
  const { repo } = stored;
  const before = await changesSoFar(store);
  assert.ok(before > 500, 'the history was written through this connection');

  await t.test('mainCatalogue: each microbenchmark measured on main, with its change points and open regressions', async () => {
    const catalogue = await bot.mainCatalogue(store, { repo });
    assert.equal(catalogue.length, 10);
    const updateIndex = catalogue.find((c) => c.microbenchmark === 'update-index_range=100');
    // The PR run's head is not on main: 10 instruction runs and 3 timed runs.
    assert.deepEqual(updateIndex, { repo, microbenchmark: 'update-index_range=100', runs: 13, lastSeq: 14, changePoints: 3, openRegressions: 1 });
    assert.equal(catalogue.find((c) => c.microbenchmark === 'point-query').openRegressions, 0, 'its regression is closed');
    assert.deepEqual(await bot.mainCatalogue(store, { repo: 'other/repo' }), []);
    // Among the latest 4 runs stored (the PR run and the three timed main runs).
    const latest = await bot.mainCatalogue(store, { repo, latestRuns: 4 });
    assert.deepEqual(latest.find((c) => c.microbenchmark === 'update-index_range=100'), { repo, microbenchmark: 'update-index_range=100', runs: 3, lastSeq: 14, changePoints: 3, openRegressions: 1 });
  });

  await t.test('mainHistory: every signal over the window, the change points and the commits', async () => {
    const h = await bot.mainHistory(store, { repo, microbenchmark: 'update-index_range=100' });
    assert.equal(h.toSeq, 14);
    assert.deepEqual(h.series.instructions_ratio.map((p) => p.seq), stored.instructionSeqs);
    assert.ok(h.series.instructions_ratio.every((p) => p.n === 3 && p.low < p.estimate && p.estimate < p.high && Math.abs(p.estimate - 1) < 0.01),
      'A/A instruction ratios are within 1% of 1.00');
    assert.deepEqual(h.series.rqps.map((p) => p.seq), stored.timedSeqs);
    // QPS per side: base and head of each timed run, and the base of the PR run (main's last commit).
    assert.deepEqual(h.series.qps.map((p) => `${p.seq}${p.side[0]}`).sort(), ['11b', '12b', '12h', '13b', '13h', '14b', '14h']);
    assert.deepEqual(h.series.qps.map((p) => p.seq), [11, 12, 12, 13, 13, 14, 14], 'in the order of main');
    // Instructions per query per side, from the callgrind windows (three per side and run).
    const instr = h.series.instructions_per_query;
    assert.deepEqual(instr.filter((p) => p.side === 'head').map((p) => p.seq), stored.instructionSeqs);
    assert.equal(instr.filter((p) => p.side === 'base').length, stored.instructionSeqs.length);
    const median = [...instr.map((p) => p.value)].sort((a, b) => a - b)[instr.length >> 1];
    assert.ok(median > 50_000, `update-index_range=100 runs tens of thousands of instructions per query (${median})`);
    // A/A: the two sides of one run agree within 1%; separate runs (fresh servers, another
    // load) move the level by up to about 10%, which is why the gate judges paired ratios.
    assert.ok(instr.every((p) => p.n === 3 && Math.abs(p.value / median - 1) < 0.1), 'every side of every run within 10% of the median');
    for (const run of new Set(instr.map((p) => p.runId))) {
      const [base, head] = ['base', 'head'].map((side) => instr.find((p) => p.runId === run && p.side === side).value);
      assert.ok(Math.abs(head / base - 1) < 0.01, `run ${run}: head ${head} against base ${base}`);
    }
    assert.deepEqual(h.changePoints.map((c) => [c.seq, c.signal, c.ratio]), [[6, 'instructions_per_query', 1.08], [13, 'rqps', 0.9], [13, 'qps', 0.9]]);
    assert.equal(h.changePoints[0].sha, sha(6));
    assert.equal(h.changePoints[0].previousSha, sha(5));
    assert.equal(h.commits.size, 14);
    assert.match(h.commits.get(6).subject, /<script>/, 'stored as given; the renderer escapes it');
    assert.deepEqual(h.machines, ['ce1c063cdb6b2b21']);

    const recent = await bot.mainHistory(store, { repo, microbenchmark: 'update-index_range=100', last: 4 });
    assert.equal(recent.fromSeq, 11);
    assert.deepEqual(recent.series.instructions_ratio.map((p) => p.seq), [11]);
    assert.deepEqual(recent.series.qps.map((p) => p.seq), [11, 12, 12, 13, 13, 14, 14]);
    assert.deepEqual(recent.series.rqps.map((p) => p.seq), [12, 13, 14]);
    const narrow = await bot.mainSeries(store, { repo, microbenchmark: 'update-index_range=100', signal: 'qps', fromSeq: 13 });
    assert.deepEqual(narrow.map((p) => p.seq), [13, 13, 14, 14]);
    assert.deepEqual([...recent.commits.keys()].sort((a, b) => a - b), [11, 12, 13, 14]);
    assert.deepEqual(recent.changePoints.map((c) => c.seq), [13, 13]);
    const none = await bot.mainHistory(store, { repo: 'other/repo', microbenchmark: 'point-query' });
    assert.equal(none.toSeq, null);
    const elsewhere = await bot.mainHistory(store, { repo, microbenchmark: 'update-index_range=100', machine: 'ffffffffffffffff' });
    assert.ok(Object.values(elsewhere.series).every((s) => s.length === 0));
  });

  await t.test('recentRuns: newest first, with verdict, pull request, workflow run and commits; paged by run id', async () => {
    const runs = await bot.recentRuns(store, { limit: 3 });
    assert.deepEqual(runs.map((r) => r.id), [stored.prRunId, stored.prRunId - 1, stored.prRunId - 2]);
    assert.equal(runs[0].prNumber, 42);
    assert.equal(runs[0].runUrl, `https://github.com/${repo}/actions/runs/777`);
    assert.equal(runs[0].baseSeq, 14);
    assert.equal(runs[0].headSeq, null);
    assert.match(runs[0].headline, /<script>/);
    assert.equal(runs[1].prNumber, null);
    assert.deepEqual([runs[1].headSeq, runs[1].baseSeq, runs[1].suite], [14, 13, 'quick']);
    assert.ok(runs.every((r) => ['pass', 'warn', 'fail', 'undecided', 'error'].includes(r.verdict)));
    const older = await bot.recentRuns(store, { before: runs.at(-1).id, limit: 100 });
    assert.equal(older.length, stored.prRunId - 3);
    assert.equal((await bot.recentRuns(store, { suite: 'ahi' })).length, 0);
  });

  await t.test('regressionList: open ones, or all with the open first', async () => {
    const open = await bot.regressionList(store, { repo });
    assert.deepEqual(open.map((g) => [g.microbenchmark, g.status, g.firstBadSeq, g.lastGoodSha]), [['update-index_range=100', 'open', 6, sha(5)]]);
    const all = await bot.regressionList(store, { repo, status: 'all' });
    assert.deepEqual(all.map((g) => [g.status, g.fixedBySha]), [['open', null], ['closed', sha(4)]]);
  });

  await t.test('signoffList: each sign-off with its waivers and its run verdict', async () => {
    const [signoff] = await bot.signoffList(store, { repo });
    assert.equal(signoff.candidateRef, 'v10.11.19');
    assert.equal(signoff.workflowRunId, 888);
    assert.deepEqual(signoff.waivers.map((w) => [w.microbenchmark, w.author]), [['scan_range=100', 'release-manager']]);
    assert.ok(signoff.verdict);
  });

  assert.equal(await changesSoFar(store), before, 'the queries wrote nothing');
});
