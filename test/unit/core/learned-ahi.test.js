'use strict';
// Limits learned from main's history for an AHI suite: its on/off rows and its gain cells are
// learned like rows, each by its own id; a gain cell whose spread on main is beyond any useful
// limit reads undecided, decides nothing and is listed where the maintainers look.
const test = require('node:test');
const assert = require('node:assert/strict');
const core = require('../../../core/src');
const { seededNormals } = require('../../support/seeded-draws');
const { thresholdsWith, configErrorOf } = require('../../support/thresholds-copy');

const SUITE = core.findSuite(core.loadThresholds(), 'ahi-quick');
const QUIET = 'point-select';
const NOISY = 'point-select+2%update-index';

// One run of main against the commit before it: 6 paired rounds a row; the noisy workload's
// AHI-on row moves 15% between runs (what one pair of processes differs by), the rest 0.4%.
// `gain` multiplies the head's AHI-on QPS of a workload.
function ahiRun(seed, { gain = {} } = {}) {
  const normal = seededNormals(seed);
  const benchmarks = [];
  for (const w of SUITE.ahi.variants) {
    for (const state of SUITE.ahi.states) {
      const between = w.name === NOISY && state === 'on' ? 0.15 : 0.004;
      const level = Math.exp(between * normal()) * (state === 'on' ? gain[w.name] || 1 : 1);
      benchmarks.push({
        id: `${w.name} ahi=${state} threads=4`, name: w.name, group: 'ahi', kind: 'read', threads: 4, ahi: state, status: 'ok',
        rounds: Array.from({ length: 6 }, (_, index) => {
          const base = 1000 * Math.exp(0.05 * normal());
          return [
            { index, side: 'base', qps: base, errors: 0, cpu_per_query_us: 100, cs_per_query: 1 },
            { index, side: 'head', qps: base * level * Math.exp(0.01 * normal()), errors: 0, cpu_per_query_us: 100, cs_per_query: 1 },
          ];
        }).flat(),
      });
    }
  }
  return {
    schema: 'perfgate.results/v1', plan: { suite: 'ahi-quick', benchmarks: benchmarks.map((b) => ({ id: b.id })) }, status: 'ok', errors: [],
    machine: { cpu_model: 'x', cores: 2, memory_bytes: 1, kernel: 'k', id: 'm-sim', hardware_class: 'sim-2c' },
    sides: { base: { basedir: '/b', flavor: 'mariadb', version: '1' }, head: { basedir: '/h', flavor: 'mariadb', version: '1' } },
    benchmarks,
  };
}

test('an AHI suite learns its rows and gain cells from 120 runs of main; the noisy cell is unstable and decides nothing', () => {
  const verdicts = Array.from({ length: 120 }, (_, k) => core.judge(ahiRun(1000 + k), SUITE));
  const { series, runs } = core.seriesFromVerdicts(verdicts, { suite: 'ahi-quick' });
  assert.equal(runs, 120);
  const quietCell = `${QUIET}@4:ahi-gain`;
  const noisyCell = `${NOISY}@4:ahi-gain`;
  assert.equal(series[quietCell].rqps.length, 120);
  assert.equal(series[`${QUIET} ahi=on threads=4`].rqps.length, 120);
  const learned = core.learnLimits(series);
  assert.equal(learned[noisyCell].rqps.unstable, true, JSON.stringify(learned[noisyCell]));
  const quiet = learned[quietCell].rqps;
  assert.deepEqual([quiet.enough, quiet.unstable, quiet.warn, quiet.fail], [true, false, 0.97, 0.95], JSON.stringify(quiet));
  const text = core.learnedFileText({ suite: 'ahi-quick', learned, runner: 'sim-2c', runs });
  const taught = core.findSuite(core.loadThresholds(thresholdsWith({ 'learned/ahi-quick.yml': text })), 'ahi-quick');

  // The quiet workload's gain 6.5% lower: a warn by the suite's ahi_gain limits (0.97 / 0.93), a fail by the learned ones (0.97 / 0.95).
  const pr = ahiRun(7, { gain: { [QUIET]: 0.935, [NOISY]: 0.8 } });
  const bySuite = core.judge(pr, SUITE);
  const byLearned = core.judge(pr, taught);
  const cell = (v, id) => v.ahi.find((c) => c.id === id);
  assert.equal(cell(bySuite, quietCell).verdict, 'warn');
  assert.equal(cell(byLearned, quietCell).verdict, 'fail', JSON.stringify([quiet, cell(byLearned, quietCell).gain_ratio]));
  assert.equal(cell(byLearned, quietCell).limits.source, 'learned');
  // The noisy workload's gain 20% lower (and this run's own draw of its spread): by the suite's
  // limits it is judged; unstable on main, it decides nothing.
  assert.notEqual(cell(bySuite, noisyCell).verdict, 'pass');
  const noisy = cell(byLearned, noisyCell);
  assert.equal(noisy.verdict, 'undecided');
  assert.match(noisy.reason, /^unstable: its AHI gain spread on main is \d+\.\d% \(99th percentile of 120 runs\): /);
  assert.deepEqual(noisy.unstable.whole_row, true);
  assert.equal(core.schemaProblem('verdict', byLearned), null);
  const alone = core.judge(ahiRun(7, { gain: { [NOISY]: 0.8 } }), taught);
  assert.equal(alone.ahi.find((c) => c.id === noisyCell).verdict, 'undecided');
  assert.ok(!alone.failed.includes(noisyCell), 'alone, the unstable cell fails nothing');
  // The sign-off lists it.
  const signoff = core.renderSignoff(byLearned, { candidate: { ref: 'v2' }, previous: { ref: 'v1' }, waivers: [] });
  assert.match(signoff.files['signoff.md'], new RegExp(`\\*\\*Unstable on main\\*\\*.*${NOISY.replace(/[+%]/g, (c) => `\\${c}`)}@4:ahi-gain`));
});

test('a learned file of an AHI suite names its rows and cells by their ids; anything else is refused naming the key', () => {
  const entry = '    rqps: {warn: 0.99, fail: 0.97, runs: 120, p99: 0.01}\n';
  const file = (id) => `suite: ahi-quick\nrunner: sim-2c\nruns: 120\nlimits:\n  ${JSON.stringify(id)}:\n${entry}`;
  for (const id of ['point-select@4:ahi-gain', 'point-select+2%update-index ahi=on threads=4', 'point-select ahi=off threads=16']) {
    const loaded = core.findSuite(core.loadThresholds(thresholdsWith({ 'learned/ahi-quick.yml': file(id) })), 'ahi-quick');
    assert.deepEqual(loaded.learned.byName[id].rqps, { warn: 0.99, fail: 0.97, runs: 120, p99: 0.01 }, id);
  }
  for (const id of ['no-such@4:ahi-gain', 'point-select ahi=maybe threads=4', 'point-select@x:ahi-gain']) {
    assert.match(configErrorOf(thresholdsWith({ 'learned/ahi-quick.yml': file(id) })),
      /learned\/ahi-quick\.yml:\d+: limits\..*is not a row of suite ahi-quick; expected one of: point-select, point-select\+2%update-index, or one of those followed by ' threads=<n>', '<workload> ahi=on\|off threads=<n>' or '<workload>@<n>:ahi-gain'/, id);
  }
});
