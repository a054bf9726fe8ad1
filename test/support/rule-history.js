'use strict';
// The cases the verdict rule is held to across its versions: every captured results file under
// test/fixtures/ (timed rounds, instruction windows, both joined, runs joined as `perfgate
// judge` joins them) and the drawn runs with steps on fresh servers of
// test/fixtures/rule-history/drawn-results.json, each judged under a grid of limits that puts
// their rows in every span of verdicts. scripts/freeze-rule-history.js froze what the rule of
// e3340e2 made of them; test/unit/core/no-easier-pass.test.js judges them again.
const fs = require('node:fs');
const path = require('node:path');
const { capturedResults, loadResults } = require('./captured-results');

const FIXTURES = path.join(__dirname, '../fixtures');
const HISTORY = path.join(FIXTURES, 'rule-history');
const DRAWN = path.join(HISTORY, 'drawn-results.json');
const FROZEN = path.join(HISTORY, 'verdicts-e3340e2.json');

// rQPS limits from the shipped ones to limits above 1 (a fork that demands a speed-up), and
// instr/o limits from the shipped ones to limits that every A/A window reaches.
const TIME_LIMITS = [[0.97, 0.93], [0.99, 0.97], [1.0, 0.99], [1.03, 0.98], [0.9, 0.85]];
const INSTRUCTION_LIMITS = [[1.015, 1.03], [1.0, 1.002], [0.9995, 1.0005], [1.005, 1.04]];

function limitSets() {
  const out = [];
  for (const [warn, fail] of TIME_LIMITS) {
    for (const [iw, ifail] of INSTRUCTION_LIMITS) {
      const limits = { warn, fail, instructions: { warn: iw, fail: ifail } };
      out.push({ name: `rqps ${warn}/${fail} instr ${iw}/${ifail}`, limits: { default: limits, ahi_gain: limits } });
    }
  }
  return out;
}

const relative = (file) => path.relative(FIXTURES, file);
// The main-history files keep no per-function lists (cut to keep them small); a merge of two
// runs wants the key.
const withFunctions = (doc) => ({ ...doc, benchmarks: doc.benchmarks.map((b) => (!b.instructions ? b : {
  ...b, instructions: { ...b.instructions, base: { functions: { connection: [], background: [] }, ...b.instructions.base }, head: { functions: { connection: [], background: [] }, ...b.instructions.head } },
})) });
const mainHistory = () => fs.readdirSync(path.join(FIXTURES, 'main-history')).filter((f) => f.endsWith('.json')).sort()
  .map((f) => path.join(FIXTURES, 'main-history', f));

// The timed rounds of one run with the instruction windows of another of the same suite and
// rows: a row of both signals from two real measurements.
function joined(timed, counted) {
  const windows = new Map(counted.benchmarks.map((b) => [b.id, b.instructions]));
  return { ...timed, benchmarks: timed.benchmarks.map((b) => (windows.has(b.id) ? { ...b, instructions: windows.get(b.id) } : b)) };
}

/** Every input: {name, docs} (docs: one results document, or several judged together). */
function inputs() {
  const out = [];
  const captured = [...capturedResults().map((c) => c.file), ...mainHistory(), path.join(FIXTURES, 'watch/instructions-aa.json')];
  for (const file of captured) out.push({ name: relative(file), docs: [loadResults(file)] });
  const history = mainHistory();
  // Runs joined by perfgate judge: each pair of processes is judged on its own too.
  for (let k = 0; k + 1 < history.length; k += 2) {
    out.push({ name: `${relative(history[k])} + ${relative(history[k + 1])}`, docs: [withFunctions(loadResults(history[k])), withFunctions(loadResults(history[k + 1]))] });
  }
  const timed = loadResults(path.join(FIXTURES, 'results/quick-tiny/results.json'));
  history.forEach((file) => out.push({ name: `results/quick-tiny rounds + ${relative(file)} windows`, docs: [joined(timed, loadResults(file))] }));
  if (fs.existsSync(DRAWN)) {
    for (const drawn of JSON.parse(fs.readFileSync(DRAWN, 'utf8'))) out.push({ name: `drawn ${drawn.name}`, docs: [drawn.results] });
  }
  return out;
}

/** Every case: an input under one set of limits. */
function ruleCases() {
  const sets = limitSets();
  return inputs().flatMap((input) => sets.map((set) => ({ id: `${input.name} | ${set.name}`, docs: input.docs, config: { limits: set.limits } })));
}

module.exports = { ruleCases, DRAWN, FROZEN };
