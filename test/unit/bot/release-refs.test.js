'use strict';
// The previous release of a candidate, by the fork's tag naming.
const test = require('node:test');
const assert = require('node:assert/strict');
const { previousRelease, releaseOf } = require('../../../bot/src/app/release-refs');

const MARIADB = ['mariadb-10.11.9', 'mariadb-10.11.10', 'mariadb-10.11.18', 'mariadb-10.11.19', 'mariadb-11.4.2', 'mysql-8.0.40', 'mariadb-10.11.19-rc'];

test('release tags: a prefix and a dotted version, maybe a build number', () => {
  assert.deepEqual(releaseOf('mariadb-10.11.19'), { prefix: 'mariadb-', version: [10, 11, 19] });
  assert.deepEqual(releaseOf('Percona-Server-8.0.40-31'), { prefix: 'Percona-Server-', version: [8, 0, 40, 31] });
  assert.deepEqual(releaseOf('v1.2'), { prefix: 'v', version: [1, 2] });
  assert.equal(releaseOf('main'), null);
  assert.equal(releaseOf('mariadb-10.11.19-rc'), null);
});

test('the previous release: the highest version below the candidate with the same prefix, compared as numbers', () => {
  assert.deepEqual(previousRelease('mariadb-10.11.19', MARIADB), { previous: 'mariadb-10.11.18' });
  assert.deepEqual(previousRelease('mariadb-10.11.18', MARIADB), { previous: 'mariadb-10.11.10' });
  assert.deepEqual(previousRelease('mariadb-10.11.10', MARIADB), { previous: 'mariadb-10.11.9' });
  assert.deepEqual(previousRelease('mariadb-11.4.2', MARIADB), { previous: 'mariadb-10.11.19' });
  assert.deepEqual(previousRelease('Percona-Server-8.0.40-31', ['Percona-Server-8.0.40-30', 'Percona-Server-8.0.39-30', 'mysql-8.0.40']), { previous: 'Percona-Server-8.0.40-30' });
  // The candidate need not be tagged yet (a tag pushed later, or a name given by hand).
  assert.deepEqual(previousRelease('mariadb-10.11.20', MARIADB), { previous: 'mariadb-10.11.19' });
});

test('what it needs when it cannot tell', () => {
  assert.equal(previousRelease('main', MARIADB).problem,
    '`main` is not a release tag (a name ending in a version, such as mariadb-10.11.19), so I cannot tell which release came before it: name the previous release with `vs <previous>`, e.g. `/perf signoff mariadb-10.11.19 vs mariadb-10.11.18`');
  assert.match(previousRelease('a'.repeat(40), MARIADB).problem, /^`a{40}` is not a release tag/);
  assert.equal(previousRelease('mariadb-10.11.9', MARIADB).problem,
    'no release tag named `mariadb-<version>` comes before `mariadb-10.11.9`: name the previous release with `vs <previous>`, e.g. `/perf signoff mariadb-10.11.19 vs mariadb-10.11.18`');
});
