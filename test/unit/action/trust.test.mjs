// Who may have code built on the self-hosted runner, decided from GitHub's published
// pull_request payload (moved to a fork or an author as each case needs).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { decideBase, decideTrust, needsAuthorPermission, pullRequestFacts, refusalComment } from '../../../action/src/trust.js';

const require = createRequire(import.meta.url);
const HEAD = 'a'.repeat(40);
const MOVED = 'f'.repeat(40);

function published({ headRepo = 'Codertocat/Hello-World', author = 'Codertocat', headSha = HEAD } = {}) {
  const examples = require('@octokit/webhooks-examples');
  const event = structuredClone(examples.find((e) => e.name === 'pull_request').examples.find((e) => e.action === 'opened'));
  const pull = event.pull_request;
  pull.head.sha = headSha;
  pull.user.login = author;
  if (headRepo === null) pull.head.repo = null;
  else pull.head.repo.full_name = headRepo;
  return pull;
}

describe('pullRequestFacts', () => {
  it('reads a same-repository head from the published payload', () => {
    const facts = pullRequestFacts(published());
    assert.equal(facts.sameRepository, true);
    assert.equal(facts.baseRepository, 'Codertocat/Hello-World');
    assert.equal(facts.author, 'Codertocat');
    assert.equal(needsAuthorPermission(facts), true);
  });

  it('a head in another repository is a fork, whatever head.repo.fork says; a deleted fork too', () => {
    const pull = published({ headRepo: 'contributor/Hello-World' });
    pull.head.repo.fork = false;
    assert.equal(pullRequestFacts(pull).sameRepository, false);
    assert.equal(needsAuthorPermission(pullRequestFacts(pull)), false, 'no REST call: a fork is never trusted without approval');
    assert.equal(pullRequestFacts(published({ headRepo: null })).sameRepository, false);
    // The fork of MariaDB is itself a fork: a pull request inside it has head.repo.fork = true.
    const inside = published();
    inside.head.repo.fork = true;
    assert.equal(pullRequestFacts(inside).sameRepository, true);
  });
});

describe('decideTrust', () => {
  const same = pullRequestFacts(published({ author: 'maintainer' }));
  const fork = pullRequestFacts(published({ headRepo: 'contributor/Hello-World', author: 'contributor' }));
  const movedFork = pullRequestFacts(published({ headRepo: 'contributor/Hello-World', author: 'contributor', headSha: MOVED }));

  it('trusts a same-repository branch by an author who may push', () => {
    for (const permission of ['admin', 'maintain', 'write']) {
      assert.deepEqual(decideTrust({ facts: same, authorPermission: permission, headSha: HEAD, approvedSha: null }),
        { allowed: true, reason: 'trusted', why: `the head branch is in Codertocat/Hello-World and maintainer has ${permission} access` });
    }
  });

  it('refuses a same-repository branch by an author who may not push', () => {
    assert.deepEqual(decideTrust({ facts: same, authorPermission: 'read', headSha: HEAD, approvedSha: null }),
      { allowed: false, reason: 'needs-approval', why: 'maintainer has read access to Codertocat/Hello-World (write is needed), and no maintainer has approved head aaaaaaaaaaaa' });
  });

  it('refuses a fork without approval, whatever its author may do', () => {
    assert.deepEqual(decideTrust({ facts: fork, authorPermission: 'admin', headSha: HEAD, approvedSha: null }),
      { allowed: false, reason: 'needs-approval', why: 'the head branch is in contributor/Hello-World, not in Codertocat/Hello-World, and no maintainer has approved head aaaaaaaaaaaa' });
  });

  it('runs a fork whose approved head is the one checked out and still the pull request\'s head', () => {
    assert.deepEqual(decideTrust({ facts: fork, authorPermission: null, headSha: HEAD, approvedSha: HEAD }),
      { allowed: true, reason: 'approved', why: 'the head branch is in contributor/Hello-World, not in Codertocat/Hello-World; a maintainer approved head aaaaaaaaaaaa' });
  });

  it('refuses an approval of another commit than the one it would check out', () => {
    assert.equal(decideTrust({ facts: fork, authorPermission: null, headSha: HEAD, approvedSha: MOVED }).reason, 'approval-mismatch');
  });

  it('refuses an approved head the pull request has moved away from', () => {
    assert.deepEqual(decideTrust({ facts: movedFork, authorPermission: null, headSha: HEAD, approvedSha: HEAD }),
      { allowed: false, reason: 'head-moved', why: 'the head branch is in contributor/Hello-World, not in Codertocat/Hello-World; aaaaaaaaaaaa was approved, but the pull request\'s head has since moved to ffffffffffff, which no maintainer has approved' });
  });

  it('the refusal comment starts with the marker and says how to approve', () => {
    const decision = decideTrust({ facts: fork, authorPermission: null, headSha: HEAD, approvedSha: null });
    const body = refusalComment({ marker: '<!-- perfgate:comment suite=quick -->', suite: 'quick', decision, headSha: HEAD });
    assert.ok(body.startsWith('<!-- perfgate:comment suite=quick -->\n### 🔒 perfgate quick: waiting for a maintainer\n'));
    assert.match(body, /A maintainer approves head `aaaaaaaaaaaa` by commenting `\/perf quick` on this pull request\./);
  });
});

describe('decideBase', () => {
  const BASE = '2'.repeat(40);
  const OTHER = '3'.repeat(40);
  const facts = { number: 7, baseSha: BASE, baseRef: 'main' };
  const refused = (relation) => `input base-ref: '${OTHER}' is not the base of pull request #7 (${relation}); expected ${BASE}, its base commit, or an earlier commit of its base branch main`;
  it('measures against the pull request\'s base or an earlier commit of its base branch, nothing else', () => {
    const cases = [
      [{ baseRef: null, relation: null }, { baseRef: BASE, problem: null }],
      [{ baseRef: BASE, relation: null }, { baseRef: BASE, problem: null }],
      [{ baseRef: OTHER, relation: 'ahead' }, { baseRef: OTHER, problem: null }],
      [{ baseRef: OTHER, relation: 'identical' }, { baseRef: OTHER, problem: null }],
      [{ baseRef: OTHER, relation: 'behind' }, { baseRef: null, problem: refused("GitHub's compare with it: behind") }],
      [{ baseRef: OTHER, relation: 'diverged' }, { baseRef: null, problem: refused("GitHub's compare with it: diverged") }],
      [{ baseRef: OTHER, relation: 'not found' }, { baseRef: null, problem: refused("GitHub's compare with it: not found") }],
      [{ baseRef: OTHER, relation: null }, { baseRef: null, problem: refused('not compared') }],
    ];
    for (const [given, expected] of cases) assert.deepEqual(decideBase({ ...given, facts }), expected, JSON.stringify(given));
  });
});
