'use strict';
// openStore(target, options) -> store: connects, brings the schema to the latest migration
// (idempotent; a store at an older version is migrated), and returns the handle every store
// function takes. close() releases the connections.
const { Migrator } = require('kysely');
const { connect, StoreError } = require('./connection');
const { MIGRATIONS, provider, LATEST } = require('./migrations');

// Kysely keeps its bookkeeping in these two tables, beside ours.
const MIGRATION_TABLE = 'kysely_migration';

function migrator(db, options = {}) {
  return new Migrator({ db, provider, migrationTableName: MIGRATION_TABLE, ...options });
}

function migrationError(where, result) {
  const failed = (result.results || []).find((r) => r.status === 'Error');
  const cause = result.error instanceof Error ? result.error.message : String(result.error);
  return new StoreError(`store ${where}: migration ${failed ? `'${failed.migrationName}' ` : ''}failed: ${cause}`);
}

// Runs pending migrations. On MySQL/MariaDB Kysely serializes concurrent start-ups with
// GET_LOCK; on SQLite the whole migration runs in one BEGIN IMMEDIATE transaction (SQLite's
// DDL is transactional), so a second process waits and then finds nothing to do.
async function migrate(conn, target = LATEST) {
  if (conn.dialect === 'sqlite') {
    return conn.behaviour.writeTransaction(conn.db, (tx) => migrator(tx, { disableTransactions: true }).migrateTo(target));
  }
  return migrator(conn.db).migrateTo(target);
}

// A store some newer version migrated further than this one knows is left alone.
async function refuseNewer(conn) {
  const tables = await conn.db.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((t) => t.name === MIGRATION_TABLE)) return;
  const applied = await conn.db.selectFrom(MIGRATION_TABLE).select('name').orderBy('name').execute();
  const unknown = applied.map((r) => r.name).filter((name) => !Object.hasOwn(MIGRATIONS, name));
  if (unknown.length) {
    throw new StoreError(`store ${conn.where}: its schema has migration '${unknown[0]}', which this version of @perfgate/bot does not know: `
      + 'a newer version wrote it; run that version, or open another store');
  }
}

async function openStore(target, { clock = Date.now, migrateTo = LATEST } = {}) {
  const conn = connect(target);
  try {
    await refuseNewer(conn);
    const result = await migrate(conn, migrateTo);
    if (result.error) throw migrationError(conn.where, result);
  } catch (err) {
    await conn.db.destroy();
    if (err instanceof StoreError) throw err;
    throw new StoreError(`store ${conn.where}: cannot open: ${err.message}`);
  }
  return {
    db: conn.db,
    dialect: conn.dialect,
    where: conn.where,
    behaviour: conn.behaviour,
    now: clock,
    close: () => conn.db.destroy(),
  };
}

// Names of the migrations applied, oldest first.
async function schemaVersion(store) {
  const migrations = await migrator(store.db).getMigrations();
  return migrations.filter((m) => m.executedAt).map((m) => m.name);
}

module.exports = { openStore, schemaVersion, LATEST };
