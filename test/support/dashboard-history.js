'use strict';
// A real history of main for the dashboard's tests, stored through history.storeRun:
//   main commits #1..#11 measured by the ten real A/A instruction runs of
//   test/fixtures/main-history/ (each run: commit k against k-1), then #12..#14 by the three
//   timed quick runs captured in test/fixtures/results/ (QPS per round), each judged by the
//   engine with the shipped quick suite's limits;
//   one pull-request run asked for by a /perf command, with its workflow run;
//   change points, regressions, a sign-off and its waivers inserted as the lifecycle tables
//   keep them (the detector and the sign-off jobs fill them in the service).
// Commit subjects, headlines, issue keys and waiver reasons carry markup, so that a page that
// fails to escape them shows it.
const fs = require('node:fs');
const path = require('node:path');
const core = require('@perfgate/core');
const bot = require('@perfgate/bot');
const { loadResults, DIR: RESULTS_DIR } = require('./captured-results');

const REPO = 'perf-org/server-fork';
const HOSTILE = '<script>alert("x")</script><img src="https://evil.example/x.png">';
const MAIN_DIR = path.join(__dirname, '../fixtures/main-history');
const INSTRUCTION_RUNS = fs.readdirSync(MAIN_DIR).filter((f) => /^aa-instructions-\d+\.json$/.test(f))
  .sort((a, b) => Number(a.match(/\d+/)[0]) - Number(b.match(/\d+/)[0])).map((f) => path.join(MAIN_DIR, f));
const TIMED_RUNS = ['tiny-quick.json', 'quick-tiny/results.json', 'aa-quick-noise.json'].map((f) => path.join(RESULTS_DIR, f));

const sha = (seq) => `${seq.toString(16).padStart(4, '0')}${'c0ffee'.repeat(6)}`.slice(0, 40);

function judged(results) {
  const config = core.loadThresholds();
  return core.judge(results, core.findSuite(config, 'quick'));
}

/**
 * Stores the history in an open store.
 * @returns {repo, commits: [{seq, sha, subject}], instructionSeqs, timedSeqs, prRunId, hostile}
 */
async function storeMainHistory(store, { repo = REPO } = {}) {
  const runs = [...INSTRUCTION_RUNS.map((file) => ({ file, kind: 'instructions' })), ...TIMED_RUNS.map((file) => ({ file, kind: 'timed' }))];
  const commits = Array.from({ length: runs.length + 1 }, (_, i) => ({
    seq: i + 1, sha: sha(i + 1), committedAt: Date.UTC(2026, 10, 1 + i),
    subject: i + 1 === 6 ? `MDEV-1: faster lookups ${HOSTILE}` : `commit number ${i + 1} on main`,
  }));
  await bot.recordMainline(store, { repo, firstSeq: 1, commits: commits.map(({ sha: s, committedAt, subject }) => ({ sha: s, committedAt, subject })) });
  const instructionSeqs = [];
  const timedSeqs = [];
  for (const [i, run] of runs.entries()) {
    const results = loadResults(run.file);
    const verdict = judged(results);
    await bot.storeRun(store, {
      request: { repo, runKey: `main/${commits[i + 1].sha}`, base: { sha: commits[i].sha }, head: { sha: commits[i + 1].sha } },
      results, verdict,
    });
    (run.kind === 'instructions' ? instructionSeqs : timedSeqs).push(commits[i + 1].seq);
  }

  // A pull request's run, asked for by a command; its workflow run is linked.
  const request = await bot.recordRequest(store, { commentId: 9001, repo, prNumber: 42, author: 'maintainer', command: { name: 'quick', args: {}, line: '/perf quick' }, headSha: 'f'.repeat(40) });
  await store.db.updateTable('requests').set({ run_url: `https://github.com/${repo}/actions/runs/777`, run_id: 777 }).where('id', '=', request.id).execute();
  const prResults = loadResults(TIMED_RUNS[0]);
  const prVerdict = { ...judged(prResults) };
  prVerdict.headline = `${prVerdict.headline} ${HOSTILE}`;
  const pr = await bot.storeRun(store, {
    request: { id: request.id, repo, runKey: 'pr/42/777', base: { sha: commits.at(-1).sha }, head: { sha: 'f'.repeat(40), subject: HOSTILE } },
    results: prResults, verdict: prVerdict,
  });

  const ids = async (table, where) => Number((await store.db.selectFrom(table).select('id').where(...where).executeTakeFirstOrThrow()).id);
  const commitId = (seq) => ids('commits', ['sha', '=', sha(seq)]);
  const machineId = Number((await store.db.selectFrom('machines').select('id').executeTakeFirstOrThrow()).id);
  const micro = (name) => ids('microbenchmarks', ['name', '=', name]);
  const now = Date.UTC(2026, 10, 20);
  const changePoint = async (name, signal, seq, ratio) => store.db.insertInto('change_points').values({
    repo, microbenchmark_id: await micro(name), bench_key: name, signal, machine_id: machineId,
    commit_id: await commitId(seq), previous_commit_id: await commitId(seq - 1),
    mean_before: 1000, mean_after: 1000 * ratio, ratio, pvalue: 0.001, method: `e-divisive ${HOSTILE}`, detected_at: now,
  }).execute();
  await changePoint('update-index_range=100', 'instructions_per_query', 6, 1.08);
  await changePoint('update-index_range=100', 'rqps', 13, 0.9);
  await changePoint('update-index_range=100', 'qps', 13, 0.9);

  await store.db.insertInto('regressions').values([
    {
      dedupe_key: `${repo}/update-index_range=100/instructions_per_query/${sha(6)}`, repo, microbenchmark_id: await micro('update-index_range=100'),
      bench_key: 'update-index_range=100', signal: 'instructions_per_query', first_bad_commit_id: await commitId(6), last_good_commit_id: await commitId(5),
      status: 'open', estimate: 1.08, low: 1.07, high: 1.09, tracker: 'github', issue_key: `#77 ${HOSTILE}`,
      issue_url: `https://github.com/${repo}/issues/77`, sightings: 3, opened_at: now, last_seen_at: now, document: null,
    },
    {
      dedupe_key: `${repo}/point-query/qps/${sha(3)}`, repo, microbenchmark_id: await micro('point-query'),
      bench_key: 'point-query', signal: 'qps', first_bad_commit_id: await commitId(3), last_good_commit_id: await commitId(2),
      status: 'closed', estimate: 0.95, low: 0.93, high: 0.97, tracker: 'jira', issue_key: 'MDEV-2', issue_url: 'javascript:alert(1)',
      sightings: 1, opened_at: now - 86400000, last_seen_at: now - 86400000, closed_at: now, fixed_by_commit_id: await commitId(4), document: null,
    },
  ]).execute();

  const signoff = await store.db.insertInto('signoffs').values({
    repo, candidate_ref: 'v10.11.19', candidate_sha: sha(14), previous_ref: `v10.11.18 ${HOSTILE}`, previous_sha: sha(1),
    status: 'completed', state: 'failure', workflow_run_id: 888, run_id: pr.runId, summary: 'full suite', created_at: now, updated_at: now, completed_at: now,
  }).executeTakeFirstOrThrow();
  await store.db.insertInto('signoff_waivers').values({
    signoff_id: Number(signoff.insertId), microbenchmark_id: await micro('scan_range=100'), reason: `known: ${HOSTILE}`, author: 'release-manager', created_at: now,
  }).execute();

  return { repo, commits, instructionSeqs, timedSeqs, prRunId: pr.runId, hostile: HOSTILE };
}

module.exports = { storeMainHistory, REPO, HOSTILE, sha };
