// A run's artifact is untrusted: paths, sizes, schemas and commits are checked before anything
// in it is used. The zips are written by Python's zipfile (test/support/bot.mjs), which
// writes what a hostile run could.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BASE_SHA, HEAD_SHA, PR, runFolderFiles, writeArtifact } from '../../support/bot.mjs';

const require = createRequire(import.meta.url);
// The zip is the bot's to read; every rule of names, sizes and documents is core's run folder reader.
const { readRunFolder, ArtifactRejected } = require('../../../bot/src/app/artifact');
const { entryPath, checkRunFolder } = require('@perfgate/core');

const MB = 1024 * 1024;
const pinned = { name: 'perfgate-quick', prNumber: PR, baseSha: BASE_SHA, headSha: HEAD_SHA, suite: 'quick' };

describe('run folder artifacts', () => {
  let dir;
  let count = 0;
  const zipOf = (entries) => {
    count += 1;
    return readFileSync(writeArtifact(dir, count, 'perfgate-1', entries));
  };
  const rejects = (promise, message) => assert.rejects(promise, (err) => {
    assert.ok(err instanceof ArtifactRejected, `${err.name}: ${err.message}`);
    assert.equal(err.message, message);
    return true;
  });
  const refused = (fn, message) => assert.throws(fn, (err) => {
    assert.ok(err instanceof ArtifactRejected, `${err.name}: ${err.message}`);
    assert.equal(err.message, message);
    return true;
  });

  before(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'perfgate-artifacts-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every entry inside the extraction folder', () => {
    assert.deepEqual(entryPath('results.json'), { path: 'results.json' });
    assert.deepEqual(entryPath('servers/base/error.log'), { path: 'servers/base/error.log' });
    assert.deepEqual(entryPath('./a/./b'), { path: 'a/b' });
    assert.deepEqual(entryPath('../results.json'), { problem: 'archive path "../results.json" leaves the extraction folder' });
    assert.deepEqual(entryPath('a/../../etc/passwd'), { problem: 'archive path "a/../../etc/passwd" leaves the extraction folder' });
    assert.deepEqual(entryPath('/etc/passwd'), { problem: 'archive path "/etc/passwd" is absolute' });
    assert.deepEqual(entryPath('C:/x'), { problem: 'archive path "C:/x" is absolute' });
    assert.deepEqual(entryPath('a\\..\\..\\x'), { problem: 'archive path "a\\\\..\\\\..\\\\x" holds a backslash' });
    assert.deepEqual(entryPath('a\0b'), { problem: 'archive path "a\\u0000b" holds a NUL byte' });
  });

  it('reads the documents of a good run folder and passes its checks', async () => {
    const folder = await readRunFolder(zipOf({ ...runFolderFiles(), 'servers/base/error.log': 'log' }), { maxBytes: 8 * MB });
    assert.deepEqual(folder.entries.sort(), ['action-run.json', 'comment.md', 'plan.json', 'results.json', 'servers/base/error.log', 'verdict.json']);
    const { results, verdict, plan, actionRun } = checkRunFolder(folder, pinned);
    assert.equal(actionRun.status, 'judged');
    assert.equal(results.sides.head.commit, HEAD_SHA);
    assert.equal(verdict.suite, 'quick');
    assert.equal(plan.sides.base.commit, BASE_SHA);
  });

  it('rejects archive paths that leave the folder, absolute paths and symbolic links', async () => {
    const good = runFolderFiles();
    await rejects(readRunFolder(zipOf({ ...good, '../../.bashrc': 'echo owned' }), { maxBytes: MB }), 'archive path "../../.bashrc" leaves the extraction folder');
    await rejects(readRunFolder(zipOf({ '/tmp/x': 'x', ...good }), { maxBytes: MB }), 'archive path "/tmp/x" is absolute');
    await rejects(readRunFolder(zipOf([{ name: 'results.json', text: '/etc/passwd', symlink: true }]), { maxBytes: MB }), 'archive entry "results.json" is a symbolic link');
  });

  it('rejects what is too large: a file by its header, and what a file really unpacks to', async () => {
    const big = '0'.repeat(2 * MB);
    await rejects(readRunFolder(zipOf({ 'report.html': big }), { maxBytes: MB }), `report.html unpacks to ${2 * MB} bytes; at most ${MB} are accepted per file`);
    // Many files under the per-file limit that add up to more than four times the zip limit.
    const many = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`part-${i}.log`, '1'.repeat(MB)]));
    await rejects(readRunFolder(zipOf(many), { maxBytes: MB }), `the artifact unpacks to more than ${4 * MB} bytes`);
    await rejects(readRunFolder(Buffer.from('not a zip at all'), { maxBytes: MB }), 'the artifact is not a readable zip (End of central directory record signature not found. Either not a zip file, or file is truncated.)');
  });

  it('rejects a document beyond its own ceiling, or with more objects than a run writes, before parsing it', async () => {
    // A 255 KiB zip of four 64 MiB documents of `[{},{},…]`, each under the artifact's limit,
    // took a 3.4 GB heap to parse and stopped the bot.
    const files = runFolderFiles();
    const { RUN_FOLDER_DOCUMENT_MAX_BYTES: ceiling, RUN_FOLDER_MAX_JSON_CONTAINERS: most } = require('@perfgate/core');
    const flood = `[${'{},'.repeat(ceiling['action-run.json'] / 3)}{}]`;
    await rejects(readRunFolder(zipOf({ ...files, 'action-run.json': flood }), { maxBytes: 64 * MB }), `action-run.json unpacks to ${flood.length} bytes; at most ${ceiling['action-run.json']} are accepted for it`);
    const objects = `[${'{},'.repeat(most)}{}]`;
    await rejects(readRunFolder(zipOf({ ...files, 'verdict.json': objects }), { maxBytes: 64 * MB }), `verdict.json holds ${most + 2} JSON objects and arrays; at most ${most} are accepted`);
    // A log of the same size is not a document: only its bytes count.
    const folder = await readRunFolder(zipOf({ ...files, 'servers/base/error.log': objects }), { maxBytes: 64 * MB });
    assert.ok(folder.entries.includes('servers/base/error.log'));
  });

  it('rejects documents that are not JSON or break their schema', async () => {
    const files = runFolderFiles();
    await rejects(readRunFolder(zipOf({ ...files, 'verdict.json': '{"schema": ' }), { maxBytes: MB }), 'verdict.json is not JSON (Unexpected end of JSON input)');
    const broken = await readRunFolder(zipOf(runFolderFiles({ edit: (f) => { delete f['results.json'].benchmarks; } })), { maxBytes: 8 * MB });
    refused(() => checkRunFolder(broken, pinned), "perfgate-quick/results.json: (top level): missing key 'benchmarks'");
    const documents = Object.fromEntries(['action-run.json', 'results.json'].map((name) => [name, JSON.parse(files[name])]));
    refused(() => checkRunFolder({ documents }, pinned), 'perfgate-quick has no verdict.json at its top, though action-run.json says the run was judged');
    refused(() => checkRunFolder({ documents: { 'results.json': documents['results.json'] } }, pinned), 'perfgate-quick has no action-run.json at its top');
  });

  it('rejects a run of another pull request, other commits than the pinned ones, another suite or shard, or no verdict', async () => {
    const other = 'c'.repeat(40);
    const read = async (options) => readRunFolder(zipOf(runFolderFiles(options)), { maxBytes: 8 * MB });
    const cases = [
      [{ headSha: other }, `perfgate-quick/action-run.json: head_sha is ${other}, but the command pinned ${HEAD_SHA}`],
      [{ edit: (f) => { f['results.json'].sides.head.commit = other; } }, `perfgate-quick/results.json: sides.head.commit is ${other}, but the command pinned ${HEAD_SHA}`],
      [{ edit: (f) => { f['results.json'].sides.base.commit = 'abc123'; } }, 'perfgate-quick/results.json: sides.base.commit is "abc123", not a commit SHA of 40 hex digits'],
      [{ edit: (f) => { f['verdict.json'].run.sides.head.commit = other; } }, `perfgate-quick/verdict.json: run.sides.head.commit is ${other}, but the command pinned ${HEAD_SHA}`],
      [{ edit: (f) => { f['plan.json'].sides.base.commit = null; } }, 'perfgate-quick/plan.json: sides.base.commit is null, not a commit SHA of 40 hex digits'],
      [{ suite: 'full' }, 'perfgate-quick/action-run.json: suite is "full", but the command asked for quick'],
      [{ edit: (f) => { f['verdict.json'].benchmarks[0].id = 'made-up'; } }, 'perfgate-quick/verdict.json judges made-up, which results.json does not hold'],
      [{ pr: 8 }, `perfgate-quick/action-run.json: pull_request is 8, but the command was on #${PR}`],
      [{ shard: { index: 2, count: 4 } }, "perfgate-quick/action-run.json: shard is 2/4, but the artifact's name says none"],
      [{ edit: (f) => { Object.assign(f['action-run.json'], { status: 'error', message: 'the head server did not start' }); } }, 'perfgate-quick: the run has no verdict (error: the head server did not start)'],
    ];
    for (const [options, message] of cases) {
      const folder = await read(options);
      refused(() => checkRunFolder(folder, pinned), message);
    }
  });

  // The options name the check run: a run folder measured otherwise than the command asked
  // would complete the wrong one (a narrowed run as the suite's required check).
  it('rejects a run measured with other options than the command gave, and passes the same options in any order', async () => {
    const read = async (edit) => readRunFolder(zipOf(runFolderFiles({ edit })), { maxBytes: 8 * MB });
    const narrowed = await read((f) => { f['action-run.json'].options = { tests: 'point-query' }; });
    refused(() => checkRunFolder(narrowed, { ...pinned, options: {} }), "perfgate-quick/action-run.json: options are 'tests=point-query', but the command asked for no options");
    const whole = await read(() => {});
    refused(() => checkRunFolder(whole, { ...pinned, options: { rounds: 8 } }), "perfgate-quick/action-run.json: options are none, but the command asked for 'rounds=8'");
    const both = await read((f) => { f['action-run.json'].options = { threads: '1,4', rounds: '8' }; });
    assert.equal(checkRunFolder(both, { ...pinned, options: { rounds: 8, threads: [1, 4] } }).actionRun.options.rounds, '8');
  });
});
