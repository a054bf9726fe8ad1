'use strict';
// The one reader of explain.json, which the harness writes in a run folder beside results.json
// while the servers of a pull request's build run: hostile until these rules pass. Pure: the
// caller hands over the bytes and, where it knows them, the run folder's entries.
//   - at most the run folder's per-document size and JSON containers (untrusted-run-folder.js);
//   - valid by schema/explain.schema.json;
//   - every file it names is a run-folder path by the run folder's one rule (entryPath), a
//     folded stack file under explain/, and, where the entries are known, one of them;
//   - every row once, and, where the run's rows are known, a row of results.json.
const { runFolderListing, entryPath, RunFolderRejected } = require('../untrusted-run-folder');
const { schemaProblem } = require('../schemas');

const FILE = 'explain.json';
// Where the harness writes the folded stacks of a row (docs/explain.md#what-each-probe-needs).
const STACK_FILE = /^explain\/[^/]+\.folded$/;

// The problem of one file name the document gives, or null.
function fileProblem(name, key, entries) {
  const where = entryPath(name);
  if (where.problem) return `${key}: ${where.problem}; expected a path relative to the run folder`;
  if (!STACK_FILE.test(where.path)) return `${key}: ${JSON.stringify(name)} is not a folded stack file under explain/; expected explain/<row>.<side>.<oncpu|offcpu>.folded`;
  if (entries && !entries.has(where.path)) return `${key}: ${JSON.stringify(name)} is not in the run folder`;
  return null;
}

/**
 * The problem of a parsed explain.json, or null: its schema, then what a schema cannot say.
 * @param entries  the run folder's file paths (relative, '/'-separated), or null when not known
 * @param rowIds   results.json's benchmark ids, or null when not known
 */
function explainProblem(doc, { entries = null, rowIds = null } = {}) {
  const problem = schemaProblem('explain', doc);
  if (problem) return problem;
  const listed = entries ? new Set(entries) : null;
  const known = rowIds ? new Set(rowIds) : null;
  const seen = new Set();
  for (const [i, row] of doc.rows.entries()) {
    if (seen.has(row.id)) return `rows[${i}].id: ${JSON.stringify(row.id)} is explained twice; expected each row once`;
    seen.add(row.id);
    if (known && !known.has(row.id)) return `rows[${i}].id: ${JSON.stringify(row.id)} is not a row of results.json`;
    for (const side of ['base', 'head']) {
      const stacks = row.sides[side].stacks;
      for (const key of ['oncpu_file', 'offcpu_file']) {
        const name = stacks && stacks[key];
        const found = name === null || name === undefined ? null : fileProblem(name, `rows[${i}].sides.${side}.stacks.${key}`, listed);
        if (found) return found;
      }
    }
  }
  return null;
}

/**
 * explain.json's bytes read as a perfgate.explain/v1 document, or a RunFolderRejected naming
 * the file and the key.
 * @param options  {entries, rowIds} as explainProblem takes them; {maxBytes} the run folder's limit
 */
function readExplain(bytes, { entries = null, rowIds = null, maxBytes } = {}) {
  const listing = runFolderListing(maxBytes ? { maxBytes } : {});
  listing.document(FILE, bytes);
  const doc = listing.documents()[FILE];
  const problem = explainProblem(doc, { entries, rowIds });
  if (problem) throw new RunFolderRejected(`${FILE}: ${problem}`);
  return doc;
}

module.exports = { readExplain, explainProblem, EXPLAIN_FILE: FILE, STACK_FILE };
