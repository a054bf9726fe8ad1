'use strict';
// The queue's ways back from a crash or an outage: a job kept (never claimed) until it is
// queued again, a finished job queued again with its attempts kept, retries hurried when GitHub
// answers again; and the store's heartbeat.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { test, after } = require('node:test');
const store = require('../../../bot/src/store');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-queue-recovery-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('kept, requeued, hurried', async () => {
  let now = 1_000_000;
  const db = await store.openStore(path.join(dir, 'q.db'), { clock: () => now });
  try {
    const { id } = await store.enqueue(db, { kind: 'run', payload: { repo: 'o/r', runId: 5 } }, 'run:o/r/5/1');
    const job = await store.claim(db, 'w', 60);
    assert.equal(job.id, id);
    assert.equal(await store.keep(db, id, { workerId: 'w' }), true);
    assert.equal((await store.jobByKey(db, 'run:o/r/5/1')).status, 'kept');
    assert.equal(await store.claim(db, 'w', 60), null, 'a kept job is never claimed');
    assert.deepEqual((await store.queueDepth(db)), { queued: 0, running: 0 });
    assert.deepEqual((await store.keptJobs(db, { kind: 'run' })).map((j) => j.payload), [{ repo: 'o/r', runId: 5 }]);
    assert.equal(await store.requeue(db, 'run:o/r/5/1', { attempts: 5 }), true);
    const again = await store.claim(db, 'w', 60);
    assert.deepEqual([again.id, again.attempts, again.maxAttempts], [id, 2, 6], 'its attempts so far kept');
    await store.complete(db, id, { workerId: 'w' });
    assert.equal(await store.requeue(db, 'run:o/r/5/1'), true, 'a done job may be queued again');
    assert.equal(await store.requeue(db, 'run:o/r/5/1'), false, 'one already queued is not');

    await store.enqueue(db, { kind: 'command' }, 'command:9');
    const failing = await store.claim(db, 'w', 60);
    const other = failing.id === id ? await store.claim(db, 'w', 60) : failing;
    await store.fail(db, other.id, 'GitHub 502', now + 600_000, { workerId: 'w' });
    await store.enqueue(db, { kind: 'later', runAt: now + 600_000 }, 'later:1');
    assert.equal(await store.hurryRetries(db), 1, 'only the job waiting out a failure');
    assert.equal((await store.jobByKey(db, 'command:9')).runAt, now);
    assert.equal((await store.jobByKey(db, 'later:1')).runAt, now + 600_000);

    await store.writeHeartbeat(db);
    now += 1;
    await store.writeHeartbeat(db);
    assert.deepEqual(await db.db.selectFrom('heartbeat').selectAll().execute(), [{ id: 1, at: now }]);
  } finally {
    await db.close();
  }
});
