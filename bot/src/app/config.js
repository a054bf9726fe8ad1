'use strict';
// The bot's settings, read once: a YAML (or JSON) file of KEY: value lines and the environment,
// with the same keys; the environment wins. Every value is checked here, and a bad one is one
// line naming where it came from, the key, the value and what is expected.
const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');
const core = require('@perfgate/core');
const { checkSuiteList, signoffSuites, suiteList } = require('./suite-lists');
const { parseTarget, redact } = require('../store/connection');
const { WORKFLOWS } = require('./contract');
const bisectContract = require('./bisect-contract');
const { SIGNOFF_WORKFLOW, SIGNOFF_SUITES } = require('./signoff-contract');
const { cidrBlock, dashboardHostName, defaultDashboardHosts } = require('./address-settings');
const { looksLikeKey, secretFileModes } = require('./secret-files');

const { UsageError } = core;

const FULL_NAME = /^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/;

function problem(where, key, value, expected) {
  const shown = typeof value === 'string' ? `'${value}'` : JSON.stringify(value);
  return new UsageError(`${where}: ${key} ${shown} is not valid; expected ${expected}`);
}

function workflowFile(value, fail) {
  if (!/^[A-Za-z0-9._-]+\.ya?ml$/.test(String(value))) throw fail('a workflow file name such as perf-command.yml');
  return String(value);
}

// A list is a YAML sequence, or a string of items separated by commas or spaces.
function listOf(value) {
  if (Array.isArray(value)) return value.map((v) => String(v).trim()).filter(Boolean);
  return String(value).split(/[\s,]+/).filter(Boolean);
}

function integerIn(min, max, describe) {
  return (value, fail) => {
    const n = typeof value === 'number' ? value : /^\s*\d+\s*$/.test(String(value)) ? Number(value) : NaN;
    if (!Number.isInteger(n) || n < min || n > max) throw fail(`${describe}, an integer from ${min} to ${max}`);
    return n;
  };
}

// One of a few words, as written.
function oneOf(...words) {
  return (value, fail) => {
    if (!words.includes(String(value))) throw fail(`${words.slice(0, -1).join(', ')} or ${words.at(-1)}`);
    return String(value);
  };
}

// Each key: what it is for, how its value is read, and its default (no default: required).
// `secret`: its value is never shown; `show`: how it is shown in an error.
const KEYS = {
  PERFGATE_APP_ID: {
    describe: "the GitHub App's id",
    read: integerIn(1, Number.MAX_SAFE_INTEGER, "the App's id (Settings → Developer settings → GitHub Apps → App ID)"),
  },
  PERFGATE_PRIVATE_KEY_FILE: {
    describe: "the App's private key (.pem) as GitHub generated it, in a file only its owner may read (mode 600)",
    // A key given where its file's path belongs is never shown, in the error or anywhere else.
    show: (value) => (looksLikeKey(value) ? '(a private key, not shown)' : value),
    read: (value, fail, base) => {
      if (looksLikeKey(value)) throw fail("the path of the key's file, not the key itself: write the key to a file (chmod 600) and give its path");
      const file = path.resolve(base, String(value));
      let pem;
      try {
        pem = fs.readFileSync(file, 'utf8');
      } catch (err) {
        throw fail(`a readable PEM file (${err.code || err.message})`);
      }
      if (!/-----BEGIN (RSA )?PRIVATE KEY-----/.test(pem)) throw fail('a PEM private key file, as GitHub generates for the App');
      return { file, pem };
    },
  },
  PERFGATE_SECRET_FILES: {
    describe: 'refuse: the private key file, and a --config file holding a secret, must not be readable by group or others; warn: start anyway and log a warning',
    default: 'refuse',
    read: oneOf('refuse', 'warn'),
  },
  PERFGATE_GITHUB_TIMEOUT_SECONDS: {
    describe: 'how long one call to GitHub may take before it is abandoned (and, if it reads, tried again)',
    default: 30,
    read: integerIn(1, 600, 'seconds'),
  },
  PERFGATE_WEBHOOK_SECRET: {
    describe: "the App's webhook secret",
    secret: true,
    read: (value, fail) => {
      const s = String(value);
      if (s.length < 16) throw fail('the webhook secret set in the App, at least 16 characters');
      return s;
    },
  },
  PERFGATE_DATABASE_URL: {
    describe: 'the history store: a SQLite file path or mysql://user:pass@host:port/db',
    read: (value, fail) => {
      try {
        parseTarget(String(value));
      } catch (err) {
        throw fail(`a SQLite file path or a mysql:// URL (${err.message.replace(/^store: /, '')})`);
      }
      return String(value);
    },
    show: (value) => redact(value),
  },
  GITHUB_API_URL: {
    describe: "GitHub's REST API (GitHub Enterprise Server: https://HOST/api/v3)",
    default: 'https://api.github.com',
    read: (value, fail) => {
      let url;
      try {
        url = new URL(String(value));
      } catch {
        throw fail('an http(s) URL such as https://api.github.com');
      }
      if (!['http:', 'https:'].includes(url.protocol)) throw fail('an http(s) URL such as https://api.github.com');
      return String(value).replace(/\/+$/, '');
    },
  },
  PERFGATE_REPOSITORIES: {
    describe: 'the repositories the bot serves, owner/name, separated by commas',
    read: (value, fail) => {
      const names = listOf(value);
      const bad = names.find((n) => !FULL_NAME.test(n));
      if (!names.length || bad !== undefined) throw fail('one or more repositories as owner/name, separated by commas');
      return names.map((n) => n.toLowerCase());
    },
  },
  PERFGATE_GITHUB_PACING: {
    describe: "github: one write a second and one comment every 3 s per installation, as GitHub advises; none: no pacing (a test double)",
    default: 'github',
    read: oneOf('github', 'none'),
  },
  PERFGATE_TEAMS: {
    describe: 'teams whose members may run commands without write access, org/team-slug',
    default: [],
    read: (value, fail) => {
      const teams = listOf(value);
      if (teams.some((t) => !FULL_NAME.test(t))) throw fail('teams as org/team-slug, separated by commas');
      return teams;
    },
  },
  PERFGATE_COMMAND_WORKFLOW: {
    describe: 'the workflow dispatched for /perf quick, /perf ahi, /perf ddl, /perf contention and /perf tpcc, under .github/workflows/',
    default: WORKFLOWS.quick,
    read: workflowFile,
  },
  PERFGATE_FULL_WORKFLOW: {
    describe: 'the workflow dispatched for /perf full (its measure jobs shard the suite)',
    default: WORKFLOWS.full,
    read: workflowFile,
  },
  PERFGATE_BISECT_WORKFLOW: {
    describe: 'the workflow dispatched for /perf bisect',
    default: bisectContract.WORKFLOW,
    read: workflowFile,
  },
  PERFGATE_BISECT_POLL_SECONDS: {
    describe: "how often the bot looks at a running bisection's progress artifacts (docs/bot.md)",
    default: 60,
    read: integerIn(1, 3600, 'seconds between looks'),
  },
  PERFGATE_BISECT_MAX_HOURS: {
    describe: 'how long the bot follows a bisection that has not completed before it stops looking',
    default: 24,
    read: integerIn(1, 720, 'hours'),
  },
  PERFGATE_WATCH: {
    describe: 'on: a push to the watched branch dispatches PERFGATE_WATCH_WORKFLOW for the pushed commit against the previous measured main commit, and confirmed regressions are filed in PERFGATE_TRACKER (docs/bot.md, Watching main); off: pushes are not measured',
    default: 'off',
    read: oneOf('on', 'off'),
  },
  PERFGATE_WATCH_BRANCH: {
    describe: "the branch watched (a branch name); unset: each repository's default branch",
    default: null,
    read: (value, fail) => {
      if (!/^[A-Za-z0-9._/-]+$/.test(String(value)) || String(value).includes('..')) throw fail('a branch name such as main');
      return String(value);
    },
  },
  PERFGATE_WATCH_WORKFLOW: {
    describe: 'the workflow dispatched for each watched push and its re-measurement, under .github/workflows/',
    default: 'perf-watch.yml',
    read: workflowFile,
  },
  PERFGATE_WATCH_SUITES: {
    describe: 'the suites measured for each watched push, each its own run of PERFGATE_WATCH_WORKFLOW (e.g. quick,tpcc); each a suite of PERFGATE_THRESHOLDS',
    default: ['quick'],
    read: (value, fail) => suiteList(listOf(value), fail),
  },
  PERFGATE_CHANGE_POINT_PYTHON: {
    describe: "the python that runs the change-point adapter with Apache Otava (scripts/install-deps.sh makes ~/.cache/perfgate/tools/otava); unset: that one",
    default: null,
    read: (value) => String(value),
  },
  PERFGATE_TRACKER: {
    describe: "where confirmed regressions are filed: github (the repository's issues) or jira (PERFGATE_JIRA_*)",
    default: 'github',
    read: oneOf('github', 'jira'),
  },
  PERFGATE_JIRA_URL: {
    describe: 'with PERFGATE_TRACKER=jira: the Jira site, e.g. https://example.atlassian.net',
    default: null,
    read: (value, fail) => {
      if (!/^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(String(value))) throw fail('an http(s) URL such as https://example.atlassian.net');
      return String(value).replace(/\/+$/, '');
    },
  },
  PERFGATE_JIRA_PROJECT: {
    describe: 'with PERFGATE_TRACKER=jira: the project key issues are filed in, e.g. PERF',
    default: null,
    read: (value, fail) => {
      if (!/^[A-Z][A-Z0-9_]{1,49}$/.test(String(value))) throw fail('a Jira project key such as PERF');
      return String(value);
    },
  },
  PERFGATE_JIRA_ISSUE_TYPE: {
    describe: 'with PERFGATE_TRACKER=jira: the issue type filed',
    default: 'Bug',
    read: (value) => String(value),
  },
  PERFGATE_JIRA_USER: {
    describe: "with PERFGATE_TRACKER=jira: the account's e-mail address (or user name on Data Center)",
    default: null,
    read: (value) => String(value),
  },
  PERFGATE_JIRA_TOKEN: {
    describe: "with PERFGATE_TRACKER=jira: the account's API token",
    default: null,
    secret: true,
    read: (value) => String(value),
  },
  PERFGATE_SIGNOFF_WORKFLOW: {
    describe: 'the workflow dispatched for /perf signoff (its suites measured, the full suite sharded, each merged)',
    default: SIGNOFF_WORKFLOW,
    read: workflowFile,
  },
  PERFGATE_SIGNOFF_SUITES: {
    describe: 'the suites a release sign-off measures, sent to PERFGATE_SIGNOFF_WORKFLOW (e.g. full,ddl,tpcc); each a suite of PERFGATE_THRESHOLDS, no row in two',
    default: SIGNOFF_SUITES,
    read: (value, fail) => suiteList(listOf(value), fail),
  },
  PERFGATE_REPORT: {
    describe: "who writes the check run and the sticky comment: workflow (the dispatched workflow's report job, as the example workflows do; the bot keeps one reply per command current) or bot",
    default: 'workflow',
    read: oneOf('workflow', 'bot'),
  },
  PERFGATE_FAIL_ON: {
    describe: 'with PERFGATE_REPORT=bot: the verdicts whose check run completes as failure, as the action\'s fail-on: fail (fail, error), warn (also warn and undecided, which are otherwise neutral and pass a required check) or never (a fail or an error is a failure still)',
    default: 'fail',
    read: (value, fail) => {
      if (!core.FAIL_ON.includes(String(value))) throw fail(core.FAIL_ON.join(', '));
      return String(value);
    },
  },
  PERFGATE_THRESHOLDS: {
    describe: 'the thresholds folder whose microbenchmark names tests= accepts',
    default: core.SHIPPED_THRESHOLDS_DIR,
    read: (value, fail, base) => {
      const dir = path.resolve(base, String(value));
      try {
        return core.loadThresholds(dir);
      } catch (err) {
        throw fail(`a perfgate thresholds folder (${err.message})`);
      }
    },
  },
  PERFGATE_HOST: {
    describe: 'the address to listen on',
    default: '127.0.0.1',
    read: (value, fail) => {
      if (!/^[A-Za-z0-9.:-]+$/.test(String(value))) throw fail('a host name or an IP address such as 127.0.0.1 or 0.0.0.0');
      return String(value);
    },
  },
  PERFGATE_PORT: {
    describe: 'the port to listen on (perfgate bot --port wins)',
    default: null,
    read: integerIn(0, 65535, 'a TCP port'),
  },
  PERFGATE_WORKERS: {
    describe: 'how many queued jobs one process works on at once',
    default: 4,
    read: integerIn(1, 64, 'a number of concurrent jobs'),
  },
  PERFGATE_JOB_LEASE_SECONDS: {
    describe: 'how long a job stays leased to its worker without a renewal; after a crash it is run again this long later',
    default: 60,
    read: integerIn(2, 3600, 'seconds'),
  },
  PERFGATE_SWEEP_SECONDS: {
    describe: 'how often the bot compares unfinished commands with what GitHub shows, and finishes or reports them (also at start, and when GitHub answers again)',
    default: 300,
    read: integerIn(1, 86400, 'seconds'),
  },
  PERFGATE_COMMAND_DEADLINE_SECONDS: {
    describe: 'how long after it arrived a command may still be started; one GitHub did not let start for longer is answered "not started"',
    default: 1800,
    read: integerIn(1, 7 * 86400, 'seconds'),
  },
  PERFGATE_MAX_CONNECTIONS: {
    describe: 'how many client connections the HTTP server holds at once; more are closed as they arrive',
    default: 1024,
    read: integerIn(1, 65535, 'a number of connections'),
  },
  PERFGATE_HEADERS_TIMEOUT_SECONDS: {
    describe: "how long a client has to send a request's headers before it is answered 408 and disconnected",
    default: 10,
    read: integerIn(1, 600, 'seconds'),
  },
  PERFGATE_REQUEST_TIMEOUT_SECONDS: {
    describe: 'how long a client has to send a whole request, body included, before it is answered 408 and disconnected',
    default: 30,
    read: integerIn(1, 3600, 'seconds'),
  },
  PERFGATE_MAX_WEBHOOK_BYTES: {
    describe: 'the largest webhook body accepted (GitHub sends at most 25 MB; the events perfgate acts on carry at most two texts of 65,536 characters, under 1 MiB even escaped)',
    default: 1024 * 1024,
    read: integerIn(1024, 25 * 1024 * 1024, 'bytes'),
  },
  PERFGATE_MAX_WEBHOOK_BYTES_IN_FLIGHT: {
    describe: 'all webhook bodies being read at once, together; a body arriving past it is answered 503 (what many connections can make the bot hold)',
    default: 64 * 1024 * 1024,
    read: integerIn(1024, 1024 * 1024 * 1024, 'bytes'),
  },
  PERFGATE_WEBHOOK_SOURCES: {
    describe: "the networks webhook deliveries may come from, as CIDR blocks separated by commas (GitHub's `hooks` of GET /meta); others are answered 403 before their body is read, so that no one else can hold the bytes in flight and have GitHub's deliveries refused; unset: any (put a buffering reverse proxy in front instead)",
    default: null,
    read: (value, fail) => {
      const blocks = listOf(value).map(cidrBlock);
      if (!blocks.length || blocks.includes(null)) throw fail('CIDR blocks such as 140.82.112.0/20 or 2a0a:a440::/29, separated by commas');
      return blocks;
    },
  },
  PERFGATE_MAX_ARTIFACT_BYTES: {
    describe: "the largest run folder artifact downloaded (zip size); its files may unpack to 4 times as much",
    default: 64 * 1024 * 1024,
    read: integerIn(1024, 2 * 1024 * 1024 * 1024, 'bytes'),
  },
  PERFGATE_DASHBOARD: {
    describe: 'on: serve the read-only dashboard under /dashboard (no login: only on a private network); off: not served',
    default: false,
    read: (value, fail) => {
      if (!['on', 'off'].includes(String(value))) throw fail('on or off');
      return String(value) === 'on';
    },
  },
  PERFGATE_DASHBOARD_HOSTS: {
    describe: 'the host names the dashboard answers for (as the Host header names them, without port), separated by commas; others are answered 421, so that a page of another site cannot read the dashboard through a name of its own that resolves here (DNS rebinding); unset: localhost, 127.0.0.1, ::1 and PERFGATE_HOST',
    default: null,
    read: (value, fail) => {
      const names = listOf(value).map(dashboardHostName);
      if (!names.length || names.includes(null)) throw fail('host names without port such as perf.internal.example, 10.0.0.5 or ::1, separated by commas');
      return names;
    },
  },
};

function readFileSettings(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--config '${file}': cannot read it (${err.code || err.message}); expected a YAML file of KEY: value lines`);
  }
  let data;
  try {
    data = YAML.parse(text);
  } catch (err) {
    throw new UsageError(`${file}: not YAML (${err.message.split('\n')[0]}); expected KEY: value lines`);
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== 'object' || Array.isArray(data)) throw new UsageError(`${file}: expected a mapping of KEY: value lines, found ${Array.isArray(data) ? 'a list' : typeof data}`);
  for (const key of Object.keys(data)) {
    if (!Object.hasOwn(KEYS, key)) throw new UsageError(`${file}: unknown key '${key}'; expected one of ${Object.keys(KEYS).join(', ')}`);
  }
  return data;
}

// Jira's settings, all of them, when it is the tracker.
function jiraSettings(values) {
  if (values.PERFGATE_TRACKER !== 'jira') return null;
  for (const key of ['PERFGATE_JIRA_URL', 'PERFGATE_JIRA_PROJECT', 'PERFGATE_JIRA_USER', 'PERFGATE_JIRA_TOKEN']) {
    if (values[key] === null) throw new UsageError(`${key} is not set: ${KEYS[key].describe}; PERFGATE_TRACKER=jira needs it`);
  }
  return {
    url: values.PERFGATE_JIRA_URL, project: values.PERFGATE_JIRA_PROJECT, issueType: values.PERFGATE_JIRA_ISSUE_TYPE,
    user: values.PERFGATE_JIRA_USER, token: values.PERFGATE_JIRA_TOKEN,
  };
}

/**
 * @param file  the --config file, or null
 * @param env   the environment (its values win over the file's)
 * @param port  --port, or undefined
 * @returns the typed settings: {appId, privateKey, privateKeyFile, webhookSecret, databaseUrl,
 *          apiUrl, repositories, teams, pacing, workflows: {suite: file}, report,
 *          watch: {enabled, branch, workflow, suites}, tracker, thresholds,
 *          host, dashboard, dashboardHosts, port, workers,
 *          http: {maxConnections, headersTimeoutMs, requestTimeoutMs},
 *          leaseSeconds, maxWebhookBytes, maxWebhookBytesInFlight, webhookSources, maxArtifactBytes,
 *          githubTimeoutMs, sweepMs, commandDeadlineMs, warnings: [line]}
 */
function readBotConfig({ file = null, env = {}, port } = {}) {
  const fromFile = file ? readFileSettings(file) : {};
  const base = file ? path.dirname(path.resolve(file)) : process.cwd();
  const values = {};
  const defaulted = new Set();
  for (const [key, spec] of Object.entries(KEYS)) {
    const inEnv = env[key] !== undefined && env[key] !== '';
    const raw = inEnv ? env[key] : fromFile[key];
    const where = inEnv ? 'environment' : file;
    if (raw === undefined || raw === null || raw === '') {
      if (!Object.hasOwn(spec, 'default')) {
        throw new UsageError(`${key} is not set: ${spec.describe}; set it in the environment${file ? ` or in ${file}` : ' or in a --config file'}`);
      }
      values[key] = spec.default === core.SHIPPED_THRESHOLDS_DIR ? spec.read(spec.default, () => {}, base) : spec.default;
      defaulted.add(key);
      continue;
    }
    const shown = spec.secret ? '***' : spec.show ? spec.show(String(raw)) : raw;
    const fail = (expected) => problem(where, key, shown, expected);
    values[key] = spec.read(raw, fail, inEnv ? process.cwd() : base);
  }
  const listenPort = port === undefined ? values.PERFGATE_PORT
    : KEYS.PERFGATE_PORT.read(port, (expected) => new UsageError(`--port '${port}' is not valid; expected ${expected}`));
  if (listenPort === null || listenPort === undefined) throw new UsageError('--port is missing; expected perfgate bot --port <N> (or PERFGATE_PORT)');
  if (values.PERFGATE_MAX_WEBHOOK_BYTES_IN_FLIGHT < values.PERFGATE_MAX_WEBHOOK_BYTES) {
    throw new UsageError(`PERFGATE_MAX_WEBHOOK_BYTES_IN_FLIGHT ${values.PERFGATE_MAX_WEBHOOK_BYTES_IN_FLIGHT} is less than PERFGATE_MAX_WEBHOOK_BYTES ${values.PERFGATE_MAX_WEBHOOK_BYTES}; expected room for at least one body`);
  }
  if (values.PERFGATE_WATCH === 'on') checkSuiteList('PERFGATE_WATCH_SUITES', values.PERFGATE_WATCH_SUITES, values.PERFGATE_THRESHOLDS);
  const signoff = signoffSuites(values.PERFGATE_SIGNOFF_SUITES, values.PERFGATE_THRESHOLDS, { defaulted: defaulted.has('PERFGATE_SIGNOFF_SUITES') });
  const warnings = [...secretFileModes({ keyFile: values.PERFGATE_PRIVATE_KEY_FILE.file, file, fromFile, policy: values.PERFGATE_SECRET_FILES }), ...signoff.warnings];
  if (values.PERFGATE_HEADERS_TIMEOUT_SECONDS > values.PERFGATE_REQUEST_TIMEOUT_SECONDS) {
    throw new UsageError(`PERFGATE_HEADERS_TIMEOUT_SECONDS ${values.PERFGATE_HEADERS_TIMEOUT_SECONDS} is longer than PERFGATE_REQUEST_TIMEOUT_SECONDS ${values.PERFGATE_REQUEST_TIMEOUT_SECONDS}; expected at most the time for the whole request`);
  }
  return {
    appId: values.PERFGATE_APP_ID,
    privateKey: values.PERFGATE_PRIVATE_KEY_FILE.pem,
    privateKeyFile: values.PERFGATE_PRIVATE_KEY_FILE.file,
    webhookSecret: values.PERFGATE_WEBHOOK_SECRET,
    databaseUrl: values.PERFGATE_DATABASE_URL,
    apiUrl: values.GITHUB_API_URL,
    repositories: values.PERFGATE_REPOSITORIES,
    teams: values.PERFGATE_TEAMS,
    pacing: values.PERFGATE_GITHUB_PACING,
    workflows: { quick: values.PERFGATE_COMMAND_WORKFLOW, ahi: values.PERFGATE_COMMAND_WORKFLOW, ddl: values.PERFGATE_COMMAND_WORKFLOW, 'contention-quick': values.PERFGATE_COMMAND_WORKFLOW, tpcc: values.PERFGATE_COMMAND_WORKFLOW, full: values.PERFGATE_FULL_WORKFLOW, [bisectContract.SUITE]: values.PERFGATE_BISECT_WORKFLOW, signoff: values.PERFGATE_SIGNOFF_WORKFLOW },
    signoffSuites: signoff.suites,
    bisect: { pollSeconds: values.PERFGATE_BISECT_POLL_SECONDS, maxHours: values.PERFGATE_BISECT_MAX_HOURS },
    report: values.PERFGATE_REPORT,
    failOn: values.PERFGATE_FAIL_ON,
    watch: {
      enabled: values.PERFGATE_WATCH === 'on', branch: values.PERFGATE_WATCH_BRANCH, workflow: values.PERFGATE_WATCH_WORKFLOW, suites: values.PERFGATE_WATCH_SUITES,
      changePointPython: values.PERFGATE_CHANGE_POINT_PYTHON,
    },
    tracker: values.PERFGATE_TRACKER,
    jira: jiraSettings(values),
    thresholds: values.PERFGATE_THRESHOLDS,
    host: values.PERFGATE_HOST,
    dashboard: values.PERFGATE_DASHBOARD,
    dashboardHosts: values.PERFGATE_DASHBOARD_HOSTS || defaultDashboardHosts(values.PERFGATE_HOST),
    port: listenPort,
    workers: values.PERFGATE_WORKERS,
    leaseSeconds: values.PERFGATE_JOB_LEASE_SECONDS,
    sweepMs: values.PERFGATE_SWEEP_SECONDS * 1000,
    commandDeadlineMs: values.PERFGATE_COMMAND_DEADLINE_SECONDS * 1000,
    http: {
      maxConnections: values.PERFGATE_MAX_CONNECTIONS,
      headersTimeoutMs: values.PERFGATE_HEADERS_TIMEOUT_SECONDS * 1000,
      requestTimeoutMs: values.PERFGATE_REQUEST_TIMEOUT_SECONDS * 1000,
    },
    maxWebhookBytes: values.PERFGATE_MAX_WEBHOOK_BYTES,
    maxWebhookBytesInFlight: values.PERFGATE_MAX_WEBHOOK_BYTES_IN_FLIGHT,
    webhookSources: values.PERFGATE_WEBHOOK_SOURCES,
    maxArtifactBytes: values.PERFGATE_MAX_ARTIFACT_BYTES,
    githubTimeoutMs: values.PERFGATE_GITHUB_TIMEOUT_SECONDS * 1000,
    // What the bot logs when it starts (PERFGATE_SECRET_FILES=warn).
    warnings,
  };
}

/** The settings, one `KEY: what it is (default)` line each, for --help. */
function describeKeys() {
  return Object.entries(KEYS).map(([key, spec]) => {
    const shown = !Object.hasOwn(spec, 'default') ? 'required'
      : spec.default === core.SHIPPED_THRESHOLDS_DIR ? 'default: the shipped thresholds/'
        : spec.default === false ? 'default: off' : Array.isArray(spec.default) ? 'default: none' : spec.default === null ? 'no default' : `default: ${spec.default}`;
    return `  ${key.padEnd(28)} ${spec.describe} (${shown})`;
  }).join('\n');
}

module.exports = { readBotConfig, describeKeys, CONFIG_KEYS: Object.keys(KEYS) };
