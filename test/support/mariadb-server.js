'use strict';
// A private MariaDB server for Node tests: a fresh datadir in a temporary folder, a socket
// and a TCP port on 127.0.0.1, stopped and removed by stop() (and, as a last resort, when the
// test process exits). The server is Debian's mariadbd unpacked by `make setup`
// (scripts/fetch-servers.sh); PERFGATE_MARIADB names another prefix. A missing server is an
// error that says how to get one, never a skipped test.
const { spawn, execFile } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { promisify } = require('node:util');
const mysql = require('mysql2/promise');
const { freePort } = require('./free-port');

const CACHE = process.env.PERFGATE_CACHE || path.join(os.homedir(), '.cache', 'perfgate');
const DEFAULT_PREFIX = path.join(CACHE, 'servers', 'mariadb-10.11.18', 'usr');
const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 60_000;

// The files a server needs, and the Debian package each comes from.
const FILES = {
  server: ['sbin/mariadbd', 'mariadb-server-core'],
  installDb: ['bin/mariadb-install-db', 'mariadb-server-core'],
  printDefaults: ['bin/my_print_defaults', 'mariadb-client-core'],
};

function findPrefix(prefix = process.env.PERFGATE_MARIADB || DEFAULT_PREFIX) {
  const found = { prefix };
  for (const [what, [rel, pkg]] of Object.entries(FILES)) {
    const full = path.join(prefix, rel);
    if (!fs.existsSync(full)) {
      throw new Error(`MariaDB test server: ${full} is missing (Debian package ${pkg}): run \`make setup\` `
        + "(scripts/fetch-servers.sh unpacks Debian's mariadb-server-core and mariadb-client-core 10.11.18 there) "
        + 'or set PERFGATE_MARIADB to a prefix holding sbin/mariadbd, bin/mariadb-install-db and bin/my_print_defaults');
    }
    found[what] = full;
  }
  return found;
}

function tail(file, lines = 20) {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Servers still running when the process exits (a test threw before its stop()).
const running = new Set();
process.on('exit', () => {
  for (const s of running) {
    try { s.child.kill('SIGKILL'); } catch { /* already gone */ }
    fs.rmSync(s.dir, { recursive: true, force: true });
  }
});

async function waitReady(child, socket, errorLog) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = '';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`MariaDB test server exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${tail(errorLog)}`);
    }
    try {
      const conn = await mysql.createConnection({ socketPath: socket, user: 'root' });
      await conn.end();
      return;
    } catch (err) {
      last = err.message;
    }
    await sleep(50);
  }
  throw new Error(`MariaDB test server was not ready within ${READY_TIMEOUT_MS / 1000} s (${last}):\n${tail(errorLog)}`);
}

// Starts a server with one empty database; returns its connection details, how long
// initializing and starting took, and stop().
async function startMariadb({ database = 'perfgate', prefix } = {}) {
  const bin = findPrefix(prefix);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-mariadb-'));
  const files = {
    cnf: path.join(dir, 'my.cnf'), datadir: path.join(dir, 'data'), tmpdir: path.join(dir, 'tmp'),
    socket: path.join(dir, 'mysqld.sock'), pid: path.join(dir, 'mysqld.pid'), errorLog: path.join(dir, 'error.log'),
  };
  fs.mkdirSync(files.tmpdir);
  const port = await freePort();
  const options = {
    basedir: bin.prefix, datadir: files.datadir, tmpdir: files.tmpdir, socket: files.socket, port,
    bind_address: '127.0.0.1', pid_file: files.pid, log_error: files.errorLog,
    innodb_buffer_pool_size: '64M', character_set_server: 'utf8mb4', collation_server: 'utf8mb4_unicode_ci',
  };
  // mariadbd refuses to run as root unless told to.
  if (process.getuid && process.getuid() === 0) options.user = 'root';
  fs.writeFileSync(files.cnf, `[mysqld]\n${Object.entries(options).map(([k, v]) => `${k} = ${v}`).join('\n')}\n`);

  const timings = {};
  let t = process.hrtime.bigint();
  const seconds = () => Number(process.hrtime.bigint() - t) / 1e9;
  try {
    await promisify(execFile)(bin.installDb, [`--defaults-file=${files.cnf}`, `--basedir=${bin.prefix}`,
      `--datadir=${files.datadir}`, '--auth-root-authentication-method=normal', '--skip-test-db'], { timeout: 300_000 });
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`MariaDB test server: mariadb-install-db failed: ${(err.stderr || err.message).trim().split('\n').slice(-5).join(' | ')}`);
  }
  timings.initSeconds = seconds();

  t = process.hrtime.bigint();
  const child = spawn(bin.server, [`--defaults-file=${files.cnf}`], { stdio: ['ignore', 'ignore', 'ignore'] });
  const server = { child, dir };
  running.add(server);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await waitReady(child, files.socket, files.errorLog);
  } catch (err) {
    child.kill('SIGKILL');
    await exited;
    running.delete(server);
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  timings.startSeconds = seconds();

  const urls = (name) => ({
    url: `mysql://root@127.0.0.1:${port}/${name}`,
    socketUrl: `mysql://root@localhost/${name}?socket=${encodeURIComponent(files.socket)}`,
  });
  // Another empty database on the same server; returns its URLs.
  async function createDatabase(name) {
    const admin = await mysql.createConnection({ socketPath: files.socket, user: 'root' });
    try {
      await admin.query('CREATE DATABASE ??', [name]);
    } finally {
      await admin.end();
    }
    return urls(name);
  }
  await createDatabase(database);

  async function stop() {
    if (!running.has(server)) return;
    try {
      const conn = await mysql.createConnection({ socketPath: files.socket, user: 'root' });
      await conn.query('SHUTDOWN');
      await conn.end().catch(() => {});
    } catch {
      child.kill('SIGTERM');
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
    running.delete(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }

  return {
    ...timings,
    dir,
    port,
    socket: files.socket,
    database,
    ...urls(database),
    createDatabase,
    errorLog: files.errorLog,
    pid: child.pid,
    stop,
  };
}

module.exports = { startMariadb, findPrefix, DEFAULT_PREFIX };
