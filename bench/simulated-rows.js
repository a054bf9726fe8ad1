'use strict';
// What the simulations of the extra-round rules share: a row of drawn pair ratios as a
// results record core judges, how a settled row reads in their tables, and the tally of many
// rows of one case.

// One microbenchmark's record whose pair i has head/base QPS ratio ratios[i].
const record = (ratios) => ({
  id: 'row', name: 'row', group: 'point', status: 'ok',
  rounds: ratios.flatMap((r, index) => [
    { index, side: 'base', qps: 1000, errors: 0 },
    { index, side: 'head', qps: 1000 * r, errors: 0 },
  ]),
});

// How a settled row reads in the tables: undecided split by whether it proved a warn.
const outcome = (row, warn) => (row.verdict === 'undecided' && row.rqps.high < warn ? 'beyond warn'
  : row.verdict === 'pass' && row.could_be ? 'pass (could be a warn)' : row.verdict);

/**
 * `trials` rows of one case: `measureRow()` → {pairs, row}. Returns the mean pairs a row took
 * and each outcome's count.
 */
function tally(trials, measureRow, warn) {
  const counts = {};
  let pairs = 0;
  for (let i = 0; i < trials; i += 1) {
    const r = measureRow();
    pairs += r.pairs;
    const o = outcome(r.row, warn);
    counts[o] = (counts[o] || 0) + 1;
  }
  return { meanPairs: pairs / trials, counts };
}

module.exports = { record, outcome, tally };
