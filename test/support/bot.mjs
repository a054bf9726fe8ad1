// Test support for perfgate's GitHub App: a GitHub double set up with the App, one installation
// and a pull request; the bot started on it (in this process, or as `perfgate bot`); GitHub's
// published webhook payloads (@octokit/webhooks-examples) rewritten for the repository under
// test and delivered signed, as GitHub delivers them.
import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { sign } from '@octokit/webhooks-methods';
import { startGitHubDouble } from './github-api/index.mjs';

const require = createRequire(import.meta.url);
const bot = require('../../bot/src/index.js');

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const PERFGATE = path.join(ROOT, 'cli/bin/perfgate.js');
export const REPOSITORY = 'perfgate-test/fork';
export const OWNER = 'perfgate-test';
export const APP_ID = 424242;
export const INSTALLATION_ID = 777;
export const WEBHOOK_SECRET = 'test-webhook-secret-0123456789';
export const BASE_SHA = 'b'.repeat(40);
export const HEAD_SHA = 'a'.repeat(40);
export const PR = 7;
// Users and what they may do in the repository.
export const USERS = { maintainer: 'write', reader: 'read', admin: 'admin', triager: 'triage', teamster: 'read' };
export const TEAM = 'perfgate-test/perf-team';
const TOKENS = Object.fromEntries(Object.keys(USERS).map((login) => [`ghp_${login}TokenForTheDouble000000`, login]));

let keys;
/** One RSA key pair per test process: the App's private key and the public key the double checks. */
export function appKeys() {
  keys ||= generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return keys;
}

/**
 * A double with the App installed on the repository, perf-command.yml, and pull request #7 (and
 * any other numbers in `prs`, with the same base and head), all open.
 */
export async function startDouble({ artifactsDir, headSha = HEAD_SHA, baseSha = BASE_SHA, prs = [PR], extra = {} } = {}) {
  return startGitHubDouble({
    repositories: [REPOSITORY, 'perfgate-test/elsewhere'],
    tokens: TOKENS,
    users: Object.keys(USERS),
    permissions: { [REPOSITORY]: USERS },
    teams: { [TEAM]: { teamster: 'member' } },
    workflows: { [REPOSITORY]: ['perf-command.yml', 'perf-full.yml'].map((file) => ({ file, runName: bot.contract.RUN_NAME })) },
    dispatchStartsRun: true,
    pullRequests: prs.map((number) => ({ repository: REPOSITORY, number, title: `Faster update-index (#${number})`, user: 'contributor', head: { ref: `feature-${number}`, sha: headSha }, base: { ref: 'main', sha: baseSha } })),
    app: {
      id: APP_ID,
      slug: 'perfgate',
      publicKey: appKeys().publicKey,
      installations: [{ id: INSTALLATION_ID, account: OWNER, repositories: [REPOSITORY] }],
    },
    artifactsDir,
    ...extra,
  });
}

/** The environment `perfgate bot` reads, for a double at apiUrl; the key file goes in folder. */
export function botEnvironment({ folder, apiUrl, databaseUrl, extra = {} }) {
  const keyFile = path.join(folder, 'app.pem');
  writeFileSync(keyFile, appKeys().privateKey, { mode: 0o600 });
  return {
    PERFGATE_APP_ID: String(APP_ID),
    PERFGATE_PRIVATE_KEY_FILE: keyFile,
    PERFGATE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    PERFGATE_DATABASE_URL: databaseUrl || path.join(folder, 'history.db'),
    GITHUB_API_URL: apiUrl,
    PERFGATE_REPOSITORIES: REPOSITORY,
    PERFGATE_TEAMS: TEAM,
    PERFGATE_GITHUB_PACING: 'none',
    // Most tests watch the bot's own check run and sticky comment; those of the example
    // workflows' way set PERFGATE_REPORT=workflow.
    PERFGATE_REPORT: 'bot',
    ...extra,
  };
}

/** Collects the bot's log lines (and shows them when PERFGATE_TEST_LOG is set). */
export function memoryLog() {
  const lines = [];
  const line = (level) => (message) => {
    lines.push(`${level} ${message}`);
    if (process.env.PERFGATE_TEST_LOG) process.stderr.write(`[bot] ${level} ${message}\n`);
  };
  return { lines, info: line('info'), warn: line('warn'), error: line('error') };
}

/**
 * The bot in this process on a fresh SQLite store (or databaseUrl), with a double. Retries and
 * polls are quick so that tests of faults do not wait GitHub's real seconds.
 */
export async function startBotOn(gh, { databaseUrl, env = {}, workers = 2, worker = {} } = {}) {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bot-test-'));
  const log = memoryLog();
  let config;
  let running;
  try {
    config = bot.readBotConfig({ env: botEnvironment({ folder, apiUrl: gh.url, databaseUrl, extra: { PERFGATE_WORKERS: String(workers), ...env } }), port: '0' });
    running = await bot.startBot(config, { log, github: { retryBaseMs: 20 }, worker: { pollMs: 50, backoffFirstMs: 100, ...worker } });
  } catch (err) {
    // A start the test expects to fail leaves no key file behind.
    rmSync(folder, { recursive: true, force: true });
    throw err;
  }
  return {
    ...running,
    config,
    log,
    folder,
    deliver: (name, payload, options) => deliver(running.url, name, payload, options),
    async close() {
      await running.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/**
 * For one describe: the double with pull requests `prs` (and an artifacts folder when asked),
 * `front(gh)` in front of it when given (a proxy), the bot in this process on that, and the
 * openings of `prs` delivered; all closed after the describe.
 * -> {gh, front, running, artifactsDir}, filled before the describe's tests run
 */
export function botInProcess({ prs, env = {}, worker = {}, artifacts = false, front = null }) {
  const fixture = {};
  before(async () => {
    if (artifacts) fixture.artifactsDir = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bot-artifacts-'));
    fixture.gh = await startDouble({ prs, artifactsDir: fixture.artifactsDir });
    fixture.front = front ? await front(fixture.gh) : null;
    fixture.running = await startBotOn(fixture.front || fixture.gh, { env, worker });
    await openPulls(fixture.running, prs);
  });
  after(async () => {
    await fixture.running?.close();
    await fixture.front?.close();
    await fixture.gh?.close();
    if (fixture.artifactsDir) rmSync(fixture.artifactsDir, { recursive: true, force: true });
  });
  return fixture;
}

/**
 * For one describe: the double with pull requests `prs` and an artifacts folder, and `perfgate
 * bot` as its own process as often as a test calls spawn(), every time on the same database with
 * the settings `extra`; each process killed and the folder removed after the describe.
 * -> {gh, env, folder, artifactsDir, spawn()}
 */
export function spawnedBots({ prs, extra = {} }) {
  const children = [];
  const fixture = {
    async spawn() {
      const spawned = await spawnBot({ env: fixture.env });
      children.push(spawned.child);
      return spawned;
    },
  };
  before(async () => {
    fixture.folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bot-spawned-'));
    fixture.artifactsDir = path.join(fixture.folder, 'artifacts');
    fixture.gh = await startDouble({ prs, artifactsDir: fixture.artifactsDir });
    fixture.env = botEnvironment({ folder: fixture.folder, apiUrl: fixture.gh.url, extra });
  });
  after(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await fixture.gh?.close();
    if (fixture.folder) rmSync(fixture.folder, { recursive: true, force: true });
  });
  return fixture;
}

/** The end of a test that spawned the bot: the bot stopped (SIGTERM), the double closed, its folder removed. */
export async function stopSpawnedBot({ botProcess, gh, folder }) {
  if (botProcess && botProcess.child.exitCode === null) {
    botProcess.child.kill('SIGTERM');
    await botProcess.exited;
  }
  await gh?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
}

/** `perfgate bot` as its own process; resolves once it listens. */
export async function spawnBot({ env, args = ['--port', '0'] }) {
  const child = spawn(process.execPath, [PERFGATE, 'bot', ...args], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const m = /listening on (http:\/\/[^ ]+)/.exec(stderr);
      if (m) resolve(m[1]);
    });
    exited.then(({ code, signal }) => reject(new Error(`perfgate bot exited (${code ?? signal}) before listening:\n${stderr}`)));
  });
  return {
    child,
    url,
    exited,
    stderr: () => stderr,
    deliver: (name, payload, options) => deliver(url, name, payload, options),
  };
}

/** Sends a webhook delivery as GitHub does: JSON body, event and delivery headers, HMAC-SHA256 signature. */
export async function deliver(url, name, payload, { deliveryId = randomUUID(), secret = WEBHOOK_SECRET, headers = {}, body } = {}) {
  const text = body ?? JSON.stringify(payload);
  const started = performance.now();
  const response = await fetch(`${url}/api/github/webhooks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/perfgate-test',
      'x-github-event': name,
      'x-github-delivery': deliveryId,
      'x-hub-signature-256': await sign(secret, text),
      ...headers,
    },
    body: text,
  });
  return { status: response.status, text: (await response.text()).trim(), ms: performance.now() - started, deliveryId };
}

// --- GitHub's published payloads, rewritten -------------------------------------------------

const examples = require('@octokit/webhooks-examples');

/** GitHub's example of a `name`.`action` delivery: the first that `prefer`s, else the first. */
export function published(name, action, prefer = () => true) {
  const found = examples.find((entry) => entry.name === name).examples.filter((example) => example.action === action);
  if (!found.length) throw new Error(`@octokit/webhooks-examples has no ${name}.${action}`);
  return structuredClone(found.find(prefer) || found[0]);
}

// GitHub's timestamps: UTC, whole seconds.
const timestampOf = (date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

function moveTo(payload, repository) {
  const [owner, name] = repository.split('/');
  payload.repository.name = name;
  payload.repository.full_name = repository;
  payload.repository.owner.login = owner;
  payload.repository.html_url = `https://github.com/${repository}`;
  return payload;
}

function asInstallation(payload, installationId) {
  if (installationId === null) delete payload.installation;
  else payload.installation = { ...(payload.installation || {}), id: installationId };
  return payload;
}

/**
 * issue_comment.created on pull request #pr: GitHub's example with the comment the double holds
 * (comment = what the double's API returned when the user posted it).
 */
export function commentEvent({ comment, user = comment.user.login, pr = PR, repository = REPOSITORY, action = 'created', installationId = INSTALLATION_ID, userType = 'User' }) {
  const payload = published('issue_comment', action, (e) => e.installation);
  moveTo(payload, repository);
  asInstallation(payload, installationId);
  payload.issue.number = pr;
  payload.issue.pull_request = {
    url: `https://api.github.com/repos/${repository}/pulls/${pr}`,
    html_url: `https://github.com/${repository}/pull/${pr}`,
    diff_url: `https://github.com/${repository}/pull/${pr}.diff`,
    patch_url: `https://github.com/${repository}/pull/${pr}.patch`,
    merged_at: null,
  };
  Object.assign(payload.comment, { id: comment.id, body: comment.body, created_at: comment.created_at, updated_at: comment.updated_at, html_url: comment.html_url });
  payload.comment.user = { ...payload.comment.user, login: user, type: userType };
  payload.sender = { ...payload.sender, login: user, type: userType };
  return payload;
}

/** pull_request.synchronize of #pr: a push that made headSha the head, at `at`. */
export function pushEvent({ headSha, pr = PR, at = new Date(), action = 'synchronize', repository = REPOSITORY }) {
  const payload = published('pull_request', action);
  moveTo(payload, repository);
  asInstallation(payload, INSTALLATION_ID);
  payload.number = pr;
  payload.pull_request.number = pr;
  payload.after = headSha;
  payload.pull_request.head.sha = headSha;
  payload.pull_request.updated_at = timestampOf(at);
  if (action === 'closed') payload.pull_request.closed_at = payload.pull_request.updated_at;
  return payload;
}

/**
 * pull_request.opened (or .reopened) of #pr with head headSha, stamped `at`: what the bot pins
 * a later /perf's head from. The default, ten minutes ago, is before any comment a test posts
 * by more than the margin of GitHub's stamps (approval.js).
 */
export function openedEvent({ pr = PR, headSha = HEAD_SHA, at = new Date(Date.now() - 600_000), action = 'opened', repository = REPOSITORY }) {
  const payload = published('pull_request', action, (e) => e.installation);
  moveTo(payload, repository);
  asInstallation(payload, INSTALLATION_ID);
  payload.number = pr;
  Object.assign(payload.pull_request, { number: pr, state: 'open', created_at: timestampOf(at), updated_at: timestampOf(at), closed_at: null });
  payload.pull_request.head.sha = headSha;
  return payload;
}

/** The opening of each of `prs` delivered to the bot (200 'head recorded' each). */
export async function openPulls(target, prs, options = {}) {
  for (const pr of prs) {
    const answer = await target.deliver('pull_request', openedEvent({ pr, ...options }));
    if (answer.status !== 200 || answer.text !== 'head recorded') throw new Error(`opening #${pr}: ${answer.status} ${answer.text}`);
  }
}

/** A push to the repository's branch `ref` (main by default), from `before` to `after`: one commit. */
export function mainPushEvent({ before: from, after: to, ref = 'refs/heads/main', defaultBranch = 'main' }) {
  const payload = published('push', undefined, (e) => e.ref.startsWith('refs/heads/') && e.installation);
  payload.ref = ref;
  payload.before = from;
  payload.after = to;
  payload.repository.default_branch = defaultBranch;
  moveTo(payload, REPOSITORY);
  payload.commits = [{ ...payload.commits[0], id: to, message: 'Faster update-index\n\nbody' }];
  return payload;
}

/**
 * workflow_run.completed of a run as the double's API shows it (by default the dispatched
 * perf-command.yml run): its event, actor and triggering actor are the run's.
 */
export function workflowRunEvent({ run, conclusion = 'success', installationId = INSTALLATION_ID, repository = REPOSITORY, workflow = 'perf-command.yml' }) {
  const payload = published('workflow_run', 'completed', (e) => e.workflow_run.conclusion === 'success');
  moveTo(payload, repository);
  asInstallation(payload, installationId);
  Object.assign(payload.workflow_run, {
    id: run.id,
    path: `.github/workflows/${workflow}`,
    event: run.event ?? 'workflow_dispatch',
    actor: { ...payload.workflow_run.actor, ...run.actor },
    triggering_actor: { ...payload.workflow_run.triggering_actor, ...run.triggering_actor },
    display_title: run.display_title,
    run_attempt: run.run_attempt || 1,
    status: 'completed',
    conclusion,
    html_url: run.html_url,
  });
  return payload;
}

// --- acting as people and as GitHub ---------------------------------------------------------

/**
 * `body` commented by the maintainer on `pr` and delivered to the spawned bot `target`, which is
 * killed (SIGKILL) while GitHub holds its call `operationId`; the call then goes through, as
 * GitHub carries out a call whose answer nobody reads any more. -> the comment
 */
export async function killedDuring(gh, target, operationId, { body, pr }) {
  const hold = gh.holdNext(operationId);
  const comment = await postComment(gh, 'maintainer', body, { pr });
  const answer = await target.deliver('issue_comment', commentEvent({ comment, pr }));
  if (answer.status !== 202) throw new Error(`delivering ${body}: ${answer.status} ${answer.text}`);
  await hold.arrived;
  target.child.kill('SIGKILL');
  await target.exited;
  hold.release();
  return comment;
}

/** Posts a comment on the pull request as `login` through the double's API; returns GitHub's comment. */
export async function postComment(gh, login, body, { pr = PR } = {}) {
  const token = Object.entries(TOKENS).find(([, who]) => who === login)?.[0];
  if (!token) throw new Error(`no token for ${login}`);
  const response = await fetch(`${gh.url}/repos/${REPOSITORY}/issues/${pr}/comments`, {
    method: 'POST',
    headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ body }),
  });
  if (response.status !== 201) throw new Error(`posting a comment as ${login}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** A command comment by `login`, posted and delivered; returns {comment, answer}. */
export async function command(gh, target, login, body, options = {}) {
  const comment = await postComment(gh, login, body, options);
  const answer = await target.deliver('issue_comment', commentEvent({ comment, ...options }));
  return { comment, answer };
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns something truthy (returned), or fails after timeoutMs. */
export async function waitFor(what, check, { timeoutMs = 20_000, everyMs = 25 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await check();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Waits until the bot's queue is empty and no job is in hand. */
export async function settled(running, timeoutMs = 20_000) {
  await waitFor('the queue to drain', async () => {
    const depth = await bot.queueDepth(running.store);
    return depth.queued === 0 && depth.running === 0 && running.worker.active === 0;
  }, { timeoutMs });
}

/** The comments of the pull request the bot wrote. */
export function botComments(gh, pr = PR) {
  return gh.state.comments(REPOSITORY, pr).filter((c) => c.user.login === 'perfgate[bot]');
}

/** The calls the bot made, as operation ids (the App's and its installation's). */
export function botCalls(gh) {
  return gh.calls.filter((call) => call.identity.login === 'perfgate[bot]').map((call) => call.operationId);
}

// --- run folders and artifacts -------------------------------------------------------------

const core = require('@perfgate/core');
const { capturedResults, loadResults } = require('./captured-results.js');

/**
 * A run folder as the action's measure job leaves it, from a real captured quick run:
 * action-run.json, plan.json, results.json (the commits measured set to baseSha/headSha),
 * verdict.json judged from it with the quick suite's limits, and comment.md. `edit(files)` may
 * change the documents.
 */
export function runFolderFiles({ baseSha = BASE_SHA, headSha = HEAD_SHA, suite = 'quick', pr = PR, shard = null, edit = () => {} } = {}) {
  const results = loadResults(capturedResults().find((c) => c.name === 'quick-tiny').file);
  results.plan.suite = suite;
  for (const [side, sha] of [['base', baseSha], ['head', headSha]]) {
    results.sides[side].commit = sha;
    results.plan.sides[side].commit = sha;
  }
  // A copy: judge() shares objects with the results, and edits must reach one document only.
  const verdict = structuredClone(core.judge(results, core.findSuite(core.loadThresholds(), 'quick')));
  verdict.suite = suite;
  // What the action's measure job writes beside them (schema/action-run.schema.json).
  const actionRun = {
    schema: 'perfgate.action-run/v1', suite, shard, pull_request: pr, base_sha: baseSha, head_sha: headSha, thresholds: null, status: 'judged', message: null,
  };
  const files = { 'action-run.json': actionRun, 'plan.json': results.plan, 'results.json': results, 'verdict.json': verdict };
  edit(files);
  return {
    ...Object.fromEntries(Object.entries(files).map(([name, doc]) => [name, JSON.stringify(doc, null, 2)])),
    'comment.md': core.renderComment(verdict),
  };
}

/**
 * Writes an artifact where act's artifact server would (DIR/<run id>/<name>/<name>.zip), made by
 * Python's zipfile: an independent writer that also writes what a hostile run could
 * (paths with '..', absolute paths, symbolic links). entries: {path: text} or
 * [{name, text, symlink?}].
 */
export function writeArtifact(artifactsDir, runId, name, entries) {
  const list = Array.isArray(entries) ? entries : Object.entries(entries).map(([entry, text]) => ({ name: entry, text }));
  const folder = path.join(artifactsDir, String(runId), name);
  execFileSync('mkdir', ['-p', folder]);
  const script = `
import json, sys, zipfile
spec = json.load(sys.stdin)
with zipfile.ZipFile(spec['zip'], 'w', zipfile.ZIP_DEFLATED) as z:
    for e in spec['entries']:
        info = zipfile.ZipInfo(e['name'])
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = ((0o120777 if e.get('symlink') else 0o100644) << 16)
        z.writestr(info, e['text'])
`;
  const zip = path.join(folder, `${name}.zip`);
  execFileSync('python3', ['-c', script], { input: JSON.stringify({ zip, entries: list }) });
  return zip;
}

export { bot };
