'use strict';
// Carries out what core's watchDecisions decided for a judged main commit: files confirmed
// regressions once in the tracker, comments on sightings, closes recoveries, and records
// noise. The history row is claimed (or counted) before the tracker is called, so a result
// delivered twice files one issue and comments once.
const core = require('@perfgate/core');
const store = require('../store');

/**
 * settleMainResult({db, tracker, repo, base, head, verdict, confirmation, changePoints, log})
 *   db            an open store (bot/src/store)
 *   base, head    SHAs of the judged pair (head = the main commit)
 *   verdict       perfgate.verdict/v2 of that pair; confirmation: of its re-measurement, or null
 *   changePoints  [{benchKey, signal, sha, description?}] found on the main series
 * -> {actions, confirm}: what was done, and the microbenchmarks to re-measure (none once
 *    `confirmation` is given)
 */
async function settleMainResult({ db, tracker, repo, base, head, verdict, confirmation = null, changePoints = [], log = null }) {
  const all = await store.regressionsOf(db, { repo });
  const open = all.filter((r) => r.status === 'open').map((r) => ({
    dedupeKey: r.dedupeKey, benchKey: r.benchKey, signal: r.signal, lastGood: r.lastGood, lastSeen: r.lastSeen,
  }));
  const actions = core.watchDecisions({
    // A row left 'filing' (the tracker failed, or the process died, before the issue was
    // recorded) is filed again when the job runs again.
    repo, base, head, verdict, open, recorded: all.filter((r) => r.status !== 'filing').map((r) => r.dedupeKey), confirmation, changePoints,
  });
  const done = [];
  for (const a of actions) {
    const item = verdict.benchmarks.find((b) => b.id === a.benchKey);
    if (a.action === 'confirm') continue;
    if (a.action === 'noise') {
      const claim = await store.claimRegression(db, {
        dedupeKey: a.dedupeKey, repo, benchKey: a.benchKey, signal: a.signal, firstBad: head, lastGood: base,
        interval: core.signalFigure(item, a.signal).interval, status: 'noise', note: a.reason,
      });
      if (!claim.duplicate) done.push({ ...a });
      if (log && !claim.duplicate) log.info(`watch ${repo}: ${a.benchKey} ${a.signal}: ${a.reason}; nothing filed`);
    } else if (a.action === 'file') {
      const claim = await store.claimRegression(db, {
        dedupeKey: a.dedupeKey, repo, benchKey: a.benchKey, signal: a.signal, firstBad: head, lastGood: base,
        interval: core.signalFigure(item, a.signal).interval, status: 'filing',
      });
      if (claim.duplicate && (await store.regressionByKey(db, a.dedupeKey)).status !== 'filing') continue;
      const issue = core.regressionIssue({
        verdict, benchmarkId: a.benchKey, signal: a.signal, repo, lastGood: base, firstBad: head, dedupeKey: a.dedupeKey, confirmation: a.confirmation,
      });
      // Claimed before and never recorded as filed: an earlier attempt may have filed it and
      // died before it said so, and the tracker knows. (An earlier attempt still running that
      // has not reached its tracker call yet is not caught: both file.)
      const filed = (claim.duplicate && await tracker.find(a.dedupeKey)) || await tracker.file({ ...issue, dedupeKey: a.dedupeKey });
      const note = Object.entries(a.confirmation).map(([how, what]) => `confirmed by ${how === 'remeasured' ? 're-measurement' : 'change point'}: ${what}`).join('; ');
      await store.markFiled(db, { dedupeKey: a.dedupeKey, tracker: tracker.name, issueKey: filed.key, issueUrl: filed.url, note });
      done.push({ ...a, issue: filed, title: issue.title });
    } else if (a.action === 'sighting') {
      const counted = await store.recordSighting(db, { dedupeKey: a.dedupeKey, repo, sha: head });
      if (!counted.counted) continue;
      const regression = await store.regressionByKey(db, a.dedupeKey);
      await tracker.comment(regression.issueKey, core.sightingComment({
        verdict, benchmarkId: a.benchKey, signal: a.signal, base, head, sightings: counted.sightings,
      }));
      done.push({ ...a, sightings: counted.sightings });
    } else if (a.action === 'close') {
      if (!await store.closeRegression(db, { dedupeKey: a.dedupeKey, repo, fixedBy: head })) continue;
      const regression = await store.regressionByKey(db, a.dedupeKey);
      await tracker.close(regression.issueKey, core.recoveryComment({ verdict, benchmarkId: a.benchKey, signal: a.signal, base, head }));
      done.push({ ...a });
    }
  }
  const confirm = [...new Set(actions.filter((a) => a.action === 'confirm').map((a) => a.benchKey))];
  return { actions: done, confirm };
}

module.exports = { settleMainResult };
