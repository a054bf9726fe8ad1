'use strict';
// `perfgate judge <dir>`: judge the results stored in a run folder again, with the limits of a
// thresholds folder (or --warn/--fail), and rewrite verdict.json and the reports.
const fs = require('node:fs');
const path = require('node:path');
const core = require('@perfgate/core');
const { parseCommandLine } = require('../command-line');
const { readDocument, writeReports } = require('../own-files');
const { explainedVerdict } = require('../explain-causes');

const { UsageError, EXIT } = core;

const OPTIONS = {
  thresholds: { type: 'string' },
  suite: { type: 'string' },
  warn: { type: 'string' },
  fail: { type: 'string' },
  results: { type: 'string', multiple: true },
  'allow-different-machines': { type: 'boolean' },
  'report-link': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

const HELP = `usage: perfgate judge <dir> [options]

Judges the results stored in run folder <dir> (results.json) and writes verdict.json,
comment.md, summary.md, report.html and the table to paste (results.csv, results.tsv) there.
Nothing is measured. Where <dir> holds explain.json (perfgate compare --explain), each explained
row gets its cause (docs/explain.md) and a differential flame graph (explain/<row>.diff.svg, drawn
with inferno); no row's verdict changes.

  --thresholds <dir>            thresholds folder whose limits apply (default: the shipped thresholds/)
  --suite <name>                suite whose limits apply (default: the suite the results were measured with)
  --warn <ratio> --fail <ratio> one pair of rQPS limits for every microbenchmark, instead of the suite's
                                (instr/o keeps the suite's default limits)
  --results <file>              judge these results files together (repeatable; default <dir>/results.json)
  --allow-different-machines    judge results whose machine fingerprints differ
  --report-link <text>          where readers of comment.md find the full report (an artifact URL)

Exit codes: 0 pass or warn, 1 fail, 2 bad input, 3 undecided, 4 error.
`;


function ratio(option, raw) {
  const v = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(v) || v <= 0 || v > 2) {
    throw new UsageError(`--${option} '${raw}': not a ratio in (0, 2]; expected e.g. --${option} ${option === 'warn' ? '0.97' : '0.93'}`);
  }
  return v;
}

function readSettings(argv) {
  const { values, positionals } = parseCommandLine('judge', argv, OPTIONS, { allowPositionals: true });
  if (values.help) return { help: true };
  if (positionals.length !== 1) {
    throw new UsageError(positionals.length ? `unexpected argument '${positionals[1]}'; expected one run folder` : 'the run folder is missing; expected perfgate judge <dir>');
  }
  const dir = path.resolve(positionals[0]);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new UsageError(`'${positionals[0]}': not a directory; expected a run folder holding results.json`);
  }
  if ((values.warn === undefined) !== (values.fail === undefined)) {
    throw new UsageError(`--${values.warn === undefined ? 'warn' : 'fail'} is missing; expected both --warn <ratio> and --fail <ratio>, or neither`);
  }
  let flat = null;
  if (values.warn !== undefined) {
    flat = { warn: ratio('warn', values.warn), fail: ratio('fail', values.fail) };
    if (flat.warn < flat.fail) throw new UsageError(`--warn ${flat.warn} is below --fail ${flat.fail}; expected warn >= fail`);
  }
  return {
    help: false,
    dir,
    resultsFiles: (values.results || [path.join(dir, 'results.json')]).map((f) => path.resolve(f)),
    resultsOption: values.results ? '--results' : null,
    thresholds: values.thresholds || core.SHIPPED_THRESHOLDS_DIR,
    suite: values.suite || null,
    flat,
    allowDifferentMachines: Boolean(values['allow-different-machines']),
    reportLink: values['report-link'] || null,
  };
}

// The limits that apply: the suite's from the thresholds folder, or one --warn/--fail pair on
// rQPS for every microbenchmark (instr/o and the suite as a whole then keep the suite's
// limits, when there is a suite).
function limitsConfig(settings, results) {
  const suiteName = settings.suite || (results[0].plan && results[0].plan.suite);
  if (settings.flat) {
    const config = suiteName ? core.loadThresholds(settings.thresholds) : null;
    const suite = config && config.suites[suiteName];
    const instructions = suite ? suite.limits.default.instructions : null;
    return { limits: { default: instructions ? { ...settings.flat, instructions } : settings.flat }, ...(suite ? { suite_wide: suite.suite_wide } : {}) };
  }
  if (!suiteName) throw new UsageError(`${results[0].__file}: key 'plan.suite' is missing; pass --suite <name> or --warn/--fail`);
  const suite = core.findSuite(core.loadThresholds(settings.thresholds), suiteName);
  return { limits: suite.limits, suite_wide: suite.suite_wide, learned: suite.learned };
}

async function execute(settings, io) {
  const results = settings.resultsFiles.map((file) => readDocument(file, 'results', { option: settings.resultsOption }));
  const options = { allowDifferentMachines: settings.allowDifferentMachines };
  if (core.isChain(results[0].sides)) {
    // A chain's results (perfgate compare --head A --head B ...): every head judged again.
    const chain = core.judgeChain(results, limitsConfig(settings, results), options);
    writeReports(settings.dir, chain, { reportLink: settings.reportLink });
    chain.heads.forEach(({ verdict }, k) => io.stdout.write(`${k ? '\n' : ''}col-${k + 1}: ${core.renderVerdictTable(verdict)}`));
    io.stderr.write(`perfgate judge: wrote chain.json, comment.md, summary.md, report.html, chain.csv, chain.tsv and heads/<side>/ in ${settings.dir}\n`);
    return chain.exit_code;
  }
  const judged = core.judge(results, limitsConfig(settings, results), options);
  const { verdict, flamegraphs } = explainedVerdict(settings.dir, judged, results, io.env || process.env);
  writeReports(settings.dir, verdict, { reportLink: settings.reportLink, flamegraphs });
  io.stdout.write(core.renderVerdictTable(verdict));
  io.stderr.write(`perfgate judge: wrote verdict.json, comment.md, summary.md, report.html, results.csv, results.tsv in ${settings.dir}\n`);
  return verdict.exit_code;
}

module.exports = { readSettings, execute, HELP, limitsConfig };
