'use strict';
// `perfgate bisect`: the commit behind a regression, by binary search over the first-parent
// commits between a good and a bad ref of a fork, each built with the build cache and
// measured against the good end.
const path = require('node:path');
const core = require('@perfgate/core');
const { parseCommandLine } = require('../command-line');
const { runBisection } = require('../bisect');
const { MEASURE_OPTIONS, MEASURE_HELP, measureOverrides, integerAtLeast, testList } = require('../measure-options');

const { UsageError } = core;

const OPTIONS = {
  source: { type: 'string' },
  good: { type: 'string' },
  bad: { type: 'string' },
  tests: { type: 'string' },
  out: { type: 'string' },
  repeats: { type: 'string' },
  ...MEASURE_OPTIONS,
  flavor: { type: 'string' },
  'build-config': { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
};

const HELP = `usage: perfgate bisect --source <git checkout> --good <ref> --bad <ref> --out <dir> [options]

Finds the commit behind a regression: measures the bad ref against the good one to confirm
the regression and pick the signal it shows on (instructions when the bad end fails on
instructions, else time with extra rounds), then builds and measures first-parent commits
between them against the good ref, halving the range each step, and measures the first bad
commit against its parent, with the explanation step (as compare --explain auto) on the rows
it regressed. Writes <dir>/bisect.json and one run folder per step under <dir>/steps/;
progress on stderr; prints the culprit last, with why each row got slower.

  --source <git checkout> the fork's source (builds as perfgate build does, cached by commit)
  --good <ref>            a commit without the regression (branch, tag or SHA)
  --bad <ref>             a later commit with it; --good must be on its first-parent history
  --tests <a,b,…>         only these microbenchmarks of the suite (default: all of them)
  --out <dir>             folder for bisect.json and steps/ (an earlier bisection there is replaced)
  --repeats <n>           measure an undecided commit again up to n times, then stop (default ${core.DEFAULT_BISECT_REPEATS})
  --flavor <name>         mariadb (default), mysql or percona
  --build-config <file>   build recipe overrides (repeatable)
${MEASURE_HELP}

Exit codes: 0 culprit named, 2 bad input, 3 no culprit (the bad end is not slower, a commit
stayed undecided, or only commits that did not build remain), 4 error (an end did not build,
a measurement failed), 130/143 cancelled by SIGINT/SIGTERM (bisect.json says "cancelled").
`;

function readSettings(argv, env = {}) {
  const values = parseCommandLine('bisect', argv, OPTIONS).values;
  if (values.help) return { help: true };
  for (const [required, form] of [['source', 'git checkout'], ['good', 'git ref'], ['bad', 'git ref'], ['out', 'dir']]) {
    if (!values[required]) throw new UsageError(`--${required} is missing; expected --${required} <${form}>`);
  }
  return {
    help: false,
    source: path.resolve(values.source),
    good: values.good,
    bad: values.bad,
    tests: values.tests !== undefined ? testList(values.tests) : null,
    out: path.resolve(values.out),
    repeats: values.repeats !== undefined ? integerAtLeast('repeats', values.repeats, 0, 2) : core.DEFAULT_BISECT_REPEATS,
    suite: values.suite,
    thresholds: values.thresholds ? path.resolve(values.thresholds) : core.SHIPPED_THRESHOLDS_DIR,
    overrides: measureOverrides(values, env),
    flavor: values.flavor || 'mariadb',
    buildConfigs: (values['build-config'] || []).map((f) => path.resolve(f)),
  };
}

async function execute(settings, io) {
  const env = io.env || process.env;
  const config = core.loadThresholds(settings.thresholds);
  const { doc, exitCode } = await runBisection({
    source: settings.source,
    good: settings.good,
    bad: settings.bad,
    tests: settings.tests,
    config,
    suiteName: settings.suite,
    overrides: settings.overrides,
    repeats: settings.repeats,
    flavor: settings.flavor,
    buildConfigs: settings.buildConfigs,
    thresholds: settings.thresholds,
    outDir: settings.out,
    io,
    env,
    onProgress: (event) => {
      const line = core.formatBisectProgress(event);
      if (line) io.stderr.write(`perfgate bisect: ${line}\n`);
    },
  });
  io.stderr.write(`perfgate bisect: ${path.join(settings.out, 'bisect.json')}\n`);
  // The culprit comes last: it is what people read when the search is over.
  if (doc.status !== 'cancelled') io.stdout.write(`\n${core.renderBisect(doc)}`);
  return exitCode;
}

module.exports = { readSettings, execute, HELP };
