// A commit of the default branch measured without a pull request (the watch workflow): the
// trust rule, decided purely and then on a real git checkout.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { mainCommitAdmission } from '../../../action/src/pull-request.js';
import { decideMainCommitTrust } from '../../../action/src/trust.js';

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
