// What the action's act tests stand on: perfgate as GitHub would fetch it for
// `uses: perfgate/perfgate/action@<sha>` (its tracked files, no node_modules), a fork that copied
// the example workflows and keeps its thresholds in perfgate/thresholds, GitHub's published
// webhook payloads pointed at them, and a watcher that kills a server of a running job.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ciTool } from './ci-tools.mjs';

const require = createRequire(import.meta.url);
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const EXAMPLES = path.join(ROOT, '.github', 'examples');
export const REPOSITORY = 'perfgate-test/fork';
export const SERVERS = path.join(process.env.PERFGATE_CACHE || path.join(process.env.HOME, '.cache', 'perfgate'), 'servers');
export const BASE_BASEDIR = path.join(SERVERS, 'mariadb-10.11.18', 'usr');
export const HEAD_BASEDIR = path.join(SERVERS, 'mariadb-10.11.19', 'usr');

/** The `owner/name@sha` the example workflows pin perfgate's action to. */
/**
 * Throws, naming what to install, unless act, actionlint, the two Debian MariaDB builds and
 * sysbench are here: what a workflow measuring the two servers under act needs. `purpose`
 * says what needs them, in the message.
 */
export function requireActAndServers(purpose) {
  ciTool('act');
  ciTool('actionlint');
  const missing = [BASE_BASEDIR, HEAD_BASEDIR].filter((dir) => !existsSync(path.join(dir, 'sbin/mariadbd')));
  if (missing.length) throw new Error(`${purpose} measures Debian's MariaDB builds: ${missing.join(', ')} missing; run make setup`);
  try {
    execFileSync('sysbench', ['--version']);
  } catch {
    throw new Error('sysbench is missing: run `make setup` (it installs Debian\'s sysbench 1.0.20)');
  }
}

export function pinnedAction() {
  const text = readFileSync(path.join(EXAMPLES, 'perf-pr.yml'), 'utf8');
  const match = /uses: ([\w.-]+\/[\w.-]+)\/action@([0-9a-f]{40})/.exec(text);
  if (!match) throw new Error('perf-pr.yml pins no perfgate action (uses: owner/name/action@<40 hex>)');
  return `${match[1]}@${match[2]}`;
}

/** perfgate's tracked files as they are in this work tree: what GitHub downloads for the action. */
export function exportPerfgate(target) {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    const from = path.join(ROOT, file);
    try {
      cpSync(from, path.join(target, file));
    } catch (error) {
      if (error.code !== 'ENOENT') throw error; // deleted in the work tree, not yet committed
    }
  }
  return target;
}

/**
 * A tiny suite in the fork's thresholds folder: one microbenchmark, rounds of `seconds`, no
 * extra rounds, so one comparison takes seconds. Limits as given; with `instructions` ({warn,
 * fail} of instr/o), two counted windows per side too, for runs with metric=both.
 */
export function tinySuite({ suite = 'quick', limits = { warn: 0.5, fail: 0.2 }, rounds = 3, seconds = 1, threads = 1, benchmarks = ['point-query'], instructions = null } = {}) {
  const counted = instructions ? `, instructions: {warn: ${instructions.warn}, fail: ${instructions.fail}}` : '';
  return `suite: ${suite}
description: A tiny suite for the action's act tests
profile: mariadb
scale:
  tables: 1
  rows: 1000
measure:
  threads: ${threads}
  seconds: ${seconds}
  warmup_seconds: 0
  rounds: ${rounds}
${instructions ? 'instructions:\n  windows: 2\n  seed: 1\n' : ''}limits:
  default: {warn: ${limits.warn}, fail: ${limits.fail}${counted}}
budget:
  extra_pairs: 0
  minutes: 10
benchmarks:
${benchmarks.map((name) => `  - ${name}`).join('\n')}
`;
}

/**
 * A tiny AHI suite (`ahi-quick` as perf-pr.yml runs it): point selects alone and with 2%
 * indexed updates, AHI off and on, one client thread, rounds of `seconds`.
 */
export function tinyAhiSuite({ suite = 'ahi-quick', limits = { warn: 0.5, fail: 0.2 }, rounds = 3, seconds = 1 } = {}) {
  return `suite: ${suite}
description: A tiny AHI suite for the action's act tests
scale:
  tables: 1
  rows: 1000
measure:
  threads: [1]
  seconds: ${seconds}
  warmup_seconds: 0
  rounds: ${rounds}
ahi:
  states: ["off", "on"]
  workloads:
    - {name: point-select, update_percent: 0}
    - {name: point-select+2%update-index, update_percent: 2, update: index}
limits:
  default: {warn: ${limits.warn}, fail: ${limits.fail}}
  ahi_gain: {warn: ${limits.warn}, fail: ${limits.fail}}
budget:
  extra_pairs: 0
  minutes: 10
`;
}

/** A tiny DDL suite (`ddl-quick` as perf-pr.yml runs it): one index build on a small table. */
export function tinyDdlSuite({ suite = 'ddl-quick', limits = { warn: 0.5, fail: 0.2 }, rounds = 2 } = {}) {
  return `suite: ${suite}
description: A tiny DDL suite for the action's act tests
profile: {mariadb: ddl-mariadb, mysql: ddl-mysql, percona: ddl-mysql}
scale:
  tables: 1
  rows: 2000
measure:
  threads: 1
  seconds: 1
  warmup_seconds: 0
  rounds: ${rounds}
  signals: [time]
limits:
  default: {warn: ${limits.warn}, fail: ${limits.fail}}
budget:
  extra_pairs: 0
  minutes: 10
explain: {rows: 0}
benchmarks:
  - add-index
`;
}

/** A tiny contention slice (`contention-quick` as perf-pr.yml runs it): a hot row at 4 client threads. */
export function tinyContentionSuite({ limits = { warn: 0.5, fail: 0.2 }, rounds = 2 } = {}) {
  return tinySuite({ suite: 'contention-quick', limits, rounds, threads: 4, benchmarks: ['update-one_range=100'] });
}

/** Every suite perf-pr.yml runs, tiny, with one set of limits: what a fork's thresholds hold. */
export function tinyPullRequestSuites({ limits = { warn: 0.5, fail: 0.2 }, quick = {} } = {}) {
  return {
    quick: tinySuite({ limits, ...quick }),
    'ahi-quick': tinyAhiSuite({ limits }),
    'ddl-quick': tinyDdlSuite({ limits }),
    'contention-quick': tinyContentionSuite({ limits }),
  };
}

const GIT_IDENTITY = ['-c', 'user.name=perfgate test', '-c', 'user.email=test@perfgate.invalid'];

/**
 * A fork's repository: the base commit holds the example workflows (under .github/workflows,
 * as a fork copies them) and `baseSuites`; the head commit changes the source and writes
 * `headSuites` over them (a pull request loosening its own gate). The work tree is left at
 * the head, as actions/checkout leaves it.
 * @returns {repo, baseSha, headSha}
 */
export function makeFork(folder, { baseSuites, headSuites = {} }) {
  const repo = path.join(folder, 'fork');
  mkdirSync(path.join(repo, '.github', 'workflows'), { recursive: true });
  for (const name of readdirSync(EXAMPLES)) cpSync(path.join(EXAMPLES, name), path.join(repo, '.github', 'workflows', name));
  cpSync(path.join(ROOT, '.github', 'actionlint.yaml'), path.join(repo, '.github', 'actionlint.yaml'));
  const git = (...args) => execFileSync('git', [...GIT_IDENTITY, ...args], { cwd: repo, encoding: 'utf8' }).trim();
  const writeSuites = (suites) => {
    for (const [name, text] of Object.entries(suites)) {
      mkdirSync(path.join(repo, 'perfgate', 'thresholds', 'suites'), { recursive: true });
      writeFileSync(path.join(repo, 'perfgate', 'thresholds', 'suites', `${name}.yml`), text);
    }
  };
  writeFileSync(path.join(repo, 'server.c'), 'int main(void) { return 0; }\n');
  writeSuites(baseSuites);
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  const baseSha = git('rev-parse', 'HEAD');
  git('checkout', '-q', '-b', 'feature');
  writeFileSync(path.join(repo, 'server.c'), 'int main(void) { return 1; }\n');
  writeSuites(headSuites);
  git('add', '-A');
  git('commit', '-q', '-m', 'head');
  const headSha = git('rev-parse', 'HEAD');
  return { repo, baseSha, headSha };
}

function examplePayload(name, pick = () => true) {
  const examples = require('@octokit/webhooks-examples');
  return structuredClone(examples.find((entry) => entry.name === name).examples.find(pick));
}

function pointRepository(repo, fullName) {
  const [owner, name] = fullName.split('/');
  repo.name = name;
  repo.full_name = fullName;
  repo.owner.login = owner;
  repo.default_branch = 'main';
}

/**
 * GitHub's published pull_request "opened" delivery, moved to the test repository, the given
 * commits and author. `fork` names the repository the head branch is in (a fork), else the
 * head branch is in the repository itself.
 */
export function pullRequestEvent({ number, baseSha, headSha, author, association = 'CONTRIBUTOR', fork = null }) {
  const event = examplePayload('pull_request', (example) => example.action === 'opened');
  for (const repo of [event.repository, event.pull_request.base.repo]) pointRepository(repo, REPOSITORY);
  pointRepository(event.pull_request.head.repo, fork || REPOSITORY);
  event.pull_request.head.repo.fork = true; // the fork of MariaDB is itself a fork: not the test
  event.number = number;
  event.pull_request.number = number;
  event.pull_request.head.sha = headSha;
  event.pull_request.head.ref = 'feature';
  event.pull_request.base.sha = baseSha;
  event.pull_request.base.ref = 'main';
  event.pull_request.user.login = author;
  event.pull_request.author_association = association;
  event.sender.login = author;
  return event;
}

/** GitHub's published workflow_dispatch delivery with these inputs (strings, as GitHub sends them). */
export function workflowDispatchEvent({ workflow, inputs, sender = 'perfgate[bot]' }) {
  const event = examplePayload('workflow_dispatch');
  pointRepository(event.repository, REPOSITORY);
  event.inputs = Object.fromEntries(Object.entries(inputs).map(([key, value]) => [key, String(value)]));
  event.ref = 'refs/heads/main';
  event.workflow = `.github/workflows/${workflow}`;
  event.sender.login = sender;
  return event;
}

/** The double's pull request for the same pull request. */
export function doublePullRequest({ number, baseSha, headSha, author, association = 'CONTRIBUTOR', fork = null }) {
  return {
    repository: REPOSITORY,
    number,
    user: author,
    authorAssociation: association,
    head: { ref: 'feature', sha: headSha, ...(fork ? { repository: fork } : {}) },
    base: { ref: 'main', sha: baseSha },
  };
}

/** mariadbd processes whose command line holds `marker` (a folder only this test uses). */
export function serversUnder(marker) {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (/mariadbd|mysqld/.test(path.basename(cmdline[0] || '')) && cmdline.some((arg) => arg.includes(marker))) {
      found.push({ pid: Number(entry), cmdline: cmdline.join(' ') });
    }
  }
  return found;
}

/**
 * Kills (SIGKILL) the first server whose command line holds both `marker` and `side`'s
 * folder (of the run folder `run`, e.g. perfgate-quick, when given), once it has run for
 * `afterMs`. Resolves to what it killed, or null when stopped first.
 */
export function killServerWhenUp({ marker, side = 'head', run = '', afterMs = 3000, pollMs = 100 }) {
  const folder = `${run ? `/${run}` : ''}/servers/${side}/`;
  let stopped = false;
  const done = new Promise((resolve) => {
    let seenAt = null;
    const tick = () => {
      if (stopped) return resolve(null);
      const server = serversUnder(marker).find((entry) => entry.cmdline.includes(folder));
      if (server) {
        seenAt ??= Date.now();
        if (Date.now() - seenAt >= afterMs) {
          try {
            process.kill(server.pid, 'SIGKILL');
            return resolve(server);
          } catch {
            // gone already: look again
          }
        }
      } else {
        seenAt = null;
      }
      setTimeout(tick, pollMs);
    };
    tick();
  });
  return { done, stop: () => { stopped = true; } };
}
