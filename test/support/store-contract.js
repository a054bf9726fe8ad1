'use strict';
// The history store's tests, written once and run on every database the store supports:
// test/unit/bot/store-sqlite.test.js runs them on SQLite files, and
// test/integration/bot/store-mariadb.test.js on a real MariaDB server.
//
// backend = {name, setup(), teardown(), fresh() -> target of a new empty store,
//            floatTolerance: how far (relative) a DOUBLE may read back from what was stored}
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const bot = require('../../bot/src');
const { MIGRATIONS } = require('../../bot/src/store/migrations');
const { judge } = require('@perfgate/core');
const captured = require('./captured-results');
const { queueContract, runTogether, manualClock } = require('./store-queue-contract');

// The limits of thresholds/quick.yml and ahi.yml.
const LIMITS = { limits: { default: { warn: 0.97, fail: 0.93, instructions: { warn: 1.02, fail: 1.04 } }, ahi_gain: { warn: 0.97, fail: 0.93 } } };
const REPO = 'perfgate/mariadb-fork';
const sha = (n) => n.toString(16).padStart(40, '0');

// Every captured results.json, loaded: [{name, results}].
function capturedResults() {
  return captured.capturedResults().map(({ name, file }) => ({ name, results: captured.loadResults(file) }));
}

// Deep equality where numbers may differ by a relative `tolerance`: MariaDB stores a DOUBLE
// exactly but its text protocol returns it to 16 significant digits, which is not always the
// same double again (918.4350132626029 reads back as 918.4350132626028).
function assertCloseTo(actual, expected, tolerance, where = '') {
  if (tolerance === 0) return assert.deepEqual(actual, expected, where);
  if (typeof expected === 'number' && typeof actual === 'number') {
    const ok = actual === expected || Math.abs(actual - expected) <= tolerance * Math.abs(expected);
    return assert.ok(ok, `${where}: ${actual} is not ${expected}`);
  }
  if (expected && typeof expected === 'object') {
    assert.equal(typeof actual, 'object', where);
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), where);
    for (const k of Object.keys(expected)) assertCloseTo(actual[k], expected[k], tolerance, `${where}.${k}`);
    return undefined;
  }
  return assert.equal(actual, expected, where);
}

function storeContract(backend) {
  describe(`history store on ${backend.name}`, () => {
    before(() => backend.setup());
    after(() => backend.teardown());
    const stores = [];
    const open = async (options) => {
      const s = await bot.openStore(await backend.fresh(), options);
      stores.push(s);
      return s;
    };
    after(async () => { for (const s of stores) await s.close().catch(() => {}); });

    describe('migrations', () => {
      test('a new store is at the latest schema, and opening it again changes nothing', async () => {
        const target = await backend.fresh();
        const first = await bot.openStore(target);
        assert.deepEqual(await bot.schemaVersion(first), Object.keys(MIGRATIONS));
        await bot.recordDelivery(first, { deliveryId: 'd-1', event: 'ping' });
        await first.close();
        const again = await bot.openStore(target);
        assert.deepEqual(await bot.schemaVersion(again), Object.keys(MIGRATIONS));
        assert.deepEqual(await bot.recordDelivery(again, { deliveryId: 'd-1', event: 'ping' }), { id: 1, duplicate: true });
        await again.close();
      });

      test('a store at an older schema version is migrated, its data kept', async () => {
        const target = await backend.fresh();
        const old = await bot.openStore(target, { migrateTo: '0001_history' });
        assert.deepEqual(await bot.schemaVersion(old), ['0001_history']);
        await assert.rejects(bot.enqueue(old, { kind: 'x' }, 'k'), /jobs/);
        const [{ results }] = capturedResults();
        const { runId } = await bot.storeRun(old, { request: { repo: REPO }, results, verdict: judge(results, LIMITS) });
        await old.close();

        const current = await bot.openStore(target);
        assert.deepEqual(await bot.schemaVersion(current), Object.keys(MIGRATIONS));
        const run = await current.db.selectFrom('runs').selectAll().where('id', '=', runId).executeTakeFirst();
        assert.equal(run.suite, results.plan.suite);
        assert.equal((await bot.enqueue(current, { kind: 'x' }, 'k')).created, true);
        await current.close();
      });

      test('watch runs of a store from before suites were watched are kept as the quick suite\'s', async () => {
        const target = await backend.fresh();
        const old = await bot.openStore(target, { migrateTo: '0010_heartbeat' });
        const row = (id, purpose, workflowRunId) => ({
          id, repo: REPO, head_sha: sha(2), base_sha: sha(1), purpose, tests: null, status: 'dispatched', installation_id: 7,
          workflow_run_id: workflowRunId, run_id: null, detail: null, created_at: 1, updated_at: 1,
        });
        await old.db.insertInto('watch_runs').values([row(5, 'measure', 900), row(9, 'confirm', 901)]).execute();
        await old.close();
        const s = await bot.openStore(target);
        stores.push(s);
        assert.deepEqual((await bot.watchRunsOf(s, { repo: REPO, headSha: sha(2), purpose: 'measure' })).map((w) => [w.id, w.suite, w.workflowRunId]), [[5, 'quick', 900]]);
        assert.equal((await bot.watchRunOfWorkflowRun(s, { repo: REPO, workflowRunId: 901 })).purpose, 'confirm');
        const again = await bot.claimWatchRun(s, { repo: REPO, headSha: sha(2), baseSha: sha(1), purpose: 'measure', suite: 'quick' });
        assert.deepEqual([again.duplicate, again.watchRun.id], [true, 5]);
        const tpcc = await bot.claimWatchRun(s, { repo: REPO, headSha: sha(2), baseSha: sha(1), purpose: 'measure', suite: 'tpcc' });
        assert.deepEqual([tpcc.duplicate, tpcc.watchRun.suite, tpcc.watchRun.id > 9], [false, 'tpcc', true]);
        assert.deepEqual((await bot.watchRunsOf(s, { repo: REPO, headSha: sha(2), purpose: 'measure' })).map((w) => w.suite), ['quick', 'tpcc']);
        await assert.rejects(bot.claimWatchRun(s, { repo: REPO, headSha: sha(3), baseSha: sha(1), purpose: 'measure' }), /missing 'suite'/);
      });

      test('a store written by a newer version is refused, not changed', async () => {
        const target = await backend.fresh();
        const s = await bot.openStore(target);
        await s.db.insertInto('kysely_migration').values({ name: '9999_future', timestamp: new Date().toISOString() }).execute();
        await s.close();
        await assert.rejects(bot.openStore(target), (err) => {
          assert.ok(err instanceof bot.StoreError, err.stack);
          assert.match(err.message, /^store .+: its schema has migration '9999_future', which this version of @perfgate\/bot does not know: a newer version wrote it; run that version, or open another store$/);
          return true;
        });
      });

      test('processes opening a new store at the same moment migrate it once', async () => {
        const target = await backend.fresh();
        await runTogether([1, 2, 3, 4].map(() => ({ action: 'open', target })));
        const s = await bot.openStore(target);
        stores.push(s);
        const applied = await s.db.selectFrom('kysely_migration').select('name').orderBy('name').execute();
        assert.deepEqual(applied.map((r) => r.name), Object.keys(MIGRATIONS));
      });
    });

    describe('idempotency keys', () => {
      test('a webhook delivery and a command comment are recorded once', async () => {
        const s = await open();
        assert.deepEqual(await bot.recordDelivery(s, { deliveryId: '72d3162e-cc78-11e3-81ab-4c9367dc0958', event: 'issue_comment', action: 'created' }), { id: 1, duplicate: false });
        assert.deepEqual(await bot.recordDelivery(s, { deliveryId: '72d3162e-cc78-11e3-81ab-4c9367dc0958', event: 'issue_comment', action: 'created' }), { id: 1, duplicate: true });
        const command = bot.parseCommand('/perf quick threads=1,4', { benchmarks: [] }).command;
        const request = { commentId: 2_147_483_648_123, repo: REPO, prNumber: 42, author: 'octocat', command, headSha: sha(7) };
        const first = await bot.recordRequest(s, request);
        assert.deepEqual(await bot.recordRequest(s, request), { id: first.id, duplicate: true });
        const row = await s.db.selectFrom('requests').selectAll().where('id', '=', first.id).executeTakeFirst();
        assert.equal(Number(row.comment_id), 2_147_483_648_123);
        assert.deepEqual(JSON.parse(row.args), { threads: [1, 4] });
        // Requests with no comment (e.g. a scheduled run) are not deduplicated.
        const a = await bot.recordRequest(s, { repo: REPO, command });
        const b = await bot.recordRequest(s, { repo: REPO, command });
        assert.notEqual(a.id, b.id);
      });

      test('the same deliveries recorded by four processes at once: each is new exactly once', async () => {
        const target = await backend.fresh();
        const ids = Array.from({ length: 40 }, (_, i) => `delivery-${i}`);
        const answers = await runTogether([0, 1, 2, 3].map((k) => ({
          action: 'deliveries', target, ids: k % 2 ? ids : [...ids].reverse(),
        })));
        const byId = new Map(ids.map((id) => [id, []]));
        answers.forEach((a, k) => {
          const order = k % 2 ? ids : [...ids].reverse();
          order.forEach((id, i) => byId.get(id).push(a.results[i]));
        });
        for (const [id, results] of byId) {
          assert.equal(results.filter((r) => !r.duplicate).length, 1, `${id}: ${JSON.stringify(results)}`);
          assert.equal(new Set(results.map((r) => r.id)).size, 1, `${id}: ${JSON.stringify(results)}`);
        }
      });
    });

    describe('command requests', () => {
      const quick = () => bot.parseCommand('/perf quick', { benchmarks: [] }).command;
      const record = (s, commentId, extra = {}) => bot.recordRequest(s, {
        commentId, repo: REPO, prNumber: 7, author: 'maintainer', command: quick(), commentCreatedAt: 1_000 + commentId, installationId: 777, ...extra,
      });

      // Walks a request along the life cycle, as its command job moves it.
      const walk = async (s, id, statuses) => {
        for (const to of statuses) assert.equal(await bot.transition(s, id, to, { by: 'command' }), true, `to ${to}`);
      };

      test('a request starts received and moves only along the life cycle, by whom the table says', async () => {
        const s = await open();
        const { id } = await record(s, 1);
        let r = await bot.getRequest(s, id);
        assert.deepEqual([r.status, r.commentId, r.prNumber, r.command, r.installationId, r.commentCreatedAt], ['received', 1, 7, 'quick', 777, 1_001]);
        assert.equal(await bot.transition(s, id, 'pinned', { by: 'command', baseSha: sha(1), headSha: sha(2) }), true);
        assert.equal(await bot.transition(s, id, 'pinned', { by: 'command' }), false, 'a second pin of the same request changes nothing');
        r = await bot.requestForComment(s, 1);
        assert.deepEqual([r.status, r.baseSha, r.headSha], ['pinned', sha(1), sha(2)]);
        assert.equal(await bot.transition(s, id, 'dispatched', { by: 'command', runId: 9_000_000_001 }), false, 'pinned is not dispatched before dispatching');
        await walk(s, id, ['dispatching']);
        assert.equal(await bot.transition(s, id, 'dispatched', { by: 'command', runId: 9_000_000_001, runUrl: 'u' }), true);
        assert.equal((await bot.requestForRun(s, { repo: REPO, runId: 9_000_000_001 })).id, id);
        assert.equal(await bot.requestForRun(s, { repo: 'other/repo', runId: 9_000_000_001 }), null);
        assert.equal(await bot.transition(s, id, 'completed', { by: 'run', detail: 'pass' }), true);
        assert.equal(await bot.transition(s, id, 'cancelled', { by: 'push' }), false, 'a completed request stays completed');
        assert.equal((await bot.getRequest(s, id)).status, 'completed');
        await assert.rejects(bot.transition(s, id, 'completed', { by: 'push' }), /transition: no request moves to 'completed' by push/);
        await assert.rejects(bot.transition(s, id, 'lost', { by: 'command' }), /unknown status "lost"/);
        await assert.rejects(bot.transition(s, id, 'failed', { by: 'someone' }), /unknown mover "someone"/);
        await assert.rejects(bot.updateRequest(s, id, { status: 'received' }), /the status moves by transition/);
        await assert.rejects(bot.updateRequest(s, id, { sha: 'x' }), /unknown field 'sha'/);
        assert.equal(await bot.updateRequest(s, id, { replyId: 42 }), true);
      });

      test('a push cancels the active requests of its pull request written before it, once', async () => {
        const s = await open();
        const early = await record(s, 10);
        const dispatched = await record(s, 11);
        await walk(s, dispatched.id, ['pinned', 'dispatching']);
        await bot.transition(s, dispatched.id, 'dispatched', { by: 'command', runId: 55 });
        const done = await record(s, 12);
        await walk(s, done.id, ['answered']);
        const later = await record(s, 13, { commentCreatedAt: 5_000 });
        const otherPr = await record(s, 14, { prNumber: 8 });
        const cancelled = await bot.cancelRequests(s, { repo: REPO, prNumber: 7, before: 2_000, reason: 'pushed', by: 'push' });
        assert.deepEqual(cancelled.map((r) => [r.id, r.status, r.runId]), [[early.id, 'received', null], [dispatched.id, 'dispatched', 55]]);
        const status = async (id) => (await bot.getRequest(s, id)).status;
        assert.deepEqual(await Promise.all([early, dispatched, done, later, otherPr].map((r) => status(r.id))), ['cancelled', 'cancelled', 'answered', 'received', 'received']);
        assert.equal((await bot.getRequest(s, early.id)).detail, 'pushed');
        assert.deepEqual(await bot.cancelRequests(s, { repo: REPO, prNumber: 7, before: 2_000, reason: 'pushed again', by: 'push' }), []);
        assert.deepEqual((await bot.cancelRequests(s, { repo: REPO, prNumber: 7, reason: '/perf cancel', by: 'cancel' })).map((r) => r.id), [later.id]);
        // A release sign-off outlives a push; `/perf cancel` keeps nothing (keep: []).
        const signoff = await record(s, 15, { command: { name: 'signoff', args: { candidate: 'mariadb-10.11.19' }, line: '/perf signoff mariadb-10.11.19' } });
        assert.deepEqual(await bot.cancelRequests(s, { repo: REPO, prNumber: 7, reason: 'pushed', by: 'push' }), []);
        assert.deepEqual((await bot.cancelRequests(s, { repo: REPO, prNumber: 7, reason: '/perf cancel', keep: [], by: 'cancel' })).map((r) => r.id), [signoff.id]);
        // A request cancelled before its author was authorized is refused by its job.
        assert.equal(await bot.transition(s, early.id, 'refused', { by: 'command' }), true);
        await assert.rejects(bot.cancelRequests(s, { repo: REPO, prNumber: 7, reason: 'x', by: 'run' }), /no request moves to 'cancelled' by run/);
      });

      test('requests dispatched without a run id, and the latest request of a pull request', async () => {
        const s = await open();
        const a = await record(s, 20);
        const b = await record(s, 21);
        await walk(s, a.id, ['pinned', 'dispatching', 'dispatched']);
        await walk(s, b.id, ['pinned', 'dispatching']);
        await bot.transition(s, b.id, 'dispatched', { by: 'command', runId: 77 });
        assert.deepEqual((await bot.requestsAwaitingRun(s, { repo: REPO })).map((r) => r.id), [a.id]);
        assert.equal((await bot.latestRequest(s, { repo: REPO, prNumber: 7, commands: ['quick'] })).id, b.id);
        assert.deepEqual((await bot.requestsOfPull(s, { repo: REPO, prNumber: 7 })).map((r) => r.id), [a.id, b.id]);
        assert.deepEqual(await bot.requestsOfPull(s, { repo: REPO, prNumber: 7, statuses: ['cancelled'] }), []);
        assert.equal(await bot.latestRequest(s, { repo: REPO, prNumber: 7, commands: ['full'] }), null);
        assert.equal((await bot.latestRequest(s, { repo: REPO, prNumber: 7, commands: ['quick'], statuses: ['received'] })), null);
      });

      test('a delivery, a request and a job written in one transaction are all there, or none is', async () => {
        const s = await open();
        await bot.inTransaction(s, async (tx) => {
          await bot.recordDelivery(tx, { deliveryId: 'd-1', event: 'issue_comment', action: 'created' });
          await record(tx, 30);
          await bot.enqueue(tx, { kind: 'command', payload: { commentId: 30 } }, 'command:30');
        });
        await assert.rejects(bot.inTransaction(s, async (tx) => {
          await bot.recordDelivery(tx, { deliveryId: 'd-2', event: 'issue_comment', action: 'created' });
          await record(tx, 31);
          await bot.cancelRequests(tx, { repo: REPO, prNumber: 7, reason: 'inside', by: 'push' });
          throw new Error('the process died here');
        }), /the process died here/);
        const deliveries = await s.db.selectFrom('deliveries').select('delivery_id').execute();
        assert.deepEqual(deliveries.map((d) => d.delivery_id), ['d-1']);
        assert.equal(await bot.requestForComment(s, 31), null);
        assert.equal((await bot.requestForComment(s, 30)).status, 'received', 'the rolled-back cancel left the earlier request alone');
        assert.deepEqual(await bot.queueDepth(s), { queued: 1, running: 0 });
      });
    });

    describe('pull request heads', () => {
      test('each head with its time, once, oldest first; another pull request apart; bad input named', async () => {
        const s = await open();
        const head = (prNumber, n, at, action = 'synchronize') => bot.recordPullHead(s, { repo: REPO, prNumber, sha: sha(n), at, action, deliveryId: `d-${n}-${at}` });
        assert.deepEqual(await head(7, 1, 1_000, 'opened'), { duplicate: false });
        assert.deepEqual(await head(7, 3, 9_000), { duplicate: false });
        assert.deepEqual(await head(7, 2, 5_000), { duplicate: false });
        assert.deepEqual(await head(7, 2, 5_000), { duplicate: true }, 'the same head and time delivered again');
        assert.deepEqual(await head(8, 1, 2_000, 'reopened'), { duplicate: false });
        assert.deepEqual(await bot.pullHeads(s, { repo: REPO, prNumber: 7 }), [
          { sha: sha(1), at: 1_000, action: 'opened' }, { sha: sha(2), at: 5_000, action: 'synchronize' }, { sha: sha(3), at: 9_000, action: 'synchronize' },
        ]);
        assert.deepEqual(await bot.pullHeads(s, { repo: 'other/repo', prNumber: 7 }), []);
        await assert.rejects(head(7, 1, 1_000, 'closed'), /recordPullHead: action "closed": expected one of opened, reopened, synchronize/);
        await assert.rejects(bot.recordPullHead(s, { repo: REPO, prNumber: 7, sha: 'abc', at: 1, action: 'opened' }), /expected a pull request number, a 40-hex SHA and a time in ms/);
      });
    });

    describe('runs', () => {
      for (const { name, results } of capturedResults()) {
        test(`storeRun keeps every round and verdict figure of ${name}`, async () => {
          const s = await open();
          const verdict = judge(results, LIMITS);
          const { runId, duplicate } = await bot.storeRun(s, {
            request: { repo: REPO, runKey: `run-${name}`, base: { sha: sha(1) }, head: { sha: sha(2) } }, results, verdict,
          });
          assert.equal(duplicate, false);
          assert.deepEqual(await bot.storeRun(s, { request: { repo: REPO, runKey: `run-${name}` }, results, verdict }), { runId, duplicate: true });

          const run = await s.db.selectFrom('runs').selectAll().where('id', '=', runId).executeTakeFirst();
          assert.equal(run.status, results.status);
          assert.equal(run.suite, results.plan.suite);
          assert.equal(Number(run.started_at), Date.parse(results.started));
          const machine = await s.db.selectFrom('machines').selectAll().executeTakeFirst();
          assert.equal(machine.fingerprint, results.machine.id);
          const sides = await s.db.selectFrom('run_sides as rs').leftJoin('commits as c', 'c.id', 'rs.commit_id')
            .select(['rs.side', 'rs.version', 'c.sha']).where('rs.run_id', '=', runId).orderBy('rs.side').execute();
          assert.deepEqual(sides, [
            { side: 'base', version: results.sides.base.version, sha: sha(1) },
            { side: 'head', version: results.sides.head.version, sha: sha(2) },
          ]);

          // Every round, every figure, exactly as measured.
          const rounds = await s.db.selectFrom('rounds as r').innerJoin('benchmark_results as b', 'b.id', 'r.benchmark_result_id')
            .select(['b.bench_key', 'r.side', 'r.round_index', 'r.qps', 'r.cpu_per_query_us', 'r.cs_per_query', 'r.instructions_per_query', 'r.queries'])
            .where('b.run_id', '=', runId).orderBy('r.id').execute();
          const expected = results.benchmarks.flatMap((b) => (b.rounds || []).map((r) => ({
            bench_key: b.id, side: r.side, round_index: r.index, qps: r.qps, cpu_per_query_us: r.cpu_per_query_us,
            cs_per_query: r.cs_per_query, instructions_per_query: r.instructions_per_query ?? null, queries: r.queries,
          })));
          assertCloseTo(rounds.map((r) => ({ ...r, queries: Number(r.queries) })), expected, backend.floatTolerance, 'rounds');
          const benchmarks = await s.db.selectFrom('benchmark_results').select(['bench_key', 'status', 'threads', 'ahi'])
            .where('run_id', '=', runId).orderBy('id').execute();
          assert.deepEqual(benchmarks, results.benchmarks.map((b) => ({ bench_key: b.id, status: b.status, threads: b.threads ?? null, ahi: b.ahi ?? null })));

          // The verdict: the document as judged, one item per benchmark and AHI cell, and
          // each interval's figures.
          const v = await s.db.selectFrom('verdicts').selectAll().where('run_id', '=', runId).executeTakeFirst();
          assert.equal(v.verdict, verdict.verdict);
          assert.equal(v.headline, verdict.headline);
          assert.deepEqual(JSON.parse(v.document), verdict);
          const intervals = await s.db.selectFrom('verdict_intervals as vi').innerJoin('verdict_items as it', 'it.id', 'vi.verdict_item_id')
            .select(['it.item_key', 'it.kind', 'it.verdict', 'vi.signal', 'vi.estimate', 'vi.low', 'vi.high', 'vi.n'])
            .where('it.verdict_id', '=', v.id).orderBy('vi.id').execute();
          const items = [...verdict.benchmarks.map((b) => ['benchmark', b]), ...verdict.ahi.map((c) => ['ahi_cell', c])];
          const expectedIntervals = items.flatMap(([kind, b]) => ['rqps', 'cpu_per_query', 'cs_per_query', 'instructions_per_query', 'all_threads_per_query', 'gain_ratio']
            .filter((signal) => b[signal])
            .map((signal) => ({ item_key: b.id, kind, verdict: b.verdict, signal, estimate: b[signal].estimate, low: b[signal].low, high: b[signal].high, n: b[signal].n })));
          assertCloseTo(intervals, expectedIntervals, backend.floatTolerance, 'intervals');
          const itemCount = await s.db.selectFrom('verdict_items').select((eb) => eb.fn.countAll().as('n')).where('verdict_id', '=', v.id).executeTakeFirst();
          assert.equal(Number(itemCount.n), verdict.benchmarks.length + verdict.ahi.length);
        });
      }

      test('four processes storing runs of the same new commits and microbenchmarks at once all succeed', async () => {
        const target = await backend.fresh();
        // Two pairs store the same runs (same run keys): one of each pair is a duplicate.
        const answers = await runTogether([0, 1, 2, 3].map((k) => ({
          action: 'store-runs', target, commits: { base: sha(1), head: sha(100 + (k % 2)) },
        })));
        const s = await bot.openStore(target);
        stores.push(s);
        const runs = capturedResults().length;
        for (const pair of [[0, 2], [1, 3]]) {
          const [a, b] = pair.map((k) => answers[k].results);
          a.forEach((r, i) => {
            assert.equal(r.runId, b[i].runId);
            assert.equal([r.duplicate, b[i].duplicate].filter(Boolean).length, 1);
          });
        }
        const count = async (table) => Number((await s.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirst()).n);
        assert.equal(await count('runs'), 2 * runs);
        assert.equal(await count('commits'), 3);
        // One row per runner fingerprint among the captured runs (a kernel update changes it).
        assert.equal(await count('machines'), new Set(capturedResults().map((c) => c.results.machine.id)).size);
        const names = new Set(capturedResults().flatMap((c) => c.results.benchmarks.map((b) => b.name)));
        assert.equal(await count('microbenchmarks'), names.size);
      });

      test('storeRun refuses documents that are not perfgate results and verdicts, naming the key', async () => {
        const s = await open();
        const [{ results }] = capturedResults();
        await assert.rejects(bot.storeRun(s, { request: {}, results: { schema: 'perfgate.plan/v1' } }),
          { message: `storeRun: results key 'schema' is "perfgate.plan/v1", expected "perfgate.results/v1"` });
        await assert.rejects(bot.storeRun(s, { request: {}, results, verdict: { schema: 'x' } }),
          { message: `storeRun: verdict key 'schema' is "x", expected "perfgate.verdict/v2"` });
        await assert.rejects(bot.storeRun(s, { request: { head: { sha: sha(1) } }, results }),
          { message: `storeRun: request key 'repo' is missing: the head commit ${sha(1)} needs its repository` });
        const runs = await s.db.selectFrom('runs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
        assert.equal(Number(runs.n), 0, 'a refused run leaves nothing behind');
      });

      test('a series per microbenchmark and signal on main reads back in commit order', async () => {
        const s = await open();
        const quick = capturedResults().find((c) => c.name === 'tiny-quick').results;
        const noise = capturedResults().find((c) => c.name === 'aa-quick-noise').results;
        // Main is c1..c4 (first-parent order); runs are stored out of that order, and one
        // run measures a pull request head that is not on main.
        await bot.recordMainline(s, { repo: REPO, firstSeq: 1, commits: [1, 2, 3, 4].map((n) => ({ sha: sha(n), subject: `commit ${n}` })) });
        const store = (base, head, results) => bot.storeRun(s, { request: { repo: REPO, base: { sha: sha(base) }, head: { sha: sha(head) } }, results, verdict: judge(results, LIMITS) });
        const r34 = await store(3, 4, quick);
        const r12 = await store(1, 2, noise);
        const rPr = await store(2, 99, quick);
        const r23 = await store(2, 3, quick);

        const qps = await bot.mainSeries(s, { repo: REPO, microbenchmark: 'update-index_range=100', signal: 'qps' });
        // Within a commit, runs follow their start time: the quick runs started before the
        // noise run.
        assert.ok(Date.parse(quick.started) < Date.parse(noise.started));
        assert.deepEqual(qps.map((p) => [p.seq, p.runId, p.side]), [
          [1, r12.runId, 'base'], [2, rPr.runId, 'base'], [2, r23.runId, 'base'], [2, r12.runId, 'head'],
          [3, r34.runId, 'base'], [3, r23.runId, 'head'], [4, r34.runId, 'head'],
        ]);
        const upd = (results) => results.benchmarks.find((b) => b.name === 'update-index_range=100').rounds;
        const p4 = qps.at(-1);
        assertCloseTo(p4.values, upd(quick).filter((r) => r.side === 'head').map((r) => r.qps), backend.floatTolerance, 'values');
        assert.equal(p4.n, p4.values.length);
        assert.ok(Math.abs(p4.value - Math.exp(p4.values.reduce((a, x) => a + Math.log(x), 0) / p4.n)) < 1e-9);
        assert.equal(p4.machine, quick.machine.id);

        const rqps = await bot.verdictSeries(s, { repo: REPO, microbenchmark: 'update-index_range=100', signal: 'rqps' });
        assert.deepEqual(rqps.map((p) => [p.seq, p.runId]), [[2, r12.runId], [3, r23.runId], [4, r34.runId]]);
        const judged = judge(quick, LIMITS).benchmarks.find((b) => b.name === 'update-index_range=100').rqps;
        assertCloseTo(rqps.at(-1), { seq: 4, sha: sha(4), runId: r34.runId, machine: quick.machine.id, estimate: judged.estimate, low: judged.low, high: judged.high, n: judged.n }, backend.floatTolerance, 'rqps');

        // Instructions per query of all threads, per window: the queries' own and the background
        // work drained after it, summed per window, then the geometric mean per side of a run.
        const counted = capturedResults().find((c) => c.name === 'instructions-pfs').results;
        const rInstr = await store(3, 4, counted);
        const allThreads = (await bot.mainSeries(s, { repo: REPO, microbenchmark: 'update-index_range=100', signal: 'all_threads_instructions_per_query' }))
          .filter((p) => p.runId === rInstr.runId);
        const windows = counted.benchmarks.find((b) => b.name === 'update-index_range=100').instructions;
        for (const point of allThreads) {
          const expected = windows[point.side].windows.map((w) => w.connection.per_query + (w.background.per_query || 0));
          assertCloseTo(point.values, expected, backend.floatTolerance, `${point.side} windows`);
        }
        assert.deepEqual(allThreads.map((p) => [p.seq, p.side]), [[3, 'base'], [4, 'head']]);
        assert.deepEqual(await bot.mainSeries(s, { repo: REPO, microbenchmark: 'update-index_range=100', signal: 'qps', machine: 'another-runner' }), []);
        await assert.rejects(bot.mainSeries(s, { repo: REPO, microbenchmark: 'x', signal: 'rqps' }),
          { message: 'mainSeries: unknown signal "rqps": expected one of qps, cpu_per_query_us, cs_per_query, instructions_per_query, all_threads_instructions_per_query' });
      });

      test('a waiver is kept per pull request and microbenchmark', async () => {
        const s = await open();
        await bot.recordWaiver(s, { repo: REPO, prNumber: 7, microbenchmark: 'update-index_range=100', reason: 'the new index costs 2%', author: 'maint' });
        await bot.recordWaiver(s, { repo: REPO, prNumber: 8, microbenchmark: 'scan_range=100', reason: 'other PR' });
        const waivers = await bot.waiversFor(s, { repo: REPO, prNumber: 7 });
        assert.deepEqual(waivers.map(({ microbenchmark, reason, author }) => ({ microbenchmark, reason, author })),
          [{ microbenchmark: 'update-index_range=100', reason: 'the new index costs 2%', author: 'maint' }]);
      });
    });

    queueContract({ open, backend, keep: (s) => stores.push(s) });

    describe('bisections', () => {
      test('one row per /perf bisect: opened once, progress only forward, finished once with its document', async () => {
        const s = await open();
        const { id: requestId } = await bot.recordRequest(s, {
          commentId: 4242, repo: REPO, prNumber: 7, author: 'maintainer', command: { name: 'bisect', args: { good: 'base', bad: 'tip' }, line: '/perf bisect base tip' },
        });
        const ends = { requestId, repo: REPO, prNumber: 7, goodRef: 'base', goodSha: sha(1), badRef: 'tip', badSha: sha(11), tests: ['update-index_range=100'] };
        const opened = await bot.openBisection(s, ends);
        assert.deepEqual([opened.status, opened.progressSteps, opened.tests, opened.goodSha, opened.badSha], ['running', 0, ['update-index_range=100'], sha(1), sha(11)]);
        assert.equal((await bot.openBisection(s, { ...ends, goodRef: 'other' })).id, opened.id, 'opened again: the same row');
        assert.equal(await bot.advanceProgress(s, requestId, 2, { workflowRunId: 9000000001 }), true);
        assert.equal(await bot.advanceProgress(s, requestId, 2), false, 'the same step is not shown twice');
        assert.equal(await bot.advanceProgress(s, requestId, 1), false, 'progress never goes back');
        assert.equal((await bot.getBisection(s, requestId)).workflowRunId, 9000000001);
        // A document larger than 64 KiB (TEXT on MySQL) reads back whole.
        const steps = Array.from({ length: 5 }, (_, n) => ({ n, kind: 'midpoint', commit: sha(n + 2), reason: 'x'.repeat(20_000) }));
        const doc = { status: 'found', steps, culprit: { commit: sha(8), parent: sha(7) } };
        assert.equal(await bot.finishBisection(s, requestId, { doc, status: 'found', message: 'found', workflowRunId: 9000000001 }), true);
        assert.equal(await bot.finishBisection(s, requestId, { status: 'rejected', message: 'late' }), false, 'finished once');
        assert.equal(await bot.advanceProgress(s, requestId, 9), false, 'no progress after the end');
        const done = await bot.getBisection(s, requestId);
        assert.deepEqual([done.status, done.culpritSha, done.culpritParentSha, done.progressSteps, done.message], ['found', sha(8), sha(7), 5, 'found']);
        assert.deepEqual(done.document, doc);
        assert.deepEqual(done.steps, steps);
        assert.ok(done.completedAt > 0);
      });
    });
  });
}

module.exports = { storeContract, capturedResults, manualClock, LIMITS };
