'use strict';
// The MariaDB test server fails, and says what to install, when its binaries are missing.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startMariadb } = require('../../support/mariadb-server');

test('a prefix without mariadbd is an error naming the file and how to get it', async () => {
  const before = fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('perfgate-mariadb-'));
  await assert.rejects(startMariadb({ prefix: '/nonexistent/usr' }), {
    message: 'MariaDB test server: /nonexistent/usr/sbin/mariadbd is missing (Debian package mariadb-server-core): run `make setup` '
      + "(scripts/fetch-servers.sh unpacks Debian's mariadb-server-core and mariadb-client-core 10.11.18 there) "
      + 'or set PERFGATE_MARIADB to a prefix holding sbin/mariadbd, bin/mariadb-install-db and bin/my_print_defaults',
  });
  const after = fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('perfgate-mariadb-'));
  assert.deepEqual(after, before, 'nothing left in the temporary folder');
});

test('a prefix with the server but without my_print_defaults names the missing client tool', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-fake-prefix-'));
  try {
    for (const rel of ['sbin/mariadbd', 'bin/mariadb-install-db']) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), '');
    }
    await assert.rejects(startMariadb({ prefix: dir }), (err) => {
      assert.match(err.message, new RegExp(`^MariaDB test server: ${dir}/bin/my_print_defaults is missing \\(Debian package mariadb-client-core\\): run \`make setup\``));
      return true;
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
