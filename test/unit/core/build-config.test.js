'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { parseBuildConfig, parseDefine, resolveBuild, loadRecipe, cmakeArgs, cacheKey, treeKey } = require('../../../core/src/config/build-recipe');
const { UsageError } = require('../../../core/src/errors');

const SHIPPED = path.resolve(__dirname, '../../../thresholds/build.yml');
const defaults = parseBuildConfig(fs.readFileSync(SHIPPED, 'utf8'), SHIPPED);
const SHA = 'a'.repeat(40);

function resolve(extra = {}) {
  return resolveBuild({ defaults, flavor: 'mariadb', cacheDir: '/cache', ...extra });
}

test('the shipped MariaDB recipe uses the system fmt and turns the heavy plugins off', () => {
  const r = resolve();
  assert.equal(r.cmakeFlags.WITH_LIBFMT, 'system');
  for (const plugin of ['MROONGA', 'ROCKSDB', 'SPIDER', 'CONNECT', 'COLUMNSTORE', 'S3', 'OQGRAPH']) {
    assert.equal(r.cmakeFlags[`PLUGIN_${plugin}`], 'NO', plugin);
  }
  assert.equal(r.cmakeFlags.WITH_WSREP, 'OFF');
  assert.equal(r.cmakeFlags.WITH_UNIT_TESTS, 'OFF');
  assert.equal(r.cmakeFlags.WITH_EMBEDDED_SERVER, 'OFF');
  assert.ok(r.targets.includes('mariadbd') && r.targets.includes('my_print_defaults'));
  assert.deepEqual(r.required[0], ['bin/mariadbd', 'sbin/mariadbd']);
});

test('MySQL and Percona recipes build offline with system libraries and skip the unmeasured parts (as MySQL 9.7 built here)', () => {
  for (const flavor of ['mysql', 'percona']) {
    const r = resolve({ flavor });
    // 8.4 and later bundle the Boost headers they need; a download fails on an offline runner.
    assert.equal(r.cmakeFlags.DOWNLOAD_BOOST, undefined, flavor);
    for (const lib of ['SSL', 'ZLIB', 'ZSTD', 'LZ4', 'ICU', 'PROTOBUF', 'EDITLINE']) assert.equal(r.cmakeFlags[`WITH_${lib}`], 'system', `${flavor} ${lib}`);
    assert.equal(r.cmakeFlags.WITH_CURL, 'none', flavor);
    assert.equal(r.cmakeFlags.WITH_FIDO, 'none', flavor);
    // Without it by name, ndbcluster is compiled into mysqld even with WITH_NDB off.
    assert.equal(r.cmakeFlags.WITH_NDBCLUSTER_STORAGE_ENGINE, 'OFF', flavor);
    assert.equal(r.cmakeFlags.WITH_ROUTER, 'OFF', flavor);
    assert.equal(r.cmakeFlags.WITH_UNIT_TESTS, 'OFF', flavor);
    // The sql directory's Server component installs locking_service.so beside mysqld.
    assert.deepEqual(r.targets, ['mysqld', 'locking_service', 'GenError'], flavor);
    assert.deepEqual(r.install, [{ dir: 'sql', component: 'Server' }, { dir: 'share', component: 'Server' }], flavor);
    assert.deepEqual(r.required[2], ['share/charsets/Index.xml', 'share/mysql/charsets/Index.xml'], flavor);
  }
  const percona = resolve({ flavor: 'percona' });
  assert.equal(percona.cmakeFlags.WITH_ROCKSDB, 'OFF');
  assert.equal(percona.cmakeFlags.WITH_KEYRING_VAULT, 'OFF');
  assert.equal(resolve({ flavor: 'mysql' }).cmakeFlags.WITH_ROCKSDB, undefined);
});

test('${cache} in a flag value is the perfgate cache folder (a fork pinning Boost for MySQL 8.0)', () => {
  const fork = parseBuildConfig('flavors:\n  mysql:\n    cmake_flags: {DOWNLOAD_BOOST: "ON", WITH_BOOST: "${cache}/boost"}\n', 'fork.yml', { partial: true });
  const r = resolve({ flavor: 'mysql', overrides: [fork], cacheDir: '/var/cache/pg' });
  assert.equal(r.cmakeFlags.WITH_BOOST, '/var/cache/pg/boost');
  assert.equal(r.cmakeFlags.DOWNLOAD_BOOST, 'ON');
});

test('cmake arguments are sorted -DNAME=VALUE pairs', () => {
  const args = cmakeArgs(resolve());
  assert.ok(args.includes('-DWITH_LIBFMT=system'));
  assert.deepEqual(args, [...args].sort());
});

test('a fork file overrides flags, targets and install; null drops a flag; -D and -U win', () => {
  const fork = parseBuildConfig(`
flavors:
  mariadb:
    cmake_flags: {PLUGIN_SPIDER: "YES", WITH_PCRE: null, EXTRA: 1, FAST: true}
    targets: [mariadbd]
`, 'fork.yml', { partial: true });
  const r = resolve({ overrides: [fork], defines: [['EXTRA', '2']], undefines: ['WITH_SYSTEMD'] });
  assert.equal(r.cmakeFlags.PLUGIN_SPIDER, 'YES');
  assert.equal(r.cmakeFlags.EXTRA, '2');
  assert.equal(r.cmakeFlags.FAST, 'ON');
  assert.equal('WITH_PCRE' in r.cmakeFlags, false);
  assert.equal('WITH_SYSTEMD' in r.cmakeFlags, false);
  assert.deepEqual(r.targets, ['mariadbd']);
  assert.deepEqual(r.install, resolve().install, 'install untouched when the fork does not set it');
});

test('the recipe hash follows flags, targets and install, not their order or the checks', () => {
  const base = resolve();
  assert.equal(resolve().flagsHash, base.flagsHash);
  assert.match(base.flagsHash, /^[0-9a-f]{64}$/);
  const reordered = { flavors: { mariadb: { ...defaults.flavors.mariadb,
    cmake_flags: Object.fromEntries(Object.entries(defaults.flavors.mariadb.cmake_flags).reverse()) } } };
  assert.equal(resolveBuild({ defaults: reordered, flavor: 'mariadb', cacheDir: '/cache' }).flagsHash, base.flagsHash);
  assert.notEqual(resolve({ defines: [['WITH_LIBFMT', 'bundled']] }).flagsHash, base.flagsHash);
  assert.notEqual(resolve({ defines: [['NEW_FLAG', '']] }).flagsHash, base.flagsHash);
  const fewerTargets = parseBuildConfig('flavors: {mariadb: {targets: [mariadbd]}}', 'f.yml', { partial: true });
  assert.notEqual(resolve({ overrides: [fewerTargets] }).flagsHash, base.flagsHash);
  const otherChecks = parseBuildConfig('flavors: {mariadb: {required: [bin/mariadbd]}}', 'f.yml', { partial: true });
  assert.equal(resolve({ overrides: [otherChecks] }).flagsHash, base.flagsHash);
  assert.notEqual(resolve({ flavor: 'mysql' }).flagsHash, base.flagsHash);
});

test('cache key = full commit SHA + 16 hex digits of the recipe hash', () => {
  const r = resolve();
  assert.equal(cacheKey(SHA, r.flagsHash), `${SHA}-${r.flagsHash.slice(0, 16)}`);
  assert.notEqual(cacheKey(SHA, r.flagsHash), cacheKey('b'.repeat(40), r.flagsHash));
  assert.throws(() => cacheKey('main', r.flagsHash), /not a full commit SHA: 'main'/);
  assert.throws(() => cacheKey(SHA.slice(0, 12), r.flagsHash), /not a full commit SHA/);
  assert.equal(treeKey('/src/fork'), treeKey('/src/fork'));
  assert.notEqual(treeKey('/src/fork'), treeKey('/src/other'));
});

test('bad build config input names the file, the key and what is expected', () => {
  const cases = [
    ['flavors: {mariadb: {cmake_flags: {"bad-name": 1}}}', /^f\.yml:1: flavors\.mariadb\.cmake_flags\.bad-name: not a valid cmake variable name$/],
    ['flavors: {mariadb: {cmake_flags: {CMAKE_INSTALL_PREFIX: /usr}}}', /CMAKE_INSTALL_PREFIX: is set by perfgate itself/],
    ['flavors:\n  maria: {}', /^f\.yml:2: flavors\.maria: unknown flavor; expected one of mariadb, mysql, percona$/],
    ['flavors: {mariadb: {install: [{dir: ../x, component: Server}]}}', /^f\.yml:1: flavors\.mariadb\.install\[0\]\.dir: '\.\.\/x' leaves the build tree; expected a relative path without '\.\.'$/],
    ['flavors: {mariadb: {targets: []}}', /^f\.yml:1: flavors\.mariadb\.targets: \[\] is not valid; expected a non-empty list$/],
    ['flavors: {mariadb: {cmake_flags: {X: [1]}}}', /cmake_flags\.X: \[1\] is not a string, number or boolean/],
    ['flavors: {mariadb: {tragets: [a]}}', /flavors\.mariadb\.tragets: unknown key/],
    ['flavors: {}\nflavor: {}', /^f\.yml:2: flavor: unknown key; expected one of: flavors, schema$/],
    ['schema: perfgate.build-config/v9\nflavors: {}', /^f\.yml:1: schema: 'perfgate.build-config\/v9' is not supported/],
    ['flavors: [', /^f\.yml:1: malformed YAML/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseBuildConfig(text, 'f.yml', { partial: true }), (err) => err instanceof UsageError && message.test(err.message), text);
  }
  assert.throws(() => parseBuildConfig('flavors: {mariadb: {targets: [a]}}', 'full.yml'), /full\.yml:1: flavors\.mariadb: missing key 'cmake_flags'/);
  assert.throws(() => resolve({ flavor: 'postgres' }), /--flavor 'postgres': expected one of mariadb, mysql, percona/);
});

test('-D takes NAME=VALUE and refuses perfgate\'s own flags', () => {
  assert.deepEqual(parseDefine('WITH_LIBFMT=bundled'), ['WITH_LIBFMT', 'bundled']);
  assert.deepEqual(parseDefine('EMPTY='), ['EMPTY', '']);
  assert.deepEqual(parseDefine('F=a=b'), ['F', 'a=b']);
  assert.throws(() => parseDefine('WITH_LIBFMT', '--define'), /--define 'WITH_LIBFMT': expected NAME=VALUE/);
  assert.throws(() => parseDefine('CMAKE_C_COMPILER_LAUNCHER=distcc'), /set by perfgate itself/);
});

test('a thresholds folder with its own build.yml overrides the shipped recipe', () => {
  const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'pg-build-config-'));
  try {
    fs.writeFileSync(path.join(dir, 'build.yml'), 'flavors:\n  mariadb:\n    cmake_flags: {PLUGIN_S3: "YES"}\n');
    const r = loadRecipe({ thresholdsDir: dir, cacheDir: '/c' });
    assert.equal(r.cmakeFlags.PLUGIN_S3, 'YES');
    assert.equal(r.cmakeFlags.WITH_LIBFMT, 'system');
    assert.notEqual(r.flagsHash, loadRecipe({ cacheDir: '/c' }).flagsHash);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
