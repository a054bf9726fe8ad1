'use strict';
// A run folder's explain.json (the harness's explanation step) read and its causes attached to
// the verdict, and each explained row's differential flame graph drawn from its folded off-CPU
// stacks with inferno (inferno-diff-folded | inferno-flamegraph, `cargo install inferno`).
// The folder's files were written while a pull request's servers ran: explain.json is read by
// core's one reader of it (names, sizes, schema), never through a symbolic link, and the graphs'
// SVG is sanitised by core before a report embeds it. How causes are decided: docs/explain.md.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const core = require('@perfgate/core');
const { readOwnText, writeText } = require('./own-files');

const { UsageError } = core;
const INFERNO_SECONDS = 60;
// The most bytes of folded stacks fed to inferno per side (a real session's: tens of KB).
const FOLDED_MAX_BYTES = 16 * 1024 * 1024;

// The run folder's files under explain/: regular files of a real folder only (a link or a
// device is not one, and explain/ as a link to elsewhere holds none).
function explainEntries(dir) {
  const sub = path.join(dir, 'explain');
  try {
    if (!fs.lstatSync(sub).isDirectory()) return [];
    return fs.readdirSync(sub, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => `explain/${e.name}`);
  } catch (err) {
    if (err.code === 'ENOENT') return [];
    throw err;
  }
}

/**
 * The run folder's explain.json, read and checked, or null when the folder has none.
 * @param rowIds  results.json's benchmark ids
 */
function readRunExplain(dir, rowIds) {
  const file = path.join(dir, core.EXPLAIN_FILE);
  const most = core.RUN_FOLDER_DOCUMENT_MAX_BYTES[core.EXPLAIN_FILE];
  let text;
  try {
    // Its size before a byte of it is read: a file the size of the disk is refused unread.
    const { size } = fs.lstatSync(file);
    if (size > most) throw new UsageError(`${file} holds ${size} bytes; at most ${most} are accepted for it`);
    text = readOwnText(file);
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    if (err instanceof UsageError) throw err;
    const why = err.code === 'ELOOP' ? 'a symbolic link, which perfgate does not follow in its own folders' : err.code || err.message;
    throw new UsageError(`${file}: cannot read it (${why}); expected a perfgate.explain/v1 document`);
  }
  try {
    return core.readExplain(Buffer.from(text, 'utf8'), { entries: explainEntries(dir), rowIds });
  } catch (err) {
    if (err.name !== 'RunFolderRejected') throw err;
    throw new UsageError(`${dir}${path.sep}${err.message}; expected a document valid by schema/explain.schema.json`);
  }
}

// The path of an inferno tool: on PATH, else where `cargo install` puts it (~/.cargo/bin);
// null when neither.
function inferno(tool, env = process.env) {
  const dirs = [...String(env.PATH || '').split(path.delimiter).filter(Boolean), path.join(env.HOME || os.homedir(), '.cargo', 'bin')];
  for (const d of dirs) {
    const candidate = path.join(d, tool);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // Not in this folder.
    }
  }
  return null;
}

function run(tool, args, input) {
  const r = spawnSync(tool, args, { input, encoding: 'utf8', timeout: INFERNO_SECONDS * 1000, maxBuffer: 64 * 1024 * 1024 });
  if (r.error) return { problem: `${path.basename(tool)} did not run (${r.error.code || r.error.message})` };
  if (r.status !== 0) return { problem: `${path.basename(tool)} exited with ${r.status === null ? r.signal : r.status}: ${String(r.stderr).trim().split('\n')[0].slice(0, 200)}` };
  return { out: r.stdout };
}

// One side's folded stacks, read without following a link and no larger than inferno is fed.
function folded(dir, name) {
  const text = readOwnText(path.join(dir, name));
  if (Buffer.byteLength(text) > FOLDED_MAX_BYTES) throw Object.assign(new Error(`${name} holds more than ${FOLDED_MAX_BYTES} bytes`), { code: 'EFBIG' });
  return text;
}

/**
 * Draws the differential flame graph of each row whose cause names both sides' folded off-CPU
 * stacks, writes it as explain/<row>.diff.svg (whole, never through a link; explain/ is cleared
 * with the run's other outputs), and returns {row id: {svg, file} | {problem}}.
 */
function drawFlamegraphs(dir, verdict, env = process.env) {
  const out = {};
  // explain/ is a real folder here: readRunExplain refused its files were it a link.
  const rows = verdict.benchmarks.filter((b) => b.cause && b.cause.stacks);
  if (!rows.length) return out;
  const diff = inferno('inferno-diff-folded', env);
  const graph = inferno('inferno-flamegraph', env);
  for (const b of rows) {
    if (!diff || !graph) {
      out[b.id] = { problem: 'inferno is not installed (cargo install inferno)' };
      continue;
    }
    let input;
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-flame-'));
    try {
      const base = path.join(tmp, 'base.folded');
      const head = path.join(tmp, 'head.folded');
      fs.writeFileSync(base, folded(dir, b.cause.stacks.base));
      fs.writeFileSync(head, folded(dir, b.cause.stacks.head));
      input = run(diff, [base, head], '');
    } catch (err) {
      out[b.id] = { problem: `the folded stacks could not be read (${err.code || err.message})` };
      continue;
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    if (input.problem) {
      out[b.id] = { problem: input.problem };
      continue;
    }
    const title = `${b.id}: off-CPU µs, head against base (red: grew)`;
    const drawn = run(graph, ['--title', title, '--countname', 'µs', '--minwidth', '0.1', '-'], input.out);
    if (drawn.problem) {
      out[b.id] = { problem: drawn.problem };
      continue;
    }
    const svg = core.sanitizeSvg(drawn.out);
    const file = `explain/${b.id.replace(/[^A-Za-z0-9_.=-]/g, '_')}.diff.svg`;
    writeText(path.join(dir, file), svg);
    out[b.id] = { svg, file };
  }
  return out;
}

/**
 * The verdict with the causes of the run folder's explain.json (unchanged when it has none),
 * and the flame graphs drawn for its report.
 */
function explainedVerdict(dir, verdict, results, env = process.env) {
  const doc = readRunExplain(dir, results.flatMap((r) => r.benchmarks.map((b) => b.id)));
  if (!doc) return { verdict, flamegraphs: {} };
  const explained = core.withCauses(verdict, doc, { results: results.length === 1 ? results[0] : null });
  return { verdict: explained, flamegraphs: drawFlamegraphs(dir, explained, env) };
}

module.exports = { explainedVerdict, readRunExplain, drawFlamegraphs, inferno };
