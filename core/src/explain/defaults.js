'use strict';
// Defaults: where the sides' server variables differ, the head was measured again with the
// base's values of them (set at its start), in timed pairs against the base. Its interval says
// whether the changed defaults explain the row: back within the row's warn limit, they do;
// still wholly beyond it, the code is slower with the same settings; reaching the limit, the
// pairs measured cannot say. Pure: the interval is the verdict's own (statistics.js), held to
// the row's own rQPS limits.
const { pairedRatios, pairedInterval } = require('../statistics');
const { signalOf } = require('../row-signals');

// What the re-measure's interval says, by where it lies against the warn limit.
const OUTCOME = Object.freeze({
  pass: 'explains', // wholly within the warn limit: the base's settings bring the head back
  beyond: 'code', // wholly beyond it: slower with the same settings
  open: 'open', // reaching it: not enough pairs to say
  unmeasured: 'unmeasured', // the variables differ, the re-measure did not run
});

// The differing variables a report names where the re-measure did not run: the first few, as
// the harness ordered them.
const VARIABLES_KEPT = 20;

const names = (list) => (Array.isArray(list) ? list.map(String) : []);

/**
 * @param defaults  the row's re-measure: {variables: [{name, base, head}], set: [names], refused: [{name, reason}],
 *                  still_differ: [names], rounds: [{index, side, qps}], not_measured?: why} or
 *                  null (no variable differed)
 * @param limits    the row's limits ({warn, fail} of rQPS)
 * @returns {findings: [{kind: 'defaults', outcome, interval, set: [{name, base}], refused: [{name,
 *          reason}], still_differ}] or, not re-measured, [{kind: 'defaults', outcome:
 *          'unmeasured', variables: [{name, base, head}], count, why}], problem}
 */
function defaultsFindings(defaults, limits) {
  if (!defaults) return { findings: [], problem: null };
  if (typeof defaults.not_measured === 'string') {
    const variables = (Array.isArray(defaults.variables) ? defaults.variables : []).map((v) => ({ name: String(v.name), base: v.base ?? null, head: v.head ?? null }));
    const finding = { kind: 'defaults', outcome: OUTCOME.unmeasured, variables: variables.slice(0, VARIABLES_KEPT), count: variables.length, why: defaults.not_measured };
    return { findings: variables.length ? [finding] : [], problem: defaults.not_measured || 'not re-measured' };
  }
  const refusedList = Array.isArray(defaults.refused) ? defaults.refused : [];
  if (!names(defaults.set).length) {
    // Nothing was set: the head as it was is no re-measure with the base's settings.
    const why = refusedList.slice(0, 3).map((r) => `${String(r.name)}: ${String(r.reason)}`).join('; ');
    return { findings: [], problem: `none of the variables that differ could be set on the head${why ? ` (${why}${refusedList.length > 3 ? `; ${refusedList.length - 3} more` : ''})` : ''}` };
  }
  const rounds = Array.isArray(defaults.rounds) ? defaults.rounds.filter((r) => r && (r.side === 'base' || r.side === 'head')) : [];
  const ratios = pairedRatios(rounds, 'qps');
  if (ratios.length < 2) return { findings: [], problem: `the re-measure with the base's settings has ${ratios.length} pair${ratios.length === 1 ? '' : 's'}, 2 needed` };
  const interval = pairedInterval(ratios);
  const span = signalOf('rqps', interval, limits).span;
  const outcome = span.worst === 'pass' ? OUTCOME.pass : span.best === 'pass' ? OUTCOME.open : OUTCOME.beyond;
  const baseValue = new Map((defaults.variables || []).map((v) => [String(v.name), v.base]));
  const set = names(defaults.set).map((name) => ({ name, base: baseValue.has(name) ? baseValue.get(name) : null }));
  const shown = { estimate: interval.estimate, low: interval.low, high: interval.high, n: interval.n };
  const refused = refusedList.map((r) => ({ name: String(r.name), reason: String(r.reason) }));
  return { findings: [{ kind: 'defaults', outcome, interval: shown, limits: { warn: limits.warn, fail: limits.fail }, set, refused, still_differ: names(defaults.still_differ) }], problem: null };
}

module.exports = { defaultsFindings, OUTCOME };
