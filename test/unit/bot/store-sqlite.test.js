'use strict';
// The history store's tests on SQLite files (see test/support/store-contract.js).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const Database = require('better-sqlite3');
const { openStore } = require('../../../bot/src');
const { enterWal } = require('../../../bot/src/store/connection');
const { storeContract } = require('../../support/store-contract');

let dir = null;
let count = 0;
storeContract({
  name: 'SQLite',
  floatTolerance: 0,
  setup() { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-store-')); },
  teardown() { fs.rmSync(dir, { recursive: true, force: true }); },
  fresh() { count += 1; return path.join(dir, `history-${count}.db`); },
});

// Two processes opening a new store at once: one switches the file to WAL while the other
// holds the write lock, and SQLite answers that switch with SQLITE_BUSY at once (no busy
// handler while the switching connection holds a read lock). Seen as "database is locked" in
// a few of every hundred simultaneous opens before the switch was retried.

test('opening a store waits out another process holding the write lock of a new file, instead of failing at once', async () => {
  const where = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-store-wal-'));
  try {
    const file = path.join(where, 'history.db');
    const other = new Database(file);
    other.exec('create table t (x)');
    other.exec('begin immediate');
    const released = new Promise((resolve) => { setTimeout(() => { other.exec('commit'); other.close(); resolve(Date.now()); }, 300); });
    const started = Date.now();
    const s = await openStore(file);
    const opened = Date.now();
    await s.close();
    assert.ok(opened >= await released, `opened ${opened - started} ms after starting, before the lock was released`);
    const check = new Database(file, { readonly: true });
    assert.equal(check.pragma('journal_mode', { simple: true }), 'wal');
    check.close();
  } finally {
    fs.rmSync(where, { recursive: true, force: true });
  }
});

test('the switch to WAL gives up with SQLite\'s own error once its deadline has passed, and on any other error at once', async () => {
  let calls = 0;
  const busy = { pragma() { calls += 1; throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }); } };
  await assert.rejects(enterWal(busy, { deadline: Date.now() + 50, pause: () => 5 }), { code: 'SQLITE_BUSY' });
  assert.ok(calls >= 2, `tried ${calls} times`);
  calls = 0;
  const broken = { pragma() { calls += 1; throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' }); } };
  await assert.rejects(enterWal(broken, { deadline: Date.now() + 10_000 }), { code: 'SQLITE_IOERR' });
  assert.equal(calls, 1);
});
