'use strict';
// What watching the main branch decides after each judged run of a main commit, as a pure
// function of the verdict and of what the history already holds. The bot carries the
// decisions out (dispatches, tracker issues, history rows).
//
// A failing signal becomes a regression only when confirmed: a re-measurement of the same
// pinned pair fails again, or a change point over consecutive main commits sits at the head
// commit. A fail that the re-measurement does not reproduce, with no change point, is noise:
// it files nothing and is recorded as such.
const crypto = require('node:crypto');
const { signalVerdict, signalFigure, REGRESSION_SIGNALS } = require('./signals');
const F = require('./render/format');

// regressions.dedupe_key is VARCHAR(191): longer keys are replaced by a digest of the parts.
const DEDUPE_KEY_LIMIT = 191;

/** One regression's key: repository, microbenchmark, signal and first bad commit. */
function dedupeKey({ repo, benchKey, signal, firstBad }) {
  for (const [name, value] of Object.entries({ repo, benchKey, signal, firstBad })) {
    if (typeof value !== 'string' || !value) throw new Error(`dedupeKey: '${name}' must be a non-empty string, got ${JSON.stringify(value)}`);
  }
  const key = `${repo}:${benchKey}:${signal}@${firstBad}`;
  if (key.length <= DEDUPE_KEY_LIMIT) return key;
  return `sha256:${crypto.createHash('sha256').update([repo, benchKey, signal, firstBad].join('\0')).digest('hex')}`;
}

// A signal's figure in words, "instr/o of all threads 1.049 [1.048, 1.050]": the figure the
// item's verdict rests on (signals.js, signalFigure).
const figureWords = (item, signal) => {
  const { interval: i, word } = signalFigure(item, signal);
  const digits = signal === 'rqps' ? 2 : F.INSTR_DIGITS;
  return i ? `${word} ${F.estimate(i, digits)} [${F.interval(i, digits).replace('–', ', ')}]` : `${word} not measured`;
};

/**
 * watchDecisions({repo, base, head, verdict, open, recorded, confirmation, changePoints}) -> actions
 *   base, head    SHAs the verdict compared (head = the main commit judged)
 *   verdict       perfgate.verdict/v2 of that run
 *   open          the open regressions of the repository: [{dedupeKey, benchKey, signal, lastGood, lastSeen}]
 *                 (lastSeen: the last head SHA counted as a sighting, or the first bad commit;
 *                 a run against another base than lastGood says nothing about them)
 *   recorded      dedupe keys the history already holds, in any state (a decision made once stays)
 *   confirmation  perfgate.verdict/v2 of the re-measurement of this pair, or null before it ran
 *   changePoints  [{benchKey, signal, sha}]: change points found at commits of this series
 * Actions, in verdict order:
 *   {action: 'confirm', benchKey, signal}               re-measure (the bot dispatches once per run)
 *   {action: 'file', benchKey, signal, dedupeKey, confirmation: {remeasured?, changePoint?}}
 *   {action: 'noise', benchKey, signal, dedupeKey, reason}
 *   {action: 'sighting', benchKey, signal, dedupeKey}
 *   {action: 'close', benchKey, signal, dedupeKey, fixedBy}
 */
function watchDecisions({ repo, base, head, verdict, open = [], recorded = [], confirmation = null, changePoints = [] }) {
  const seen = new Set(recorded);
  const actions = [];
  for (const b of verdict.benchmarks) {
    // A row that ended in error (its server failed, a round errored) says nothing of its
    // signals, whatever they read before: it neither files nor closes a regression.
    if (b.verdict === 'error') continue;
    for (const signal of REGRESSION_SIGNALS) {
      const word = signalVerdict(b, signal);
      const same = (x) => x.benchKey === b.id && x.signal === signal;
      const regression = open.find(same);
      // Only a run against the regression's last good commit says whether it is still there:
      // two commits after it compare equal. (The bot measures against it while it is open.)
      if (regression && regression.lastGood && regression.lastGood !== base) continue;
      if (regression) {
        if (word === 'fail' && regression.lastSeen !== head) actions.push({ action: 'sighting', benchKey: b.id, signal, dedupeKey: regression.dedupeKey });
        if (word === 'pass') actions.push({ action: 'close', benchKey: b.id, signal, dedupeKey: regression.dedupeKey, fixedBy: head });
        continue;
      }
      if (word !== 'fail') continue;
      const key = dedupeKey({ repo, benchKey: b.id, signal, firstBad: head });
      if (seen.has(key)) continue;
      const point = changePoints.find((c) => same(c) && c.sha === head);
      const again = confirmation ? confirmation.benchmarks.find((x) => x.id === b.id) : null;
      const againWord = again ? signalVerdict(again, signal) : null;
      const evidence = {};
      if (againWord === 'fail') evidence.remeasured = figureWords(again, signal);
      if (point) evidence.changePoint = point.description || `at ${head}`;
      if (evidence.remeasured || evidence.changePoint) {
        actions.push({ action: 'file', benchKey: b.id, signal, dedupeKey: key, confirmation: evidence });
      } else if (confirmation) {
        // Filed only when confirmed; what the re-measurement said decides the words. Kept as
        // noise (nothing filed), the fail stays watched: a change point at it files it later.
        // A re-measurement kept open by what one pair of processes proved of all threads' instructions
        // says so in its own phrase; its pooled figure would read as unchanged.
        const openedByOnePair = again && signal === 'instructions_per_query' && again.instructions_recount && again.headline_phrase;
        const figure = openedByOnePair
          ? `${againWord}: ${again.headline_phrase}`
          : again && signalFigure(again, signal).interval ? `${figureWords(again, signal)}, ${againWord}` : null;
        const outcome = againWord === 'pass' || againWord === 'warn'
          ? `was not reproduced by the re-measurement (${figure})`
          : figure
            ? `was neither confirmed nor ruled out by the re-measurement (${figure})`
            : `was not measured again (the re-measurement has no ${signalFigure(again || {}, signal).word})`;
        actions.push({
          action: 'noise', benchKey: b.id, signal, dedupeKey: key,
          reason: `not confirmed: ${figureWords(b, signal)} at ${head} against ${base} ${outcome}, and no change point is there`,
        });
      } else {
        actions.push({ action: 'confirm', benchKey: b.id, signal });
      }
    }
  }
  return actions;
}

module.exports = { watchDecisions, dedupeKey, DEDUPE_KEY_LIMIT };
