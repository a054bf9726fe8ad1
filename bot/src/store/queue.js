'use strict';
// The durable job queue, in the same database as the history.
//
//   enqueue(store, {kind, payload, runAt?, maxAttempts?}, uniqueKey) -> {id, created, status}
//     A key is used once for good: enqueueing it again (also concurrently, also after the job
//     finished) returns the first job with created: false.
//   claim(store, workerId, leaseSeconds) -> job | null
//     The oldest due job, leased to workerId until now + leaseSeconds. A job whose lease
//     expired (its worker died) is due again; a done or failed job never is. Two workers
//     never get the same job: SQLite claims under BEGIN IMMEDIATE, MySQL/MariaDB with
//     SELECT … FOR UPDATE SKIP LOCKED.
//   complete(store, jobId, {workerId?}) -> boolean
//   keep(store, jobId, {workerId?}) -> boolean: a job whose handler found it too early (a run's
//     completion before its request knew the run) is kept, never claimed, until requeued
//   requeue(store, uniqueKey, {attempts}) -> boolean: a finished or kept job queued again (a
//     completion redelivered whose first job did not do its work), its attempts so far kept
//   keptJobs(store, {kind}) -> the jobs of `kind` kept, oldest first
//   hurryRetries(store) -> n: jobs waiting out a backoff made due now (GitHub answers again)
//   fail(store, jobId, error, retryAt, {workerId?}) -> boolean
//     retryAt (ms or Date) queues the job again from then, unless it has used maxAttempts;
//     null fails it for good. With workerId, only the worker holding the lease may finish the
//     job: a worker whose lease expired and was claimed by another learns it from `false`.
const { StoreError } = require('./connection');

const DEFAULT_MAX_ATTEMPTS = 5;
const MAX_ERROR_LENGTH = 4000;

const msOf = (t) => (t instanceof Date ? t.getTime() : t);

function jobOf(row) {
  if (!row) return null;
  return {
    id: Number(row.id),
    uniqueKey: row.unique_key,
    kind: row.kind,
    payload: JSON.parse(row.payload),
    status: row.status,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    runAt: Number(row.run_at),
    lockedBy: row.locked_by,
    lockedUntil: row.locked_until === null ? null : Number(row.locked_until),
    lastError: row.last_error,
  };
}

async function enqueue(store, { kind, payload = {}, runAt = null, maxAttempts = DEFAULT_MAX_ATTEMPTS }, uniqueKey) {
  if (typeof uniqueKey !== 'string' || !uniqueKey || uniqueKey.length > 191) {
    throw new StoreError(`enqueue: uniqueKey must be a string of 1 to 191 characters, got ${JSON.stringify(uniqueKey)}`);
  }
  if (typeof kind !== 'string' || !kind) throw new StoreError(`enqueue: job 'kind' must be a non-empty string, got ${JSON.stringify(kind)}`);
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new StoreError(`enqueue: 'maxAttempts' must be a positive integer, got ${JSON.stringify(maxAttempts)}`);
  }
  const now = store.now();
  try {
    const r = await store.behaviour.retrying(() => store.db.insertInto('jobs').values({
      unique_key: uniqueKey, kind, payload: JSON.stringify(payload), status: 'queued', attempts: 0,
      max_attempts: maxAttempts, run_at: runAt === null ? now : msOf(runAt), created_at: now, updated_at: now,
    }).executeTakeFirstOrThrow());
    return { id: Number(r.insertId), created: true, status: 'queued' };
  } catch (err) {
    if (!store.behaviour.isUniqueViolation(err)) throw err;
    const seen = await store.db.selectFrom('jobs').select(['id', 'status']).where('unique_key', '=', uniqueKey).executeTakeFirst();
    if (!seen) throw err;
    return { id: Number(seen.id), created: false, status: seen.status };
  }
}

// Jobs whose workers died during their last allowed attempt fail for good, so that a job that
// kills every worker that runs it stops being handed out.
async function failExhausted(store, tx, now) {
  const exhausted = await store.behaviour.lockRows(tx.selectFrom('jobs').select('id')
    .where('status', '=', 'running').where('locked_until', '<', now)
    .where((eb) => eb('attempts', '>=', eb.ref('max_attempts')))).execute();
  if (!exhausted.length) return;
  await tx.updateTable('jobs')
    .set({ status: 'failed', last_error: 'the lease expired on the last allowed attempt (the worker stopped or took too long)', updated_at: now, completed_at: now, locked_by: null, locked_until: null })
    .where('id', 'in', exhausted.map((r) => r.id))
    .execute();
}

async function claim(store, workerId, leaseSeconds) {
  if (typeof workerId !== 'string' || !workerId || workerId.length > 100) {
    throw new StoreError(`claim: workerId must be a string of 1 to 100 characters, got ${JSON.stringify(workerId)}`);
  }
  if (!(leaseSeconds > 0)) throw new StoreError(`claim: leaseSeconds must be a positive number, got ${JSON.stringify(leaseSeconds)}`);
  const now = store.now();
  return store.behaviour.writeTransaction(store.db, async (tx) => {
    // Every row lock below is taken with SKIP LOCKED (MySQL/MariaDB) or under the one write
    // lock (SQLite), so claimers do not queue up behind each other. InnoDB can still pick
    // this transaction as a deadlock victim against a worker's complete(); it is then run
    // again (connection.js).
    await failExhausted(store, tx, now);
    // Two index-ordered lookups rather than one OR: with SKIP LOCKED, a sorted scan would lock
    // every due row and leave the other claimers nothing. Expired leases go first: their jobs
    // have waited longest.
    const first = (query) => store.behaviour.lockRows(query.orderBy('id').limit(1)).executeTakeFirst();
    const row = await first(tx.selectFrom('jobs').selectAll()
      .where('status', '=', 'running').where('locked_until', '<', now)
      .where((eb) => eb('attempts', '<', eb.ref('max_attempts'))).orderBy('locked_until'))
      ?? await first(tx.selectFrom('jobs').selectAll()
        .where('status', '=', 'queued').where('run_at', '<=', now).orderBy('run_at'));
    if (!row) return null;
    const lockedUntil = now + Math.round(leaseSeconds * 1000);
    const attempts = Number(row.attempts) + 1;
    await tx.updateTable('jobs')
      .set({ status: 'running', locked_by: workerId, locked_until: lockedUntil, attempts, updated_at: now })
      .where('id', '=', row.id).execute();
    return jobOf({ ...row, status: 'running', locked_by: workerId, locked_until: lockedUntil, attempts });
  });
}

function running(query, jobId, workerId) {
  let q = query.where('id', '=', jobId).where('status', '=', 'running');
  if (workerId !== undefined) q = q.where('locked_by', '=', workerId);
  return q;
}

// One guarded update; true when it changed the job.
async function update(store, query) {
  const r = await store.behaviour.retrying(() => query.executeTakeFirst());
  return Number(r.numUpdatedRows) === 1;
}

async function complete(store, jobId, { workerId } = {}) {
  const now = store.now();
  return update(store, running(store.db.updateTable('jobs'), jobId, workerId)
    .set({ status: 'done', completed_at: now, updated_at: now, locked_by: null, locked_until: null }));
}

async function fail(store, jobId, error, retryAt, { workerId } = {}) {
  const now = store.now();
  const message = String(error instanceof Error ? error.message : error).slice(0, MAX_ERROR_LENGTH);
  const common = { last_error: message, updated_at: now, locked_by: null, locked_until: null };
  if (retryAt !== null && retryAt !== undefined) {
    const retried = await update(store, running(store.db.updateTable('jobs'), jobId, workerId)
      .where((eb) => eb('attempts', '<', eb.ref('max_attempts')))
      .set({ ...common, status: 'queued', run_at: msOf(retryAt) }));
    if (retried) return true;
  }
  return update(store, running(store.db.updateTable('jobs'), jobId, workerId)
    .set({ ...common, status: 'failed', completed_at: now }));
}

/**
 * Moves the lease of a running job held by workerId to now + leaseSeconds: a worker renews it
 * while the job runs, so a long job is not claimed again by another worker. false when the
 * worker no longer holds it.
 */
async function extendLease(store, jobId, workerId, leaseSeconds) {
  if (!(leaseSeconds > 0)) throw new StoreError(`extendLease: leaseSeconds must be a positive number, got ${JSON.stringify(leaseSeconds)}`);
  const now = store.now();
  return update(store, running(store.db.updateTable('jobs'), jobId, workerId)
    .set({ locked_until: now + Math.round(leaseSeconds * 1000), updated_at: now }));
}

/** The job of `uniqueKey`, or null. */
async function jobByKey(store, uniqueKey) {
  return jobOf(await store.db.selectFrom('jobs').selectAll().where('unique_key', '=', uniqueKey).executeTakeFirst());
}

/**
 * Queues a finished job (done or failed for good) again, due now, with `attempts` more tries;
 * its attempts so far are kept, so that it knows it ran before. true when it was queued again.
 */
async function requeue(store, uniqueKey, { attempts = DEFAULT_MAX_ATTEMPTS } = {}) {
  const now = store.now();
  return update(store, store.db.updateTable('jobs')
    .set((eb) => ({ status: 'queued', run_at: now, max_attempts: eb('attempts', '+', attempts), updated_at: now, completed_at: null }))
    .where('unique_key', '=', uniqueKey).where('status', 'in', ['done', 'failed', 'kept']));
}

async function keep(store, jobId, { workerId } = {}) {
  const now = store.now();
  return update(store, running(store.db.updateTable('jobs'), jobId, workerId)
    .set({ status: 'kept', updated_at: now, locked_by: null, locked_until: null }));
}

async function keptJobs(store, { kind, limit = 500 }) {
  return (await store.db.selectFrom('jobs').selectAll().where('kind', '=', kind).where('status', '=', 'kept').orderBy('id').limit(limit).execute()).map(jobOf);
}

/**
 * Jobs waiting out a backoff after a failure are made due now (GitHub answers again: their
 * waits were for it). -> how many.
 */
async function hurryRetries(store) {
  const now = store.now();
  const r = await store.behaviour.retrying(() => store.db.updateTable('jobs').set({ run_at: now, updated_at: now })
    .where('status', '=', 'queued').where('run_at', '>', now).where('attempts', '>', 0).where('last_error', 'is not', null).executeTakeFirst());
  return Number(r.numUpdatedRows);
}

/** How many jobs wait (queued and due, or queued for later) and run, for health and load figures. */
async function queueDepth(store) {
  const rows = await store.db.selectFrom('jobs').select(['status', (eb) => eb.fn.countAll().as('n')])
    .where('status', 'in', ['queued', 'running']).groupBy('status').execute();
  const depth = { queued: 0, running: 0 };
  for (const r of rows) depth[r.status] = Number(r.n);
  return depth;
}

async function getJob(store, jobId) {
  return jobOf(await store.db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirst());
}

module.exports = { enqueue, claim, complete, fail, keep, extendLease, queueDepth, getJob, jobByKey, requeue, keptJobs, hurryRetries, DEFAULT_MAX_ATTEMPTS };
