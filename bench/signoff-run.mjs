#!/usr/bin/env node
// A measured release sign-off through the bot's completion path, against the GitHub double:
//
//   node bench/signoff-run.mjs <runs-dir> [--candidate mariadb-10.11.19] [--previous mariadb-10.11.18]
//
// <runs-dir> holds what perf-signoff.yml's jobs leave: the shards' run folders full-1 … full-N
// (perfgate compare --suite full --shard K/N) and the merged one, full (perfgate merge). A
// maintainer's `/perf signoff <candidate>` in a release tracking issue goes to `perfgate bot`
// (in this process, SQLite store); the bot pins the refs, records the sign-off, sets the commit
// status perfgate/signoff pending and dispatches perf-signoff.yml on the double. The run folders
// are then that run's artifacts (perfgate-full-shard-K-of-N and perfgate-signoff-full, zipped
// by Python's zipfile as the artifact server keeps them), the run completes, and the bot takes
// it from there: checks, stores, decides, sets the final status and posts the report. Printed:
// the status, the verdict counts and where the report is; signoff.md and signoff.html are
// written into <runs-dir>/full with `perfgate signoff` (the same renderer as the bot's reply),
// and the bot's reply is kept there as signoff-reply.md.
//
// The double's tags point at stand-in commits (the Debian builds measured here come from no
// git checkout); the report names the servers by version and says they were installed ones.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUN_FILES = ['plan.json', 'results.json', 'verdict.json'];

const standIn = (tag) => createHash('sha1').update(`stand-in commit of ${tag}`).digest('hex');

/** The run folders of <runsDir>: shards full-K (sorted by K) and the merged folder `full`. */
function runFolders(runsDir) {
  const merged = path.join(runsDir, 'full');
  if (!existsSync(path.join(merged, 'verdict.json'))) throw new Error(`${merged}: no verdict.json; expected the merged run folder (perfgate merge --out ${merged})`);
  const shards = readdirSync(runsDir).filter((n) => /^full-\d+$/.test(n)).sort((a, b) => Number(a.slice(5)) - Number(b.slice(5)));
  return {
    merged: { name: 'perfgate-signoff-full', dir: merged },
    // Named as the measure job names its upload: by the shard its plan says it is.
    shards: shards.map((n) => {
      const dir = path.join(runsDir, n);
      const { plan } = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8'));
      if (!plan.shard) throw new Error(`${dir}/results.json: plan.shard is missing; expected a shard's run folder (perfgate compare --shard K/N)`);
      return { name: `perfgate-full-shard-${plan.shard.index}-of-${plan.shard.count}`, dir };
    }),
  };
}

function folderEntries(dir) {
  return Object.fromEntries(RUN_FILES.filter((f) => existsSync(path.join(dir, f))).map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]));
}

/**
 * Runs the sign-off of <runsDir> through the bot against a fresh double.
 * @returns {status: {state, description}, statuses: [...], reply, request, signoff, dispatch}
 */
export async function signoffThroughBot({ runsDir, candidate = 'mariadb-10.11.19', previous = 'mariadb-10.11.18', writeReport = true }) {
  const t = await import('../test/support/bot.mjs');
  const { SIGNOFF_RUN_NAME } = require('../bot/src/app/signoff-contract');
  const folders = runFolders(runsDir);
  const tags = Object.fromEntries([previous, candidate].map((tag) => [tag, standIn(tag)]));
  const artifactsDir = mkdtempSync(path.join(os.tmpdir(), 'perfgate-signoff-run-'));
  let gh = null;
  let running = null;
  try {
    gh = await t.startDouble({
      artifactsDir,
      extra: {
        workflows: { [t.REPOSITORY]: [{ file: 'perf-signoff.yml', runName: SIGNOFF_RUN_NAME }] },
        refs: { [t.REPOSITORY]: { tags, branches: { main: standIn('main') } } },
      },
    });
    // The full suite's sign-off: the run folders here are of that suite alone.
    running = await t.startBotOn(gh, { env: { PERFGATE_MAX_ARTIFACT_BYTES: String(256 * 1024 * 1024), PERFGATE_SIGNOFF_SUITES: 'full' } });
    const repo = gh.state.repoByFullName('repository', t.REPOSITORY);
    const issue = gh.state.addIssue(repo, { title: `Release ${candidate}`, user: gh.state.user('maintainer') }).number;

    // The maintainer's command, delivered as GitHub delivers a comment on an issue.
    const comment = await t.postComment(gh, 'maintainer', `Measured on the perf runners:\n\n/perf signoff ${candidate}`, { pr: issue });
    const payload = t.commentEvent({ comment, pr: issue });
    delete payload.issue.pull_request;
    const accepted = await running.deliver('issue_comment', payload);
    if (accepted.status !== 202) throw new Error(`the bot answered the command ${accepted.status}: ${accepted.text}`);
    await t.settled(running, 60_000);
    const request = await t.bot.requestForComment(running.store, comment.id);
    if (request.status !== 'dispatched') throw new Error(`the sign-off was not dispatched: request ${request.status} (${request.detail || 'no detail'}); replies: ${t.botComments(gh, issue).map((c) => c.body).join(' | ')}`);
    const dispatch = gh.state.dispatches.find((d) => d.inputs['request-id'] === `c${comment.id}`);

    // What perf-signoff.yml's measure and merge jobs upload, then the run completes.
    for (const folder of [...folders.shards, folders.merged]) t.writeArtifact(artifactsDir, request.runId, folder.name, folderEntries(folder.dir));
    const run = await (await fetch(`${gh.url}/repos/${t.REPOSITORY}/actions/runs/${request.runId}`)).json();
    gh.state.updateWorkflowRun(t.REPOSITORY, run.id, { status: 'completed', conclusion: 'success' });
    const completed = await running.deliver('workflow_run', t.workflowRunEvent({ run, conclusion: 'success', workflow: 'perf-signoff.yml' }));
    if (completed.status !== 202) throw new Error(`the bot answered the completed run ${completed.status}: ${completed.text}`);
    await t.settled(running, 120_000);

    const statuses = gh.state.statuses(t.REPOSITORY).filter((s) => s.sha === tags[candidate] && s.context === 'perfgate/signoff');
    const status = statuses.at(-1);
    const reply = t.botComments(gh, issue).find((c) => c.body.startsWith(`<!-- perfgate:reply comment=${comment.id} -->`)).body;
    const signoff = await t.bot.signoffForRequest(running.store, request.id);
    const problems = gh.problems().map((c) => `${c.operationId} ${c.status}: ${c.problems.join('; ')}`);
    if (problems.length) throw new Error(`calls that broke GitHub's description:\n${problems.join('\n')}`);
    if (writeReport) {
      writeFileSync(path.join(folders.merged.dir, 'signoff-reply.md'), reply);
      try {
        execFileSync(process.execPath, [path.join(ROOT, 'cli/bin/perfgate.js'), 'signoff', folders.merged.dir,
          '--candidate-ref', candidate, '--candidate-sha', tags[candidate], '--previous-ref', previous, '--previous-sha', tags[previous], '--run-url', run.html_url], { stdio: ['ignore', 'ignore', 'inherit'] });
      } catch (err) {
        // Exit 1 (failure) and 4 (error) are decisions, not faults of the command.
        if (![1, 4].includes(err.status)) throw err;
      }
    }
    return { status: { state: status.state, description: status.description }, statuses: statuses.map((s) => s.state), reply, request: await t.bot.getRequest(running.store, request.id), signoff, dispatch, folders };
  } finally {
    await running?.close();
    await gh?.close();
    rmSync(artifactsDir, { recursive: true, force: true });
  }
}

async function main() {
  const { values, positionals } = parseArgs({ options: { candidate: { type: 'string' }, previous: { type: 'string' } }, allowPositionals: true });
  if (positionals.length !== 1) {
    process.stderr.write('usage: node bench/signoff-run.mjs <runs-dir> [--candidate <tag>] [--previous <tag>]\n');
    process.exit(2);
  }
  const runsDir = path.resolve(positionals[0]);
  const r = await signoffThroughBot({ runsDir, candidate: values.candidate, previous: values.previous });
  const v = r.signoff.verdicts && r.signoff.verdicts[0].verdict;
  const lines = [
    `dispatched: ${r.dispatch.workflow} with candidate ${r.dispatch.inputs['candidate-ref']} previous ${r.dispatch.inputs['previous-ref']}`,
    `artifacts: ${[...r.folders.shards, r.folders.merged].map((f) => f.name).join(', ')}`,
    `commit status perfgate/signoff: ${r.statuses.join(' → ')}: "${r.status.description}"`,
    `verdict counts (${v ? v.benchmarks.length : 0} microbenchmarks): ${v ? JSON.stringify(v.counts) : 'none'}`,
    `request: ${r.request.status} (${r.request.detail})`,
    `report: ${path.join(r.folders.merged.dir, 'signoff.md')}, signoff.html, signoff-reply.md (the bot's reply, ${r.reply.length} characters)`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    process.stderr.write(`signoff-run: ${err.stack || err.message}\n`);
    process.exit(1);
  });
}
