'use strict';
// `perfgate compare`: measure base against head on one suite and leave the run folder.
const { parseCommandLine } = require('../args');
const path = require('node:path');
const { loadThresholds, SHIPPED_DIR } = require('../config');
const { checkBasedir } = require('../basedir');
const { runComparison } = require('../compare');
const { sidesFromSource } = require('../build/compare-source');
const { renderTerminal } = require('../render/terminal');
const { renderVerdictTable, writeReports } = require('../render');
const { judge } = require('../judge');
const { UsageError, EXIT } = require('../errors');
const { pinFromSettings } = require('../pinning');

const OPTIONS = {
  base: { type: 'string' },
  head: { type: 'string' },
  suite: { type: 'string', default: 'quick' },
  out: { type: 'string' },
  thresholds: { type: 'string' },
  seconds: { type: 'string' },
  'warmup-seconds': { type: 'string' },
  rounds: { type: 'string' },
  tables: { type: 'string' },
  rows: { type: 'string' },
  threads: { type: 'string' },
  'pin-cpus': { type: 'string' },
  source: { type: 'string' },
  flavor: { type: 'string' },
  'build-config': { type: 'string', multiple: true },
  'keep-data': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

const HELP = `usage: perfgate compare --base <basedir> --head <basedir> --out <dir> [options]

Measures the head server against the base server on one suite of thresholds/, measures more
rounds where the answer is open (budget in the suite file), confirms fails, and writes
plan.json, results.json, verdict.json, comment.md, summary.md, report.html and
servers/<side>/error.log into <dir>.

  --base <basedir>        installed server prefix of the base (holds bin/ or sbin/ and share/)
  --head <basedir>        installed server prefix of the head
  --source <git checkout> build --base and --head from this checkout first: they are then git
                          refs (branch, tag or SHA); see perfgate build --help. Build logs go
                          to <dir>/build/; a failed build makes the run an error (exit 4)
  --flavor <name>         with --source: mariadb (default), mysql or percona
  --build-config <file>   with --source: build recipe overrides (repeatable)
  --out <dir>             run folder (created; earlier run files in it are replaced)
  --suite <name>          suite file thresholds/<name>.yml (default: quick)
  --thresholds <dir>      thresholds folder (default: the shipped thresholds/)
  --seconds <s>           length of one timed round, overrides measure.seconds
  --warmup-seconds <s>    discarded warm-up run per microbenchmark, overrides measure.warmup_seconds
  --rounds <n>            rounds per side, overrides measure.rounds (at least 2)
  --tables <n>            sysbench tables, overrides scale.tables
  --rows <n>              rows per table, overrides scale.rows
  --threads <n[,n…]>      client threads, overrides measure.threads (e.g. 1,4)
  --pin-cpus <sets>       server=<cpus>,client=<cpus>: run mysqld and sysbench on separate CPUs
                          (taskset lists), or none; default: $PERFGATE_PIN_CPUS, else none
  --keep-data             keep both loaded datadirs under <dir>/servers/ (about 1 GB each);
                          by default they are removed when the comparison is over

Exit codes: 0 pass or warn, 1 fail, 2 bad input, 3 inconclusive, 4 error.
`;

function integerAtLeast(option, raw, min, example) {
  const v = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || v < min) {
    throw new UsageError(`--${option} '${raw}': not an integer >= ${min}; expected e.g. --${option} ${example}`);
  }
  return v;
}

function threadList(raw) {
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^\d+$/.test(p) || Number(p) < 1)) {
    throw new UsageError(`--threads '${raw}': not a list of positive integers; expected e.g. --threads 1,4`);
  }
  const threads = parts.map(Number);
  if (new Set(threads).size !== threads.length) {
    throw new UsageError(`--threads '${raw}': repeats a thread count; expected distinct counts, e.g. --threads 1,4`);
  }
  return threads;
}


// The typed settings of one `perfgate compare` invocation, every value checked.
function readSettings(argv, env = {}) {
  const values = parseCommandLine('compare', argv, OPTIONS).values;
  if (values.help) return { help: true };
  for (const required of ['base', 'head', 'out']) {
    const form = required === 'out' ? 'dir' : values.source ? 'git ref' : 'basedir';
    if (!values[required]) throw new UsageError(`--${required} is missing; expected --${required} <${form}>`);
  }
  if (!values.source && (values.flavor || values['build-config'])) {
    throw new UsageError(`--${values.flavor ? 'flavor' : 'build-config'} applies only with --source <git checkout>`);
  }
  const overrides = {};
  // Whole seconds: sysbench 1.0.20 takes --time as an integer.
  if (values.seconds !== undefined) overrides.seconds = integerAtLeast('seconds', values.seconds, 1, 3);
  if (values['warmup-seconds'] !== undefined) overrides.warmup_seconds = integerAtLeast('warmup-seconds', values['warmup-seconds'], 0, 2);
  if (values.rounds !== undefined) overrides.rounds = integerAtLeast('rounds', values.rounds, 2, 6);
  if (values.tables !== undefined) overrides.tables = integerAtLeast('tables', values.tables, 1, 8);
  if (values.rows !== undefined) overrides.rows = integerAtLeast('rows', values.rows, 1, 10000);
  if (values.threads !== undefined) overrides.threads = threadList(values.threads);
  const pin = pinFromSettings(values['pin-cpus'], env);
  if (pin) overrides.pin_cpus = pin;
  return {
    help: false,
    base: values.base,
    head: values.head,
    out: path.resolve(values.out),
    suite: values.suite,
    thresholds: values.thresholds || SHIPPED_DIR,
    overrides,
    source: values.source ? path.resolve(values.source) : null,
    flavor: values.flavor || 'mariadb',
    buildConfigs: (values['build-config'] || []).map((f) => path.resolve(f)),
    keepData: Boolean(values['keep-data']),
  };
}

async function run(argv, io) {
  const settings = readSettings(argv, io.env || process.env);
  if (settings.help) {
    io.stdout.write(HELP);
    return EXIT.ok;
  }
  const config = loadThresholds(settings.thresholds);
  let sides;
  if (settings.source) {
    // --base/--head are refs: build what is missing first; a failed build is an error run.
    const built = await sidesFromSource({ settings, config, io, env: io.env || process.env });
    if (built.exitCode !== undefined) {
      io.stderr.write(`perfgate compare: error: ${built.results.errors[0].message}\n`);
      io.stderr.write(`perfgate compare: run folder ${settings.out}\n`);
      return built.exitCode;
    }
    sides = built.sides;
  } else {
    sides = {
      base: { basedir: checkBasedir('--base', settings.base), label: 'base' },
      head: { basedir: checkBasedir('--head', settings.head), label: 'head' },
    };
  }
  const outcome = await runComparison({
    config,
    suiteName: settings.suite,
    overrides: settings.overrides,
    sides,
    outDir: settings.out,
    keepData: Boolean(settings.keepData),
    judge,
    io,
    env: io.env || process.env,
  });
  if (outcome.verdict) writeReports(settings.out, outcome.verdict);
  if (outcome.steps.length) io.stderr.write(`perfgate compare: ${describeSteps(outcome.steps)}\n`);
  if (outcome.message) io.stderr.write(`perfgate compare: ${outcome.message}\n`);
  io.stderr.write(`perfgate compare: run folder ${settings.out}\n`);
  // The table comes last: it is what people read when the run is over.
  if (outcome.verdict) {
    io.stdout.write(`\n${renderVerdictTable(outcome.verdict)}`);
  } else if (outcome.results) {
    // Measured but not judged (the run broke off): still show what was measured.
    io.stdout.write(`\n${renderTerminal(outcome.results)}`);
  }
  return outcome.exitCode;
}

function describeSteps(steps) {
  const extra = steps.filter((s) => s.action === 'extend');
  const confirm = steps.filter((s) => s.action === 'confirm');
  const parts = [];
  if (extra.length) parts.push(`${extra.reduce((n, s) => n + s.rounds, 0)} extra rounds per side in ${extra.length} step${extra.length === 1 ? '' : 's'}`);
  if (confirm.length) parts.push(`fails re-measured ${confirm.reduce((n, s) => n + s.rounds, 0)} rounds per side to confirm them`);
  return parts.join('; ');
}

module.exports = { run, readSettings, HELP };
