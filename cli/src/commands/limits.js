'use strict';
// `perfgate limits learn`: limits learned from main's history (docs/verdicts.md#limits-learned-from-main).
// Reads the verdicts of main's runs (each commit against the one before it), learns per row and
// signal with core's rule, and writes learned/<suite>.yml for the fork's thresholds folder: on
// the base branch it gates every pull request, which cannot change it.
const fs = require('node:fs');
const path = require('node:path');
const core = require('@perfgate/core');
const { parseCommandLine } = require('../command-line');
const { readDocument, writeText } = require('../own-files');

const { UsageError, EXIT } = core;

const OPTIONS = {
  suite: { type: 'string' },
  thresholds: { type: 'string' },
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

const HELP = `usage: perfgate limits learn --suite <name> --out <file> <verdict.json | run-dir>...

Learns limits from main's own history: the verdicts of main's runs (each main commit measured
against the one before it; run folders or their verdict.json, oldest first), those of the last
one's runner class and counted malloc only. Per row and signal (rQPS, instr/o, and cpu/o where the row was judged by it)
with at least ${core.LEARN.min_runs} runs: fail at
1.5 × the 99th percentile of how far main's runs read from 1, warn at that percentile, within
calibrate's floors and caps; a row whose spread is beyond the caps is written as unstable (it is
then not judged by that signal). Rows with fewer runs keep the suite's limits. Writes <file>,
to be committed as thresholds/learned/<suite>.yml on the base branch.

  --suite <name>          the suite the verdicts ran (its rows are the rows learned)
  --thresholds <dir>      the thresholds folder with that suite (default: perfgate's own)
  --out <file>            where the learned file goes

Exit codes: 0 written, 2 bad input.
`;

function readSettings(argv) {
  const { values, positionals } = parseCommandLine('limits', argv, OPTIONS, { allowPositionals: true });
  if (values.help) return { help: true };
  const [sub, ...inputs] = positionals;
  if (sub !== 'learn') throw new UsageError(`${sub === undefined ? 'no subcommand' : `unknown subcommand '${sub}'`}; expected perfgate limits learn (see perfgate limits --help)`);
  for (const required of ['suite', 'out']) {
    if (!values[required]) throw new UsageError(`--${required} is missing; expected --${required} <${required === 'out' ? 'file' : 'name'}>`);
  }
  if (!inputs.length) throw new UsageError('no verdicts given; expected the verdict.json files (or run folders) of main\'s runs, oldest first');
  return {
    help: false, suite: values.suite, out: path.resolve(values.out), inputs,
    thresholds: values.thresholds || core.SHIPPED_THRESHOLDS_DIR,
  };
}

const verdictFile = (input) => (fs.existsSync(input) && fs.statSync(input).isDirectory() ? path.join(input, 'verdict.json') : input);

// One line per row and signal: what was learned, or why the suite's limits stand.
function summary(learned) {
  const lines = [];
  for (const [id, bySignal] of Object.entries(learned)) {
    for (const [signal, l] of Object.entries(bySignal)) {
      const word = core.learnedSignalWord(signal);
      const said = !l.enough ? `${l.runs} runs, fewer than ${core.LEARN.min_runs}: the suite's limits (largest spread ${(100 * l.largest).toFixed(2)}%)`
        : l.unstable ? `unstable: spread ${(100 * l.p99).toFixed(1)}% over ${l.runs} runs, not judged by ${word}`
          : `warn ${l.warn}, fail ${l.fail} (spread ${(100 * l.p99).toFixed(2)}% over ${l.runs} runs)`;
      lines.push(`${id} ${word}: ${said}`);
    }
  }
  return lines.join('\n') + '\n';
}

async function execute(settings, io) {
  const suite = core.findSuite(core.loadThresholds(settings.thresholds), settings.suite);
  const verdicts = settings.inputs.map((input) => readDocument(verdictFile(input), 'verdict', { option: 'verdict' }));
  const { series, runner, runs, leftOut } = core.seriesFromVerdicts(verdicts, { suite: suite.name });
  if (!runs) throw new UsageError(`no verdict of suite ${suite.name} among the ${verdicts.length} given; expected verdicts of main's runs of that suite`);
  // Rows the suite no longer has (renamed or dropped since) are not learned.
  const known = (id) => suite.names.includes(id) || suite.names.some((n) => id.startsWith(`${n} threads=`));
  const ofSuite = Object.fromEntries(Object.entries(series).filter(([id]) => known(id)));
  const learned = core.learnLimits(ofSuite);
  const text = core.learnedFileText({ suite: suite.name, learned, runner, runs });
  core.checkLearnedText(text, settings.out, suite);
  fs.mkdirSync(path.dirname(settings.out), { recursive: true });
  writeText(settings.out, text);
  io.stdout.write(summary(learned));
  io.stderr.write(`perfgate limits learn: ${runs} runs of main on runner ${runner || 'unknown'}${leftOut ? ` (${leftOut} of other suites, runners or counted mallocs left out)` : ''}; wrote ${settings.out}\n`);
  return EXIT.ok;
}

module.exports = { readSettings, execute, HELP };
