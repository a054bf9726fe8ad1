'use strict';
// The history store's job queue tests, run by test/support/store-contract.js on every database
// the store supports: leases, retries, and several processes enqueuing and draining at once.
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const bot = require('../../bot/src');

const WORKER = path.join(__dirname, 'store-worker.js');

function runWorker(task, timeoutMs = 120_000) {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [WORKER, JSON.stringify(task)], { timeout: timeoutMs }, (err, stdout, stderr) => {
      if (err) reject(new Error(`store worker ${task.action} failed: ${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1)));
    });
    child.stdin.end();
  });
}

// Runs the tasks in one worker process each, all meeting at one barrier (store-worker.js).
async function runTogether(tasks, timeoutMs) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-barrier-'));
  try {
    return await Promise.all(tasks.map((t) => runWorker({ ...t, barrier: { dir, count: tasks.length } }, timeoutMs)));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// Clock a test moves by hand, for leases and retries.
function manualClock(start = Date.UTC(2026, 10, 23, 12)) {
  let now = start;
  const clock = () => now;
  clock.advance = (ms) => { now += ms; };
  return clock;
}

// open(options) -> a new empty store closed after the suite; keep(store) closes one opened
// otherwise after the suite; backend as in store-contract.js.
function queueContract({ open, backend, keep }) {
  describe('job queue', () => {
    test('enqueue is idempotent by key, also after the job is done', async () => {
      const s = await open();
      const a = await bot.enqueue(s, { kind: 'dispatch', payload: { pr: 1 } }, 'dispatch/1');
      assert.deepEqual(a, { id: a.id, created: true, status: 'queued' });
      assert.deepEqual(await bot.enqueue(s, { kind: 'dispatch', payload: { pr: 1 } }, 'dispatch/1'), { id: a.id, created: false, status: 'queued' });
      const job = await bot.claim(s, 'w1', 60);
      assert.equal(job.id, a.id);
      assert.deepEqual(job.payload, { pr: 1 });
      assert.equal(await bot.complete(s, job.id), true);
      assert.deepEqual(await bot.enqueue(s, { kind: 'dispatch' }, 'dispatch/1'), { id: a.id, created: false, status: 'done' });
      assert.equal(await bot.claim(s, 'w1', 60), null);
    });

    test('claims go oldest first; a job is due from its runAt', async () => {
      const clock = manualClock();
      const s = await open({ clock });
      const later = await bot.enqueue(s, { kind: 'k', runAt: clock() + 10_000 }, 'later');
      const first = await bot.enqueue(s, { kind: 'k' }, 'first');
      clock.advance(1);
      const second = await bot.enqueue(s, { kind: 'k' }, 'second');
      assert.equal((await bot.claim(s, 'w', 60)).id, first.id);
      assert.equal((await bot.claim(s, 'w', 60)).id, second.id);
      assert.equal(await bot.claim(s, 'w', 60), null);
      clock.advance(10_000);
      assert.equal((await bot.claim(s, 'w', 60)).id, later.id);
    });

    test('an expired lease makes the job due again; the old worker can no longer finish it', async () => {
      const clock = manualClock();
      const s = await open({ clock });
      const { id } = await bot.enqueue(s, { kind: 'k' }, 'lease');
      const a = await bot.claim(s, 'worker-a', 30);
      assert.deepEqual([a.id, a.attempts, a.lockedBy, a.lockedUntil], [id, 1, 'worker-a', clock() + 30_000]);
      clock.advance(30_000);
      assert.equal(await bot.claim(s, 'worker-b', 30), null, 'the lease runs up to and including its last millisecond');
      clock.advance(1);
      const b = await bot.claim(s, 'worker-b', 30);
      assert.deepEqual([b.id, b.attempts, b.lockedBy], [id, 2, 'worker-b']);
      assert.equal(await bot.complete(s, id, { workerId: 'worker-a' }), false);
      assert.equal(await bot.fail(s, id, 'late', clock(), { workerId: 'worker-a' }), false);
      assert.equal(await bot.complete(s, id, { workerId: 'worker-b' }), true);
      clock.advance(3_600_000);
      assert.equal(await bot.claim(s, 'worker-c', 30), null, 'a completed job is never claimed again');
      assert.equal(await bot.complete(s, id), false);
    });

    test('fail retries from retryAt until maxAttempts, then fails for good', async () => {
      const clock = manualClock();
      const s = await open({ clock });
      const { id } = await bot.enqueue(s, { kind: 'k', maxAttempts: 2 }, 'flaky');
      await bot.claim(s, 'w', 30);
      assert.equal(await bot.fail(s, id, new Error('GitHub answered 502'), clock() + 5_000), true);
      let job = await bot.getJob(s, id);
      assert.deepEqual([job.status, job.lastError, job.runAt], ['queued', 'GitHub answered 502', clock() + 5_000]);
      assert.equal(await bot.claim(s, 'w', 30), null);
      clock.advance(5_000);
      assert.equal((await bot.claim(s, 'w', 30)).attempts, 2);
      assert.equal(await bot.fail(s, id, 'GitHub answered 502 again', clock() + 5_000), true);
      job = await bot.getJob(s, id);
      assert.deepEqual([job.status, job.lastError], ['failed', 'GitHub answered 502 again']);
      clock.advance(60_000);
      assert.equal(await bot.claim(s, 'w', 30), null);

      const other = await bot.enqueue(s, { kind: 'k' }, 'bad-input');
      await bot.claim(s, 'w', 30);
      assert.equal(await bot.fail(s, other.id, 'no such ref', null), true);
      assert.equal((await bot.getJob(s, other.id)).status, 'failed');
    });

    test('a job whose every worker dies stops being handed out after maxAttempts', async () => {
      const clock = manualClock();
      const s = await open({ clock });
      const { id } = await bot.enqueue(s, { kind: 'k', maxAttempts: 2 }, 'poison');
      assert.equal((await bot.claim(s, 'w1', 10)).attempts, 1);
      clock.advance(10_001);
      assert.equal((await bot.claim(s, 'w2', 10)).attempts, 2);
      clock.advance(10_001);
      assert.equal(await bot.claim(s, 'w3', 10), null);
      const job = await bot.getJob(s, id);
      assert.deepEqual([job.status, job.lastError], ['failed', 'the lease expired on the last allowed attempt (the worker stopped or took too long)']);
    });

    test('the same keys enqueued by four processes at once make one job each', async () => {
      const target = await backend.fresh();
      const keys = Array.from({ length: 30 }, (_, i) => `pr-${i}`);
      const answers = await runTogether([0, 1, 2, 3].map(() => ({ action: 'enqueue', target, keys })));
      keys.forEach((key, i) => {
        const results = answers.map((a) => a.results[i]);
        assert.equal(results.filter((r) => r.created).length, 1, `${key}: ${JSON.stringify(results)}`);
        assert.equal(new Set(results.map((r) => r.id)).size, 1);
      });
    });

    test('four workers in four processes drain 300 jobs: each job claimed and done exactly once', async () => {
      const target = await backend.fresh();
      const s = await bot.openStore(target);
      keep(s);
      const total = 300;
      for (let i = 0; i < total; i++) await bot.enqueue(s, { kind: 'k', payload: { i } }, `job-${i}`);
      const answers = await runTogether(['a', 'b', 'c', 'd'].map((w) => ({ action: 'drain', target, worker: w, total })));
      const claimed = answers.flatMap((a) => a.claimed);
      assert.equal(claimed.length, total, 'no job claimed twice');
      assert.equal(new Set(claimed).size, total);
      assert.ok(answers.filter((a) => a.claimed.length > 0).length >= 2, `the work was shared: ${answers.map((a) => a.claimed.length)}`);
      const states = await s.db.selectFrom('jobs').select(['status', 'attempts']).execute();
      assert.ok(states.every((j) => j.status === 'done' && Number(j.attempts) === 1));
    });

    test('a worker renews the lease of the job it holds; another worker cannot', async () => {
      const clock = manualClock();
      const s = await open({ clock });
      const { id } = await bot.enqueue(s, { kind: 'k' }, 'long');
      await bot.claim(s, 'w1', 10);
      assert.deepEqual(await bot.queueDepth(s), { queued: 0, running: 1 });
      clock.advance(9_000);
      assert.equal(await bot.extendLease(s, id, 'w1', 10), true);
      assert.equal(await bot.extendLease(s, id, 'w2', 10), false);
      clock.advance(9_000);
      assert.equal(await bot.claim(s, 'w2', 10), null, 'the renewed lease still holds');
      assert.equal(await bot.complete(s, id, { workerId: 'w1' }), true);
      assert.equal(await bot.extendLease(s, id, 'w1', 10), false, 'a finished job has no lease');
    });

    test('a job whose worker process was killed is claimed again when its lease expires', async () => {
      const target = await backend.fresh();
      const s = await bot.openStore(target);
      keep(s);
      const { id } = await bot.enqueue(s, { kind: 'k' }, 'crash');
      const { spawn } = require('node:child_process');
      const child = spawn(process.execPath, [WORKER, JSON.stringify({ action: 'claim-and-hang', target, worker: 'doomed', leaseSeconds: 3 })], { stdio: ['ignore', 'pipe', 'inherit'] });
      const exited = new Promise((r) => child.once('exit', r));
      const line = await new Promise((resolve, reject) => {
        child.stdout.once('data', (d) => resolve(d.toString()));
        child.once('exit', (code) => reject(new Error(`worker exited (${code}) before claiming`)));
      });
      assert.deepEqual(JSON.parse(line), { claimed: id });
      child.kill('SIGKILL');
      await exited;
      const { lockedUntil } = await bot.getJob(s, id);
      assert.equal(await bot.claim(s, 'survivor', 30), null, 'the lease still holds');
      await new Promise((r) => setTimeout(r, lockedUntil - Date.now() + 50));
      const again = await bot.claim(s, 'survivor', 30);
      assert.deepEqual([again.id, again.attempts, again.lockedBy], [id, 2, 'survivor']);
      assert.equal(await bot.complete(s, id, { workerId: 'survivor' }), true);
    });
  });
}

module.exports = { queueContract, runWorker, runTogether, manualClock };
