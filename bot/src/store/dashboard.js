'use strict';
// What the dashboard shows, read from the history: the series of main per microbenchmark, the
// recent runs, the regressions and the release sign-offs. Read-only: nothing here writes.
// Every list is bounded (a limit or a window of main commits), so a page costs the same on a
// history of ten runs as on one of thousands.
const { mainSeries, verdictSeries } = require('./history');
// Runs stored before perfgate.verdict/v2 say "inconclusive" for undecided.
const { outcomeWord, learnLimits, LEARNED_SIGNALS } = require('@perfgate/core');

const toNumber = (v) => (v === null || v === undefined ? null : Number(v));

// The series a history page charts: absolute values per round and side (mainSeries) and the
// judged head/base ratios with their intervals (verdictSeries). Change points are matched on
// these signal names.
const HISTORY_SIGNALS = [
  { key: 'rqps', source: 'verdict', signal: 'rqps' },
  { key: 'instructions_ratio', source: 'verdict', signal: 'instructions_per_query' },
  { key: 'all_threads_ratio', source: 'verdict', signal: 'all_threads_per_query' },
  { key: 'instructions_per_query', source: 'main', signal: 'instructions_per_query' },
  { key: 'qps', source: 'main', signal: 'qps' },
];

/**
 * The microbenchmarks measured on main among the latest `latestRuns` runs stored, per
 * repository: how many of those runs measured a main commit, the last main commit measured,
 * and how many change points and open regressions each has. The window keeps the overview's
 * cost the same however long the history grows.
 * @returns [{repo, microbenchmark, runs, lastSeq, changePoints, openRegressions}]
 */
async function mainCatalogue(store, { repo = null, latestRuns = 1000 } = {}) {
  const newest = await store.db.selectFrom('runs').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
  const firstRun = Number((newest && newest.id) || 0) - latestRuns + 1;
  let q = store.db.selectFrom('benchmark_results as br')
    .innerJoin('run_sides as s', (j) => j.onRef('s.run_id', '=', 'br.run_id').on('s.side', '=', 'head'))
    .innerJoin('commits as c', 'c.id', 's.commit_id')
    .innerJoin('microbenchmarks as m', 'm.id', 'br.microbenchmark_id')
    .where('c.main_seq', 'is not', null)
    .where('br.run_id', '>=', firstRun)
    .select((eb) => ['c.repo as repo', 'm.name as microbenchmark', 'm.id as microbenchmarkId',
      eb.fn.count('br.run_id').distinct().as('runs'), eb.fn.max('c.main_seq').as('lastSeq')])
    .groupBy(['c.repo', 'm.name', 'm.id'])
    .orderBy('c.repo').orderBy('m.id');
  if (repo) q = q.where('c.repo', '=', repo);
  const rows = await q.execute();
  const counts = async (table, extra) => {
    let cq = store.db.selectFrom(`${table} as t`).select((eb) => ['t.repo as repo', 't.microbenchmark_id as micro', eb.fn.countAll().as('n')])
      .groupBy(['t.repo', 't.microbenchmark_id']);
    if (repo) cq = cq.where('t.repo', '=', repo);
    if (extra) cq = extra(cq);
    const found = new Map();
    for (const r of await cq.execute()) found.set(`${r.repo}\u0000${r.micro}`, Number(r.n));
    return found;
  };
  const changePoints = await counts('change_points');
  const open = await counts('regressions', (q2) => q2.where('t.closed_at', 'is', null));
  return rows.map((r) => {
    const key = `${r.repo}\u0000${r.microbenchmarkId}`;
    return {
      repo: r.repo, microbenchmark: r.microbenchmark, runs: Number(r.runs), lastSeq: Number(r.lastSeq),
      changePoints: changePoints.get(key) || 0, openRegressions: open.get(key) || 0,
    };
  });
}

async function lastMainSeq(store, repo) {
  const row = await store.db.selectFrom('commits').select((eb) => eb.fn.max('main_seq').as('seq'))
    .where('repo', '=', repo).executeTakeFirst();
  return toNumber(row && row.seq);
}

/**
 * The history of one microbenchmark on main over its last `last` main commits: each signal's
 * points, the change points found in those series, and the commits they fall on.
 * machine, threads, ahi: one runner and one variant (see history.mainSeries); without a machine,
 * every machine's points are returned and `machines` lists them, latest first.
 * @returns {repo, microbenchmark, fromSeq, toSeq, series: {key: points}, changePoints, commits: Map seq → {sha, subject, committedAt}, machines}
 */
async function mainHistory(store, { repo, microbenchmark, machine = null, threads = null, ahi = null, last = 100 }) {
  const toSeq = await lastMainSeq(store, repo);
  const empty = { repo, microbenchmark, fromSeq: null, toSeq: null, series: {}, changePoints: [], commits: new Map(), machines: [] };
  if (toSeq === null) return empty;
  const fromSeq = toSeq - last + 1;
  const select = { repo, microbenchmark, machine, threads, ahi, fromSeq };
  const series = {};
  for (const s of HISTORY_SIGNALS) {
    series[s.key] = s.source === 'main' ? await mainSeries(store, { ...select, signal: s.signal }) : await verdictSeries(store, { ...select, signal: s.signal });
  }
  let cq = store.db.selectFrom('change_points as cp')
    .innerJoin('microbenchmarks as m', 'm.id', 'cp.microbenchmark_id')
    .innerJoin('commits as c', 'c.id', 'cp.commit_id')
    .leftJoin('commits as pc', 'pc.id', 'cp.previous_commit_id')
    .leftJoin('machines as mc', 'mc.id', 'cp.machine_id')
    .where('cp.repo', '=', repo).where('m.name', '=', microbenchmark).where('c.main_seq', '>=', fromSeq)
    .select(['cp.id', 'cp.bench_key as benchKey', 'cp.signal', 'c.main_seq as seq', 'c.sha', 'pc.sha as previousSha', 'mc.fingerprint as machine',
      'cp.mean_before as meanBefore', 'cp.mean_after as meanAfter', 'cp.ratio', 'cp.pvalue', 'cp.method', 'cp.detected_at as detectedAt'])
    .orderBy('c.main_seq').orderBy('cp.id');
  if (machine !== null) cq = cq.where('mc.fingerprint', '=', machine);
  const changePoints = (await cq.execute()).map((r) => ({
    ...r, id: Number(r.id), seq: Number(r.seq), meanBefore: toNumber(r.meanBefore), meanAfter: toNumber(r.meanAfter),
    ratio: toNumber(r.ratio), pvalue: toNumber(r.pvalue), detectedAt: Number(r.detectedAt),
  }));
  const commitRows = await store.db.selectFrom('commits').select(['main_seq as seq', 'sha', 'subject', 'committed_at as committedAt'])
    .where('repo', '=', repo).where('main_seq', '>=', fromSeq).where('main_seq', '<=', toSeq).execute();
  const commits = new Map(commitRows.map((c) => [Number(c.seq), { sha: c.sha, subject: c.subject, committedAt: toNumber(c.committedAt) }]));
  // Machines in order of their latest point.
  const latest = new Map();
  for (const points of Object.values(series)) {
    for (const p of points) if (p.machine !== null && (latest.get(p.machine) ?? -Infinity) <= p.runId) latest.set(p.machine, p.runId);
  }
  const machines = [...latest.entries()].sort((a, b) => b[1] - a[1]).map(([m]) => m);
  return { repo, microbenchmark, fromSeq, toSeq, series, changePoints, commits, machines };
}

// A run's head and base sides with their commits (hs/hc, bs/bc), on a query over `runs as r`:
// `join` is 'leftJoin' (runs without sides stay) or 'innerJoin'.
function withSideCommits(query, join) {
  const heads = query[join]('run_sides as hs', (j) => j.onRef('hs.run_id', '=', 'r.id').on('hs.side', '=', 'head'));
  const headCommits = heads[join]('commits as hc', 'hc.id', 'hs.commit_id');
  const bases = headCommits[join]('run_sides as bs', (j) => j.onRef('bs.run_id', '=', 'r.id').on('bs.side', '=', 'base'));
  return bases[join]('commits as bc', 'bc.id', 'bs.commit_id');
}

/**
 * The latest runs, newest first: suite, status, verdict and headline, the pull request and the
 * workflow run that asked for it (when a command did), and the commits of both sides.
 * before: a run id; only older runs (the next page).
 */
async function recentRuns(store, { repo = null, suite = null, before = null, limit = 50 } = {}) {
  let q = withSideCommits(store.db.selectFrom('runs as r')
    .leftJoin('verdicts as v', 'v.run_id', 'r.id')
    .leftJoin('requests as q', 'q.id', 'r.request_id'), 'leftJoin')
    .select(['r.id', 'r.repo', 'r.suite', 'r.status', 'r.started_at as startedAt', 'r.finished_at as finishedAt', 'r.stored_at as storedAt',
      'v.verdict', 'v.headline', 'q.pr_number as prNumber', 'q.command', 'q.run_url as runUrl', 'q.author',
      'hc.sha as headSha', 'hc.main_seq as headSeq', 'hc.subject as headSubject', 'hs.label as headLabel',
      'bc.sha as baseSha', 'bc.main_seq as baseSeq', 'bs.label as baseLabel'])
    .orderBy('r.id', 'desc').limit(limit);
  if (repo) q = q.where('r.repo', '=', repo);
  if (suite) q = q.where('r.suite', '=', suite);
  if (before !== null) q = q.where('r.id', '<', before);
  return (await q.execute()).map((r) => ({
    ...r, verdict: outcomeWord(r.verdict), id: Number(r.id), startedAt: toNumber(r.startedAt), finishedAt: toNumber(r.finishedAt), storedAt: Number(r.storedAt),
    prNumber: toNumber(r.prNumber), headSeq: toNumber(r.headSeq), baseSeq: toNumber(r.baseSeq),
  }));
}

/**
 * Regressions, still open ones first (status 'open': closed_at not set), newest first, with
 * their commits and tracker issue.
 */
async function regressionList(store, { repo = null, status = 'open', limit = 200 } = {}) {
  let q = store.db.selectFrom('regressions as g')
    .innerJoin('microbenchmarks as m', 'm.id', 'g.microbenchmark_id')
    .innerJoin('commits as fb', 'fb.id', 'g.first_bad_commit_id')
    .leftJoin('commits as lg', 'lg.id', 'g.last_good_commit_id')
    .leftJoin('commits as fx', 'fx.id', 'g.fixed_by_commit_id')
    .select(['g.id', 'g.repo', 'm.name as microbenchmark', 'g.bench_key as benchKey', 'g.signal', 'g.status', 'g.estimate', 'g.low', 'g.high',
      'g.tracker', 'g.issue_key as issueKey', 'g.issue_url as issueUrl', 'g.sightings', 'g.opened_at as openedAt', 'g.last_seen_at as lastSeenAt',
      'g.closed_at as closedAt', 'fb.sha as firstBadSha', 'fb.main_seq as firstBadSeq', 'fb.subject as firstBadSubject',
      'lg.sha as lastGoodSha', 'fx.sha as fixedBySha'])
    .orderBy((eb) => eb.case().when('g.closed_at', 'is', null).then(0).else(1).end())
    .orderBy('g.opened_at', 'desc').orderBy('g.id', 'desc')
    .limit(limit);
  if (repo) q = q.where('g.repo', '=', repo);
  if (status === 'open') q = q.where('g.closed_at', 'is', null);
  return (await q.execute()).map((r) => ({
    ...r, id: Number(r.id), estimate: toNumber(r.estimate), low: toNumber(r.low), high: toNumber(r.high), sightings: Number(r.sightings),
    openedAt: Number(r.openedAt), lastSeenAt: Number(r.lastSeenAt), closedAt: toNumber(r.closedAt), firstBadSeq: toNumber(r.firstBadSeq),
  }));
}

/** Release sign-offs, newest first, each with its waivers and the verdict of its run. */
async function signoffList(store, { repo = null, limit = 50 } = {}) {
  let q = store.db.selectFrom('signoffs as so')
    .leftJoin('verdicts as v', 'v.run_id', 'so.run_id')
    .select(['so.id', 'so.repo', 'so.candidate_ref as candidateRef', 'so.candidate_sha as candidateSha', 'so.previous_ref as previousRef',
      'so.previous_sha as previousSha', 'so.status', 'so.state', 'so.workflow_run_id as workflowRunId', 'so.run_id as runId', 'so.summary',
      'so.created_at as createdAt', 'so.updated_at as updatedAt', 'so.completed_at as completedAt', 'so.suites', 'v.verdict', 'v.headline'])
    .orderBy('so.created_at', 'desc').orderBy('so.id', 'desc').limit(limit);
  if (repo) q = q.where('so.repo', '=', repo);
  const rows = (await q.execute()).map((r) => ({
    // A sign-off stored before its suites were kept measured the full suite alone (0012).
    ...r, suites: r.suites ? r.suites.split(' ') : ['full'], verdict: outcomeWord(r.verdict), id: Number(r.id), workflowRunId: toNumber(r.workflowRunId), runId: toNumber(r.runId), createdAt: Number(r.createdAt),
    updatedAt: Number(r.updatedAt), completedAt: toNumber(r.completedAt), waivers: [],
  }));
  if (!rows.length) return rows;
  const byId = new Map(rows.map((r) => [r.id, r]));
  const waivers = await store.db.selectFrom('signoff_waivers as w').innerJoin('microbenchmarks as m', 'm.id', 'w.microbenchmark_id')
    .select(['w.signoff_id as signoffId', 'm.name as microbenchmark', 'w.reason', 'w.author', 'w.created_at as createdAt'])
    .where('w.signoff_id', 'in', [...byId.keys()]).orderBy('w.id').execute();
  for (const w of waivers) byId.get(Number(w.signoffId)).waivers.push({ microbenchmark: w.microbenchmark, reason: w.reason, author: w.author, createdAt: Number(w.createdAt) });
  return rows;
}

// Runs where main changed on purpose or by mistake are not its spread against itself: the first
// bad commit of every regression the watch filed (not those it called noise), and the commit
// that fixed it, each for that row and signal (docs/verdicts.md#limits-learned-from-main).
async function knownChanges(store, repo) {
  const rows = await store.db.selectFrom('regressions').select(['bench_key as benchKey', 'signal', 'first_bad_commit_id as bad', 'fixed_by_commit_id as fix'])
    .where('repo', '=', repo).where('status', '!=', 'noise').execute();
  const keys = new Set();
  for (const r of rows) {
    for (const commit of [r.bad, r.fix]) {
      if (commit === null || commit === undefined) continue;
      keys.add(`${Number(commit)}|${r.benchKey}|${r.signal}`);
      // No regression is filed on cpu/o: a change filed on the row's time or instructions is
      // one in its CPU time too.
      keys.add(`${Number(commit)}|${r.benchKey}|cpu_per_query`);
    }
  }
  return keys;
}

/**
 * Limits learned from main's history (core's learnLimits, docs/verdicts.md#limits-learned-from-main),
 * per repository and suite (two suites' rows of one name run at different scales): the judged
 * ratios of the runs of main (head and base both main commits: each commit against the one
 * before) over its latest `last` main commits, of the runner class that measured that suite
 * last (timings of two classes do not compare), per row and signal; the figures of a row and
 * signal at a known change (knownChanges) left out and counted.
 * @returns [{repo, suite, runner, runs, changesLeftOut, fromSeq, toSeq, rows: {<row id>: {rqps?, instructions?, cpu?}}}]
 */
async function learnedFromMain(store, { repo = null, suite = null, last = 200 } = {}) {
  const repos = repo ? [repo] : (await store.db.selectFrom('commits').select('repo').distinct().where('main_seq', 'is not', null).orderBy('repo').execute()).map((r) => r.repo);
  const figures = Object.fromEntries(Object.entries(LEARNED_SIGNALS).map(([key, s]) => [s.figure, key]));
  const out = [];
  for (const name of repos) {
    const toSeq = await lastMainSeq(store, name);
    if (toSeq === null) continue;
    const fromSeq = toSeq - last + 1;
    let query = withSideCommits(store.db.selectFrom('verdict_intervals as vi')
      .innerJoin('verdict_items as it', 'it.id', 'vi.verdict_item_id')
      .innerJoin('verdicts as v', 'v.id', 'it.verdict_id')
      .innerJoin('runs as r', 'r.id', 'v.run_id'), 'innerJoin')
      .leftJoin('machines as mc', 'mc.id', 'r.machine_id')
      .where('hc.repo', '=', name).where('hc.main_seq', '>=', fromSeq).where('bc.main_seq', 'is not', null)
      .where('it.kind', '=', 'benchmark').where('it.verdict', '!=', 'error').where('vi.signal', 'in', Object.keys(figures));
    if (suite) query = query.where('r.suite', '=', suite);
    const rows = await query
      .select(['it.item_key as id', 'vi.signal', 'vi.estimate', 'it.cpu_verdict as cpuVerdict', 'r.id as runId', 'r.suite as suite', 'hc.id as headCommit', 'mc.hardware_class as hardwareClass', 'mc.fingerprint as machine'])
      .orderBy('hc.main_seq').orderBy('r.id')
      .execute();
    if (!rows.length) continue;
    const changes = await knownChanges(store, name);
    const runnerOf = (r) => r.hardwareClass || r.machine || null;
    const suites = [...new Set(rows.map((r) => r.suite || ''))].sort();
    for (const ofSuite of suites) {
      const mine = rows.filter((r) => (r.suite || '') === ofSuite);
      const runner = runnerOf(mine.at(-1));
      const series = {};
      const runs = new Set();
      let changesLeftOut = 0;
      for (const r of mine) {
        if (runnerOf(r) !== runner) continue;
        runs.add(Number(r.runId));
        // A signal learned only where the row was judged by it (cpu/o: core's LEARNED_SIGNALS).
        if (LEARNED_SIGNALS[figures[r.signal]].judgedBy === 'cpu_verdict' && !r.cpuVerdict) continue;
        if (changes.has(`${Number(r.headCommit)}|${r.id}|${r.signal}`)) {
          changesLeftOut += 1;
          continue;
        }
        ((series[r.id] ||= {})[figures[r.signal]] ||= []).push(Number(r.estimate));
      }
      out.push({ repo: name, suite: ofSuite || null, runner, runs: runs.size, changesLeftOut, fromSeq: Math.max(1, fromSeq), toSeq, rows: learnLimits(series) });
    }
  }
  return out;
}

module.exports = { mainCatalogue, mainHistory, recentRuns, regressionList, signoffList, learnedFromMain, HISTORY_SIGNALS };
