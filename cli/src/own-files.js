'use strict';
// The one writer of perfgate's files. Each file is written whole or not at all (a temporary
// file renamed into place), and every JSON document is checked against its schema before it
// is written: a reader never sees half a file or a document that breaks its schema.
//
// Run folders and build folders are written by sandboxed code too (the harness, the servers,
// an install step), so a name perfgate writes or reads there may be a symbolic link the
// sandbox left, pointing anywhere on the machine. perfgate never writes through one: the
// temporary file has a name nobody can guess and is created new ('wx': O_CREAT|O_EXCL, which
// fails on any existing name, a link included), and the rename replaces a link rather than
// following it. It reads its own files without following a final link either.
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const core = require('@perfgate/core');
const { assertValid, schemaProblem, renderReports, renderChainReports, UsageError } = core;

function writeText(file, text) {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${crypto.randomBytes(8).toString('hex')}.tmp`);
  try {
    fs.writeFileSync(tmp, text, { flag: 'wx' });
    fs.renameSync(tmp, file);
  } catch (err) {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // A folder that refused the file refuses even the look for it: nothing was left there.
    }
    // A folder the user cannot write to is theirs to fix, named, not a crash of perfgate.
    if (['EACCES', 'EPERM', 'EROFS'].includes(err.code)) throw new UsageError(`${file}: cannot write it (${err.code}); expected a folder perfgate may write to`);
    throw err;
  }
}

/** Writes a perfgate.<kind>/v1 document, refusing one that breaks schema/<kind>.schema.json. */
function writeDocument(file, kind, data) {
  assertValid(kind, data, path.basename(file));
  writeText(file, JSON.stringify(data, null, 2) + '\n');
}

/**
 * The text of a regular file, never of what a symbolic link in its place names: perfgate's own
 * files are never links, so a link there was left by sandboxed code, e.g. results.json -> a
 * secret whose text would reach an error message or an uploaded report. Throws ELOOP for a
 * link, EINVAL for anything but a regular file (a FIFO would block).
 */
function readOwnText(file) {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  try {
    if (!fs.fstatSync(fd).isFile()) throw Object.assign(new Error(`${file} is not a regular file`), { code: 'EINVAL' });
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Reads a perfgate.<kind>/v1 document written by perfgate or handed in by a user; a missing,
 * unreadable or invalid file is a UsageError naming it (`option` says where it came from).
 * A file a user named (`option`) may be a symbolic link; one perfgate looks for by name in its
 * own folders may not (readOwnText).
 */
function readDocument(file, kind, { option = null } = {}) {
  const where = option ? `${option} '${file}'` : file;
  let text;
  try {
    text = option ? fs.readFileSync(file, 'utf8') : readOwnText(file);
  } catch (err) {
    const why = err.code === 'ELOOP' ? 'a symbolic link, which perfgate does not follow in its own folders' : err.code || err.message;
    throw new UsageError(`${where}: cannot read it (${why}); expected a perfgate.${kind}/v1 document`);
  }
  let data;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${where}: not JSON (${err.message}); expected a perfgate.${kind}/v1 document`);
  }
  // A verdict of an older perfgate is read as the current version (core's readVerdict).
  const read = kind === 'verdict' ? core.readVerdict(data) : { problem: schemaProblem(kind, data) };
  if (read.problem) throw new UsageError(`${where}: ${read.problem}; expected a document valid by schema/${kind}.schema.json`);
  if (read.verdict) data = read.verdict;
  Object.defineProperty(data, '__file', { value: path.basename(file), enumerable: false });
  return data;
}

/**
 * verdict.json and the reports rendered from it; for a chain (perfgate.chain/v2), chain.json,
 * the chain's reports, and each head's own verdict and reports under heads/<side>/.
 */
function writeReports(dir, verdict, options = {}) {
  if (verdict.schema === 'perfgate.chain/v2') {
    writeDocument(path.join(dir, 'chain.json'), 'chain', verdict);
    for (const [name, text] of Object.entries(renderChainReports(verdict, options))) writeText(path.join(dir, name), text);
    // Made new: a heads/ the harness left (a link, say) is not written through.
    const heads = path.join(dir, 'heads');
    fs.rmSync(heads, { recursive: true, force: true });
    fs.mkdirSync(heads);
    for (const { side, verdict: head } of verdict.heads) {
      fs.mkdirSync(path.join(heads, side));
      writeReports(path.join(heads, side), head, options);
    }
    return;
  }
  writeDocument(path.join(dir, 'verdict.json'), 'verdict', verdict);
  for (const [name, text] of Object.entries(renderReports(verdict, options))) writeText(path.join(dir, name), text);
}

// Files a run folder may hold from an earlier run; removed before measuring so that nothing
// stale is ever read as this run's output.
const RUN_OUTPUTS = /^(plan|results)(\.extra-\d+)?\.json$|^(verdict\.json|explain\.json|comment\.md|summary\.md|report\.html|results\.csv|results\.tsv|chain\.json|chain\.csv|chain\.tsv)$/;

function clearRunOutputs(outDir) {
  for (const entry of fs.readdirSync(outDir)) {
    if (RUN_OUTPUTS.test(entry)) fs.rmSync(path.join(outDir, entry), { force: true });
  }
  // A chain's per-head reports; the explanation step's stack files.
  for (const folder of ['heads', 'explain']) fs.rmSync(path.join(outDir, folder), { recursive: true, force: true });
}

// Files only a run folder holds.
const RUN_FOLDER_MARKS = ['plan.json', 'results.json', 'verdict.json', 'chain.json', 'bisect.json'];
// What perfgate removes or replaces in a run folder before it writes there: in a folder of the
// user's that is not a run folder, such a name is theirs, and would be lost.
const TAKEN_NAMES = ['heads', 'build', 'servers', 'steps', 'explain'];
const takenName = (entry) => RUN_OUTPUTS.test(entry) || TAKEN_NAMES.includes(entry);

/**
 * Creates the run folder, or takes an earlier run folder again, or a folder with nothing a run
 * would remove; a UsageError naming --out for anything else: a symbolic link (written through,
 * it could be another run's folder), a file, a folder of the user's holding names a run
 * replaces, one that cannot be written.
 */
function makeRunFolder(outDir) {
  let stat = null;
  try {
    stat = fs.lstatSync(outDir);
  } catch (err) {
    if (err.code !== 'ENOENT') throw new UsageError(`--out '${outDir}': cannot read it (${err.code || err.message}); expected a writable folder`);
  }
  if (stat && stat.isSymbolicLink()) throw new UsageError(`--out '${outDir}' is a symbolic link; expected the folder itself (a new one, or an earlier run folder)`);
  if (stat && !stat.isDirectory()) throw new UsageError(`--out '${outDir}' is not a folder; expected a new folder or an earlier run folder`);
  if (stat) {
    const entries = fs.readdirSync(outDir);
    // A source build writes build/builds.json into the run folder before anything else.
    const marked = RUN_FOLDER_MARKS.some((name) => entries.includes(name)) || fs.existsSync(path.join(outDir, 'build', 'builds.json'));
    const theirs = entries.filter(takenName);
    if (!marked && theirs.length) {
      throw new UsageError(`--out '${outDir}' is not a run folder (none of ${RUN_FOLDER_MARKS.join(', ')}) but holds ${theirs.slice(0, 3).join(', ')}, which a run would remove or replace; expected a new folder, an earlier run folder, or one without those names`);
    }
  }
  try {
    fs.mkdirSync(outDir, { recursive: true });
    fs.accessSync(outDir, fs.constants.W_OK);
  } catch (err) {
    throw new UsageError(`--out '${outDir}': cannot ${stat ? 'write to' : 'create'} it (${err.code || err.message}); expected a writable folder`);
  }
}

// A loaded datadir is about 0.9 GB per side even at the smallest scale (InnoDB's redo log and
// buffer pool files), and nothing reads it once the comparison is over: a runner serving many
// pull requests would fill its disk. The server logs and my.cnf stay beside the results.
function removeServerData(outDir) {
  // base, head and a chain's further heads (head2, ...).
  const servers = path.join(outDir, 'servers');
  const sides = fs.existsSync(servers) ? fs.readdirSync(servers).filter((entry) => /^(base|head\d*)$/.test(entry)) : [];
  for (const side of sides) {
    const serverDir = path.join(outDir, 'servers', side);
    fs.rmSync(path.join(serverDir, 'data'), { recursive: true, force: true });
    // The copy of the loaded tables kept while instructions are counted (a run cut short).
    fs.rmSync(path.join(serverDir, 'data.loaded'), { recursive: true, force: true });
    // The base's datadir rewritten as a copy of itself (a run cut short while copying).
    fs.rmSync(path.join(serverDir, 'data.copy'), { recursive: true, force: true });
    fs.rmSync(path.join(serverDir, 'tmp'), { recursive: true, force: true });
    fs.rmSync(path.join(serverDir, 'data.json'), { force: true });
  }
}

module.exports = { writeText, writeDocument, readDocument, readOwnText, writeReports, clearRunOutputs, makeRunFolder, removeServerData, RUN_OUTPUTS };
