// Shared by the sign-off tests of the bot (test/unit/bot/app-signoff.test.mjs on SQLite,
// test/integration/bot/signoff-service-mariadb.test.js on MariaDB): the double with release
// tags and perf-signoff.yml, commands in a release tracking issue, the run completing, and a real
// merged full run as its artifact.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  bot, botComments, commentEvent, postComment, REPOSITORY, ROOT, settled, startDouble, workflowRunEvent,
} from './bot.mjs';

const require = createRequire(import.meta.url);
const core = require('@perfgate/core');
const { SIGNOFF_RUN_NAME } = require('../../bot/src/app/signoff-contract');

export const sha = (digit) => digit.repeat(40);
export const TAGS = {
  'mariadb-10.11.9': sha('9'), 'mariadb-10.11.17': sha('7'), 'mariadb-10.11.18': sha('8'), 'mariadb-10.11.19': sha('1'), 'mariadb-10.11.20': sha('2'), 'mysql-8.0.40': sha('4'),
};

/** The bot's double with the release tags and perf-signoff.yml beside the other workflows. */
export function startSignoffDouble({ artifactsDir }) {
  return startDouble({
    artifactsDir,
    extra: {
      workflows: { [REPOSITORY]: [...['perf-command.yml', 'perf-full.yml'].map((file) => ({ file, runName: bot.contract.RUN_NAME })), { file: 'perf-signoff.yml', runName: SIGNOFF_RUN_NAME }] },
      refs: { [REPOSITORY]: { tags: TAGS, branches: { main: sha('3') } } },
    },
  });
}

/** A new issue (a release tracking issue) by the maintainer; its number. */
export function newIssue(gh, title = 'Release 10.11.19') {
  return gh.state.addIssue(gh.state.repoByFullName('repository', REPOSITORY), { title, user: gh.state.user('maintainer') }).number;
}

/** `body` by `login` on issue #issue, delivered as GitHub delivers an issue's comment; waits for the bot. */
export async function onIssue(gh, running, issue, login, body) {
  const dispatchesBefore = gh.state.dispatches.length;
  const comment = await postComment(gh, login, body, { pr: issue });
  const payload = commentEvent({ comment, pr: issue });
  delete payload.issue.pull_request;
  const answer = await running.deliver('issue_comment', payload);
  assert.equal(answer.status, 202, `${body}: ${answer.text}`);
  await settled(running, 30_000);
  return {
    comment,
    reply: () => botComments(gh, issue).filter((c) => c.body.startsWith(`<!-- perfgate:reply comment=${comment.id} -->`)).map((c) => c.body.split('\n').slice(1).join('\n').trimEnd()),
    dispatches: gh.state.dispatches.slice(dispatchesBefore),
    request: await bot.requestForComment(running.store, comment.id),
  };
}

/** The sign-off's workflow run completes with `conclusion`; waits for the bot. Returns the run. */
export async function completeSignoffRun(gh, running, request, conclusion = 'success') {
  const run = await (await fetch(`${gh.url}/repos/${REPOSITORY}/actions/runs/${request.runId}`)).json();
  gh.state.updateWorkflowRun(REPOSITORY, run.id, { status: 'completed', conclusion });
  const answer = await running.deliver('workflow_run', workflowRunEvent({ run, conclusion, workflow: 'perf-signoff.yml' }));
  assert.equal(answer.status, 202, answer.text);
  await settled(running, 30_000);
  return run;
}

/** The tiny full run's two shards merged (as perfgate merge does); judged with `limits` (the full suite's by default). */
export function mergedRunFolder({ previousSha, candidateSha, limits = core.findSuite(core.loadThresholds(), 'full').limits }) {
  const shards = [1, 2].map((k) => JSON.parse(readFileSync(path.join(ROOT, `test/fixtures/results/full-shards-tiny/shard-${k}/results.json`), 'utf8')));
  for (const shard of shards) {
    for (const [side, commit] of [['base', previousSha], ['head', candidateSha]]) {
      shard.sides[side].commit = commit;
      shard.plan.sides[side].commit = commit;
    }
  }
  const results = core.mergeResults(shards, { shards: true });
  const verdict = structuredClone(core.judge(results, { limits }));
  return { files: { 'results.json': JSON.stringify(results), 'verdict.json': JSON.stringify(verdict) }, verdict };
}

/** A real TPC-C run (an A/A run of 6 Dec, installed servers) as its suite's judged folder, with the pinned commits. */
export function tpccRunFolder({ previousSha, candidateSha }) {
  const results = JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/signoff/tpcc-aa-results.json'), 'utf8'));
  for (const [side, commit] of [['base', previousSha], ['head', candidateSha]]) {
    results.sides[side].commit = commit;
    results.plan.sides[side].commit = commit;
  }
  const verdict = structuredClone(core.judge(results, core.findSuite(core.loadThresholds(), 'tpcc')));
  return { files: { 'results.json': JSON.stringify(results), 'verdict.json': JSON.stringify(verdict) }, verdict };
}

// Limits under which every row of the tiny run passes but scan_range=100 fails.
export const ONE_FAILS = { default: { warn: 0.0002, fail: 0.0001 }, byName: { 'scan_range=100': { warn: 50, fail: 40 } } };

/** The perfgate/signoff statuses of a commit, oldest first. */
export const signoffStatuses = (gh, commit) => gh.state.statuses(REPOSITORY).filter((s) => s.sha === commit && s.context === 'perfgate/signoff');
