'use strict';
// Regressions found on the main branch and the change points behind them, in the tables of
// 0004_lifecycle (+ 0006_watch). A regression row is claimed by its dedupe key before the
// tracker is called, so two deliveries of the same result file one issue; its status moves
// filing -> open -> closed, or is 'noise' (a fail not confirmed: nothing filed, and why).
const { StoreError } = require('./connection');
const { commitId, findOrInsert } = require('./history');

const STATUSES = ['filing', 'open', 'closed', 'noise'];

function required(value, name) {
  if (value === undefined || value === null || value === '') throw new StoreError(`store: missing '${name}'`);
  return value;
}

const microbenchmarkId = (store, tx, name) => findOrInsert(store, tx, 'microbenchmarks', { name: required(name, 'benchKey') },
  { group_name: null, kind: null, script: null, shape: null });

function regressionRows(store) {
  return store.db.selectFrom('regressions as g')
    .innerJoin('commits as fb', 'fb.id', 'g.first_bad_commit_id')
    .leftJoin('commits as lg', 'lg.id', 'g.last_good_commit_id')
    .leftJoin('commits as ls', 'ls.id', 'g.last_seen_commit_id')
    .leftJoin('commits as fx', 'fx.id', 'g.fixed_by_commit_id')
    .select(['g.id', 'g.dedupe_key as dedupeKey', 'g.repo', 'g.bench_key as benchKey', 'g.signal', 'g.status', 'g.tracker',
      'g.issue_key as issueKey', 'g.issue_url as issueUrl', 'g.sightings', 'g.estimate', 'g.low', 'g.high', 'g.note',
      'fb.sha as firstBad', 'lg.sha as lastGood', 'ls.sha as lastSeen', 'fx.sha as fixedBy',
      'g.opened_at as openedAt', 'g.closed_at as closedAt']);
}

const toRegression = (r) => ({
  ...r, id: Number(r.id), sightings: Number(r.sightings), openedAt: Number(r.openedAt),
  closedAt: r.closedAt === null ? null : Number(r.closedAt),
  estimate: r.estimate === null ? null : Number(r.estimate), low: r.low === null ? null : Number(r.low), high: r.high === null ? null : Number(r.high),
});

/** Every regression of a repository in these states, oldest first. */
async function regressionsOf(store, { repo, statuses = STATUSES }) {
  const rows = await regressionRows(store).where('g.repo', '=', required(repo, 'repo')).where('g.status', 'in', statuses).orderBy('g.id').execute();
  return rows.map(toRegression);
}

async function regressionByKey(store, dedupeKey) {
  const row = await regressionRows(store).where('g.dedupe_key', '=', required(dedupeKey, 'dedupeKey')).executeTakeFirst();
  return row ? toRegression(row) : null;
}

// claimRegression(store, {dedupeKey, repo, benchKey, signal, firstBad, lastGood, interval, status, note})
//   -> {id, duplicate}: the row for this key, inserted unless it was there (then untouched).
//   status 'filing' (the tracker is about to be called) or 'noise' (nothing is filed).
async function claimRegression(store, { dedupeKey, repo, benchKey, signal, firstBad, lastGood = null, interval = null, status, note = null }) {
  if (!['filing', 'noise'].includes(status)) throw new StoreError(`claimRegression: status ${JSON.stringify(status)}: expected "filing" or "noise"`);
  const now = store.now();
  return store.behaviour.writeTransaction(store.db, async (tx) => {
    const bad = await commitId(store, tx, required(repo, 'repo'), { sha: required(firstBad, 'firstBad') });
    const row = {
      repo, microbenchmark_id: await microbenchmarkId(store, tx, benchKey), bench_key: benchKey, signal: required(signal, 'signal'),
      first_bad_commit_id: bad, last_good_commit_id: lastGood ? await commitId(store, tx, repo, { sha: lastGood }) : null,
      last_seen_commit_id: bad, status, estimate: interval ? interval.estimate : null, low: interval ? interval.low : null,
      high: interval ? interval.high : null, sightings: 1, opened_at: now, last_seen_at: now, note,
    };
    const seen = await tx.selectFrom('regressions').select('id').where('dedupe_key', '=', required(dedupeKey, 'dedupeKey')).executeTakeFirst();
    if (seen) return { id: Number(seen.id), duplicate: true };
    try {
      const r = await tx.insertInto('regressions').values({ dedupe_key: dedupeKey, ...row }).executeTakeFirstOrThrow();
      return { id: Number(r.insertId), duplicate: false };
    } catch (err) {
      if (!store.behaviour.isUniqueViolation(err)) throw err;
      const raced = await tx.selectFrom('regressions').select('id').where('dedupe_key', '=', dedupeKey).executeTakeFirst();
      if (!raced) throw err;
      return { id: Number(raced.id), duplicate: true };
    }
  });
}

/**
 * A fail once dismissed as noise that a change point later confirms: claims it for filing
 * (status noise -> filing) once. -> true when this call claimed it.
 */
async function promoteNoise(store, { dedupeKey, note }) {
  const r = await store.db.updateTable('regressions').set({ status: 'filing', note, last_seen_at: store.now() })
    .where('dedupe_key', '=', dedupeKey).where('status', '=', 'noise').executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The tracker filed it: the row is open with its issue. */
async function markFiled(store, { dedupeKey, tracker, issueKey, issueUrl, note = null }) {
  await store.db.updateTable('regressions')
    .set({ status: 'open', tracker: required(tracker, 'tracker'), issue_key: String(required(issueKey, 'issueKey')), issue_url: issueUrl ?? null, note })
    .where('dedupe_key', '=', dedupeKey).execute();
}

// Counts a sighting at `sha` once: true when this call counted it (the caller comments), false
// when that commit was already counted or the regression is not open.
async function recordSighting(store, { dedupeKey, repo, sha }) {
  return store.behaviour.writeTransaction(store.db, async (tx) => {
    const seen = await commitId(store, tx, required(repo, 'repo'), { sha: required(sha, 'sha') });
    const row = await tx.selectFrom('regressions').select(['id', 'sightings', 'last_seen_commit_id'])
      .where('dedupe_key', '=', dedupeKey).where('status', '=', 'open').executeTakeFirst();
    if (!row || Number(row.last_seen_commit_id) === seen) return { counted: false };
    await tx.updateTable('regressions').set({ sightings: Number(row.sightings) + 1, last_seen_commit_id: seen, last_seen_at: store.now() })
      .where('id', '=', row.id).execute();
    return { counted: true, sightings: Number(row.sightings) + 1 };
  });
}

// Closes an open regression, fixed by `fixedBy`: true when this call closed it.
async function closeRegression(store, { dedupeKey, repo, fixedBy }) {
  return store.behaviour.writeTransaction(store.db, async (tx) => {
    const fixed = await commitId(store, tx, required(repo, 'repo'), { sha: required(fixedBy, 'fixedBy') });
    const row = await tx.selectFrom('regressions').select('id').where('dedupe_key', '=', dedupeKey).where('status', '=', 'open').executeTakeFirst();
    if (!row) return false;
    await tx.updateTable('regressions').set({ status: 'closed', closed_at: store.now(), fixed_by_commit_id: fixed }).where('id', '=', row.id).execute();
    return true;
  });
}

// recordChangePoint(store, {repo, benchKey, signal, machine?, sha, previousSha?, meanBefore, meanAfter, pvalue, method})
//   -> {id, duplicate}: one row per series and commit.
async function recordChangePoint(store, { repo, benchKey, signal, machine = null, sha, previousSha = null, meanBefore, meanAfter, pvalue, method }) {
  return store.behaviour.writeTransaction(store.db, async (tx) => {
    const machineRow = machine ? await tx.selectFrom('machines').select('id').where('fingerprint', '=', machine).executeTakeFirst() : null;
    const key = {
      repo: required(repo, 'repo'), bench_key: required(benchKey, 'benchKey'), signal: required(signal, 'signal'),
      machine_id: machineRow ? Number(machineRow.id) : null, commit_id: await commitId(store, tx, repo, { sha: required(sha, 'sha') }),
    };
    let q = tx.selectFrom('change_points').select('id');
    for (const [k, v] of Object.entries(key)) q = v === null ? q.where(k, 'is', null) : q.where(k, '=', v);
    const seen = await q.executeTakeFirst();
    if (seen) return { id: Number(seen.id), duplicate: true };
    const r = await tx.insertInto('change_points').values({
      ...key, microbenchmark_id: await microbenchmarkId(store, tx, benchKey),
      previous_commit_id: previousSha ? await commitId(store, tx, repo, { sha: previousSha }) : null,
      mean_before: meanBefore, mean_after: meanAfter, ratio: meanAfter / meanBefore, pvalue, method: required(method, 'method'),
      detected_at: store.now(),
    }).executeTakeFirstOrThrow();
    return { id: Number(r.insertId), duplicate: false };
  });
}

/** Change points of a repository's series: [{benchKey, signal, sha, meanBefore, meanAfter, ratio, pvalue, method}]. */
async function changePointsOf(store, { repo, benchKey = null, signal = null }) {
  let q = store.db.selectFrom('change_points as p').innerJoin('commits as c', 'c.id', 'p.commit_id')
    .select(['p.bench_key as benchKey', 'p.signal', 'c.sha', 'p.mean_before as meanBefore', 'p.mean_after as meanAfter', 'p.ratio', 'p.pvalue', 'p.method'])
    .where('p.repo', '=', required(repo, 'repo'));
  if (benchKey) q = q.where('p.bench_key', '=', benchKey);
  if (signal) q = q.where('p.signal', '=', signal);
  const rows = await q.orderBy('p.id').execute();
  return rows.map((r) => ({ ...r, meanBefore: Number(r.meanBefore), meanAfter: Number(r.meanAfter), ratio: Number(r.ratio), pvalue: Number(r.pvalue) }));
}

module.exports = {
  regressionsOf, regressionByKey, claimRegression, promoteNoise, markFiled, recordSighting, closeRegression, recordChangePoint, changePointsOf,
  REGRESSION_STATUSES: STATUSES,
};
