#!/usr/bin/env node
// The bot under GitHub's weather for ten minutes: `perfgate bot` (its own process, SQLite,
// PERFGATE_REPORT=workflow: one reply per command) behind a chaos proxy that fails a share of
// its calls to the GitHub double at random (502, reset, hang; before or after forwarding), a
// steady rate of mixed deliveries, and one SIGKILL of the bot a minute (started again at once).
// Afterwards: commands in, dispatches, replies and runs stored, which must all be equal (none
// lost, none doubled), no head dispatched that was pushed near or after its command, and the
// bot's memory (RSS) and file descriptors over time.
//
//   nice -n 10 node bench/bot-soak.mjs [--minutes 10] [--rate 2] [--fail 0.05] [--seed 1]
//        [--kill-every 60] [--drain-minutes 5] [--out bench/results/bot-soak-<date>.txt]
//
// Deliveries, at --rate a second, drawn from: a maintainer's /perf quick on a pull request
// nobody pushes to (must be dispatched, answered once and, once its run completes, stored); a
// push stamped within a minute of a /perf quick, in either delivery order (must not be
// dispatched; answered once); a push stamped well before one (its head is dispatched);
// a reader's /perf quick, /perf help, a comment without a command; a delivery sent again;
// each dispatched run's completion 5-20 s later (a tenth of them delivered twice). A delivery
// the bot does not take (it is down, or answers 5xx) is sent again each second, as an operator
// redelivers it.
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, copyFileSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import {
  bot, botComments, botEnvironment, commentEvent, openedEvent, postComment, pushEvent, REPOSITORY, runFolderFiles, spawnBot, startDouble,
  workflowRunEvent, writeArtifact, deliver, BASE_SHA,
} from '../test/support/bot.mjs';
import { startChaosProxy } from '../test/support/github-api/chaos-proxy.mjs';

// Every option is a string with a default.
const DEFAULTS = {
  minutes: '10', rate: '2', fail: '0.05', seed: '1', 'kill-every': '60', 'drain-minutes': '5', out: `bench/results/bot-soak-${new Date().toISOString().slice(0, 10)}.txt`,
};
const { values: opt } = parseArgs({ options: Object.fromEntries(Object.entries(DEFAULTS).map(([name, value]) => [name, { type: 'string', default: value }])) });
const MINUTES = Number(opt.minutes);
const RATE = Number(opt.rate);
const KILL_EVERY_MS = Number(opt['kill-every']) * 1000;
const MARGIN_S = 60;
const CLEAN_PRS = Array.from({ length: 40 }, (_, i) => 1000 + i);
const SKEW_PRS = Array.from({ length: 2000 }, (_, i) => 3000 + i);
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });
// This process's own calls to the double, tried again when a kept-alive connection is reset
// under them (a race of Node's HTTP client and server, nothing the bot does).
async function onDouble(call) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (err) {
      if (attempt >= 5 || !/fetch failed/.test(err.message)) throw err;
      await sleep(200);
    }
  }
}
const sha = (n) => n.toString(16).padStart(40, '0');
const lines = [];
const say = (line) => {
  lines.push(line);
  process.stdout.write(`${line}\n`);
};

// A seeded draw for the workload (the proxy has its own).
let seed = Number(opt.seed) * 7919;
const draw = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

const folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bot-soak-'));
const artifactsDir = path.join(folder, 'artifacts');
mkdirSync(artifactsDir);
const gh = await startDouble({ artifactsDir, prs: [...CLEAN_PRS, ...SKEW_PRS] });
const proxy = await startChaosProxy(gh.url);
proxy.failRandomly({ rate: Number(opt.fail), seed: Number(opt.seed) });
const env = botEnvironment({
  folder, apiUrl: proxy.url,
  extra: {
    PERFGATE_REPORT: 'workflow', PERFGATE_WORKERS: '4', PERFGATE_JOB_LEASE_SECONDS: '10', PERFGATE_GITHUB_TIMEOUT_SECONDS: '3', PERFGATE_SWEEP_SECONDS: '15',
  },
});

// --- the bot, killed every minute -----------------------------------------------------------

let current = null;
let kills = 0;
const samples = [];
async function startTheBot() {
  for (;;) {
    try {
      current = await spawnBot({ env });
      return;
    } catch (err) {
      // GitHub's answer to GET /app lost on the way: started again, as systemd would.
      say(`# bot did not start: ${String(err.message).split('\n').at(-2)}`);
      await sleep(1000);
    }
  }
}
function sample(started) {
  if (!current || current.child.exitCode !== null) return;
  const pid = current.child.pid;
  try {
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
    samples.push({ at: Math.round((Date.now() - started) / 1000), incarnation: kills, rssKiB: rss, fds: readdirSync(`/proc/${pid}/fd`).length });
  } catch { /* the bot just exited */ }
}

// --- deliveries ---------------------------------------------------------------------------

const counts = { sent: 0, redelivered: 0, taken: 0 };
const pending = [];
async function send(name, payload, deliveryId = randomUUID()) {
  counts.sent += 1;
  for (;;) {
    try {
      const answer = await deliver(current.url, name, payload, { deliveryId });
      if (answer.status < 500) {
        counts.taken += 1;
        return answer;
      }
    } catch { /* the bot is down */ }
    counts.redelivered += 1;
    await sleep(1000);
  }
}

const clean = new Map(); // comment id -> {pr, head, answer}
const skewed = new Map(); // comment id -> {pr, skew, pushed, approved}
const heads = new Map(); // pr -> head
const recent = [];
let nextSha = 0x5000;

async function cleanCommand() {
  const pr = CLEAN_PRS[Math.floor(draw() * CLEAN_PRS.length)];
  const comment = await onDouble(() => postComment(gh, 'maintainer', '/perf quick', { pr }));
  clean.set(comment.id, { pr, head: heads.get(pr) });
  const payload = commentEvent({ comment, pr });
  recent.push(['issue_comment', payload]);
  await send('issue_comment', payload);
}

let skewPr = 0;
async function skewedCommand() {
  const pr = SKEW_PRS[skewPr++];
  await send('pull_request', openedEvent({ pr, headSha: heads.get(pr), at: new Date(Date.now() - 600_000) }));
  const comment = await onDouble(() => postComment(gh, 'maintainer', '/perf quick', { pr }));
  // Within the margin either side, or well before: the pushed head is approved only then.
  const skew = draw() < 0.2 ? -(MARGIN_S + 30) : Math.round((draw() * 2 - 1) * 30);
  const pushed = sha(nextSha++);
  const entry = { pr, skew, pushed, approved: skew < -MARGIN_S ? pushed : null };
  skewed.set(comment.id, entry);
  const push = pushEvent({ pr, headSha: pushed, at: new Date(Date.parse(comment.created_at) + skew * 1000) });
  gh.state.repoByFullName('r', REPOSITORY).pulls.get(pr).head.sha = pushed;
  heads.set(pr, pushed);
  if (skew < -MARGIN_S || draw() < 0.5) {
    await send('pull_request', push);
    await send('issue_comment', commentEvent({ comment, pr }));
  } else {
    await send('issue_comment', commentEvent({ comment, pr }));
    await send('pull_request', push);
  }
  if (entry.approved) clean.set(comment.id, { pr, head: pushed, skewed: true });
}

async function noise() {
  const pr = CLEAN_PRS[Math.floor(draw() * CLEAN_PRS.length)];
  const pick = draw();
  if (pick < 0.25) {
    const comment = await onDouble(() => postComment(gh, 'reader', '/perf quick', { pr }));
    await send('issue_comment', commentEvent({ comment, pr }));
  } else if (pick < 0.5) {
    const comment = await onDouble(() => postComment(gh, 'maintainer', '/perf help', { pr }));
    await send('issue_comment', commentEvent({ comment, pr }));
  } else if (pick < 0.75) {
    const comment = await onDouble(() => postComment(gh, 'maintainer', 'Looks good to me.', { pr }));
    await send('issue_comment', commentEvent({ comment, pr }));
  } else if (recent.length) {
    // The same delivery again, under a new id (a proxy or GitHub sending it twice).
    const [name, payload] = recent[Math.floor(draw() * recent.length)];
    await send(name, payload);
  }
}

// Runs the bot dispatched, completed 5-20 s later with their run folder.
const completing = new Set();
const template = new Map();
function artifactFor(dispatch) {
  const pr = Number(dispatch.inputs['pull-request']);
  const key = `${pr}/${dispatch.inputs['head-sha']}`;
  if (!template.has(key)) {
    const id = `template-${template.size}`;
    writeArtifact(artifactsDir, id, 'perfgate-quick', runFolderFiles({ pr, baseSha: dispatch.inputs['base-sha'], headSha: dispatch.inputs['head-sha'] }));
    template.set(key, path.join(artifactsDir, id, 'perfgate-quick', 'perfgate-quick.zip'));
  }
  const target = path.join(artifactsDir, String(dispatch.runId), 'perfgate-quick');
  mkdirSync(target, { recursive: true });
  copyFileSync(template.get(key), path.join(target, 'perfgate-quick.zip'));
}
async function complete(dispatch) {
  await sleep(5000 + draw() * 15_000);
  artifactFor(dispatch);
  const run = gh.state.updateWorkflowRun(REPOSITORY, dispatch.runId, { status: 'completed', conclusion: 'success' });
  if (!run) return;
  const answer = await onDouble(async () => (await fetch(`${gh.url}/repos/${REPOSITORY}/actions/runs/${dispatch.runId}`)).json());
  if (answer.conclusion !== 'success') return;
  const payload = workflowRunEvent({ run: answer });
  const deliveryId = randomUUID();
  await send('workflow_run', payload, deliveryId);
  if (draw() < 0.1) await send('workflow_run', payload, deliveryId);
}
function watchDispatches() {
  for (const dispatch of gh.state.dispatches) {
    if (dispatch.runId && !completing.has(dispatch.runId)) {
      completing.add(dispatch.runId);
      // A run the bot cancelled (a push) stays cancelled.
      const run = gh.state.repoByFullName('r', REPOSITORY).runs.get(dispatch.runId);
      if (run.status === 'completed') continue;
      pending.push(complete(dispatch));
    }
  }
}

// --- the run ------------------------------------------------------------------------------

for (const [i, pr] of [...CLEAN_PRS, ...SKEW_PRS].entries()) heads.set(pr, sha(0x1000 + i));
for (const pr of [...CLEAN_PRS, ...SKEW_PRS]) gh.state.repoByFullName('r', REPOSITORY).pulls.get(pr).head.sha = heads.get(pr);
const started = Date.now();
await startTheBot();
for (const pr of CLEAN_PRS) await send('pull_request', openedEvent({ pr, headSha: heads.get(pr), at: new Date(Date.now() - 600_000) }));
say(`# bot soak ${new Date().toISOString()}: ${MINUTES} min at ${RATE} deliveries/s, GitHub failing ${Number(opt.fail) * 100}% of the bot's calls (seed ${opt.seed}), SIGKILL every ${KILL_EVERY_MS / 1000} s`);
say(`# node ${process.version}, ${os.cpus().length} cpus, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);

const sampler = setInterval(() => sample(started), 5000);
const watcher = setInterval(watchDispatches, 500);
let killing = Promise.resolve();
const killer = setInterval(() => {
  killing = (async () => {
    const was = current;
    current = null;
    was.child.kill('SIGKILL');
    await was.exited;
    kills += 1;
    await startTheBot();
  })();
}, KILL_EVERY_MS);

const loadEnds = started + MINUTES * 60_000;
let tick = 0;
while (Date.now() < loadEnds) {
  const due = started + (tick++ * 1000) / RATE;
  if (due > Date.now()) await sleep(due - Date.now());
  while (!current) await sleep(50);
  const pick = draw();
  const step = pick < 0.35 ? cleanCommand : pick < 0.5 ? skewedCommand : noise;
  pending.push(step().catch((err) => say(`# workload error: ${err.stack}`)));
  if (recent.length > 200) recent.shift();
}
clearInterval(killer);
await killing;
say(`# load done after ${Math.round((Date.now() - started) / 1000)} s; draining (chaos on, no more kills)`);

// Drain: every command dispatched has its run completed and stored, and the queue is empty.
const db = () => bot.openStore(env.PERFGATE_DATABASE_URL);
const drainEnds = Date.now() + Number(opt['drain-minutes']) * 60_000;
for (;;) {
  await Promise.all(pending.splice(0));
  const store = await db();
  const depth = await bot.queueDepth(store);
  const open = await store.db.selectFrom('requests').select('id').where('status', 'in', ['received', 'pinned', 'dispatching', 'dispatched']).execute();
  await store.close();
  if ((depth.queued === 0 && depth.running === 0 && open.length === 0) || Date.now() > drainEnds) break;
  say(`# draining: queue ${JSON.stringify(depth)}, ${open.length} requests unfinished`);
  await sleep(10_000);
}
clearInterval(watcher);
clearInterval(sampler);
current.child.kill('SIGTERM');
await current.exited;

// --- the counts ---------------------------------------------------------------------------

const store = await db();
const statuses = await store.db.selectFrom('requests').select(['status', (eb) => eb.fn.countAll().as('n')]).groupBy('status').execute();
say(`# requests by status: ${statuses.map((r) => `${r.status} ${r.n}`).join(', ')}`);
const jobs = await store.db.selectFrom('jobs').select(['kind', 'status', (eb) => eb.fn.countAll().as('n')]).groupBy(['kind', 'status']).execute();
say(`# jobs: ${jobs.map((j) => `${j.kind}/${j.status} ${j.n}`).join(', ')}`);
const failedJobs = await store.db.selectFrom('jobs').select(['unique_key', 'last_error']).where('status', '=', 'failed').limit(5).execute();
for (const j of failedJobs) say(`# failed job ${j.unique_key}: ${String(j.last_error).split('\n')[0].slice(0, 200)}`);
const requests = new Map((await store.db.selectFrom('requests').select(['id', 'comment_id', 'status']).execute()).map((r) => [Number(r.comment_id), r]));
const runsOf = new Map();
for (const r of await store.db.selectFrom('runs').select(['request_id']).execute()) runsOf.set(Number(r.request_id), (runsOf.get(Number(r.request_id)) || 0) + 1);
await store.close();
const dispatchesOf = new Map();
for (const d of gh.state.dispatches) dispatchesOf.set(d.inputs['request-id'], [...(dispatchesOf.get(d.inputs['request-id']) || []), d]);
const repliesOf = (pr, id) => botComments(gh, pr).filter((c) => c.body.startsWith(`<!-- perfgate:reply comment=${id} -->`));

const tally = { commands: clean.size, dispatches: 0, replies: 0, stored: 0, lostDispatch: 0, lostReply: 0, lostRun: 0, doubledDispatch: 0, doubledReply: 0, doubledRun: 0 };
for (const [id, { pr }] of clean) {
  const d = dispatchesOf.get(`c${id}`) || [];
  const replies = repliesOf(pr, id).length;
  const request = requests.get(id);
  const stored = request ? runsOf.get(Number(request.id)) || 0 : 0;
  tally.dispatches += Math.min(d.length, 1);
  tally.replies += Math.min(replies, 1);
  tally.stored += Math.min(stored, 1);
  if (!d.length) tally.lostDispatch += 1;
  if (!replies) tally.lostReply += 1;
  if (!stored) tally.lostRun += 1;
  if (d.length > 1) tally.doubledDispatch += 1;
  if (replies > 1) tally.doubledReply += 1;
  if (stored > 1) tally.doubledRun += 1;
}
let unapproved = 0;
let skewReplies = 0;
let skewDoubled = 0;
for (const [id, entry] of skewed) {
  for (const d of dispatchesOf.get(`c${id}`) || []) if (d.inputs['head-sha'] === entry.pushed && !entry.approved) unapproved += 1;
  const replies = repliesOf(entry.pr, id).length;
  skewReplies += Math.min(replies, 1);
  if (replies > 1) skewDoubled += 1;
}
for (const [id, entry] of clean) for (const d of dispatchesOf.get(`c${id}`) || []) if (d.inputs['head-sha'] !== entry.head || d.inputs['base-sha'] !== BASE_SHA) unapproved += 1;
const nearSkewed = [...skewed.values()].filter((e) => !e.approved).length;

const faults = {};
for (const call of proxy.log) if (call.fault) faults[call.fault] = (faults[call.fault] || 0) + 1;
say(`# deliveries: ${counts.sent} sent, ${counts.taken} taken, ${counts.redelivered} sent again (bot down or 5xx); bot killed ${kills} times`);
say(`# the bot's calls through the proxy: ${proxy.log.length}, failed on purpose ${Object.values(faults).reduce((a, b) => a + b, 0)}: ${JSON.stringify(faults)}`);
say(`commands in (to be measured): ${tally.commands} (of them ${[...clean.values()].filter((c) => c.skewed).length} after a push stamped over a minute before)`);
say(`dispatched: ${tally.dispatches}   replies: ${tally.replies}   runs stored: ${tally.stored}`);
say(`lost: dispatch ${tally.lostDispatch}, reply ${tally.lostReply}, run ${tally.lostRun};  doubled: dispatch ${tally.doubledDispatch}, reply ${tally.doubledReply}, run ${tally.doubledRun}`);
say(`commands after a push stamped within a minute: ${nearSkewed}; dispatched heads not approved: ${unapproved}; answered ${skewReplies} of ${skewed.size} skew commands, doubled ${skewDoubled}`);
say('# RSS (MiB) and open file descriptors of the bot, per incarnation (killed each minute): first sample, last, max');
const byLife = new Map();
for (const s of samples) byLife.set(s.incarnation, [...(byLife.get(s.incarnation) || []), s]);
for (const [life, list] of byLife) {
  const mib = (kib) => (kib / 1024).toFixed(1);
  say(`life ${String(life).padStart(2)} (${list[0].at}-${list.at(-1).at} s): rss ${mib(list[0].rssKiB)} -> ${mib(list.at(-1).rssKiB)} max ${mib(Math.max(...list.map((s) => s.rssKiB)))}; fds ${list[0].fds} -> ${list.at(-1).fds} max ${Math.max(...list.map((s) => s.fds))}`);
}
say(`# samples (s, incarnation, rss KiB, fds): ${samples.map((s) => `${s.at}:${s.incarnation}:${s.rssKiB}:${s.fds}`).join(' ')}`);
writeFileSync(opt.out, `${lines.join('\n')}\n`);
await proxy.close();
await gh.close();
rmSync(folder, { recursive: true, force: true });
process.exit(0);
