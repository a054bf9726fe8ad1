'use strict';
// `perfgate signoff <run-dir>...`: the release sign-off report of merged run folders, one per
// suite (perfgate merge), written into the first beside its verdict as signoff.md and signoff.html, with the
// decision the commit status perfgate/signoff carries. The bot posts the same report and sets
// the status; this command is for the workflow's job summary and for runs by hand.
const fs = require('node:fs');
const path = require('node:path');
const core = require('@perfgate/core');
const { parseCommandLine } = require('../command-line');
const { readDocument, writeText } = require('../own-files');

const { UsageError } = core;

const OPTIONS = {
  'candidate-ref': { type: 'string' },
  'candidate-sha': { type: 'string' },
  'previous-ref': { type: 'string' },
  'previous-sha': { type: 'string' },
  waivers: { type: 'string' },
  'run-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

const HELP = `usage: perfgate signoff <run-dir>... [options]

Decides a release sign-off from merged run folders, one per suite (e.g. full, ddl, tpcc: their
verdict.json), and writes signoff.md and signoff.html into the first: each suite's rows grouped
as the posts group them (point queries, range queries, writes; before and after the writes),
the suite as a whole, per-op metrics, charts, the waivers and the decision. Prints the
decision: success only when every microbenchmark and every suite as a whole is within its
limits (pass or warn) or waived; failure otherwise; error when a run broke off or shards are
missing.

  --candidate-ref <name>   the release candidate's name (e.g. mariadb-10.11.19)
  --candidate-sha <sha>    its commit
  --previous-ref <name>    the release it is measured against
  --previous-sha <sha>     its commit
  --waivers <file>         JSON list of {microbenchmark, reason, author}
  --run-url <url>          the workflow run, linked from the report

Exit codes: 0 success, 1 failure, 4 error, 2 bad input.
`;

const EXIT_OF_STATE = { success: 0, failure: 1, error: 4 };

function readWaivers(file) {
  let list;
  try {
    list = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--waivers '${file}': cannot be read (${err.message}); expected a JSON list of {microbenchmark, reason, author}`);
  }
  if (!Array.isArray(list)) throw new UsageError(`--waivers '${file}': not a list; expected a JSON list of {microbenchmark, reason, author}`);
  list.forEach((w, i) => {
    for (const key of ['microbenchmark', 'reason']) {
      if (!w || typeof w[key] !== 'string' || !w[key]) throw new UsageError(`--waivers '${file}': entry ${i + 1} key '${key}' is ${JSON.stringify(w && w[key])}; expected text`);
    }
  });
  return list.map((w) => ({ microbenchmark: w.microbenchmark, reason: w.reason, author: w.author ?? null, createdAt: w.created_at ? Date.parse(w.created_at) : null }));
}

function readSettings(argv) {
  const { values, positionals } = parseCommandLine('signoff', argv, OPTIONS, { allowPositionals: true });
  if (values.help) return { help: true };
  if (!positionals.length) throw new UsageError('expected a merged run folder, got none; usage: perfgate signoff <run-dir>...');
  for (const given of positionals) {
    if (!fs.existsSync(path.join(path.resolve(given), 'verdict.json'))) throw new UsageError(`'${given}': no verdict.json there; expected a merged run folder (perfgate merge --out)`);
  }
  const dirs = positionals.map((given) => path.resolve(given));
  for (const key of ['candidate-sha', 'previous-sha']) {
    if (values[key] && !/^[0-9a-f]{40}$/.test(values[key])) throw new UsageError(`--${key} '${values[key]}' is not valid; expected a commit SHA of 40 hex digits`);
  }
  return {
    help: false,
    dir: dirs[0],
    dirs,
    candidate: { ref: values['candidate-ref'] || null, sha: values['candidate-sha'] || null },
    previous: { ref: values['previous-ref'] || null, sha: values['previous-sha'] || null },
    waivers: values.waivers ? readWaivers(values.waivers) : [],
    runUrl: values['run-url'] || null,
  };
}

async function execute(settings, io) {
  const verdicts = settings.dirs.map((dir) => readDocument(path.join(dir, 'verdict.json'), 'verdict'));
  // One folder per suite: a suite named twice would count its rows twice.
  const suites = verdicts.map((v, i) => v.suite || path.basename(settings.dirs[i]));
  const twice = suites.find((name, i) => suites.indexOf(name) !== i);
  if (twice) throw new UsageError(`the run folders hold the suite ${twice} twice; expected one merged run folder per suite`);
  const input = verdicts.length === 1 ? verdicts[0] : verdicts.map((verdict, i) => ({ suite: suites[i], verdict }));
  const { decision, files } = core.renderSignoff(input, settings);
  for (const [name, text] of Object.entries(files)) writeText(path.join(settings.dir, name), text);
  io.stderr.write(`perfgate signoff: wrote signoff.md and signoff.html in ${settings.dir}\n`);
  io.stdout.write(`${core.SIGNOFF_CONTEXT}: ${decision.state} — ${decision.description}\n`);
  return EXIT_OF_STATE[decision.state];
}

module.exports = { readSettings, execute, HELP };
