'use strict';
// Extra rounds measured after the planned ones are merged into one results document, so that
// results.json always holds every round of the run and its own record of how it grew.
const { schemaProblem } = require('./schemas');

// The first round index of the next extension: after every index used so far, so that base i
// and head i always come from the same interleaved pair.
function nextRoundIndex(results) {
  let max = -1;
  for (const b of results.benchmarks) for (const r of b.rounds || []) max = Math.max(max, r.index);
  return max + 1;
}

function addCounters(a = {}, b = {}) {
  const out = { ...a };
  for (const [key, value] of Object.entries(b)) {
    out[key] = typeof value === 'number' && typeof out[key] === 'number' ? out[key] + value : value;
  }
  return out;
}

/**
 * @param results    the results so far (perfgate.results/v1)
 * @param extra      results of an extension plan
 * @param extension  {file, purpose: 'extend'|'confirm', first_round, rounds, benchmarks: [ids]}
 * @returns a new perfgate.results/v1 document; inputs are not modified
 */
function mergeRounds(results, extra, extension) {
  const extraById = new Map(extra.benchmarks.map((b) => [b.id, b]));
  for (const id of extraById.keys()) {
    if (!results.benchmarks.some((b) => b.id === id)) throw new Error(`mergeRounds: ${extension.file} has '${id}', which the results do not`);
  }
  const benchmarks = results.benchmarks.map((b) => {
    const more = extraById.get(b.id);
    if (!more) return b;
    const merged = { ...b, rounds: [...(b.rounds || []), ...(more.rounds || [])] };
    if (more.status === 'error') {
      merged.status = 'error';
      if (more.error) merged.error = more.error;
    }
    if (more.ahi_counters) {
      merged.ahi_counters = {
        base: addCounters(b.ahi_counters && b.ahi_counters.base, more.ahi_counters.base),
        head: addCounters(b.ahi_counters && b.ahi_counters.head, more.ahi_counters.head),
      };
    }
    return merged;
  });
  const merged = {
    ...results,
    status: results.status === 'error' || extra.status === 'error' ? 'error' : 'ok',
    errors: [...(results.errors || []), ...(extra.errors || [])],
    finished: extra.finished || results.finished,
    benchmarks,
    extensions: [...(results.extensions || []), extension],
  };
  const problem = schemaProblem('results', merged);
  if (problem) throw new Error(`merged results do not match schema/results.schema.json: ${problem}`);
  return merged;
}

module.exports = { mergeRounds, nextRoundIndex };
