'use strict';
// A separate process that works on a store the way a second bot instance would, for tests of
// what happens when several processes share one database. Usage:
//   node store-worker.js '<json task>'
// The task names the store target, an action and a barrier that all workers of a test meet at
// before they open the store (action 'open') or act, so that they really run at once however
// slowly each process started. The answer is one JSON line on stdout.
const fs = require('node:fs');
const path = require('node:path');
const store = require('../../bot/src/store');

// Each worker leaves a file in barrier.dir and waits until barrier.count files are there.
async function meet(barrier) {
  if (!barrier) return;
  fs.writeFileSync(path.join(barrier.dir, String(process.pid)), '');
  while (fs.readdirSync(barrier.dir).length < barrier.count) await new Promise((r) => setTimeout(r, 2));
}

const ACTIONS = {
  // Opens (and so migrates) the store.
  async open() {
    return {};
  },
  async deliveries(s, { ids }) {
    const out = [];
    for (const id of ids) out.push(await store.recordDelivery(s, { deliveryId: id, event: 'issue_comment', action: 'created' }));
    return { results: out };
  },
  async enqueue(s, { keys }) {
    const out = [];
    for (const key of keys) out.push(await store.enqueue(s, { kind: 'test', payload: { key } }, key));
    return { results: out };
  },
  // Stores every captured results file, judged, as runs of the given commits.
  async 'store-runs'(s, { commits }) {
    const { capturedResults, LIMITS } = require('./store-contract');
    const { judge } = require('@perfgate/core');
    const out = [];
    for (const { name, results } of capturedResults()) {
      out.push(await store.storeRun(s, { request: { repo: 'perfgate/mariadb-fork', runKey: `${name}@${commits.head}`, base: { sha: commits.base }, head: { sha: commits.head } }, results, verdict: judge(results, LIMITS) }));
    }
    return { results: out };
  },
  // Claims and completes until `total` jobs are done (an empty claim while others still hold
  // jobs is not the end).
  async drain(s, { worker, total, leaseSeconds = 60 }) {
    const claimed = [];
    const startedAt = Date.now();
    let empty = 0;
    for (;;) {
      const job = await store.claim(s, worker, leaseSeconds);
      if (job) {
        claimed.push(job.id);
        if (!(await store.complete(s, job.id, { workerId: worker }))) throw new Error(`job ${job.id}: complete refused`);
        continue;
      }
      const done = await s.db.selectFrom('jobs').select((eb) => eb.fn.countAll().as('n')).where('status', '=', 'done').executeTakeFirst();
      if (Number(done.n) >= total) break;
      empty += 1;
      await new Promise((r) => setTimeout(r, 5));
    }
    return { claimed, empty, startedAt, endedAt: Date.now() };
  },
  // Claims one job, says which, and waits to be killed.
  async 'claim-and-hang'(s, { worker, leaseSeconds }) {
    const job = await store.claim(s, worker, leaseSeconds);
    process.stdout.write(`${JSON.stringify({ claimed: job && job.id })}\n`);
    await new Promise(() => setInterval(() => {}, 1000));
  },
};

async function main() {
  const task = JSON.parse(process.argv[2]);
  if (task.action === 'open') await meet(task.barrier);
  const s = await store.openStore(task.target);
  try {
    if (task.action !== 'open') await meet(task.barrier);
    const answer = await ACTIONS[task.action](s, task);
    process.stdout.write(`${JSON.stringify(answer)}\n`);
  } finally {
    await s.close();
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
