'use strict';
// Drawn runs of main for the tests of limits learned from main's history: each run one main
// commit against the one before it, timed rows of the quick suite with 6 paired rounds. Each
// row has its own spread between runs (`between`: what two pairs of server processes differ by,
// which no run's interval shows) and 1% noise a pair within a run.
const { seededNormals } = require('./seeded-draws');

// The rows drawn and their spread between runs: a quiet row, a noisy one, and one far beyond
// any useful limit.
const MAIN_ROWS = {
  'point-query': { group: 'point', between: 0.004 },
  'update-index_range=100': { group: 'write', between: 0.03 },
  'scan_range=100': { group: 'range', between: 0.12 },
};

// A row may also give `cpuBetween`: the spread of mysqld's CPU per query between runs (else
// the same on both sides); `cpu` multiplies a row's head CPU per query.
function mainRun(seed, { rows = MAIN_ROWS, hardwareClass = 'sim-2c', rqps = {}, cpu = {} } = {}) {
  const normal = seededNormals(seed);
  const benchmarks = Object.entries(rows).map(([id, { group, between, cpuBetween }]) => {
    const level = Math.exp(between * normal()) * (rqps[id] || 1);
    const cpuLevel = (cpuBetween === undefined ? 1 : Math.exp(cpuBetween * normal())) * (cpu[id] || 1);
    return {
      id, name: id, group, status: 'ok',
      rounds: Array.from({ length: 6 }, (_, index) => {
        const base = 1000 * Math.exp(0.05 * normal());
        return [
          { index, side: 'base', qps: base, errors: 0, cpu_per_query_us: 100, cs_per_query: 1 },
          { index, side: 'head', qps: base * level * Math.exp(0.01 * normal()), errors: 0, cpu_per_query_us: 100 * cpuLevel, cs_per_query: 1 },
        ];
      }).flat(),
    };
  });
  return {
    schema: 'perfgate.results/v1', plan: { suite: 'quick', benchmarks: benchmarks.map((b) => ({ id: b.id })) }, status: 'ok', errors: [],
    machine: { cpu_model: 'x', cores: 2, memory_bytes: 1, kernel: 'k', id: `m-${hardwareClass}`, hardware_class: hardwareClass },
    sides: { base: { basedir: '/b', flavor: 'mariadb', version: '1' }, head: { basedir: '/h', flavor: 'mariadb', version: '1' } },
    benchmarks,
  };
}

/** `count` drawn runs of main, oldest first. */
const mainRuns = (count, options = {}) => Array.from({ length: count }, (_, k) => mainRun(1000 + 17 * k, options));

module.exports = { mainRun, mainRuns, MAIN_ROWS };
