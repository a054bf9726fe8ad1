'use strict';
// Commands as the GitHub App handles them: one row per command comment (recordRequest in
// history.js makes it; the comment id is the key), moved through its life cycle by
// transition(), a guarded update, so that a job run twice, a push and a worker racing each
// other always agree on where a command stands.
const { StoreError } = require('./connection');

// The life cycle: each status, the statuses it may move to, and who may move it there.
//   command  the command's job: authorizes, answers, pins the commits, dispatches the run
//   push     a push to (or the close of) the pull request, recorded with its webhook
//   cancel   `/perf cancel` in the same conversation
//   run      the dispatched run's completion: its run folder stored or rejected
//   sweep    the reconciliation sweep (app/sweep.js): a request whose job gave up is finished
//            from what GitHub shows (its run found) or reported failed
// A request cancelled before its job authorized the author is refused (or found invalid)
// by that job, so that nobody learns of a command that would not have run. A command whose job
// could not reach GitHub until past its deadline fails (command), as does one whose job gave
// up for good (sweep). A command whose
// pinning finds the head moved at or after the comment is cancelled by its own job, as the
// push would have done had its webhook come first.
const LIFECYCLE = Object.freeze({
  received: { refused: ['command'], invalid: ['command'], answered: ['command'], pinned: ['command'], cancelled: ['command', 'push', 'cancel'], failed: ['command', 'sweep'] },
  pinned: { dispatching: ['command'], cancelled: ['push', 'cancel'], failed: ['command', 'sweep'] },
  dispatching: { dispatched: ['command', 'sweep'], failed: ['command', 'sweep'], cancelled: ['push', 'cancel'] },
  dispatched: { completed: ['run'], failed: ['run', 'sweep'], cancelled: ['push', 'cancel'] },
  cancelled: { refused: ['command'], invalid: ['command'], answered: ['command'] },
  refused: {},
  invalid: {},
  answered: {},
  completed: {},
  failed: {},
});
const STATUSES = Object.freeze(Object.keys(LIFECYCLE));
const MOVERS = Object.freeze(['command', 'push', 'cancel', 'run', 'sweep']);
// Statuses from which the request can still run a measurement: what a push or /perf cancel stops.
const ACTIVE = Object.freeze(STATUSES.filter((s) => LIFECYCLE[s].cancelled));

/** The statuses from which `by` may move a request to `to` (pure); a move the table lacks throws. */
function movesTo(to, by) {
  if (!STATUSES.includes(to)) throw new StoreError(`transition: unknown status ${JSON.stringify(to)}; expected one of ${STATUSES.join(', ')}`);
  if (!MOVERS.includes(by)) throw new StoreError(`transition: unknown mover ${JSON.stringify(by)}; expected one of ${MOVERS.join(', ')}`);
  const from = STATUSES.filter((s) => (LIFECYCLE[s][to] || []).includes(by));
  if (!from.length) throw new StoreError(`transition: no request moves to '${to}' by ${by}; see LIFECYCLE in store/requests.js`);
  return from;
}

// camelCase field ↔ column.
const FIELDS = Object.freeze({
  status: 'status',
  detail: 'detail',
  suite: 'suite',
  args: 'args',
  baseSha: 'base_sha',
  headSha: 'head_sha',
  installationId: 'installation_id',
  commentCreatedAt: 'comment_created_at',
  replyId: 'reply_id',
  checkRunId: 'check_run_id',
  runId: 'run_id',
  runUrl: 'run_url',
});

const numberOrNull = (v) => (v === null || v === undefined ? null : Number(v));

function requestOf(row) {
  if (!row) return null;
  return {
    id: Number(row.id),
    commentId: numberOrNull(row.comment_id),
    deliveryId: row.delivery_id,
    repo: row.repo,
    prNumber: numberOrNull(row.pr_number),
    author: row.author,
    command: row.command,
    args: JSON.parse(row.args),
    line: row.line,
    suite: row.suite,
    status: row.status,
    detail: row.detail,
    baseSha: row.base_sha,
    headSha: row.head_sha,
    installationId: numberOrNull(row.installation_id),
    commentCreatedAt: numberOrNull(row.comment_created_at),
    replyId: numberOrNull(row.reply_id),
    checkRunId: numberOrNull(row.check_run_id),
    runId: numberOrNull(row.run_id),
    runUrl: row.run_url,
    createdAt: Number(row.created_at),
    updatedAt: numberOrNull(row.updated_at),
  };
}

function columnsOf(changes, caller) {
  const row = {};
  for (const [key, value] of Object.entries(changes)) {
    if (!Object.hasOwn(FIELDS, key)) throw new StoreError(`${caller}: unknown field '${key}'; expected one of ${Object.keys(FIELDS).join(', ')}`);
    row[FIELDS[key]] = key === 'args' ? JSON.stringify(value) : value;
  }
  return row;
}

async function getRequest(store, id) {
  return requestOf(await store.db.selectFrom('requests').selectAll().where('id', '=', id).executeTakeFirst());
}

async function requestForComment(store, commentId) {
  return requestOf(await store.db.selectFrom('requests').selectAll().where('comment_id', '=', commentId).executeTakeFirst());
}

async function requestForRun(store, { repo, runId }) {
  return requestOf(await store.db.selectFrom('requests').selectAll().where('repo', '=', repo).where('run_id', '=', runId).executeTakeFirst());
}

/** Sets fields of a request other than its status (which only transition() moves). */
async function updateRequest(store, id, changes) {
  if (Object.hasOwn(changes, 'status')) throw new StoreError('updateRequest: the status moves by transition(store, id, to, {by}), along LIFECYCLE');
  const r = await store.behaviour.retrying(() => store.db.updateTable('requests').set({ ...columnsOf(changes, 'updateRequest'), updated_at: store.now() }).where('id', '=', id).executeTakeFirst());
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Moves a request to `to`, as `by` (a mover of LIFECYCLE), setting `fields` with it, only from
 * a status the table lets `by` move from. true when it moved: false tells the caller someone
 * else moved it first (a push cancelled it), and nothing was written.
 */
async function transition(store, id, to, { by, ...fields }) {
  const from = movesTo(to, by);
  const q = store.db.updateTable('requests').set({ ...columnsOf(fields, 'transition'), status: to, updated_at: store.now() })
    .where('id', '=', id).where('status', 'in', from);
  const r = await store.behaviour.retrying(() => q.executeTakeFirst());
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Cancels, as `by` (push or cancel), the active requests of a pull request whose command was
 * written at or before `before` (ms; all of them when null), but `except` (a request id),
 * recording why. Returns them as they were before, so the caller can cancel what they had
 * started (a workflow run, a check run) and say so.
 */
async function cancelRequests(store, { repo, prNumber, before = null, except = null, reason, keep = ['signoff'], by }) {
  const from = movesTo('cancelled', by);
  return writing(store, async (tx) => {
    // `keep`: commands left running. By default a release sign-off, which measures pinned
    // release refs, not the pull request; `/perf cancel` keeps nothing (keep: []).
    let q = tx.selectFrom('requests').selectAll().where('repo', '=', repo).where('pr_number', '=', prNumber).where('status', 'in', from);
    // MySQL/MariaDB refuse an empty `not in ()`.
    if (keep.length) q = q.where('command', 'not in', keep);
    if (before !== null) q = q.where('comment_created_at', '<=', before);
    if (except !== null) q = q.where('id', '!=', except);
    const rows = await store.behaviour.lockRows(q.orderBy('id')).execute();
    if (!rows.length) return [];
    await tx.updateTable('requests')
      .set({ status: 'cancelled', detail: reason, updated_at: store.now() })
      .where('id', 'in', rows.map((r) => r.id))
      .where('status', 'in', from)
      .execute();
    return rows.map(requestOf);
  });
}

/** Requests dispatched whose workflow run is not known yet (GitHub gave no run id back). */
async function requestsAwaitingRun(store, { repo }) {
  const rows = await store.db.selectFrom('requests').selectAll()
    .where('repo', '=', repo).where('status', '=', 'dispatched').where('run_id', 'is', null).orderBy('id').execute();
  return rows.map(requestOf);
}

/** Requests in `statuses` of every repository, oldest first (the sweep's look at what is unfinished). */
async function requestsIn(store, { statuses, limit = 500 }) {
  return (await store.db.selectFrom('requests').selectAll().where('status', 'in', statuses).orderBy('id').limit(limit).execute()).map(requestOf);
}

/** The requests of a pull request, oldest first, optionally only those in `statuses`. */
async function requestsOfPull(store, { repo, prNumber, statuses = null }) {
  let q = store.db.selectFrom('requests').selectAll().where('repo', '=', repo).where('pr_number', '=', prNumber);
  if (statuses) q = q.where('status', 'in', statuses);
  return (await q.orderBy('id').execute()).map(requestOf);
}

/** The latest request of a pull request for one of `commands` (e.g. the measuring ones), or null. */
async function latestRequest(store, { repo, prNumber, commands, statuses = null }) {
  let q = store.db.selectFrom('requests').selectAll().where('repo', '=', repo).where('pr_number', '=', prNumber).where('command', 'in', commands);
  if (statuses) q = q.where('status', 'in', statuses);
  return requestOf(await q.orderBy('id', 'desc').limit(1).executeTakeFirst());
}

/**
 * Runs `work(txStore)` in one write transaction: every store function given txStore writes in
 * it, so a webhook's rows (delivery, request, job) are all there or none is.
 */
async function inTransaction(store, work) {
  return writing(store, (tx) => work({ ...store, db: tx, inTransaction: true }));
}

// A write transaction, or the one the caller is already in.
function writing(store, work) {
  if (store.inTransaction) return work(store.db);
  return store.behaviour.writeTransaction(store.db, work);
}

module.exports = {
  ACTIVE_STATUSES: ACTIVE, REQUEST_STATUSES: STATUSES, REQUEST_LIFECYCLE: LIFECYCLE, requestMovesTo: movesTo,
  getRequest, requestForComment, requestForRun, updateRequest, transition, cancelRequests, requestsAwaitingRun, requestsIn, requestsOfPull, latestRequest, inTransaction,
};
