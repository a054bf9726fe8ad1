'use strict';
// The heads of pull requests (table pull_heads of 0009_pull_heads): each opened, reopened and
// synchronize delivery's head SHA with the time the delivery stamps on it. A maintainer's /perf
// approves the head these show before the comment was written (app/approval.js).
const { StoreError } = require('./connection');

const ACTIONS = Object.freeze(['opened', 'reopened', 'synchronize']);

/** Records that `sha` was the head of the pull request at `at` (ms); the same head and time once. */
async function recordPullHead(store, { repo, prNumber, sha, at, action, deliveryId = null }) {
  if (!ACTIONS.includes(action)) throw new StoreError(`recordPullHead: action ${JSON.stringify(action)}: expected one of ${ACTIONS.join(', ')}`);
  if (!Number.isInteger(prNumber) || !/^[0-9a-f]{40}$/.test(sha || '') || !Number.isFinite(at)) {
    throw new StoreError(`recordPullHead: expected a pull request number, a 40-hex SHA and a time in ms; got ${JSON.stringify({ prNumber, sha, at })}`);
  }
  const key = { repo, pr_number: prNumber, sha, at };
  const seen = () => store.db.selectFrom('pull_heads').select('id').where('repo', '=', repo).where('pr_number', '=', prNumber)
    .where('sha', '=', sha).where('at', '=', at).executeTakeFirst();
  if (await seen()) return { duplicate: true };
  try {
    await store.db.insertInto('pull_heads').values({ ...key, action, delivery_id: deliveryId, recorded_at: store.now() }).execute();
  } catch (err) {
    if (!store.behaviour.isUniqueViolation(err)) throw err;
    return { duplicate: true };
  }
  return { duplicate: false };
}

/** The recorded heads of a pull request, oldest first: [{sha, at, action}]. */
async function pullHeads(store, { repo, prNumber }) {
  const rows = await store.db.selectFrom('pull_heads').select(['sha', 'at', 'action']).where('repo', '=', repo).where('pr_number', '=', prNumber)
    .orderBy('at').orderBy('id').execute();
  return rows.map((r) => ({ sha: r.sha, at: Number(r.at), action: r.action }));
}

module.exports = { recordPullHead, pullHeads, PULL_HEAD_ACTIONS: ACTIONS };
