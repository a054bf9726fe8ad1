'use strict';
// A suite's limits learned from main's history, learned/<suite>.yml in the thresholds folder
// (written by `perfgate limits learn`, core/src/learned-limits.js; docs/verdicts.md#limits-learned-from-main):
//   suite: <name>, runner: <class>, runs: <int>,
//   limits: {<row id>: {rqps?: Learned, instructions?: Learned, cpu?: Learned}}
//   Learned = {warn, fail, runs, p99} | {unstable: true, runs, p99}
// It lives in the same folder as the suite's own limits, in the action the base commit's, so a
// pull request cannot loosen it; it is trusted as the suite file is, within calibrate's caps.
const check = require('./checks');
const { show } = require('./yaml-source');
const { LEARN, LEARNED_SIGNALS } = require('../learned-limits');

const FORM = '{warn, fail, runs, p99} or {unstable: true, runs, p99}';

function loadSignal(src, at, signal) {
  const { rule, word, capOf = "calibrate's cap" } = LEARNED_SIGNALS[signal];
  const raw = check.mapping(src, at, { required: ['runs', 'p99'], optional: ['warn', 'fail', 'unstable'], what: FORM });
  const runs = check.number(src, [...at, 'runs'], { integer: true, min: LEARN.min_runs, what: `an integer >= ${LEARN.min_runs} (the runs of main the rule needs)` });
  const p99 = check.number(src, [...at, 'p99'], { min: 0, what: 'a share >= 0 (0.012 = 1.2%)' });
  if (raw.unstable !== undefined) {
    if (raw.unstable !== true) src.fail([...at, 'unstable'], `${show(raw.unstable)} is not valid; expected true, or no key`);
    if (raw.warn !== undefined || raw.fail !== undefined) src.fail(at, `an unstable row has no limits; expected ${FORM}`);
    return { unstable: true, runs, p99 };
  }
  if (raw.warn === undefined || raw.fail === undefined) src.fail(at, `missing key '${raw.warn === undefined ? 'warn' : 'fail'}'; expected ${FORM}`);
  // Never looser than calibrate's caps: a hand-edited file cannot give up more than calibrate may.
  const bounds = rule.worse < 0 ? { min: rule.failCap, max: 1 } : { min: 1, max: rule.failCap };
  const what = `a ratio from ${bounds.min} to ${bounds.max} (${capOf} on ${word})`;
  const warn = check.number(src, [...at, 'warn'], { ...bounds, what });
  const fail = check.number(src, [...at, 'fail'], { ...bounds, what });
  if (rule.worse * (fail - warn) < 0) src.fail([...at, 'fail'], `fail ${fail} is nearer 1 than warn ${warn}; expected ${word} fail beyond warn`);
  return { warn, fail, runs, p99 };
}

// An AHI suite's rows are '<workload> ahi=<on|off> threads=<n>' (plan.js) and its gain cells
// '<workload>@<n>:ahi-gain' (ahi-cells.js).
const AHI_ID = /^(.+?)(?: ahi=(?:on|off) threads=\d+|@\d+:ahi-gain)$/;

/**
 * @param src    the file's YamlSource
 * @param suite  the loaded suite it belongs to: its names (and '<name> threads=<n>') are the rows it may hold
 * @returns {file, runner, runs, byName: {<row id>: {rqps?, instructions?, cpu?}}}
 */
function loadLearned(src, suite, threadKey) {
  check.mapping(src, [], { required: ['suite', 'limits'], optional: ['runner', 'runs'], what: 'learned limits {suite, runner, runs, limits}' });
  const name = check.string(src, ['suite']);
  if (name !== suite.name) src.fail(['suite'], `${show(name)} differs from the file name; expected '${suite.name}'`);
  const ahiNames = suite.ahi ? suite.ahi.variants.map((v) => v.name) : [];
  const known = (key) => suite.names.includes(key) || suite.names.includes((threadKey.exec(key) || [])[1])
    || ahiNames.includes((AHI_ID.exec(key) || [])[1]);
  const ahiForms = ahiNames.length ? `, '<workload> ahi=on|off threads=<n>' or '<workload>@<n>:ahi-gain'` : '';
  const raw = check.mapping(src, ['limits'], {
    anyKeys: true, what: 'learned limits per row',
  });
  const byName = {};
  for (const id of Object.keys(raw)) {
    const at = ['limits', id];
    if (!known(id)) src.fail(at, `${show(id)} is not a row of suite ${suite.name}; expected one of: ${suite.names.join(', ')}, or one of those followed by ' threads=<n>'${ahiForms}`);
    const entry = check.mapping(src, at, { optional: Object.keys(LEARNED_SIGNALS), what: `learned limits of one row {${Object.keys(LEARNED_SIGNALS).join(', ')}}` });
    byName[id] = {};
    for (const signal of Object.keys(LEARNED_SIGNALS)) if (entry[signal] !== undefined) byName[id][signal] = loadSignal(src, [...at, signal], signal);
  }
  return {
    file: src.file,
    runner: src.data.runner === undefined ? null : check.string(src, ['runner']),
    runs: src.data.runs === undefined ? null : check.number(src, ['runs'], { integer: true, min: 0 }),
    byName,
  };
}

module.exports = { loadLearned };
