// job: bisect: whose code the search builds. A bisection in a fork's pull request may search the
// fork's own commits, which the checkout holds only once ensureCommit has fetched
// refs/pull/<n>/head: no writer of the repository pushed them, so they are untrusted code and
// run only in the sandbox (or, where there is none, not at all), as the measure job runs an
// approved fork head. The repository's own commits (on a branch or a tag) are not.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureCommit } from '../../../action/src/base-thresholds.js';
import { bisectSandbox, searchesOwnCommits } from '../../../action/src/bisect.js';

const IDENTITY = ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid'];
const OFF_NOTE = "PERFGATE_SANDBOX=off: this runner's owner lets untrusted code run without the sandbox, where it can read the runner's files and processes";
const git = (repo, ...args) => execFileSync('git', [...IDENTITY, '-C', repo, ...args], { encoding: 'utf8' }).trim();

function commit(repo, message) {
  writeFileSync(path.join(repo, 'file.txt'), `${message}\n`);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', message);
  return git(repo, 'rev-parse', 'HEAD');
}

describe('job: bisect: a fork\'s commits are untrusted code', () => {
  let folder;
  let checkout;
  const shas = {};
  before(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bisect-commits-'));
    // The repository: main with a tagged release, and a fork's pull request whose commits only
    // refs/pull/7/head holds (GitHub keeps them there; the fork's branch is not in this repository).
    const upstream = path.join(folder, 'upstream');
    mkdirSync(upstream);
    git(upstream, 'init', '-q', '-b', 'main');
    shas.first = commit(upstream, 'first');
    git(upstream, 'tag', 'mariadb-10.11.18');
    shas.main = commit(upstream, 'second');
    git(upstream, 'checkout', '-q', '-b', 'from-fork');
    shas.fork1 = commit(upstream, 'fork 1');
    shas.fork2 = commit(upstream, 'fork 2');
    git(upstream, 'update-ref', 'refs/pull/7/head', shas.fork2);
    git(upstream, 'checkout', '-q', 'main');
    git(upstream, 'branch', '-q', '-D', 'from-fork');
    // As perf-bisect.yml checks out: every branch and tag; then the job fetches the fork's head.
    checkout = path.join(folder, 'checkout');
    execFileSync('git', ['clone', '-q', `file://${upstream}`, checkout]);
    ensureCommit({ source: checkout, sha: shas.fork2, pullRequest: 7, token: null, serverUrl: 'https://github.com' });
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  it('a search between commits of the repository\'s branches and tags is its own code', () => {
    assert.equal(searchesOwnCommits(checkout, [shas.first, shas.main]), true);
  });

  it('a search reaching into a fork\'s commits is not, whichever end is the fork\'s', () => {
    assert.equal(searchesOwnCommits(checkout, [shas.main, shas.fork2]), false);
    assert.equal(searchesOwnCommits(checkout, [shas.fork1, shas.fork2]), false);
    assert.equal(searchesOwnCommits(checkout, ['e'.repeat(40), shas.main]), false, 'a commit the checkout lacks is no proof');
  });

  it('so its sandbox is the one of untrusted code: with the owner\'s PERFGATE_SANDBOX=off it says so, and its own code needs no note', () => {
    const env = { PERFGATE_SANDBOX: 'off' };
    assert.deepEqual(bisectSandbox({ source: checkout, shas: [shas.main, shas.fork2], env }), { sandboxed: false, note: OFF_NOTE });
    assert.deepEqual(bisectSandbox({ source: checkout, shas: [shas.first, shas.main], env }), { sandboxed: false, note: null });
  });
});
