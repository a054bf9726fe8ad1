'use strict';
// Real judged runs and commit SHAs for the tests of watching main (core's decisions, the store
// contract, the push and run jobs, Jira): one copy of each.
const fs = require('node:fs');
const path = require('node:path');
const core = require('@perfgate/core');

const FIXTURES = path.join(__dirname, '../fixtures');
const LIMITS = { limits: { default: { warn: 0.97, fail: 0.93, instructions: { warn: 1.02, fail: 1.04 } } } };
const REPO = 'perfgate-test/fork';
const GOOD = '1f0c3e5a9d2b4c6e8f0a1b2c3d4e5f6a7b8c9d0e';
const BAD = 'abc1234f5e6d7c8b9a0f1e2d3c4b5a6f7e8d9c0b';
const STILL = '5e6d7c8b9a0f1e2d3c4b5a6f7e8d9c0babc1234f';
const FIX = 'f1e2d3c4b5a6f7e8d9c0babc1234f5e6d7c8b9a0';
const NEXT = '7e8d9c0babc1234f5e6d7c8b9a0f1e2d3c4b5a6f';

function judgedRun(file) {
  const results = JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8'));
  return { results, verdict: core.judge(results, LIMITS) };
}

// A real run whose head counts 9% (point-query) and 5% (update-index_range=100) more
// instructions per query (performance_schema=ON), and a real A/A run where both pass.
const regressedRun = () => judgedRun('results/instructions-pfs/results.json');
const aaRun = () => judgedRun('watch/instructions-aa.json');
const regressed = () => regressedRun().verdict;
const aa = () => aaRun().verdict;

module.exports = { LIMITS, REPO, GOOD, BAD, STILL, FIX, NEXT, regressed, aa, regressedRun, aaRun };
