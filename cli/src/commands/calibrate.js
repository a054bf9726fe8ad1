'use strict';
// `perfgate calibrate --base <basedir>`: the base server against itself (A/A) on this runner,
// on several pairs of freshly started servers. Reports per microbenchmark the noise of both
// signals, the limits that keep A/A runs quiet, and what they catch; writes calibration.json
// and the suite file with those limits (thresholds/suites/<suite>.yml beside the run), checked
// by loading it back.
const fs = require('node:fs');
const path = require('node:path');
const core = require('@perfgate/core');
const { parseCommandLine } = require('../command-line');
const { checkBasedir } = require('../basedir');
const { runComparison } = require('../compare-loop');
const { writeDocument, writeReports, writeText } = require('../own-files');
const { MEASURE_OPTIONS, MEASURE_HELP, measureOverrides } = require('../measure-options');
const { EXIT_ON_SIGNAL } = require('../processes');

const { UsageError, EXIT } = core;

const DEFAULT_PAIRS = 3;

const OPTIONS = {
  base: { type: 'string' },
  out: { type: 'string' },
  pairs: { type: 'string' },
  ...MEASURE_OPTIONS,
  benchmarks: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

const HELP = `usage: perfgate calibrate --base <basedir> --out <dir> [options]

Measures the base server against itself (A/A) on one suite, on several pairs of freshly
started servers, and reports per microbenchmark the noise of this runner (rQPS and instr/o),
suggested warn/fail limits that keep A/A runs quiet, and the changes those limits catch.
Writes each pair's run folder (<dir>/pair-<k>/), calibration.json, and the suite file with the
suggested limits, <dir>/thresholds/suites/<suite>.yml, to copy into a fork's thresholds/.

  --base <basedir>        installed server prefix (holds bin/ or sbin/ and share/)
  --out <dir>             where the run folders and the results go
  --pairs <n>             pairs of freshly started servers (default ${DEFAULT_PAIRS}): two processes of
                          one build differ for good, and only more pairs measure by how much
  --benchmarks <a,b,…>    only these microbenchmarks of the suite
${MEASURE_HELP}
  (--rounds defaults to twice the suite's, at least 8: the noise is measured with more rounds
  than the suite runs; limits are made for the suite's own rounds and instruction windows)

Exit codes: 0 calibrated, 2 bad input, 4 the measurement failed, 130/143 cancelled.
`;

function readSettings(argv, env = {}) {
  const values = parseCommandLine('calibrate', argv, OPTIONS).values;
  if (values.help) return { help: true };
  for (const required of ['base', 'out']) {
    if (!values[required]) throw new UsageError(`--${required} is missing; expected --${required} <${required === 'out' ? 'dir' : 'basedir'}>`);
  }
  let pairs = DEFAULT_PAIRS;
  if (values.pairs !== undefined) {
    pairs = Number(values.pairs);
    if (!/^\d+$/.test(values.pairs.trim()) || pairs < 1) throw new UsageError(`--pairs '${values.pairs}': not an integer >= 1; expected e.g. --pairs 3`);
  }
  return {
    help: false,
    base: values.base,
    out: path.resolve(values.out),
    pairs,
    suite: values.suite,
    thresholds: values.thresholds || core.SHIPPED_THRESHOLDS_DIR,
    benchmarks: values.benchmarks ? values.benchmarks.split(',').map((s) => s.trim()).filter(Boolean) : null,
    overrides: measureOverrides(values, env),
  };
}

// A thresholds folder holding the calibrated suite: the suite file, and the fork's own
// catalogue and server profiles when the calibrated folder had them (the suite names them).
function writeThresholds(outDir, sourceDir, suiteName, text) {
  const dir = path.join(outDir, 'thresholds');
  fs.mkdirSync(path.join(dir, 'suites'), { recursive: true });
  const file = path.join(dir, 'suites', `${suiteName}.yml`);
  writeText(file, text);
  if (path.resolve(sourceDir) !== core.SHIPPED_THRESHOLDS_DIR) {
    const catalogue = path.join(sourceDir, 'benchmarks.yml');
    if (fs.existsSync(catalogue)) fs.copyFileSync(catalogue, path.join(dir, 'benchmarks.yml'));
    const profiles = path.join(sourceDir, 'profiles');
    if (fs.existsSync(profiles)) fs.cpSync(profiles, path.join(dir, 'profiles'), { recursive: true });
  }
  // What a fork will load: refuse to hand over a file the loader would refuse.
  core.findSuite(core.loadThresholds(dir), suiteName);
  return file;
}

async function execute(settings, io) {
  const env = io.env || process.env;
  const loaded = core.loadThresholds(settings.thresholds);
  const config = core.narrowSuite(loaded, settings.suite, settings.benchmarks);
  const suite = config.suites[settings.suite];
  const basedir = checkBasedir('--base', settings.base);
  const runs = [];
  for (let k = 1; k <= settings.pairs; k++) {
    const outDir = path.join(settings.out, `pair-${k}`);
    io.stderr.write(`perfgate calibrate: pair ${k} of ${settings.pairs} (freshly started servers), run folder ${outDir}\n`);
    const outcome = await runComparison({
      config,
      suiteName: settings.suite,
      overrides: { rounds: Math.max(8, 2 * suite.measure.rounds), ...settings.overrides },
      sides: { base: { basedir, label: 'A' }, head: { basedir, label: 'A again' } },
      outDir,
      io,
      env,
    });
    if (outcome.cancelled) {
      io.stderr.write(`perfgate calibrate: ${outcome.message}; run folder ${outDir}\n`);
      return EXIT_ON_SIGNAL[outcome.cancelled];
    }
    if (!outcome.results || outcome.results.status !== 'ok') {
      io.stderr.write(`perfgate calibrate: pair ${k}: ${outcome.message}\n`);
      return outcome.exitCode === EXIT.ok ? EXIT.error : outcome.exitCode;
    }
    writeReports(outDir, core.judge(outcome.results, suite));
    runs.push(outcome.results);
  }
  const cal = core.calibrate(runs, suite);
  writeDocument(path.join(settings.out, 'calibration.json'), 'calibration', cal);
  const source = fs.readFileSync(path.join(loaded.dir, 'suites', `${settings.suite}.yml`), 'utf8');
  const text = core.suggestedSuiteText(source, cal, { date: new Date().toISOString().slice(0, 10) });
  const file = writeThresholds(settings.out, loaded.dir, settings.suite, text);
  io.stdout.write(core.renderCalibration(cal));
  io.stdout.write(`\nThe suite file with these limits: ${file} (loads with --thresholds ${path.dirname(path.dirname(file))}).\n`);
  io.stderr.write(`perfgate calibrate: wrote calibration.json and thresholds/suites/${settings.suite}.yml in ${settings.out}\n`);
  return EXIT.ok;
}

module.exports = { readSettings, execute, writeThresholds, HELP };
