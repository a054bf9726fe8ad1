'use strict';
// Takes jobs from the durable queue and runs them, `concurrency` at a time. A job's lease is
// renewed while it runs; a worker that dies leaves its job to be claimed again when the lease
// runs out. A job that throws is tried again later (backoff), up to its attempts; one that
// throws PermanentJobError fails for good; one whose handler returns KEEP came too early and is
// kept until something queues it again. Idle workers wait for wake() (a webhook queued a job in
// this process) or poll (another process did).
const os = require('node:os');
const crypto = require('node:crypto');
const store = require('../store');

const POLL_MS = 1000;
const BACKOFF_FIRST_MS = 2000;
const BACKOFF_MAX_MS = 10 * 60 * 1000;
// What a handler returns for a job it cannot do yet and that must not be lost.
const KEEP = Symbol('keep');

function backoffMs(attempts, firstMs = BACKOFF_FIRST_MS) {
  return Math.min(firstMs * 4 ** Math.max(0, attempts - 1), BACKOFF_MAX_MS);
}

class Worker {
  /**
   * @param options {store, handlers: {kind: async (job) => void}, concurrency, leaseSeconds,
   *                 log, isPermanent(error), pollMs?, backoffFirstMs?}
   */
  constructor({ store: db, handlers, concurrency, leaseSeconds, log, isPermanent, pollMs = POLL_MS, backoffFirstMs = BACKOFF_FIRST_MS }) {
    Object.assign(this, { db, handlers, concurrency, leaseSeconds, log, isPermanent, pollMs, backoffFirstMs });
    this.id = `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString('hex')}`.slice(0, 100);
    this.running = false;
    this.loops = [];
    this.sleepers = new Set();
    this.active = 0;
  }

  start() {
    this.running = true;
    for (let slot = 0; slot < this.concurrency; slot++) this.loops.push(this.loop(slot));
  }

  /** A job was queued: idle slots look at once. */
  wake() {
    for (const wake of [...this.sleepers]) wake();
  }

  sleep(ms) {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }

  async loop(slot) {
    while (this.running) {
      let job = null;
      try {
        job = await store.claim(this.db, `${this.id}/${slot}`, this.leaseSeconds);
      } catch (err) {
        this.log.error(`worker: cannot claim a job: ${err.message}`);
      }
      if (!job) {
        if (this.running) await this.sleep(this.pollMs);
        continue;
      }
      await this.run(job, `${this.id}/${slot}`);
    }
  }

  async run(job, workerId) {
    this.active += 1;
    const renew = setInterval(() => {
      store.extendLease(this.db, job.id, workerId, this.leaseSeconds).catch((err) => this.log.warn(`worker: cannot renew the lease of job ${job.id}: ${err.message}`));
    }, Math.max(500, (this.leaseSeconds * 1000) / 3));
    const started = performance.now();
    try {
      const handler = this.handlers[job.kind];
      if (!handler) throw Object.assign(new Error(`no handler for jobs of kind '${job.kind}'`), { permanent: true });
      const kept = (await handler(job)) === KEEP;
      clearInterval(renew);
      await (kept ? store.keep : store.complete)(this.db, job.id, { workerId });
      this.log.info(`job ${job.id} ${job.kind} ${job.uniqueKey}: ${kept ? 'kept' : 'done'} in ${Math.round(performance.now() - started)} ms (attempt ${job.attempts})`);
    } catch (err) {
      clearInterval(renew);
      const permanent = err.permanent || this.isPermanent(err);
      const retryAt = permanent ? null : this.db.now() + backoffMs(job.attempts, this.backoffFirstMs);
      const message = err && err.message ? err.message : String(err);
      await store.fail(this.db, job.id, message, retryAt, { workerId })
        .catch((e) => this.log.error(`worker: cannot record the failure of job ${job.id}: ${e.message}`));
      const next = retryAt !== null && job.attempts < job.maxAttempts ? `tried again in ${Math.round((retryAt - this.db.now()) / 1000)} s` : 'failed for good';
      this.log.error(`job ${job.id} ${job.kind} ${job.uniqueKey}: attempt ${job.attempts} failed, ${next}: ${permanent ? message : err.stack || message}`);
    } finally {
      this.active -= 1;
    }
  }

  /** Stops claiming; waits for the jobs in hand to finish. */
  async stop() {
    this.running = false;
    this.wake();
    await Promise.all(this.loops);
    this.loops = [];
  }
}

module.exports = { Worker, backoffMs, KEEP };
