'use strict';
// A results document as the harness writes one, around the benchmarks a test builds: the
// smallest that judge and mergeResults accept.
function resultsDoc(benchmarks) {
  return {
    schema: 'perfgate.results/v1', plan: { suite: 'quick', benchmarks: benchmarks.map((b) => ({ id: b.id })) }, status: 'ok', errors: [],
    machine: { cpu_model: 'x', cores: 2, memory_bytes: 1, kernel: 'k', id: 'm' },
    sides: { base: { basedir: '/b', flavor: 'mariadb', version: '1' }, head: { basedir: '/h', flavor: 'mariadb', version: '2' } },
    benchmarks,
  };
}

module.exports = { resultsDoc };
