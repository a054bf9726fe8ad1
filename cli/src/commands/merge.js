'use strict';
// `perfgate merge <run-dir…> --out <dir>`: the shards of one comparison, measured on several
// runners (perfgate compare --shard K/N), joined into one run folder with one verdict.
const fs = require('node:fs');
const path = require('node:path');
const core = require('@perfgate/core');
const { parseCommandLine } = require('../command-line');
const { readDocument, writeDocument, writeReports, makeRunFolder, clearRunOutputs } = require('../own-files');
const { limitsConfig } = require('./judge');

const { UsageError } = core;

const OPTIONS = {
  out: { type: 'string' },
  thresholds: { type: 'string' },
  'allow-partial': { type: 'boolean' },
  'allow-different-machines': { type: 'boolean' },
  'report-link': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

const HELP = `usage: perfgate merge <run-dir>… --out <dir> [options]

Joins the run folders of the shards of one comparison (perfgate compare --shard K/N, one per
runner) into the run folder <dir>: results.json (every shard's rounds in the suite's order, and
which folder each shard came from), plan.json, verdict.json, comment.md, summary.md,
report.html, results.csv and results.tsv. Nothing is measured.

  --out <dir>                   the merged run folder (created; not one of the shard folders)
  --thresholds <dir>            thresholds folder whose limits apply (default: the shipped thresholds/)
  --allow-partial               merge although shards are missing: the reports name them, and the
                                verdict is at best undecided (what was not measured may hide a fail)
  --allow-different-machines    merge shards measured on different machine classes
  --report-link <text>          where readers of comment.md find the full report (an artifact URL)

Refused, with one line naming the folder and the key (exit 2, nothing written): shards of
different base or head servers (version or commit), suites, machine classes
(machine.hardware_class: runners of one class may differ), scale or timing, shards of
different counts, the same shard twice, and missing shards unless --allow-partial.

Exit codes: 0 pass or warn, 1 fail, 2 bad input, 3 undecided (also a partial merge), 4 error.
`;

function readSettings(argv) {
  const { values, positionals } = parseCommandLine('merge', argv, OPTIONS, { allowPositionals: true });
  if (values.help) return { help: true };
  if (!positionals.length) throw new UsageError('the shard run folders are missing; expected perfgate merge <run-dir>… --out <dir>');
  if (!values.out) throw new UsageError('--out is missing; expected --out <dir>');
  const out = path.resolve(values.out);
  for (const folder of positionals) {
    const dir = path.resolve(folder);
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
      throw new UsageError(`'${folder}': not a directory; expected the run folder of one shard, holding results.json`);
    }
    // Compared as the folders they are: --out may name a shard through a link or '..'.
    if (dir === out || (fs.existsSync(out) && fs.realpathSync(dir) === fs.realpathSync(out))) throw new UsageError(`--out '${values.out}' is the shard folder '${folder}'; expected a folder of its own for the merged run`);
  }
  return {
    help: false,
    folders: positionals,
    out,
    thresholds: values.thresholds || core.SHIPPED_THRESHOLDS_DIR,
    allowPartial: Boolean(values['allow-partial']),
    allowDifferentMachines: Boolean(values['allow-different-machines']),
    reportLink: values['report-link'] || null,
  };
}

// A shard's results, named by its folder as the user gave it: every refusal names the folder.
function readShard(folder) {
  const doc = { ...readDocument(path.join(folder, 'results.json'), 'results') };
  Object.defineProperty(doc, '__file', { value: folder, enumerable: false });
  return doc;
}

/**
 * The one way shards become one run: reads the shards' results.json, merges them (core
 * mergeResults, refusing shards that are not of one comparison), judges with the suite's limits
 * from `thresholds`, and writes the merged run folder `out`. Used by `perfgate merge` and by the
 * action's report job.
 * @returns {merged, verdict}
 */
function mergeShardFolders({ folders, out, thresholds = core.SHIPPED_THRESHOLDS_DIR, allowPartial = false, allowDifferentMachines = false, reportLink = null, thresholdsFrom = null }) {
  const shards = folders.map(readShard);
  const merged = core.mergeResults(shards, { shards: true, allowPartial, allowDifferentMachines });
  const verdict = core.judge(merged, limitsConfig({ thresholds }, shards));
  makeRunFolder(out);
  clearRunOutputs(out);
  if (merged.plan.benchmarks.length) writeDocument(path.join(out, 'plan.json'), 'plan', merged.plan);
  writeDocument(path.join(out, 'results.json'), 'results', merged);
  writeReports(out, verdict, { reportLink, thresholdsFrom });
  return { merged, verdict };
}

async function execute(settings, io) {
  const { merged, verdict } = mergeShardFolders(settings);
  const { count, merged: parts, missing } = merged.shards;
  const joined = parts.map((p) => `${p.index}/${count} from ${p.folder}`).join(', ');
  io.stderr.write(`perfgate merge: shards ${joined}${missing.length ? `; missing ${missing.map((k) => `${k}/${count}`).join(', ')}` : ''}\n`);
  io.stderr.write(`perfgate merge: wrote plan.json, results.json, verdict.json, comment.md, summary.md, report.html, results.csv, results.tsv in ${settings.out}\n`);
  io.stdout.write(core.renderVerdictTable(verdict));
  return verdict.exit_code;
}

module.exports = { readSettings, execute, HELP, mergeShardFolders };
