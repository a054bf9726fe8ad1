'use strict';
// Watching the main branch: a push to it dispatches the fork's watch workflow for the pushed
// commit against the previous main commit with a result (pinned SHAs); the completed run is
// stored along main and settled (watch.js); a fail is re-measured once, the same pinned pair
// with only the failing microbenchmarks, before anything is filed.
//
// The dispatch contract of the watch workflow (workflow_dispatch inputs, all strings):
//   base-sha, head-sha  the pinned pair (40 hex digits): head = the pushed main commit
//   suite               the suite measured (quick)
//   options             "tests=a,b" for a re-measurement, else empty
//   purpose             measure | confirm
//   request-id          "w" and the bot's watch run id, in the run-name so the bot finds it:
//   run-name: perfgate watch ${{ inputs.suite }} of ${{ inputs.head-sha }} (${{ inputs.request-id }})
// Pushes to main are trusted: nothing of a pull request runs, so there is no gate to pass.
const store = require('../store');
const contract = require('./contract');
const { settleMainResult } = require('./watch');
const { githubTracker } = require('./tracker');
const { downloadRunFolders, checkRunFolder, ArtifactRejected } = require('./artifact');

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

function dispatchInputs({ watchRun, suite }) {
  for (const [name, sha] of [['base', watchRun.baseSha], ['head', watchRun.headSha]]) {
    if (!contract.SHA.test(sha || '')) throw new Error(`watch dispatch: the ${name} ${JSON.stringify(sha)} is not 40 hex digits`);
  }
  return {
    'base-sha': watchRun.baseSha,
    'head-sha': watchRun.headSha,
    suite,
    options: watchRun.tests ? `tests=${watchRun.tests.join(',')}` : '',
    purpose: watchRun.purpose,
    'request-id': watchRequestId(watchRun),
  };
}

async function dispatch(ctx, octokit, watchRun) {
  const [owner, repo] = watchRun.repo.split('/');
  const { watch } = ctx.config;
  // The workflow file is the default branch's: what main's maintainers reviewed.
  const { data } = await octokit.rest.repos.get({ owner, repo });
  await octokit.rest.actions.createWorkflowDispatch({
    owner, repo, workflow_id: watch.workflow, ref: data.default_branch, inputs: dispatchInputs({ watchRun, suite: watch.suite }),
  });
  await store.updateWatchRun(ctx.store, watchRun.id, { status: 'dispatched' });
}

// The commit a pushed head is measured against: while a regression is open, its last good
// commit (so that a sighting and a recovery are judged against the level before it); else the
// latest measured main commit; else the main tip before the push.
async function baseFor(ctx, { repo, before }) {
  const open = await store.regressionsOf(ctx.store, { repo, statuses: ['open'] });
  if (open.length && open[0].lastGood) return open[0].lastGood;
  return (await store.lastMeasuredMainCommit(ctx.store, { repo })) || before;
}

/** The job of a push to the watched branch: place its commits on main, dispatch a measurement. */
async function watchPushJob(ctx, job) {
  const { repo, headSha, before, commits, installationId } = job.payload;
  const unplaced = [];
  // The tip before the push is the base of the first measurement: on main too, before them.
  const placed = before ? [{ sha: before }, ...commits.filter((c) => c.sha !== before)] : commits;
  for (const c of placed) if ((await store.mainSeqOf(ctx.store, { repo, sha: c.sha })) === null) unplaced.push(c);
  if (unplaced.length) await store.recordMainline(ctx.store, { repo, commits: unplaced, firstSeq: await store.nextMainSeq(ctx.store, { repo }) });
  const base = await baseFor(ctx, { repo, before });
  if (!base || base === headSha) {
    ctx.log.info(`watch ${repo}: ${headSha} has no earlier main commit to be measured against; not measured`);
    return;
  }
  const { watchRun } = await store.claimWatchRun(ctx.store, { repo, headSha, baseSha: base, purpose: 'measure', installationId });
  if (watchRun.status !== 'dispatching') return;
  await dispatch(ctx, ctx.github.installation(installationId), watchRun);
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
  await store.updateWatchRun(ctx.store, watchRun.id, { status: 'stored', runId: stored.runId, workflowRunId, detail: verdict ? verdict.headline : null });
  if (!verdict) return { actions: [], confirming: null };
  const tracker = githubTracker({ octokit, repo });
  let settled;
  if (watchRun.purpose === 'confirm') {
    const measured = await store.watchRunOf(ctx.store, { repo, headSha, purpose: 'measure' });
    const original = await store.verdictOfRun(ctx.store, measured.runId);
    settled = await settleMainResult({ db: ctx.store, tracker, repo, base: measured.baseSha, head: headSha, verdict: original, confirmation: verdict, log: ctx.log });
  } else {
    settled = await settleMainResult({ db: ctx.store, tracker, repo, base: baseSha, head: headSha, verdict, log: ctx.log });
  }
  let confirming = null;
  if (watchRun.purpose === 'measure' && settled.confirm.length) {
    const claimed = await store.claimWatchRun(ctx.store, {
      repo, headSha, baseSha, purpose: 'confirm', tests: settled.confirm, installationId: watchRun.installationId,
    });
    if (claimed.watchRun.status === 'dispatching') await dispatch(ctx, octokit, claimed.watchRun);
    confirming = claimed.watchRun;
  }
  return { actions: settled.actions, confirming };
}

/**
 * A completed workflow run of the watch workflow (the `run` job's payload): its run folder is
 * downloaded, checked against the pinned pair (no pull request: a main commit) and settled.
 * -> false when the run is not one of the bot's watch runs.
 */
async function watchRunJob(ctx, job) {
  const { repo, runId, attempt, conclusion, displayTitle } = job.payload;
  const id = /\(w([1-9][0-9]*)\)\s*$/.exec(displayTitle || '');
  const watchRun = id ? await store.getWatchRun(ctx.store, Number(id[1])) : null;
  if (!watchRun || watchRun.repo.toLowerCase() !== String(repo).toLowerCase()) return false;
  if (watchRun.status !== 'dispatched') return true;
  const [owner, name] = watchRun.repo.split('/');
  const octokit = ctx.github.installation(watchRun.installationId);
  const suite = ctx.config.watch.suite;
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

module.exports = { watchRunJob, mainPush, watchPushJob, watchRunCompleted, dispatchInputs, watchRequestId, WATCH_RUN_NAME };
