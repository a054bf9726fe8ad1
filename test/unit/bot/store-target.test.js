'use strict';
// Where a store lives: the accepted targets and every message about a bad one.
const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const { parseTarget, redact } = require('../../../bot/src/store/connection');
const { openStore, StoreError } = require('../../../bot/src');

test('a path is a SQLite file; mysql:// and mariadb:// URLs name a server over TCP or a socket', () => {
  assert.deepEqual(parseTarget('history.db'), { dialect: 'sqlite', file: 'history.db' });
  assert.deepEqual(parseTarget('/var/lib/perfgate/history.sqlite'), { dialect: 'sqlite', file: '/var/lib/perfgate/history.sqlite' });
  assert.deepEqual(parseTarget('mysql://bot:s%40cret@db.example:3307/perf_history'),
    { dialect: 'mysql', user: 'bot', password: 's@cret', database: 'perf_history', host: 'db.example', port: 3307 });
  assert.deepEqual(parseTarget('mariadb://bot@10.0.0.5/perf'),
    { dialect: 'mysql', user: 'bot', password: undefined, database: 'perf', host: '10.0.0.5', port: 3306 });
  assert.deepEqual(parseTarget('mysql://bot:pw@localhost/perf?socket=/run/mysqld/mysqld.sock'),
    { dialect: 'mysql', user: 'bot', password: 'pw', database: 'perf', socketPath: '/run/mysqld/mysqld.sock' });
});

test('a bad target is one line naming it and the expected form, without the password', () => {
  const cases = [
    ['', 'store: expected a SQLite file path or a mysql://user:pass@host:port/db URL, got ""'],
    ['postgres://u:pw@h/db', "store: unsupported URL scheme 'postgres' in 'postgres://u:***@h/db': expected mysql:// or mariadb://, or a SQLite file path"],
    ['mysql://u:pw@h:99999/db', "store: 'mysql://u:***@h:99999/db' is not a valid URL: expected mysql://user:pass@host:port/db"],
    ['mysql://u:pw@h:3306/', "store: 'mysql://u:***@h:3306/' names no database: expected mysql://user:pass@host:port/db"],
    ['mysql://u:pw@h/db?ssl=true', "store: unknown parameter 'ssl' in 'mysql://u:***@h/db?ssl=***': expected only socket=<path>"],
  ];
  for (const [target, message] of cases) assert.throws(() => parseTarget(target), { name: 'StoreError', message }, target);
  assert.equal(redact('mysql://bot:hunter2@h/db'), 'mysql://bot:***@h/db');
  // A password with an unescaped @ or ?, one in the parameters, a URL without one, a file path.
  assert.equal(redact('mysql://bot:hun@ter2@h/db'), 'mysql://bot:***@h/db');
  assert.equal(redact('mysql://bot:hun?ter2@h/db'), 'mysql://bot:***@h/db');
  assert.equal(redact('mysql://bot@h/db?password=hunter2&socket=/s'), 'mysql://bot@h/db?password=***&socket=***');
  assert.equal(redact('mariadb://h:3306/db'), 'mariadb://h:3306/db');
  assert.equal(redact('/var/lib/perfgate/history.db'), '/var/lib/perfgate/history.db');
});

test('a server that does not answer is a StoreError naming where, never the password', async () => {
  const port = await new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
  await assert.rejects(openStore(`mysql://bot:hunter2@127.0.0.1:${port}/perf`), (err) => {
    assert.ok(err instanceof StoreError);
    assert.equal(err.message, `store mysql://bot@127.0.0.1:${port}/perf: cannot open: connect ECONNREFUSED 127.0.0.1:${port}`);
    return true;
  });
});

test('a SQLite file that cannot be created is a StoreError naming it', async () => {
  await assert.rejects(openStore('/nonexistent-dir/history.db'), {
    message: 'store /nonexistent-dir/history.db: cannot open: Cannot open database because the directory does not exist',
  });
});
