'use strict';
// `perfgate calibrate --base <basedir>`: the base server against itself (A/A) on this runner.
// Reports per microbenchmark the noise, the smallest regression the suite's rounds can catch,
// and limits that keep A/A runs quiet; writes calibration.json beside the run's files.
const path = require('node:path');
const core = require('@perfgate/core');
const { parseCommandLine } = require('../command-line');
const { checkBasedir } = require('../basedir');
const { runComparison } = require('../compare-loop');
const { writeDocument, writeReports } = require('../run-folder');
const { MEASURE_OPTIONS, MEASURE_HELP, measureOverrides } = require('../measure-options');
const { EXIT_ON_SIGNAL } = require('../processes');

const { UsageError, EXIT } = core;

const OPTIONS = {
  base: { type: 'string' },
  out: { type: 'string' },
  ...MEASURE_OPTIONS,
  benchmarks: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

const HELP = `usage: perfgate calibrate --base <basedir> --out <dir> [options]

Measures the base server against itself (A/A) on one suite and reports, per microbenchmark,
the noise of this runner, the smallest regression the suite's rounds can catch, and suggested
warn/fail limits. Writes plan.json, results.json, verdict.json, the reports and
calibration.json into <dir>.

  --base <basedir>        installed server prefix (holds bin/ or sbin/ and share/)
  --out <dir>             run folder
  --benchmarks <a,b,…>    only these microbenchmarks of the suite
${MEASURE_HELP}
  (--rounds defaults to twice the suite's, at least 8: the noise is measured with more rounds
  than the suite runs, and projected onto the suite's own rounds)

Exit codes: 0 calibrated, 2 bad input, 4 the measurement failed, 130/143 cancelled.
`;

function readSettings(argv, env = {}) {
  const values = parseCommandLine('calibrate', argv, OPTIONS).values;
  if (values.help) return { help: true };
  for (const required of ['base', 'out']) {
    if (!values[required]) throw new UsageError(`--${required} is missing; expected --${required} <${required === 'out' ? 'dir' : 'basedir'}>`);
  }
  return {
    help: false,
    base: values.base,
    out: path.resolve(values.out),
    suite: values.suite,
    thresholds: values.thresholds || core.SHIPPED_THRESHOLDS_DIR,
    benchmarks: values.benchmarks ? values.benchmarks.split(',').map((s) => s.trim()).filter(Boolean) : null,
    overrides: measureOverrides(values, env),
  };
}

async function execute(settings, io) {
  const env = io.env || process.env;
  const config = core.narrowSuite(core.loadThresholds(settings.thresholds), settings.suite, settings.benchmarks);
  const suite = config.suites[settings.suite];
  const suiteRounds = suite.measure.rounds;
  const basedir = checkBasedir('--base', settings.base);
  const outcome = await runComparison({
    config,
    suiteName: settings.suite,
    overrides: { rounds: Math.max(8, 2 * suiteRounds), ...settings.overrides },
    sides: { base: { basedir, label: 'A' }, head: { basedir, label: 'A again' } },
    outDir: settings.out,
    io,
    env,
  });
  if (outcome.cancelled) {
    io.stderr.write(`perfgate calibrate: ${outcome.message}; run folder ${settings.out}\n`);
    return EXIT_ON_SIGNAL[outcome.cancelled];
  }
  if (!outcome.results) {
    io.stderr.write(`perfgate calibrate: ${outcome.message}\n`);
    return outcome.exitCode;
  }
  const limits = { limits: suite.limits };
  writeReports(settings.out, core.judge(outcome.results, limits));
  const cal = core.calibrate(outcome.results, limits, { atRounds: suiteRounds });
  writeDocument(path.join(settings.out, 'calibration.json'), 'calibration', cal);
  io.stdout.write(core.renderCalibration(cal));
  io.stderr.write(`perfgate calibrate: wrote calibration.json in ${settings.out}\n`);
  return outcome.results.status === 'ok' ? EXIT.ok : EXIT.error;
}

module.exports = { readSettings, execute, HELP };
