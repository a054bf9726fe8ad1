// Limits come from the base commit, never from the head's working tree; a fork's head commit
// that is on no branch is fetched from refs/pull/N/head.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { copyThresholdsFrom, describeThresholdsOrigin, ensureCommit, resolveCommit, thresholdsDigest } from '../../../action/src/base-thresholds.js';

const perfgateCore = createRequire(import.meta.url)('@perfgate/core');
const IDENTITY = ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid'];
let folder;

function git(repo, ...args) {
  return execFileSync('git', [...IDENTITY, '-C', repo, ...args], { encoding: 'utf8' }).trim();
}

function commitSuite(repo, text, message) {
  mkdirSync(path.join(repo, 'perf/thresholds/suites'), { recursive: true });
  writeFileSync(path.join(repo, 'perf/thresholds/suites/quick.yml'), text);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', message);
  return git(repo, 'rev-parse', 'HEAD');
}

before(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-base-thresholds-'));
});
after(() => rmSync(folder, { recursive: true, force: true }));

describe('copyThresholdsFrom', () => {
  it('copies the base commit\'s folder even when the work tree (the head) loosened it', () => {
    const repo = path.join(folder, 'loosen');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(repo, 'README'), 'fork\n');
    const base = commitSuite(repo, 'limits: strict\n', 'base');
    mkdirSync(path.join(repo, 'perf/thresholds/profiles'), { recursive: true });
    writeFileSync(path.join(repo, 'perf/thresholds/profiles/extra.cnf'), '[mysqld]\n');
    commitSuite(repo, 'limits: loose\n', 'head loosens its own gate');
    const target = path.join(folder, 'copied');
    const origin = copyThresholdsFrom({ source: repo, folder: 'perf/thresholds', candidates: [{ ref: base, label: 'base commit' }], target });
    assert.deepEqual(origin, { commit: base, ref: base, label: 'base commit', folder: 'perf/thresholds' });
    assert.equal(readFileSync(path.join(target, 'suites/quick.yml'), 'utf8'), 'limits: strict\n');
    assert.throws(() => readFileSync(path.join(target, 'profiles/extra.cnf')), { code: 'ENOENT' }, 'files the head added are not there');
    assert.equal(describeThresholdsOrigin(origin), `\`perf/thresholds/\` at base commit \`${base.slice(0, 12)}\``);
  });

  it('falls back to the default branch when the base has no such folder, and to the shipped thresholds when none has', () => {
    const repo = path.join(folder, 'fallback');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(repo, 'README'), 'fork\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'old base without thresholds');
    const base = git(repo, 'rev-parse', 'HEAD');
    const main = commitSuite(repo, 'limits: main\n', 'thresholds on main');
    const target = path.join(folder, 'copied-fallback');
    const candidates = [{ ref: base, label: 'base commit' }, { ref: 'refs/heads/main', label: 'default branch main' }];
    assert.deepEqual(copyThresholdsFrom({ source: repo, folder: 'perf/thresholds', candidates, target }), { commit: main, ref: 'refs/heads/main', label: 'default branch main', folder: 'perf/thresholds' });
    assert.equal(copyThresholdsFrom({ source: repo, folder: 'elsewhere', candidates, target: path.join(folder, 'none') }), null);
    assert.equal(describeThresholdsOrigin(null), 'perfgate\'s shipped thresholds (the fork names no thresholds folder, or its base has none)');
  });

  it('refuses a source that is not a git checkout', () => {
    assert.throws(() => copyThresholdsFrom({ source: folder, folder: 'perf/thresholds', candidates: [], target: path.join(folder, 'x') }),
      { message: `input source: '${folder}' is not a git checkout; expected the fork's checkout (actions/checkout with fetch-depth: 0), where the base commit's perf/thresholds/ is read` });
  });
});

describe('ensureCommit', () => {
  it('fetches a fork\'s head that is only under refs/pull/N/head', () => {
    const upstream = path.join(folder, 'upstream');
    mkdirSync(upstream);
    git(upstream, 'init', '-q', '-b', 'main');
    commitSuite(upstream, 'limits: a\n', 'base');
    git(upstream, 'checkout', '-q', '-b', 'from-fork');
    const head = commitSuite(upstream, 'limits: b\n', 'fork head');
    git(upstream, 'update-ref', 'refs/pull/7/head', head);
    git(upstream, 'checkout', '-q', 'main');
    git(upstream, 'branch', '-q', '-D', 'from-fork');
    const checkout = path.join(folder, 'checkout');
    execFileSync('git', ['clone', '-q', `file://${upstream}`, checkout]);
    assert.equal(resolveCommit(checkout, head), null, 'a clone of the branches lacks the fork head');
    assert.deepEqual(ensureCommit({ source: checkout, sha: head, pullRequest: 7, token: 'ghs_secret', serverUrl: 'https://github.com' }), { fetched: true });
    assert.equal(resolveCommit(checkout, head), head);
    assert.deepEqual(ensureCommit({ source: checkout, sha: head, pullRequest: 7, token: null, serverUrl: 'https://github.com' }), { fetched: false });
    assert.ok(!readFileSync(path.join(checkout, '.git/config'), 'utf8').includes('extraheader'), 'the token is never written to .git/config');
  });

  it('says what is missing when the fetch does not bring the commit', () => {
    const checkout = path.join(folder, 'checkout');
    assert.throws(() => ensureCommit({ source: checkout, sha: 'e'.repeat(40), pullRequest: 8, token: null, serverUrl: 'https://github.com' }),
      (error) => error.message.startsWith(`commit ${'e'.repeat(40)} is not in ${checkout}, and fetching refs/pull/8/head from origin did not bring it (`));
  });

  it("thresholdsDigest: one for the same files wherever they lie, another when a file's bytes or name change, and a link refused", () => {
    const copy = (name) => { const dir = path.join(folder, name); cpSync(perfgateCore.SHIPPED_THRESHOLDS_DIR, dir, { recursive: true }); return dir; };
    const shipped = thresholdsDigest(perfgateCore.SHIPPED_THRESHOLDS_DIR);
    assert.match(shipped, /^sha256:[0-9a-f]{64}$/);
    assert.equal(thresholdsDigest(copy('digest-same')), shipped);
    const edited = copy('digest-edited');
    writeFileSync(path.join(edited, 'suites', 'quick.yml'), `${readFileSync(path.join(edited, 'suites', 'quick.yml'), 'utf8')}# \n`);
    assert.notEqual(thresholdsDigest(edited), shipped);
    const renamed = copy('digest-renamed');
    renameSync(path.join(renamed, 'suites', 'quick.yml'), path.join(renamed, 'suites', 'quick2.yml'));
    assert.notEqual(thresholdsDigest(renamed), shipped);
    const linked = copy('digest-linked');
    symlinkSync('/etc/passwd', path.join(linked, 'suites', 'passwd.yml'));
    assert.throws(() => thresholdsDigest(linked), { message: `${path.join(linked, 'suites', 'passwd.yml')}: not a regular file; a thresholds folder holds only files and folders` });
  });
});
