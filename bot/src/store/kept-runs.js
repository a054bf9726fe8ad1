'use strict';
// Completions of workflow runs the App dispatched that came before the request they belong to
// knew its run (the bot was killed between its dispatch and recording the run id): kept here,
// by repository, run and attempt, until the request is recovered and takes them (table
// kept_runs of 0010_recovery). The run job's payload itself stays in its job, which is queued
// again when its run is taken.

/** Keeps the completion of `runId` (attempt); the same one twice is one row. */
async function keepRun(store, { repo, runId, attempt }) {
  const seen = await keptRun(store, { repo, runId, attempt });
  if (seen && seen.takenAt === null) return { duplicate: true };
  try {
    if (seen) {
      await store.db.updateTable('kept_runs').set({ taken_at: null, kept_at: store.now() }).where('id', '=', seen.id).execute();
    } else {
      await store.db.insertInto('kept_runs').values({ repo, run_id: runId, attempt, kept_at: store.now(), taken_at: null }).execute();
    }
  } catch (err) {
    if (!store.behaviour.isUniqueViolation(err)) throw err;
    return { duplicate: true };
  }
  return { duplicate: false };
}

const keptOf = (row) => row && { id: Number(row.id), repo: row.repo, runId: Number(row.run_id), attempt: Number(row.attempt), keptAt: Number(row.kept_at), takenAt: row.taken_at === null ? null : Number(row.taken_at) };

/** The kept completion of one run attempt (taken or not), or null. */
async function keptRun(store, { repo, runId, attempt }) {
  return keptOf(await store.db.selectFrom('kept_runs').selectAll().where('repo', '=', repo).where('run_id', '=', runId).where('attempt', '=', attempt).executeTakeFirst());
}

/** Marks the kept completions of `runId` taken -> them ([{repo, runId, attempt}]), each taken once. */
async function takeKeptRuns(store, { repo, runId }) {
  const rows = (await store.db.selectFrom('kept_runs').selectAll().where('repo', '=', repo).where('run_id', '=', runId).where('taken_at', 'is', null).execute()).map(keptOf);
  const taken = [];
  for (const row of rows) {
    const r = await store.db.updateTable('kept_runs').set({ taken_at: store.now() }).where('id', '=', row.id).where('taken_at', 'is', null).executeTakeFirst();
    if (Number(r.numUpdatedRows) === 1) taken.push(row);
  }
  return taken;
}

/** The completions kept and not taken, oldest first. */
async function keptRuns(store, { limit = 100 } = {}) {
  return (await store.db.selectFrom('kept_runs').selectAll().where('taken_at', 'is', null).orderBy('id').limit(limit).execute()).map(keptOf);
}

module.exports = { keepRun, keptRun, takeKeptRuns, keptRuns };
