'use strict';
// Which head a maintainer's /perf approves, decided from the heads the pull request's deliveries
// announced (with GitHub's stamps), the comment's time and the head now: every case in one table.
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { approveHead, REFUSALS, STAMP_MARGIN_MS } = require('../../../bot/src/app/approval');

const H1 = '1'.repeat(40);
const H2 = '2'.repeat(40);
const H3 = '3'.repeat(40);
const S = 1000; // GitHub stamps whole seconds
const C = 1000 * S; // the comment's created_at
const M = STAMP_MARGIN_MS;
const at = (sha, time) => ({ sha, at: time });
const full = (sha) => ({ given: sha, sha });
const prefix = (sha) => ({ given: sha.slice(0, 7), sha });
const near = (sha, current) => ({ refuse: 'unproven', why: 'near', near: sha, marginMs: M, current });

test('the margin is a minute: GitHub\'s own allowance for clock drift (docs/bot.md#pinned-commits)', () => {
  assert.equal(M, 60 * S);
});

test('each case of the decision', () => {
  const cases = [
    // [what, {heads, current, named, commentAt}, decision]
    ['the head opened before the comment, still the head', { heads: [at(H1, 10 * S)], current: H1 }, { approve: H1 }],
    ['a push before the comment: the pushed head', { heads: [at(H1, 10 * S), at(H2, 500 * S)], current: H2 }, { approve: H2 }],
    ['deliveries arrived in any order: the stamps decide', { heads: [at(H2, 500 * S), at(H1, 10 * S)], current: H2 }, { approve: H2 }],
    ['a force-push back to an earlier head', { heads: [at(H1, 10 * S), at(H2, 20 * S), at(H1, 30 * S)], current: H1 }, { approve: H1 }],
    ['reopened after the comment with the same head', { heads: [at(H1, 10 * S), at(H1, C + S)], current: H1 }, { approve: H1 }],
    ['a push just outside the margin before the comment', { heads: [at(H1, 10 * S), at(H2, C - M - S)], current: H2 }, { approve: H2 }],
    ['a push stamped 5 s before the comment', { heads: [at(H1, 10 * S), at(H2, C - 5 * S)], current: H2 }, near(H2, H2)],
    ['a push stamped 1 s before the comment', { heads: [at(H1, 10 * S), at(H2, C - S)], current: H2 }, near(H2, H2)],
    ['a push in the same second as the comment', { heads: [at(H1, 10 * S), at(H2, C)], current: H2 }, near(H2, H2)],
    ['a push stamped 1 s after the comment', { heads: [at(H1, 10 * S), at(H2, C + S)], current: H2 }, near(H2, H2)],
    ['a push stamped 5 s after the comment, GitHub still showing the old head', { heads: [at(H1, 10 * S), at(H2, C + 5 * S)], current: H1 }, near(H2, H1)],
    ['a push at the very edge of the margin, either side', { heads: [at(H1, 10 * S), at(H2, C - M), at(H3, C + M)], current: H3 }, near(H3, H3)],
    ['a push after the margin', { heads: [at(H1, 10 * S), at(H2, C + M + S)], current: H2 }, { cancel: H2 }],
    ['a push after the margin, GitHub still showing the old head', { heads: [at(H1, 10 * S), at(H2, C + 90 * S)], current: H1 }, { cancel: H2 }],
    ['two pushes after the margin: the latest is named', { heads: [at(H1, 10 * S), at(H3, C + 90 * S), at(H2, C + 70 * S)], current: H3 }, { cancel: H3 }],
    ['the head moved, no delivery of it yet (pulls.get held while the head moved)', { heads: [at(H1, 10 * S)], current: H2 }, { refuse: 'unproven', why: 'moved', current: H2 }],
    ['a push before the comment, GitHub showing the older head', { heads: [at(H1, 10 * S), at(H2, 500 * S)], current: H1 }, { refuse: 'unproven', why: 'moved', current: H1 }],
    ['no delivery of the pull request at all', { heads: [], current: H1 }, { refuse: 'unproven', why: 'none', current: H1 }],
    ['opened just before the comment', { heads: [at(H1, C - 30 * S)], current: H1 }, near(H1, H1)],
    ['only heads after the comment', { heads: [at(H1, C + 120 * S)], current: H1 }, { cancel: H1 }],
    ['two heads in the last second before the comment', { heads: [at(H1, 500 * S), at(H2, 500 * S)], current: H2 }, { refuse: 'unproven', why: 'same-second', current: H2 }],
    ['a comment without a time', { heads: [at(H1, 10 * S)], current: H1, commentAt: null }, { refuse: 'unproven', why: 'none', current: H1 }],
    ['the full SHA of the head', { heads: [], current: H2, named: full(H2) }, { approve: H2 }],
    ['the full SHA of the head, pushed within the margin', { heads: [at(H1, 10 * S), at(H2, C + S)], current: H2, named: full(H2) }, { approve: H2 }],
    ['the full SHA of the head, pushed after the margin', { heads: [at(H1, 10 * S), at(H2, C + 90 * S)], current: H2, named: full(H2) }, { cancel: H2 }],
    ['the full SHA of an earlier head', { heads: [at(H1, 10 * S), at(H2, 500 * S)], current: H2, named: full(H1) }, { refuse: 'not-head', given: H1, sha: H1, current: H2 }],
    ['a prefix of the head the deliveries show before the comment', { heads: [at(H1, 10 * S)], current: H1, named: prefix(H1) }, { approve: H1 }],
    ['a prefix of the head, with no delivery to vouch for it', { heads: [], current: H1, named: prefix(H1) }, { refuse: 'abbreviated', given: H1.slice(0, 7), sha: H1 }],
    ['a prefix of a head pushed within the margin', { heads: [at(H1, 10 * S), at(H2, C - S)], current: H2, named: prefix(H2) }, { refuse: 'abbreviated', given: H2.slice(0, 7), sha: H2 }],
    ['a prefix of a head pushed after the margin', { heads: [at(H1, 10 * S), at(H2, C + 90 * S)], current: H2, named: prefix(H2) }, { cancel: H2 }],
    ['a prefix of the head, whose push no delivery has told of', { heads: [at(H1, 10 * S)], current: H2, named: prefix(H2) }, { refuse: 'abbreviated', given: H2.slice(0, 7), sha: H2 }],
    ['a prefix GitHub resolves to no commit', { heads: [at(H1, 10 * S)], current: H1, named: { given: 'abcdef1', sha: null, error: '422 No commit found for SHA: abcdef1' } },
      { refuse: 'unknown-commit', given: 'abcdef1', error: '422 No commit found for SHA: abcdef1' }],
  ];
  for (const [what, { heads, current, named = null, commentAt = C }, expected] of cases) {
    assert.deepEqual(approveHead({ commentAt, heads, current, named }), expected, what);
  }
});

test('a head stamped within the margin of the comment or after it is never approved unless named in full', () => {
  // Every arrangement of up to three heads around the comment, each the current head or not.
  const shas = [H1, H2, H3];
  const times = [10 * S, 500 * S, C - M - S, C - M, C - 5 * S, C - S, C, C + S, C + 5 * S, C + M, C + M + S, C + 600 * S];
  for (const a of shas) for (const ta of times) for (const b of shas) for (const tb of times) for (const current of shas) {
    const heads = [at(a, ta), at(b, tb)];
    for (const named of [null, full(current), prefix(current)]) {
      const decision = approveHead({ commentAt: C, heads, current, named });
      if (!decision.approve) continue;
      const context = JSON.stringify({ heads, current, named, decision });
      assert.equal(decision.approve, current, `only the head is approved: ${context}`);
      // The head the comment was written on: the last stamped clearly before it.
      const before = heads.filter((h) => h.at < C - M).sort((x, y) => x.at - y.at).at(-1);
      assert.ok(!heads.some((h) => h.at > C + M && h.sha !== before?.sha), `a push after the margin was not cancelled: ${context}`);
      if (named && named.given === named.sha) continue;
      // Without the full SHA written out, the approved head was announced clearly before the
      // comment, and no other head near it.
      assert.equal(decision.approve, before?.sha, `approved a head not announced clearly before the comment: ${context}`);
      assert.ok(!heads.some((h) => h.at >= C - M && h.sha !== before.sha), `approved with another head within the margin: ${context}`);
    }
  }
});

test('every refusal, exactly', () => {
  const line = '/perf quick rounds=4';
  const base = { author: 'maintainer', line, suite: 'quick' };
  assert.equal(REFUSALS.unproven({ ...base, why: 'none', current: H1 }),
    "@maintainer I cannot tell which head of this pull request you saw when you wrote `/perf quick rounds=4`: no delivery of its opening or of a push before your comment reached me. Nothing was started. Name the commit you reviewed: `/perf quick <sha>` (the head is now `111111111111`).");
  assert.equal(REFUSALS.unproven({ ...base, why: 'same-second', current: H2 }),
    "@maintainer I cannot tell which head of this pull request you saw when you wrote `/perf quick rounds=4`: two different heads were pushed in the same second before your comment. Nothing was started. Name the commit you reviewed: `/perf quick <sha>` (the head is now `222222222222`).");
  assert.equal(REFUSALS.unproven({ ...base, why: 'moved', current: H2 }),
    "@maintainer I cannot tell which head of this pull request you saw when you wrote `/perf quick rounds=4`: its head is now `222222222222`, a push no delivery has told me about yet. Nothing was started. Name the commit you reviewed: `/perf quick <sha>` (the head is now `222222222222`).");
  assert.equal(REFUSALS.unproven({ ...base, why: 'near', near: H2, marginMs: 60_000, current: H2 }),
    "@maintainer I cannot tell which head of this pull request you saw when you wrote `/perf quick rounds=4`: the head `222222222222` was stamped within 60 s of your comment, too close for GitHub's clocks to tell which came first. Nothing was started. Name the commit you reviewed: `/perf quick <sha>` (the head is now `222222222222`).");
  assert.equal(REFUSALS['unknown-commit']({ ...base, given: 'abcdef1', error: '422 No commit found for SHA: abcdef1' }),
    '@maintainer `abcdef1` names no commit of this repository (GitHub: 422 No commit found for SHA: abcdef1): `/perf quick rounds=4` was not started.');
  assert.equal(REFUSALS['not-head']({ ...base, given: H1, sha: H1, current: H2 }),
    `@maintainer \`${H1}\` (\`111111111111\`) is not the head of this pull request, which is now \`222222222222\`: \`/perf quick rounds=4\` was not started. A run measures the head only.`);
  assert.equal(REFUSALS.abbreviated({ ...base, given: '1111111', sha: H1 }),
    '@maintainer `1111111` names the head `111111111111`, but I cannot show it was the head when you wrote `/perf quick rounds=4`: give its full 40-digit SHA. Nothing was started.');
});
