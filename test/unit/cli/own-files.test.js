'use strict';
// The run folder is written by sandboxed code too (the harness, the servers it starts), and
// perfgate reads and writes it afterwards, outside the sandbox: a name the harness left as a
// symbolic link must neither be read through nor written through.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const core = require('../../../core');
const { readDocument, writeReports } = require('../../../cli/src/own-files');
const { capturedResults, loadResults } = require('../../support/captured-results');

function scratch(t) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-run-folder-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const run = path.join(root, 'run');
  const outside = path.join(root, 'outside');
  fs.mkdirSync(run);
  fs.mkdirSync(outside);
  return { run, outside };
}

test("results.json left as a link is refused, and the message holds none of the linked file's text", (t) => {
  const { run, outside } = scratch(t);
  const secret = path.join(outside, 'credentials');
  fs.writeFileSync(secret, 'ghs_secretTokenText\n');
  fs.symlinkSync(secret, path.join(run, 'results.json'));
  assert.throws(() => readDocument(path.join(run, 'results.json'), 'results'), (err) => {
    assert.equal(err.name, 'UsageError');
    assert.equal(err.message, `${path.join(run, 'results.json')}: cannot read it (a symbolic link, which perfgate does not follow in its own folders); expected a perfgate.results/v1 document`);
    return true;
  });
});

test('a document a user names may be a link', (t) => {
  const { run, outside } = scratch(t);
  const file = path.join(outside, 'results.json');
  fs.copyFileSync(path.resolve(__dirname, '../../fixtures/results/tiny-quick.json'), file);
  fs.symlinkSync(file, path.join(run, 'mine.json'));
  assert.equal(readDocument(path.join(run, 'mine.json'), 'results', { option: '--results' }).schema, 'perfgate.results/v1');
});

test("a chain's reports are not written through a heads/ link the harness left", (t) => {
  const { run, outside } = scratch(t);
  fs.symlinkSync(outside, path.join(run, 'heads'));
  const r = loadResults(capturedResults().find((c) => c.name === 'io-tiny').file);
  r.sides.head2 = { ...r.sides.head, label: 'head2' };
  r.plan.sides.head2 = { ...r.plan.sides.head, label: 'head2' };
  for (const b of r.benchmarks) b.rounds.push(...b.rounds.filter((x) => x.side === 'head').map((x) => ({ ...x, side: 'head2' })));
  writeReports(run, core.judgeChain(r, { limits: { default: { warn: 0.97, fail: 0.93 } } }));
  assert.deepEqual(fs.readdirSync(outside), []);
  assert.ok(fs.lstatSync(path.join(run, 'heads')).isDirectory());
  assert.ok(fs.existsSync(path.join(run, 'heads', 'head2', 'verdict.json')));
});

test('a run folder perfgate may not write to is named in a UsageError, and no temporary file is left', (t) => {
  const { run } = scratch(t);
  const { writeText } = require('../../../cli/src/own-files');
  // Read and enter, not write (empty, it is removed with its parent all the same).
  fs.chmodSync(run, 0o555);
  // root writes anywhere: the refusal is then the file system's (EROFS) or none, so run as another user.
  if (process.getuid && process.getuid() === 0) {
    const { spawnSync } = require('node:child_process');
    fs.chmodSync(path.dirname(run), 0o755);
    const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e',
      `require(${JSON.stringify(path.join(__dirname, '../../../cli/src/own-files'))}).writeText(${JSON.stringify(path.join(run, 'verdict.json'))}, 'x')`], { encoding: 'utf8' });
    assert.match(r.stderr, /verdict\.json: cannot write it \(EACCES\); expected a folder perfgate may write to/);
  } else {
    assert.throws(() => writeText(path.join(run, 'verdict.json'), 'x'), (err) => err instanceof core.UsageError && /verdict\.json: cannot write it \(EACCES\)/.test(err.message));
  }
  assert.deepEqual(fs.readdirSync(run), []);
});
