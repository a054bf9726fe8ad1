'use strict';
// Whether the store takes writes: one row (table heartbeat of 0010_heartbeat) written again on
// each look. Reading alone would say "ok" of a store that refuses every delivery.

/** Writes the heartbeat row; throws what the store says when it cannot. */
async function writeHeartbeat(store) {
  const at = store.now();
  const r = await store.db.updateTable('heartbeat').set({ at }).where('id', '=', 1).executeTakeFirst();
  if (Number(r.numUpdatedRows) === 1) return;
  try {
    await store.db.insertInto('heartbeat').values({ id: 1, at }).execute();
  } catch (err) {
    // Another process wrote the first row at the same moment: the store takes writes.
    if (!store.behaviour.isUniqueViolation(err)) throw err;
  }
}

module.exports = { writeHeartbeat };
