'use strict';
// Watching the main branch: a push to it dispatches the fork's watch workflow once per suite
// watched (PERFGATE_WATCH_SUITES) for the pushed commit against that suite's previous main
// commit with a result (pinned SHAs); each completed run is stored along main and settled
// (watch.js); a fail is re-measured once, the same pinned pair and suite with only the failing
// microbenchmarks, before anything is filed.
//
// The dispatch contract of the watch workflow (workflow_dispatch inputs, all strings):
//   base-sha, head-sha  the pinned pair (40 hex digits): head = the pushed main commit
//   suite               the suite measured (one of PERFGATE_WATCH_SUITES)
//   options             "tests=a,b" for a re-measurement, else empty
//   purpose             measure | confirm
//   request-id          "w" and the bot's watch run id, in the run-name so the bot finds it:
//   run-name: perfgate watch ${{ inputs.suite }} of ${{ inputs.head-sha }} (${{ inputs.request-id }})
// Pushes to main are trusted: nothing of a pull request runs, so there is no gate to pass.
const store = require('../store');
const contract = require('./contract');
const { settleMainResult } = require('./watch');
const { trackerFor } = require('./tracker');
const { downloadRunFolders, checkRunFolder, ArtifactRejected } = require('./artifact');
const { detectChangePoints, commitSeries } = require('./change-points');
const { dispatchWorkflow, findDispatchedRun, DispatchRefused } = require('./dispatch');
const core = require('@perfgate/core');

const ZERO_SHA = /^0{40}$/;
const WATCH_RUN_NAME = 'perfgate watch ${{ inputs.suite }} of ${{ inputs.head-sha }} (${{ inputs.request-id }})';
const watchRequestId = (watchRun) => `w${watchRun.id}`;

/**
 * What a push delivery means for watching, decided from the delivery alone (pure).
 * @param settings {enabled, branch}: branch null = the repository's default branch
 * -> {ignore: reason} | {work: {kind: 'watch-push', headSha, before, commits: [{sha, subject, committedAt}]}}
 */
function mainPush(payload, { enabled = true, branch = null } = {}) {
  if (!enabled) return { ignore: 'watching main is off (PERFGATE_WATCH)' };
  const watched = branch || (payload.repository && payload.repository.default_branch);
  if (!watched) return { ignore: 'the push names no default branch' };
  if (payload.ref !== `refs/heads/${watched}`) return { ignore: `a push to ${payload.ref}, not to the watched branch ${watched}` };
  if (payload.deleted) return { ignore: `the branch ${watched} was deleted` };
  if (!contract.SHA.test(payload.after || '')) return { ignore: `the pushed head ${JSON.stringify(payload.after)} is not a commit SHA` };
  const commits = (payload.commits || []).filter((c) => contract.SHA.test(c.id || ''))
    .map((c) => ({ sha: c.id, subject: String(c.message || '').split('\n')[0] || null, committedAt: Date.parse(c.timestamp) || null }));
  if (!commits.length || commits.at(-1).sha !== payload.after) commits.push({ sha: payload.after, subject: null, committedAt: null });
  return { work: { kind: 'watch-push', headSha: payload.after, before: ZERO_SHA.test(payload.before || '') ? null : payload.before || null, commits } };
}

function dispatchInputs({ watchRun }) {
  for (const [name, sha] of [['base', watchRun.baseSha], ['head', watchRun.headSha]]) {
    if (!contract.SHA.test(sha || '')) throw new Error(`watch dispatch: the ${name} ${JSON.stringify(sha)} is not 40 hex digits`);
  }
  return {
    'base-sha': watchRun.baseSha,
    'head-sha': watchRun.headSha,
    suite: watchRun.suite,
    options: watchRun.tests ? `tests=${watchRun.tests.join(',')}` : '',
    purpose: watchRun.purpose,
    'request-id': watchRequestId(watchRun),
  };
}

// The run is known by its id from here on: only a completion of that run is taken (watchRunJob).
async function dispatch(ctx, octokit, watchRun) {
  const [owner, repo] = watchRun.repo.split('/');
  const { watch } = ctx.config;
  let run;
  try {
    // A watch run claimed for dispatching may have been dispatched by a job that then died.
    run = await dispatchWorkflow(ctx, octokit, {
      owner, repo, workflow: watch.workflow, inputs: dispatchInputs({ watchRun }), requestId: watchRequestId(watchRun), since: watchRun.createdAt, lookFirst: true,
    });
  } catch (err) {
    if (!(err instanceof DispatchRefused)) throw err;
    ctx.log.warn(`watch ${watchRun.repo}: GitHub refused to run ${watch.workflow} for ${watchRun.headSha}: ${err.message}`);
    await store.updateWatchRun(ctx.store, watchRun.id, { status: 'failed', detail: `GitHub refused to run ${watch.workflow}: ${err.message}` });
    return;
  }
  await store.updateWatchRun(ctx.store, watchRun.id, { status: 'dispatched', workflowRunId: run ? run.id : null });
}

// The commit a pushed head is measured against: while a regression of one of the suite's rows
// is open, its last good commit (so that a sighting and a recovery are judged against the level
// before it); else the suite's latest measured main commit; else the main tip before the push.
async function baseFor(ctx, { repo, before, suite }) {
  const rows = new Set(core.suiteRowIds(ctx.config.thresholds, suite));
  const open = (await store.regressionsOf(ctx.store, { repo, statuses: ['open'] })).filter((r) => rows.has(r.benchKey));
  if (open.length && open[0].lastGood) return open[0].lastGood;
  return (await store.lastMeasuredMainCommit(ctx.store, { repo, suite })) || before;
}

// The verdict of the measurement of a main commit that holds a microbenchmark (whichever
// suite's run measured it), or null.
async function measuredVerdictOf(ctx, { repo, sha, benchKey }) {
  for (const run of await store.watchRunsOf(ctx.store, { repo, headSha: sha, purpose: 'measure' })) {
    const verdict = run.runId ? await store.verdictOfRun(ctx.store, run.runId) : null;
    if (verdict && verdict.benchmarks.some((b) => b.id === benchKey)) return verdict;
  }
  return null;
}

/** The job of a push to the watched branch: place its commits on main, dispatch a measurement per suite. */
async function watchPushJob(ctx, job) {
  const { repo, headSha, before, commits, installationId } = job.payload;
  const unplaced = [];
  // The tip before the push is the base of the first measurement: on main too, before them.
  const placed = before ? [{ sha: before }, ...commits.filter((c) => c.sha !== before)] : commits;
  for (const c of placed) if ((await store.mainSeqOf(ctx.store, { repo, sha: c.sha })) === null) unplaced.push(c);
  if (unplaced.length) await store.recordMainline(ctx.store, { repo, commits: unplaced, firstSeq: await store.nextMainSeq(ctx.store, { repo }) });
  for (const suite of ctx.config.watch.suites) {
    const base = await baseFor(ctx, { repo, before, suite });
    if (!base || base === headSha) {
      ctx.log.info(`watch ${repo}: ${headSha} has no earlier main commit to be measured against by ${suite}; not measured`);
      continue;
    }
    const { watchRun } = await store.claimWatchRun(ctx.store, { repo, headSha, baseSha: base, purpose: 'measure', suite, installationId });
    if (watchRun.status === 'dispatching') await dispatch(ctx, ctx.github.installation(installationId), watchRun);
  }
}

// The threads whose instructions decided a row's instructions signal (signals.js), and so the
// level series a change point is looked for in; null for rQPS.
function threadsOf(item, signal) {
  if (signal === 'rqps') return null;
  const deciding = core.decidingInstructions(item);
  return deciding ? deciding.threads : 'connection';
}

/**
 * Change points of the series of every microbenchmark and signal that fails in this verdict or
 * was once dismissed as noise, found by Apache Otava over the history along main (instructions per query from the
 * stored verdicts, QPS from the stored rounds) and kept in change_points. Without Otava
 * (PERFGATE_CHANGE_POINT_PYTHON) the re-measurement alone confirms, and the log says so.
 */
async function changePointsAt(ctx, { repo, verdict }) {
  // Keyed by the figure too: a fail of all threads and one of the queries' own threads of the
  // same microbenchmark are looked for each in its own series.
  const watched = new Map();
  const watch = (id, signal, threads) => watched.set([id, signal, threads ?? ''].join('\u0000'), { id, signal, threads });
  for (const b of verdict.benchmarks) {
    for (const signal of core.REGRESSION_SIGNALS) if (core.signalVerdict(b, signal) === 'fail') watch(b.id, signal, threadsOf(b, signal));
  }
  // The fails dismissed as noise stay watched: a change point may confirm them later, on the
  // figure that decided them then (the verdict of the run that measured their first bad commit).
  for (const r of await store.regressionsOf(ctx.store, { repo, statuses: ['noise'] })) {
    const then = await measuredVerdictOf(ctx, { repo, sha: r.firstBad, benchKey: r.benchKey });
    const item = then && then.benchmarks.find((b) => b.id === r.benchKey);
    watch(r.benchKey, r.signal, threadsOf(item || {}, r.signal));
  }
  const series = [];
  for (const [key, { id, signal, threads }] of watched) {
    const points = signal === 'rqps' ? await store.mainSeries(ctx.store, { repo, microbenchmark: id, signal: 'qps' })
      : threads === 'all' ? await store.mainSeries(ctx.store, { repo, microbenchmark: id, signal: 'all_threads_instructions_per_query' })
        : await store.instructionLevels(ctx.store, { repo, benchKey: id });
    series.push({ key, points: commitSeries(points) });
  }
  if (!series.some((s) => s.points.length >= 3)) return [];
  let answer;
  try {
    answer = await detectChangePoints(series, { python: ctx.config.watch.changePointPython || undefined });
  } catch (err) {
    ctx.log.warn(`watch ${repo}: ${err.message}; the re-measurement alone confirms`);
    return [];
  }
  const found = [];
  for (const cp of answer.change_points) {
    const { id: benchKey, signal, threads } = watched.get(cp.key);
    await store.recordChangePoint(ctx.store, {
      repo, benchKey, signal, sha: cp.id, previousSha: cp.previous_id, meanBefore: cp.mean_before, meanAfter: cp.mean_after, pvalue: cp.pvalue,
      method: `apache-otava ${answer.detector.version} e-divisive`,
    });
    const measure = signal === 'rqps' ? 'QPS' : `instructions per query${threads === 'all' ? ' of all threads' : ''}`;
    found.push({
      benchKey, signal, sha: cp.id,
      description: `Apache Otava's E-Divisive means over main: ${measure} ${core.formatCount(cp.mean_before)} → ${core.formatCount(cp.mean_after)} `
        + `(×${cp.ratio.toFixed(3)}, p = ${cp.pvalue.toPrecision(2)}) from ${cp.previous_id.slice(0, 12)} to ${cp.id.slice(0, 12)}`,
    });
  }
  return found;
}

/**
 * Files the fails once dismissed as noise that a change point now confirms: the change point
 * sits at their first bad commit. The issue renders from the verdict of the run that found it.
 */
async function fileConfirmedNoise(ctx, { repo, tracker, changePoints }) {
  const filed = [];
  for (const cp of changePoints) {
    const dedupeKey = core.dedupeKey({ repo, benchKey: cp.benchKey, signal: cp.signal, firstBad: cp.sha });
    const row = await store.regressionByKey(ctx.store, dedupeKey);
    if (!row || row.status !== 'noise') continue;
    const verdict = await measuredVerdictOf(ctx, { repo, sha: cp.sha, benchKey: cp.benchKey });
    if (!verdict) continue;
    if (!await store.promoteNoise(ctx.store, { dedupeKey, note: `confirmed by change point: ${cp.description}` })) continue;
    const issue = core.regressionIssue({
      verdict, benchmarkId: cp.benchKey, signal: cp.signal, repo, lastGood: row.lastGood, firstBad: cp.sha, dedupeKey,
      confirmation: { changePoint: cp.description },
    });
    const created = await tracker.file({ ...issue, dedupeKey });
    await store.markFiled(ctx.store, { dedupeKey, tracker: tracker.name, issueKey: created.key, issueUrl: created.url, note: `confirmed by change point: ${cp.description}` });
    filed.push({ dedupeKey, issue: created });
  }
  return filed;
}

/**
 * A watch run's checked run folder: stored along main, then settled. A measurement with fails
 * not yet confirmed dispatches the re-measurement; a re-measurement settles the measurement it
 * confirms. -> what settleMainResult did, and the re-measurement dispatched (or null).
 */
async function watchRunCompleted(ctx, { watchRun, workflowRunId, attempt = 1, results, verdict }) {
  const octokit = ctx.github.installation(watchRun.installationId);
  const { repo, baseSha, headSha } = watchRun;
  const [baseSeq, headSeq] = [await store.mainSeqOf(ctx.store, { repo, sha: baseSha }), await store.mainSeqOf(ctx.store, { repo, sha: headSha })];
  const stored = await store.storeRun(ctx.store, {
    request: { repo, runKey: `watch:${repo}/${workflowRunId}/${attempt}`, base: { sha: baseSha, mainSeq: baseSeq }, head: { sha: headSha, mainSeq: headSeq } },
    results, verdict,
  });
  // 'stored' only once settled: a job that fails on the way (the tracker, GitHub) runs again
  // from the top, and every step above and below is repeatable.
  const done = () => store.updateWatchRun(ctx.store, watchRun.id, { status: 'stored', runId: stored.runId, workflowRunId, detail: verdict ? verdict.headline : null });
  if (!verdict) {
    await done();
    return { actions: [], confirming: null };
  }
  const tracker = trackerFor(ctx.config, { octokit, repo, log: ctx.log });
  // Every change point found; settle takes those at the head commit, and the earlier ones may
  // confirm a fail once dismissed as noise.
  const changePoints = await changePointsAt(ctx, { repo, verdict });
  await fileConfirmedNoise(ctx, { repo, tracker, changePoints });
  let settled;
  if (watchRun.purpose === 'confirm') {
    const measured = await store.watchRunOf(ctx.store, { repo, headSha, purpose: 'measure', suite: watchRun.suite });
    const original = await store.verdictOfRun(ctx.store, measured.runId);
    settled = await settleMainResult({ db: ctx.store, tracker, repo, base: measured.baseSha, head: headSha, verdict: original, confirmation: verdict, changePoints, log: ctx.log });
  } else {
    settled = await settleMainResult({ db: ctx.store, tracker, repo, base: baseSha, head: headSha, verdict, changePoints, log: ctx.log });
  }
  let confirming = null;
  if (watchRun.purpose === 'measure' && settled.confirm.length) {
    const claimed = await store.claimWatchRun(ctx.store, {
      repo, headSha, baseSha, purpose: 'confirm', suite: watchRun.suite, tests: settled.confirm, installationId: watchRun.installationId,
    });
    if (claimed.watchRun.status === 'dispatching') await dispatch(ctx, octokit, claimed.watchRun);
    confirming = claimed.watchRun;
  }
  await done();
  return { actions: settled.actions, confirming };
}

// The watch run whose dispatch started this workflow run: by the run id recorded at dispatch.
// One dispatched without it (GitHub gave none back, the run was not listed yet) takes the run
// only when GitHub lists it as the run this App dispatched for it; a run-name alone is not
// enough, since any workflow can copy it.
async function watchRunOfWorkflowRun(ctx, { repo, runId, displayTitle }) {
  const known = await store.watchRunOfWorkflowRun(ctx.store, { repo, workflowRunId: runId });
  if (known) return known;
  const id = /\(w([1-9][0-9]*)\)\s*$/.exec(displayTitle || '');
  const waiting = id ? await store.getWatchRun(ctx.store, Number(id[1])) : null;
  if (!waiting || waiting.workflowRunId !== null || waiting.repo.toLowerCase() !== String(repo).toLowerCase()) return null;
  const [owner, name] = waiting.repo.split('/');
  const run = await findDispatchedRun(ctx, ctx.github.installation(waiting.installationId), {
    owner, repo: name, workflow: ctx.config.watch.workflow, requestId: watchRequestId(waiting), since: waiting.createdAt,
  });
  if (!run || run.id !== runId) return null;
  await store.updateWatchRun(ctx.store, waiting.id, { workflowRunId: runId });
  return store.getWatchRun(ctx.store, waiting.id);
}

/**
 * A completed workflow run of the watch workflow (the `run` job's payload): its run folder is
 * downloaded, checked against the pinned pair (no pull request: a main commit) and settled.
 * -> false when the run is not one of the bot's watch runs.
 */
async function watchRunJob(ctx, job) {
  const { runId, attempt, conclusion } = job.payload;
  const watchRun = await watchRunOfWorkflowRun(ctx, job.payload);
  if (!watchRun) return false;
  if (watchRun.status !== 'dispatched') return true;
  const [owner, name] = watchRun.repo.split('/');
  const octokit = ctx.github.installation(watchRun.installationId);
  const { suite } = watchRun;
  let folder;
  try {
    const folders = await downloadRunFolders(octokit, { owner, repo: name, runId, suite, maxBytes: ctx.config.maxArtifactBytes });
    if (folders.length !== 1) throw new ArtifactRejected(`the watch run left ${folders.length} run folders; it measures one`);
    folder = { name: folders[0].name, ...checkRunFolder(folders[0], { name: folders[0].name, prNumber: null, baseSha: watchRun.baseSha, headSha: watchRun.headSha, suite }) };
  } catch (err) {
    if (!(err instanceof ArtifactRejected)) throw err;
    const why = conclusion === 'success' ? `its artifact was rejected: ${err.message}` : `the run ended ${conclusion} (${err.message})`;
    ctx.log.warn(`watch ${watchRun.repo}: run ${runId} of ${watchRun.headSha}: ${why}`);
    await store.updateWatchRun(ctx.store, watchRun.id, { status: 'failed', workflowRunId: runId, detail: why });
    return true;
  }
  await watchRunCompleted(ctx, { watchRun, workflowRunId: runId, attempt, results: folder.results, verdict: folder.verdict });
  return true;
}

module.exports = { changePointsAt, watchRunJob, mainPush, watchPushJob, watchRunCompleted, dispatchInputs, watchRequestId, WATCH_RUN_NAME };
