'use strict';
// perfgate bot's settings: the environment and a YAML file with the same keys, every bad value
// one line naming where, the key, the value and what is expected.
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { generateKeyPairSync } = require('node:crypto');
const { readBotConfig } = require('../../../bot/src/app/config');

describe('perfgate bot settings', () => {
  let dir;
  let keyFile;
  const env = () => ({
    PERFGATE_APP_ID: '424242',
    PERFGATE_PRIVATE_KEY_FILE: keyFile,
    PERFGATE_WEBHOOK_SECRET: 'a-secret-of-enough-length',
    PERFGATE_DATABASE_URL: path.join(dir, 'history.db'),
    PERFGATE_REPOSITORIES: 'Perfgate-Test/fork, perfgate-test/other',
  });
  const fails = (options, message) => assert.throws(() => readBotConfig({ port: '0', ...options }), (err) => {
    assert.equal(err.name, 'UsageError');
    assert.equal(err.message, message);
    return true;
  });

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-bot-config-'));
    keyFile = path.join(dir, 'app.pem');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    fs.writeFileSync(keyFile, privateKey, { mode: 0o600 });
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('the environment alone: typed values and the defaults', () => {
    const config = readBotConfig({ env: env(), port: '8080' });
    assert.equal(config.appId, 424242);
    assert.match(config.privateKey, /^-----BEGIN PRIVATE KEY-----/);
    assert.equal(config.privateKeyFile, keyFile);
    assert.deepEqual(config.repositories, ['perfgate-test/fork', 'perfgate-test/other']);
    assert.deepEqual(
      [config.apiUrl, config.teams, config.pacing, config.report, config.host, config.port, config.workers, config.leaseSeconds, config.maxWebhookBytes, config.maxArtifactBytes],
      ['https://api.github.com', [], 'github', 'workflow', '127.0.0.1', 8080, 4, 60, 1048576, 67108864],
    );
    assert.deepEqual([config.githubTimeoutMs, config.sweepMs, config.commandDeadlineMs, config.warnings], [30_000, 300_000, 1_800_000, []]);
    assert.deepEqual(config.workflows, { quick: 'perf-command.yml', ahi: 'perf-command.yml', ddl: 'perf-command.yml', 'contention-quick': 'perf-command.yml', tpcc: 'perf-command.yml', full: 'perf-full.yml', bisect: 'perf-bisect.yml', signoff: 'perf-signoff.yml' });
    assert.deepEqual(config.bisect, { pollSeconds: 60, maxHours: 24 });
    assert.deepEqual(Object.keys(config.thresholds.suites).sort(), ['ahi', 'ahi-quick', 'contention-quick', 'ddl', 'ddl-quick', 'full', 'quick', 'tpcc']);
    assert.deepEqual(config.http, { maxConnections: 1024, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 });
    assert.equal(config.maxWebhookBytesInFlight, 64 * 1024 * 1024);
    assert.deepEqual(config.dashboardHosts, ['localhost', '127.0.0.1', '::1']);
    assert.equal(config.webhookSources, null, 'deliveries from anywhere unless the networks are set');
  });

  test('the suites of a release sign-off: full, ddl and tpcc by default; each a suite of the thresholds, no row in two', () => {
    assert.deepEqual(readBotConfig({ env: env(), port: '0' }).signoffSuites, ['full', 'ddl', 'tpcc']);
    assert.deepEqual(readBotConfig({ env: { ...env(), PERFGATE_SIGNOFF_SUITES: 'full, ddl-quick' }, port: '0' }).signoffSuites, ['full', 'ddl-quick']);
    fails({ env: { ...env(), PERFGATE_SIGNOFF_SUITES: 'full,nightly' } }, `PERFGATE_SIGNOFF_SUITES 'nightly' is not a suite of ${readBotConfig({ env: env(), port: '0' }).thresholds.dir}; expected one of: ${Object.keys(readBotConfig({ env: env(), port: '0' }).thresholds.suites).join(', ')}`);
    fails({ env: { ...env(), PERFGATE_SIGNOFF_SUITES: 'ddl,ddl-quick' } }, "PERFGATE_SIGNOFF_SUITES: ddl and ddl-quick both have the row 'add-index'; expected suites with no row in common (results are kept by row)");
    assert.throws(() => readBotConfig({ env: { ...env(), PERFGATE_SIGNOFF_SUITES: 'full;rm' }, port: '0' }), /PERFGATE_SIGNOFF_SUITES .*expected one to eight suite names separated by commas/);
    // A fork's own thresholds folder without TPC-C: by default the suites it has, and a warning
    // saying so; named explicitly, a suite it lacks stops the start.
    const own = path.join(dir, 'thresholds-without-tpcc');
    fs.cpSync(readBotConfig({ env: env(), port: '0' }).thresholds.dir, own, { recursive: true });
    fs.rmSync(path.join(own, 'suites', 'tpcc.yml'));
    const without = readBotConfig({ env: { ...env(), PERFGATE_THRESHOLDS: own }, port: '0' });
    assert.deepEqual(without.signoffSuites, ['full', 'ddl']);
    assert.deepEqual(without.warnings, [`PERFGATE_SIGNOFF_SUITES is not set: a release sign-off measures full, ddl; tpcc of its default is not a suite of ${own}`]);
    assert.throws(() => readBotConfig({ env: { ...env(), PERFGATE_THRESHOLDS: own, PERFGATE_SIGNOFF_SUITES: 'full,tpcc' }, port: '0' }), { message: new RegExp(`^PERFGATE_SIGNOFF_SUITES 'tpcc' is not a suite of ${own}`) });
  });

  test("the networks deliveries may come from: GitHub's hook blocks of IPv4 and IPv6", () => {
    const sources = readBotConfig({ env: { ...env(), PERFGATE_WEBHOOK_SOURCES: '192.30.252.0/22, 140.82.112.0/20,2a0a:a440::/29' }, port: '0' }).webhookSources;
    assert.deepEqual(sources, [
      { address: '192.30.252.0', prefix: 22, family: 'ipv4' }, { address: '140.82.112.0', prefix: 20, family: 'ipv4' }, { address: '2a0a:a440::', prefix: 29, family: 'ipv6' },
    ]);
  });

  test("the dashboard's host names: loopback and the address listened on, or the ones set", () => {
    const hosts = (extra) => readBotConfig({ env: { ...env(), ...extra }, port: '0' }).dashboardHosts;
    assert.deepEqual(hosts({ PERFGATE_HOST: '10.1.2.3' }), ['localhost', '127.0.0.1', '::1', '10.1.2.3']);
    assert.deepEqual(hosts({ PERFGATE_HOST: 'fd00::7' }), ['localhost', '127.0.0.1', '::1', 'fd00::7']);
    assert.deepEqual(hosts({ PERFGATE_HOST: '0.0.0.0' }), ['localhost', '127.0.0.1', '::1']);
    assert.deepEqual(hosts({ PERFGATE_HOST: '::' }), ['localhost', '127.0.0.1', '::1']);
    assert.deepEqual(hosts({ PERFGATE_DASHBOARD_HOSTS: 'Perf.Internal.Example, 10.0.0.5,[fd00::1], ::1' }), ['perf.internal.example', '10.0.0.5', 'fd00::1', '::1']);
  });

  test('a YAML file with the same keys; the environment wins; a relative key file is found beside the config', () => {
    const file = path.join(dir, 'bot.yml');
    // It holds the webhook secret: its owner's alone.
    fs.writeFileSync(file, [
      'PERFGATE_APP_ID: 99',
      'PERFGATE_PRIVATE_KEY_FILE: app.pem',
      'PERFGATE_WEBHOOK_SECRET: from-the-file-0123456789',
      `PERFGATE_DATABASE_URL: mysql://bot:pw@db.example:3307/perfgate`,
      'GITHUB_API_URL: https://ghe.example/api/v3/',
      'PERFGATE_REPOSITORIES: [perfgate-test/fork]',
      'PERFGATE_TEAMS: [perfgate-test/perf-team, perfgate-test/release]',
      'PERFGATE_PORT: 9000',
      '',
    ].join('\n'), { mode: 0o600 });
    const config = readBotConfig({ file, env: { PERFGATE_APP_ID: '7', PERFGATE_WORKERS: '2' } });
    assert.equal(config.appId, 7);
    assert.equal(config.privateKeyFile, keyFile);
    assert.equal(config.webhookSecret, 'from-the-file-0123456789');
    assert.equal(config.databaseUrl, 'mysql://bot:pw@db.example:3307/perfgate');
    assert.equal(config.apiUrl, 'https://ghe.example/api/v3');
    assert.deepEqual(config.teams, ['perfgate-test/perf-team', 'perfgate-test/release']);
    assert.equal(config.port, 9000);
    assert.equal(config.workers, 2);
  });

  test('a missing setting names itself and where to set it', () => {
    const { PERFGATE_WEBHOOK_SECRET, ...rest } = env();
    fails({ env: rest }, "PERFGATE_WEBHOOK_SECRET is not set: the App's webhook secret; set it in the environment or in a --config file");
    fails({ env: env(), port: undefined }, '--port is missing; expected perfgate bot --port <N> (or PERFGATE_PORT)');
  });

  test('each bad value: where it came from, the key, the value and the expected form; secrets and passwords never shown', () => {
    const cases = [
      [{ PERFGATE_APP_ID: 'abc' }, "environment: PERFGATE_APP_ID 'abc' is not valid; expected the App's id (Settings → Developer settings → GitHub Apps → App ID), an integer from 1 to 9007199254740991"],
      [{ PERFGATE_PRIVATE_KEY_FILE: '/nonexistent/app.pem' }, "environment: PERFGATE_PRIVATE_KEY_FILE '/nonexistent/app.pem' is not valid; expected a readable PEM file (ENOENT)"],
      [{ PERFGATE_WEBHOOK_SECRET: 'short' }, "environment: PERFGATE_WEBHOOK_SECRET '***' is not valid; expected the webhook secret set in the App, at least 16 characters"],
      [{ PERFGATE_DATABASE_URL: 'postgres://bot:hunter2@db/perfgate' }, "environment: PERFGATE_DATABASE_URL 'postgres://bot:***@db/perfgate' is not valid; expected a SQLite file path or a mysql:// URL (unsupported URL scheme 'postgres' in 'postgres://bot:***@db/perfgate': expected mysql:// or mariadb://, or a SQLite file path)"],
      [{ GITHUB_API_URL: 'ftp://x' }, "environment: GITHUB_API_URL 'ftp://x' is not valid; expected an http(s) URL such as https://api.github.com"],
      [{ PERFGATE_REPOSITORIES: 'fork' }, "environment: PERFGATE_REPOSITORIES 'fork' is not valid; expected one or more repositories as owner/name, separated by commas"],
      [{ PERFGATE_TEAMS: 'perf-team' }, "environment: PERFGATE_TEAMS 'perf-team' is not valid; expected teams as org/team-slug, separated by commas"],
      [{ PERFGATE_GITHUB_PACING: 'fast' }, "environment: PERFGATE_GITHUB_PACING 'fast' is not valid; expected github or none"],
      [{ PERFGATE_COMMAND_WORKFLOW: '../evil.yml' }, "environment: PERFGATE_COMMAND_WORKFLOW '../evil.yml' is not valid; expected a workflow file name such as perf-command.yml"],
      [{ PERFGATE_FULL_WORKFLOW: 'full' }, "environment: PERFGATE_FULL_WORKFLOW 'full' is not valid; expected a workflow file name such as perf-command.yml"],
      [{ PERFGATE_REPORT: 'both' }, "environment: PERFGATE_REPORT 'both' is not valid; expected workflow or bot"],
      [{ PERFGATE_FAIL_ON: 'undecided' }, "environment: PERFGATE_FAIL_ON 'undecided' is not valid; expected fail, warn, never"],
      [{ PERFGATE_WORKERS: '0' }, "environment: PERFGATE_WORKERS '0' is not valid; expected a number of concurrent jobs, an integer from 1 to 64"],
      [{ PERFGATE_JOB_LEASE_SECONDS: '1.5' }, "environment: PERFGATE_JOB_LEASE_SECONDS '1.5' is not valid; expected seconds, an integer from 2 to 3600"],
      [{ PERFGATE_MAX_CONNECTIONS: '0' }, "environment: PERFGATE_MAX_CONNECTIONS '0' is not valid; expected a number of connections, an integer from 1 to 65535"],
      [{ PERFGATE_HEADERS_TIMEOUT_SECONDS: '0' }, "environment: PERFGATE_HEADERS_TIMEOUT_SECONDS '0' is not valid; expected seconds, an integer from 1 to 600"],
      [{ PERFGATE_REQUEST_TIMEOUT_SECONDS: 'never' }, "environment: PERFGATE_REQUEST_TIMEOUT_SECONDS 'never' is not valid; expected seconds, an integer from 1 to 3600"],
      [{ PERFGATE_HEADERS_TIMEOUT_SECONDS: '20', PERFGATE_REQUEST_TIMEOUT_SECONDS: '10' }, 'PERFGATE_HEADERS_TIMEOUT_SECONDS 20 is longer than PERFGATE_REQUEST_TIMEOUT_SECONDS 10; expected at most the time for the whole request'],
      [{ PERFGATE_MAX_WEBHOOK_BYTES: '30000000' }, "environment: PERFGATE_MAX_WEBHOOK_BYTES '30000000' is not valid; expected bytes, an integer from 1024 to 26214400"],
      [{ PERFGATE_MAX_WEBHOOK_BYTES: '2048', PERFGATE_MAX_WEBHOOK_BYTES_IN_FLIGHT: '1024' }, 'PERFGATE_MAX_WEBHOOK_BYTES_IN_FLIGHT 1024 is less than PERFGATE_MAX_WEBHOOK_BYTES 2048; expected room for at least one body'],
      [{ PERFGATE_DASHBOARD_HOSTS: 'perf.example:3000' }, "environment: PERFGATE_DASHBOARD_HOSTS 'perf.example:3000' is not valid; expected host names without port such as perf.internal.example, 10.0.0.5 or ::1, separated by commas"],
      [{ PERFGATE_DASHBOARD_HOSTS: '[::1]:3000' }, "environment: PERFGATE_DASHBOARD_HOSTS '[::1]:3000' is not valid; expected host names without port such as perf.internal.example, 10.0.0.5 or ::1, separated by commas"],
      [{ PERFGATE_DASHBOARD_HOSTS: 'http://perf.example/' }, "environment: PERFGATE_DASHBOARD_HOSTS 'http://perf.example/' is not valid; expected host names without port such as perf.internal.example, 10.0.0.5 or ::1, separated by commas"],
      ...['140.82.112.0', '140.82.112.0/33', '2a0a:a440::/129', 'github.com/20', '10.0.0.0/8,300.1.1.1/8'].map((value) => [{ PERFGATE_WEBHOOK_SOURCES: value },
        `environment: PERFGATE_WEBHOOK_SOURCES '${value}' is not valid; expected CIDR blocks such as 140.82.112.0/20 or 2a0a:a440::/29, separated by commas`]),
    ];
    for (const [change, message] of cases) fails({ env: { ...env(), ...change } }, message);
    const notPem = path.join(dir, 'not.pem');
    fs.writeFileSync(notPem, 'hello');
    fails({ env: { ...env(), PERFGATE_PRIVATE_KEY_FILE: notPem } }, `environment: PERFGATE_PRIVATE_KEY_FILE '${notPem}' is not valid; expected a PEM private key file, as GitHub generates for the App`);
    fails({ env: env(), port: '70000' }, "--port '70000' is not valid; expected a TCP port, an integer from 0 to 65535");
  });

  test('a private key given where its path belongs is refused by name and never shown, from the environment or a file', () => {
    const pem = fs.readFileSync(keyFile, 'utf8');
    const expected = (where) => `${where}: PERFGATE_PRIVATE_KEY_FILE '(a private key, not shown)' is not valid; expected the path of the key's file, not the key itself: write the key to a file (chmod 600) and give its path`;
    fails({ env: { ...env(), PERFGATE_PRIVATE_KEY_FILE: pem } }, expected('environment'));
    // Its first line alone is no path either.
    fails({ env: { ...env(), PERFGATE_PRIVATE_KEY_FILE: pem.split('\n')[0] } }, expected('environment'));
    const file = path.join(dir, 'pasted.yml');
    fs.writeFileSync(file, `PERFGATE_PRIVATE_KEY_FILE: |\n${pem.trimEnd().split('\n').map((line) => `  ${line}`).join('\n')}\n`, { mode: 0o600 });
    const { PERFGATE_PRIVATE_KEY_FILE, ...rest } = env();
    fails({ file, env: rest }, expected(file));
  });

  test('a key file or a config file holding a secret, readable by group or others: refused, or with PERFGATE_SECRET_FILES=warn a warning', () => {
    const loose = path.join(dir, 'loose.pem');
    fs.copyFileSync(keyFile, loose);
    for (const mode of [0o644, 0o666, 0o640, 0o604]) {
      fs.chmodSync(loose, mode);
      const shown = mode.toString(8).padStart(4, '0');
      fails({ env: { ...env(), PERFGATE_PRIVATE_KEY_FILE: loose } },
        `${loose}: the App's private key is readable or writable by group or others (mode ${shown}); expected mode 0600 (chmod 600 '${loose}'), or set PERFGATE_SECRET_FILES=warn to start anyway`);
    }
    fs.chmodSync(loose, 0o644);
    const warned = readBotConfig({ env: { ...env(), PERFGATE_PRIVATE_KEY_FILE: loose, PERFGATE_SECRET_FILES: 'warn' }, port: '0' });
    assert.deepEqual(warned.warnings, [`${loose}: the App's private key is readable or writable by group or others (mode 0644); expected mode 0600 (chmod 600 '${loose}'); started anyway (PERFGATE_SECRET_FILES=warn)`]);
    fs.chmodSync(loose, 0o400);
    assert.deepEqual(readBotConfig({ env: { ...env(), PERFGATE_PRIVATE_KEY_FILE: loose }, port: '0' }).warnings, []);

    const file = path.join(dir, 'shared.yml');
    const { PERFGATE_WEBHOOK_SECRET, PERFGATE_DATABASE_URL, ...rest } = env();
    fs.writeFileSync(file, 'PERFGATE_WEBHOOK_SECRET: from-the-file-0123456789\n', { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    fails({ file, env: { ...rest, PERFGATE_DATABASE_URL } },
      `${file}: the config file holding PERFGATE_WEBHOOK_SECRET is readable or writable by group or others (mode 0644); expected mode 0600 (chmod 600 '${file}'), or set PERFGATE_SECRET_FILES=warn to start anyway`);
    fs.writeFileSync(file, 'PERFGATE_DATABASE_URL: mysql://bot:hunter2@db.example/perfgate\n');
    fails({ file, env: { ...rest, PERFGATE_WEBHOOK_SECRET } },
      `${file}: the config file holding PERFGATE_DATABASE_URL is readable or writable by group or others (mode 0644); expected mode 0600 (chmod 600 '${file}'), or set PERFGATE_SECRET_FILES=warn to start anyway`);
    // Settings that give nothing away may be read by anyone.
    fs.writeFileSync(file, `PERFGATE_DATABASE_URL: ${path.join(dir, 'history.db')}\nPERFGATE_WORKERS: 2\n`);
    assert.deepEqual(readBotConfig({ file, env: { ...rest, PERFGATE_WEBHOOK_SECRET }, port: '0' }).warnings, []);
    fails({ env: { ...env(), PERFGATE_SECRET_FILES: 'ignore' } }, "environment: PERFGATE_SECRET_FILES 'ignore' is not valid; expected refuse or warn");
  });

  test('a password in the database URL is never shown: in its userinfo (with an @ in it) or in its parameters', () => {
    const cases = [
      ['mysql://bot@db.example/perfgate?password=hunter2', "environment: PERFGATE_DATABASE_URL 'mysql://bot@db.example/perfgate?password=***' is not valid; expected a SQLite file path or a mysql:// URL (unknown parameter 'password' in 'mysql://bot@db.example/perfgate?password=***': expected only socket=<path>)"],
      ['mysql://bot@db.example/perfgate?socket=/run/x.sock&ssl-key=hunter2', "environment: PERFGATE_DATABASE_URL 'mysql://bot@db.example/perfgate?socket=***&ssl-key=***' is not valid; expected a SQLite file path or a mysql:// URL (unknown parameter 'ssl-key' in 'mysql://bot@db.example/perfgate?socket=***&ssl-key=***': expected only socket=<path>)"],
      ['postgres://bot:hun@ter2@db/perfgate', "environment: PERFGATE_DATABASE_URL 'postgres://bot:***@db/perfgate' is not valid; expected a SQLite file path or a mysql:// URL (unsupported URL scheme 'postgres' in 'postgres://bot:***@db/perfgate': expected mysql:// or mariadb://, or a SQLite file path)"],
    ];
    for (const [url, message] of cases) {
      fails({ env: { ...env(), PERFGATE_DATABASE_URL: url } }, message);
      assert.ok(!message.includes('hunter2') && !message.includes('ter2'));
    }
  });

  test('a config file that is not a mapping of known keys is refused, naming the file and the key', () => {
    const file = path.join(dir, 'typo.yml');
    fs.writeFileSync(file, 'PERFGATE_APPID: 1\n');
    fails({ file, env: env() }, `${file}: unknown key 'PERFGATE_APPID'; expected one of PERFGATE_APP_ID, PERFGATE_PRIVATE_KEY_FILE, PERFGATE_SECRET_FILES, PERFGATE_GITHUB_TIMEOUT_SECONDS, PERFGATE_WEBHOOK_SECRET, PERFGATE_DATABASE_URL, GITHUB_API_URL, PERFGATE_REPOSITORIES, PERFGATE_GITHUB_PACING, PERFGATE_TEAMS, PERFGATE_COMMAND_WORKFLOW, PERFGATE_FULL_WORKFLOW, PERFGATE_BISECT_WORKFLOW, PERFGATE_BISECT_POLL_SECONDS, PERFGATE_BISECT_MAX_HOURS, PERFGATE_WATCH, PERFGATE_WATCH_BRANCH, PERFGATE_WATCH_WORKFLOW, PERFGATE_WATCH_SUITES, PERFGATE_CHANGE_POINT_PYTHON, PERFGATE_TRACKER, PERFGATE_JIRA_URL, PERFGATE_JIRA_PROJECT, PERFGATE_JIRA_ISSUE_TYPE, PERFGATE_JIRA_USER, PERFGATE_JIRA_TOKEN, PERFGATE_SIGNOFF_WORKFLOW, PERFGATE_SIGNOFF_SUITES, PERFGATE_REPORT, PERFGATE_FAIL_ON, PERFGATE_THRESHOLDS, PERFGATE_HOST, PERFGATE_PORT, PERFGATE_WORKERS, PERFGATE_JOB_LEASE_SECONDS, PERFGATE_SWEEP_SECONDS, PERFGATE_COMMAND_DEADLINE_SECONDS, PERFGATE_MAX_CONNECTIONS, PERFGATE_HEADERS_TIMEOUT_SECONDS, PERFGATE_REQUEST_TIMEOUT_SECONDS, PERFGATE_MAX_WEBHOOK_BYTES, PERFGATE_MAX_WEBHOOK_BYTES_IN_FLIGHT, PERFGATE_WEBHOOK_SOURCES, PERFGATE_MAX_ARTIFACT_BYTES, PERFGATE_DASHBOARD, PERFGATE_DASHBOARD_HOSTS`);
    fs.writeFileSync(file, '- a\n- b\n');
    fails({ file, env: env() }, `${file}: expected a mapping of KEY: value lines, found a list`);
    fs.writeFileSync(file, 'PERFGATE_APP_ID: [\n');
    assert.throws(() => readBotConfig({ file, env: env(), port: '0' }), new RegExp(`^UsageError: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not YAML`));
    fails({ file: path.join(dir, 'absent.yml'), env: env() }, `--config '${path.join(dir, 'absent.yml')}': cannot read it (ENOENT); expected a YAML file of KEY: value lines`);
    fs.writeFileSync(file, 'PERFGATE_APP_ID: zero\n');
    const { PERFGATE_APP_ID, ...rest } = env();
    fails({ file, env: rest }, `${file}: PERFGATE_APP_ID 'zero' is not valid; expected the App's id (Settings → Developer settings → GitHub Apps → App ID), an integer from 1 to 9007199254740991`);
  });
});

test('a peer address against the networks of PERFGATE_WEBHOOK_SOURCES: IPv4, IPv4 on a dual-stack socket, IPv6, none', () => {
  const { sourceCheck } = require('../../../bot/src/app/webhooks');
  const anyone = sourceCheck(null);
  assert.equal(anyone('203.0.113.9'), true);
  const github = sourceCheck([{ address: '140.82.112.0', prefix: 20, family: 'ipv4' }, { address: '2a0a:a440::', prefix: 29, family: 'ipv6' }]);
  assert.deepEqual(['140.82.112.5', '::ffff:140.82.112.5', '::FFFF:140.82.127.255', '2a0a:a440::1'].map(github), [true, true, true, true]);
  assert.deepEqual(['140.82.128.0', '::ffff:10.0.0.1', '10.0.0.1', '2a0b::1', '::1', undefined, ''].map(github), [false, false, false, false, false, false, false]);
});
