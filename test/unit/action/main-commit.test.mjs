// Commits measured without a pull request: a commit of the default branch (the watch workflow)
// and a tagged release pair (the sign-off workflow). The trust rules, decided purely and then on
// a real git checkout.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { mainCommitAdmission, releaseAdmission } from '../../../action/src/pull-request.js';
import { decideMainCommitTrust, decideReleaseTrust } from '../../../action/src/trust.js';

const HEAD = 'c'.repeat(40);

describe('decideMainCommitTrust', () => {
  it('builds a commit of the default branch from a run on that branch, nothing else', () => {
    assert.deepEqual(decideMainCommitTrust({ ref: 'refs/heads/main', defaultBranch: 'main', headSha: HEAD, headOnBranch: true }),
      { allowed: true, reason: 'trusted-branch', why: 'head cccccccccccc is a commit of the default branch main, whose pushes are trusted' });
    assert.deepEqual(decideMainCommitTrust({ ref: 'refs/heads/feature', defaultBranch: 'main', headSha: HEAD, headOnBranch: true }),
      { allowed: false, reason: 'not-default-branch', why: 'no pull request, and the run is on refs/heads/feature, not on the default branch main: only the default branch\'s own commits are measured without one' });
    assert.deepEqual(decideMainCommitTrust({ ref: 'refs/heads/main', defaultBranch: 'main', headSha: HEAD, headOnBranch: false }),
      { allowed: false, reason: 'not-on-branch', why: 'no pull request, and head cccccccccccc is not a commit of main' });
    assert.equal(decideMainCommitTrust({ ref: null, defaultBranch: null, headSha: HEAD, headOnBranch: true }).reason, 'not-default-branch');
  });
});

describe('mainCommitAdmission on a git checkout', () => {
  it('admits a commit of the checked-out default branch and refuses one on another branch', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-main-commit-'));
    try {
      const git = (...args) => execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' }).trim();
      git('init', '-q', '-b', 'main');
      git('commit', '-q', '--allow-empty', '-m', 'one');
      const first = git('rev-parse', 'HEAD');
      git('checkout', '-q', '-b', 'side');
      git('commit', '-q', '--allow-empty', '-m', 'elsewhere');
      const side = git('rev-parse', 'HEAD');
      git('checkout', '-q', 'main');
      git('commit', '-q', '--allow-empty', '-m', 'two');
      const settings = (headSha) => ({ source: dir, headSha, baseRef: first, ref: 'refs/heads/main', event: { repository: { default_branch: 'main' } } });
      const admitted = mainCommitAdmission(settings(git('rev-parse', 'HEAD')));
      assert.deepEqual([admitted.decision.allowed, admitted.baseRef, admitted.facts.defaultBranch], [true, first, 'main']);
      assert.equal(mainCommitAdmission(settings(first)).decision.allowed, true);
      assert.equal(mainCommitAdmission(settings(side)).decision.reason, 'not-on-branch');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('decideReleaseTrust', () => {
  const head = { sha: '1'.repeat(40), tags: ['mariadb-10.11.19'] };
  const base = { sha: '8'.repeat(40), tags: ['mariadb-10.11.18'] };
  it('builds two tagged commits from a run on the default branch or on a tag, nothing else', () => {
    assert.deepEqual(decideReleaseTrust({ ref: 'refs/heads/main', defaultBranch: 'main', head, base }),
      { allowed: true, reason: 'trusted-release', why: 'candidate 111111111111 (tag mariadb-10.11.19) and previous release 888888888888 (tag mariadb-10.11.18) are tagged releases of this repository' });
    assert.equal(decideReleaseTrust({ ref: 'refs/tags/mariadb-10.11.19', defaultBranch: 'main', head, base }).allowed, true);
    assert.deepEqual(decideReleaseTrust({ ref: 'refs/heads/feature', defaultBranch: 'main', head, base }),
      { allowed: false, reason: 'not-release-run', why: 'a release sign-off runs on the default branch main or on a release tag, not on refs/heads/feature' });
    assert.deepEqual(decideReleaseTrust({ ref: 'refs/heads/main', defaultBranch: 'main', head: { ...head, tags: [] }, base }),
      { allowed: false, reason: 'untagged', why: 'the candidate 111111111111 is not a commit any tag of this repository points at: only tagged releases are measured without a pull request' });
    assert.equal(decideReleaseTrust({ ref: 'refs/heads/main', defaultBranch: 'main', head, base: { ...base, tags: [] } }).reason, 'untagged');
    assert.equal(decideReleaseTrust({ ref: 'refs/pull/7/merge', defaultBranch: 'main', head, base }).reason, 'not-release-run');
  });
});

describe('releaseAdmission on a git checkout', () => {
  it('admits two tagged commits and refuses an untagged one (a pull request\'s head fetched into the checkout)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-release-'));
    try {
      const git = (...args) => execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' }).trim();
      git('init', '-q', '-b', 'main');
      git('commit', '-q', '--allow-empty', '-m', 'release one');
      const previous = git('rev-parse', 'HEAD');
      git('tag', '-a', '-m', 'one', 'mariadb-10.11.18');
      git('commit', '-q', '--allow-empty', '-m', 'release two');
      const candidate = git('rev-parse', 'HEAD');
      git('tag', 'mariadb-10.11.19');
      git('tag', 'also-this');
      git('commit', '-q', '--allow-empty', '-m', 'not released');
      const untagged = git('rev-parse', 'HEAD');
      const settings = (headSha, baseRef = previous, ref = 'refs/heads/main') => ({ source: dir, headSha, baseRef, ref, event: { repository: { default_branch: 'main' } } });
      const admitted = releaseAdmission(settings(candidate));
      assert.deepEqual([admitted.decision.allowed, admitted.headSha, admitted.baseRef], [true, candidate, previous]);
      assert.match(admitted.decision.why, /\(tag also-this, mariadb-10\.11\.19\)/, 'annotated and lightweight tags both count');
      assert.equal(releaseAdmission(settings(candidate, previous, 'refs/tags/mariadb-10.11.19')).decision.allowed, true);
      assert.equal(releaseAdmission(settings(untagged)).decision.reason, 'untagged');
      assert.equal(releaseAdmission(settings(candidate, untagged)).decision.reason, 'untagged');
      const absent = 'f'.repeat(40);
      assert.deepEqual(releaseAdmission(settings(absent)).decision, { allowed: false, reason: 'missing', why: 'the candidate ffffffffffff is not in the checkout: expected actions/checkout with fetch-depth: 0 (all history and tags)' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
