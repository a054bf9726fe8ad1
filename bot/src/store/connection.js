'use strict';
// Where the history lives, and the few things the two databases do differently. Everything
// else (tables, queries) is written once with Kysely's query builder.
//
// Targets:
//   a file path                     SQLite (created if missing), e.g. /var/lib/perfgate/history.db
//   mysql://user:pass@host:port/db  MySQL or MariaDB over TCP (port defaults to 3306);
//                                   mariadb:// is the same
//   mysql://user:pass@localhost/db?socket=/run/mysqld/mysqld.sock
//                                   the same over a Unix socket (the host is then ignored)
const { setTimeout: sleep } = require('node:timers/promises');
const { Kysely, MysqlDialect, SqliteDialect, sql } = require('kysely');

class StoreError extends Error {
  get name() { return 'StoreError'; }
}

const SQLITE_BUSY_TIMEOUT_MS = 30_000;
const DEADLOCK_RETRIES = 5;

function parseTarget(target) {
  if (typeof target !== 'string' || target.trim() === '') {
    throw new StoreError(`store: expected a SQLite file path or a mysql://user:pass@host:port/db URL, got ${JSON.stringify(target)}`);
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(target);
  if (!scheme) return { dialect: 'sqlite', file: target };
  if (!['mysql', 'mariadb'].includes(scheme[1].toLowerCase())) {
    throw new StoreError(`store: unsupported URL scheme '${scheme[1]}' in '${redact(target)}': expected mysql:// or mariadb://, or a SQLite file path`);
  }
  let url;
  try {
    url = new URL(target);
  } catch {
    throw new StoreError(`store: '${redact(target)}' is not a valid URL: expected mysql://user:pass@host:port/db`);
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!database || database.includes('/')) {
    throw new StoreError(`store: '${redact(target)}' names no database: expected mysql://user:pass@host:port/db`);
  }
  const known = ['socket'];
  for (const key of url.searchParams.keys()) {
    if (!known.includes(key)) throw new StoreError(`store: unknown parameter '${key}' in '${redact(target)}': expected only socket=<path>`);
  }
  const socketPath = url.searchParams.get('socket');
  return {
    dialect: 'mysql',
    user: decodeURIComponent(url.username) || 'root',
    password: url.password ? decodeURIComponent(url.password) : undefined,
    database,
    ...(socketPath ? { socketPath } : { host: url.hostname, port: url.port ? Number(url.port) : 3306 }),
  };
}

// Never print a password into a log or an error: the userinfo's (up to the last '@', which a
// password may hold unescaped) and every parameter's value (password=, ssl-key=, ...). A file
// path is no URL and shown as it is.
function redact(target) {
  const text = String(target);
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(text);
  if (!scheme) return text;
  let rest = text.slice(scheme[0].length);
  const at = rest.lastIndexOf('@');
  const colon = rest.indexOf(':');
  if (at >= 0 && colon >= 0 && colon < at) rest = `${rest.slice(0, colon)}:***${rest.slice(at)}`;
  return scheme[0] + rest.replace(/([?&;][^=&#;]*)=[^&#;]*/g, '$1=***');
}

function describe(config) {
  if (config.dialect === 'sqlite') return config.file;
  const where = config.socketPath ? `socket ${config.socketPath}` : `${config.host}:${config.port}`;
  return `mysql://${config.user}@${where}/${config.database}`;
}

// Turning a new file into WAL takes the write lock while the connection already holds a read
// lock, and SQLite answers SQLITE_BUSY at once there instead of calling the busy handler
// (waiting could deadlock): two processes opening a new store together meet exactly that. The
// pragma holds no lock when it fails, so it is tried again until the busy timeout would have
// ended; a file already in WAL needs no lock to confirm it.
async function enterWal(db, { deadline, pause = () => 5 + Math.random() * 20 }) {
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if (!(err && err.code === 'SQLITE_BUSY') || Date.now() >= deadline) throw err;
      await sleep(pause());
    }
  }
}

function sqliteDialect(config) {
  const Database = require('better-sqlite3');
  return new SqliteDialect({
    database: async () => {
      // Workers in other processes wait for the write lock instead of failing at once; set
      // before the first statement so that it covers the journal-mode switch too.
      const db = new Database(config.file, { timeout: SQLITE_BUSY_TIMEOUT_MS });
      try {
        // WAL lets readers work while one writer commits.
        await enterWal(db, { deadline: Date.now() + SQLITE_BUSY_TIMEOUT_MS });
        db.pragma('foreign_keys = ON');
      } catch (err) {
        db.close();
        throw err;
      }
      return db;
    },
  });
}

function mysqlDialect(config) {
  const { createPool } = require('mysql2');
  const { dialect, ...connection } = config;
  return new MysqlDialect({
    pool: createPool({
      ...connection,
      charset: 'utf8mb4',
      // Comment ids and timestamps are BIGINT: numbers while exact, strings beyond 2^53.
      supportBigNumbers: true,
      connectionLimit: 8,
    }),
  });
}

// What differs between the dialects, in one place.
const DIALECTS = {
  sqlite: {
    isUniqueViolation: (err) => err && (err.code === 'SQLITE_CONSTRAINT_UNIQUE' || err.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'),
    // Writers wait their turn (busy_timeout) instead of deadlocking.
    retrying: (work) => work(),
    // SQLite has one writer at a time: taking the write lock when the transaction begins
    // (BEGIN IMMEDIATE) makes a read-then-write transaction wait its turn instead of failing
    // when another process wrote in between.
    async writeTransaction(db, work) {
      return db.connection().execute(async (conn) => {
        await sql`begin immediate`.execute(conn);
        try {
          const result = await work(conn);
          await sql`commit`.execute(conn);
          return result;
        } catch (err) {
          await sql`rollback`.execute(conn).catch(() => {});
          throw err;
        }
      });
    },
    // The transaction holds the only write lock, so the rows it read are its own.
    lockRows: (query) => query,
  },
  mysql: {
    isUniqueViolation: (err) => err && (err.code === 'ER_DUP_ENTRY' || err.errno === 1062),
    // InnoDB picks a deadlock victim even among short statements (a claimer's locking scan
    // and a worker's update of the same job's index entries, seen under load). The victim's
    // statement or transaction was rolled back whole, so running it again is safe as long as
    // `work` does nothing outside the database.
    async retrying(work) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await work();
        } catch (err) {
          if (!(err && (err.errno === 1213 || err.errno === 1205)) || attempt >= DEADLOCK_RETRIES) throw err;
        }
      }
    },
    // READ COMMITTED: locking reads take row locks only, not the gap locks of REPEATABLE READ
    // that would make a claim block an enqueue.
    async writeTransaction(db, work) {
      return DIALECTS.mysql.retrying(() => db.transaction().setIsolationLevel('read committed').execute(work));
    },
    // Claimers skip rows another claimer holds (MariaDB 10.6+, MySQL 8.0+).
    lockRows: (query) => query.forUpdate().skipLocked(),
  },
};

function connect(target) {
  const config = parseTarget(target);
  const db = new Kysely({ dialect: config.dialect === 'sqlite' ? sqliteDialect(config) : mysqlDialect(config) });
  return { db, config, dialect: config.dialect, behaviour: DIALECTS[config.dialect], where: describe(config) };
}

module.exports = { connect, parseTarget, redact, StoreError, enterWal };
