'use strict';
// `perfgate calibrate --base <basedir>`: the base server against itself (A/A) on this runner.
// Reports per microbenchmark the noise, the smallest regression the suite's rounds can catch,
// and limits that keep A/A runs quiet; writes calibration.json beside the run's files.
const fs = require('node:fs');
const path = require('node:path');
const { parseCommandLine } = require('../args');
const { loadThresholds, SHIPPED_DIR } = require('../config');
const { checkBasedir } = require('../basedir');
const { runComparison } = require('../compare');
const { calibrate, renderCalibration } = require('../judge/calibration');
const { writeReports } = require('../render');
const { judge } = require('../judge');
const { schemaProblem } = require('../schemas');
const { UsageError, EXIT } = require('../errors');

const OPTIONS = {
  base: { type: 'string' },
  suite: { type: 'string', default: 'quick' },
  out: { type: 'string' },
  thresholds: { type: 'string' },
  rounds: { type: 'string' },
  seconds: { type: 'string' },
  'warmup-seconds': { type: 'string' },
  tables: { type: 'string' },
  rows: { type: 'string' },
  benchmarks: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

const HELP = `usage: perfgate calibrate --base <basedir> --out <dir> [options]

Measures the base server against itself (A/A) on one suite and reports, per microbenchmark,
the noise of this runner, the smallest regression the suite's rounds can catch, and suggested
warn/fail limits. Writes plan.json, results.json, verdict.json, the reports and
calibration.json into <dir>.

  --base <basedir>      installed server prefix (holds bin/ or sbin/ and share/)
  --out <dir>           run folder
  --suite <name>        suite of thresholds/ (default: quick)
  --thresholds <dir>    thresholds folder (default: the shipped thresholds/)
  --rounds <n>          rounds per side to measure the noise with (default: twice the suite's, at least 8);
                        projections are for the suite's own rounds
  --seconds <s>         length of one timed round (default: the suite's)
  --warmup-seconds <s>  warm-up run per microbenchmark (default: the suite's)
  --tables <n>, --rows <n>  scale (default: the suite's)
  --benchmarks <a,b,…>  only these microbenchmarks of the suite

Exit codes: 0 calibrated, 2 bad input, 4 the measurement failed.
`;


function positive(option, raw, { integer = false, min = 0 } = {}) {
  const v = Number(raw);
  const ok = raw.trim() !== '' && Number.isFinite(v) && v > 0 && v >= min && (!integer || Number.isInteger(v));
  if (!ok) throw new UsageError(`--${option} '${raw}': not ${integer ? `an integer >= ${Math.max(min, 1)}` : 'a positive number'}; expected e.g. --${option} ${integer ? 8 : 5}`);
  return v;
}

function readSettings(argv) {
  const values = parseCommandLine('calibrate', argv, OPTIONS).values;
  if (values.help) return { help: true };
  for (const required of ['base', 'out']) {
    if (!values[required]) throw new UsageError(`--${required} is missing; expected --${required} <${required === 'out' ? 'dir' : 'basedir'}>`);
  }
  const overrides = {};
  if (values.seconds !== undefined) overrides.seconds = positive('seconds', values.seconds);
  if (values['warmup-seconds'] !== undefined) {
    const v = Number(values['warmup-seconds']);
    if (!Number.isFinite(v) || v < 0 || values['warmup-seconds'].trim() === '') throw new UsageError(`--warmup-seconds '${values['warmup-seconds']}': not a number >= 0; expected e.g. --warmup-seconds 2`);
    overrides.warmup_seconds = v;
  }
  if (values.tables !== undefined) overrides.tables = positive('tables', values.tables, { integer: true });
  if (values.rows !== undefined) overrides.rows = positive('rows', values.rows, { integer: true });
  return {
    help: false,
    base: values.base,
    out: path.resolve(values.out),
    suite: values.suite,
    thresholds: values.thresholds || SHIPPED_DIR,
    rounds: values.rounds !== undefined ? positive('rounds', values.rounds, { integer: true, min: 2 }) : null,
    benchmarks: values.benchmarks ? values.benchmarks.split(',').map((s) => s.trim()).filter(Boolean) : null,
    overrides,
  };
}

// A copy of the loaded thresholds whose suite lists only the chosen microbenchmarks.
function narrowSuite(config, suiteName, names) {
  const suite = config.suites[suiteName];
  if (!suite) throw new UsageError(`--suite '${suiteName}': no ${suiteName}.yml in ${config.dir}; expected one of: ${Object.keys(config.suites).join(', ')}`);
  if (!names) return config;
  if (!suite.benchmarks) throw new UsageError(`--benchmarks: suite ${suiteName} has no benchmark list; expected a quick/full suite`);
  for (const n of names) {
    if (!suite.benchmarks.includes(n)) throw new UsageError(`--benchmarks: '${n}' is not in suite ${suiteName}; expected some of: ${suite.benchmarks.join(', ')}`);
  }
  return { ...config, suites: { ...config.suites, [suiteName]: { ...suite, benchmarks: suite.benchmarks.filter((b) => names.includes(b)) } } };
}

function writeJsonAtomic(file, data) {
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, JSON.stringify(data, null, 2) + '\n');
  fs.renameSync(tmp, file);
}

async function run(argv, io) {
  const settings = readSettings(argv);
  if (settings.help) {
    io.stdout.write(HELP);
    return EXIT.ok;
  }
  const config = narrowSuite(loadThresholds(settings.thresholds), settings.suite, settings.benchmarks);
  const suite = config.suites[settings.suite];
  const suiteRounds = suite.measure.rounds;
  const basedir = checkBasedir('--base', settings.base);
  const outcome = await runComparison({
    config,
    suiteName: settings.suite,
    overrides: { ...settings.overrides, rounds: settings.rounds || Math.max(8, 2 * suiteRounds) },
    sides: { base: { basedir, label: 'A' }, head: { basedir, label: 'A again' } },
    outDir: settings.out,
    io,
    env: io.env || process.env,
  });
  if (!outcome.results) {
    io.stderr.write(`perfgate calibrate: ${outcome.message}\n`);
    return outcome.exitCode;
  }
  const limits = { limits: suite.limits };
  const verdict = judge(outcome.results, limits);
  writeReports(settings.out, verdict);
  const cal = calibrate(outcome.results, limits, { atRounds: suiteRounds });
  const problem = schemaProblem('calibration', cal);
  if (problem) throw new Error(`internal: calibration does not match schema/calibration.schema.json: ${problem}`);
  writeJsonAtomic(path.join(settings.out, 'calibration.json'), cal);
  io.stdout.write(renderCalibration(cal));
  io.stderr.write(`perfgate calibrate: wrote calibration.json in ${settings.out}\n`);
  return outcome.results.status === 'ok' ? EXIT.ok : EXIT.error;
}

module.exports = { run, readSettings, HELP };
