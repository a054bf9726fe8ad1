'use strict';
// Every message the bot writes in a pull request, pinned word for word. Parser errors are the
// parser's own (commands.test.js); here they are only wrapped.
const test = require('node:test');
const assert = require('node:assert/strict');
const m = require('../../../bot/src/app/messages');
const { helpText } = require('../../../bot/src');

const request = {
  commentId: 1000000001, author: 'maintainer', line: '/perf quick rounds=4', command: 'quick', suite: 'quick',
  baseSha: 'b'.repeat(40), headSha: 'a'.repeat(40), detail: m.CANCEL_REASONS.push({ headSha: 'c'.repeat(40) }),
};

test('replies to commands', () => {
  const R = m.REPLIES;
  assert.equal(R.refused({ author: 'reader', line: '/perf full', repo: 'perfgate-test/fork', teams: [] }),
    'Sorry @reader, `/perf full` needs write access to perfgate-test/fork. Nothing was started.');
  assert.equal(R.refused({ author: 'reader', line: '/perf full', repo: 'perfgate-test/fork', teams: ['perfgate-test/perf-team', 'perfgate-test/release'] }),
    'Sorry @reader, `/perf full` needs write access to perfgate-test/fork or membership of `perfgate-test/perf-team`, `perfgate-test/release`. Nothing was started.');
  assert.equal(R.invalid({ author: 'maintainer', error: "/perf quick: bad value '0' in 'threads=0': expected …" }),
    "@maintainer /perf quick: bad value '0' in 'threads=0': expected …\n\n`/perf help` lists the commands and their arguments.");
  assert.equal(R.help({ author: 'reader' }), `@reader here is what I understand:\n\n${helpText().trimEnd()}`);
  assert.equal(R.closed({ author: 'maintainer', prNumber: 7, line: '/perf quick' }), '@maintainer pull request #7 is closed: `/perf quick` was not started.');
  assert.equal(R.notServed({ author: 'maintainer', name: 'compare' }),
    '@maintainer `/perf compare` is not served by this bot yet; `/perf quick`, `/perf full`, `/perf ahi`, `/perf ddl`, `/perf contention`, `/perf tpcc`, `/perf rerun`, `/perf cancel`, `/perf waive`, `/perf bisect`, `/perf signoff` and `/perf help` are.');
  assert.equal(R.cancelled({ author: 'maintainer', count: 0 }), '@maintainer nothing to cancel: no measurement of this pull request is queued or running.');
  assert.equal(R.cancelled({ author: 'maintainer', count: 1 }), '@maintainer cancelled the queued or running measurement of this pull request.');
  assert.equal(R.cancelled({ author: 'maintainer', count: 2 }), '@maintainer cancelled 2 queued or running measurements of this pull request.');
  assert.equal(R.nothingToRerun({ author: 'maintainer' }), '@maintainer nothing to run again: no `/perf quick`, `/perf full`, `/perf ahi`, `/perf ddl`, `/perf contention` or `/perf tpcc` has been run on this pull request yet.');
  assert.equal(R.waived({ author: 'maintainer', microbenchmark: 'scan_range=100', reason: 'known, MDEV-1' }), '@maintainer waiver recorded for `scan_range=100` in this pull request: known, MDEV-1');
  assert.equal(R.dispatchFailed({ author: 'maintainer', line: '/perf quick', workflow: '.github/workflows/perf-command.yml', error: '404 Not Found' }),
    '@maintainer `/perf quick` could not be started: GitHub refused to run `.github/workflows/perf-command.yml` (404 Not Found). A maintainer of this repository needs to look at the workflow; nothing was started.');
  assert.equal(m.reply(42, 'text'), '<!-- perfgate:reply comment=42 -->\ntext\n');
});

test('the sticky comment before a verdict, and the footer under one', () => {
  assert.equal(m.sticky('queued', { suite: 'quick', request, runUrl: 'https://github.com/perfgate-test/fork/actions/runs/9' }), [
    '<!-- perfgate:comment suite=quick -->',
    '### ⏳ perfgate quick: queued',
    '',
    '`/perf quick rounds=4` from @maintainer measures head `aaaaaaaaaaaa` against base `bbbbbbbbbbbb`: [workflow run](https://github.com/perfgate-test/fork/actions/runs/9) queued.',
    '',
  ].join('\n'));
  assert.equal(m.sticky('cancelled', { suite: 'quick', request }), [
    '<!-- perfgate:comment suite=quick -->',
    '### ⏹️ perfgate quick: cancelled',
    '',
    '`/perf quick rounds=4` from @maintainer (head `aaaaaaaaaaaa`) was cancelled: new commits were pushed (head now `cccccccccccc`); comment again to measure them.',
    '',
  ].join('\n'));
  assert.equal(m.sticky('failed', { suite: 'full', request: { ...request, line: '/perf full' }, runUrl: 'https://x/runs/9', why: 'its artifact was rejected: archive path "../x" leaves the extraction folder' }), [
    '<!-- perfgate:comment suite=full -->',
    '### 💥 perfgate full: error',
    '',
    'The [workflow run](https://x/runs/9) of `/perf full` from @maintainer (head `aaaaaaaaaaaa`, base `bbbbbbbbbbbb`) left nothing perfgate could use: its artifact was rejected: archive path "../x" leaves the extraction folder. Nothing was stored; `/perf rerun` measures it again.',
    '',
  ].join('\n'));
  assert.equal(m.verdictFooter({ request, runUrl: 'https://x/runs/9' }), '\n_Measured for `/perf quick rounds=4` from @maintainer; [workflow run](https://x/runs/9)._\n');
  assert.equal(m.CANCEL_REASONS.closed(), 'the pull request was closed');
  assert.equal(m.CANCEL_REASONS.command({ author: 'admin' }), '@admin cancelled it with `/perf cancel`');
});

test('the reply that follows a measuring command when the workflow reports', () => {
  const S = m.STATUS;
  const run = 'https://x/runs/9';
  assert.equal(S.queued({ request, runUrl: run, dropped: [] }), '⏳ `/perf quick rounds=4` from @maintainer: head `aaaaaaaaaaaa` against base `bbbbbbbbbbbb`, [workflow run](https://x/runs/9) queued. Its check run and sticky comment will have the verdict.');
  assert.equal(S.queued({ request, runUrl: run, dropped: ['metric'] }), "⏳ `/perf quick rounds=4` from @maintainer: head `aaaaaaaaaaaa` against base `bbbbbbbbbbbb`, [workflow run](https://x/runs/9) queued (`metric=` not passed on: the workflow's options take rounds, threads and tests). Its check run and sticky comment will have the verdict.");
  assert.equal(S.cancelled({ request }), '⏹️ `/perf quick rounds=4` from @maintainer (head `aaaaaaaaaaaa`) was cancelled: new commits were pushed (head now `cccccccccccc`); comment again to measure them.');
  assert.equal(S.stored({ request, runUrl: run, folders: 1, verdict: { verdict: 'pass', headline: 'No microbenchmark got slower.' } }),
    '📦 `/perf quick rounds=4` from @maintainer: the [workflow run](https://x/runs/9) of head `aaaaaaaaaaaa` against base `bbbbbbbbbbbb` is done and its run folder is stored; pass: No microbenchmark got slower.');
  assert.equal(S.stored({ request, runUrl: run, folders: 4, verdict: null }),
    '📦 `/perf quick rounds=4` from @maintainer: the [workflow run](https://x/runs/9) of head `aaaaaaaaaaaa` against base `bbbbbbbbbbbb` is done and its 4 run folders (shards) are stored.');
  assert.equal(S.failed({ request, runUrl: run, why: 'the run ended failure' }),
    '💥 `/perf quick rounds=4` from @maintainer: the [workflow run](https://x/runs/9) (head `aaaaaaaaaaaa`, base `bbbbbbbbbbbb`) left nothing perfgate could use: the run ended failure. Nothing was stored; `/perf rerun` measures it again.');
});

test('check run titles and summaries', () => {
  assert.equal(m.CHECK.name('ahi'), 'perfgate ahi');
  assert.deepEqual(m.CHECK.queued({ suite: 'quick', request }), { title: 'perfgate quick: queued', summary: '`/perf quick rounds=4` from @maintainer: head `aaaaaaaaaaaa` against base `bbbbbbbbbbbb`.' });
  assert.deepEqual(m.CHECK.cancelled({ suite: 'quick', request }), { title: 'perfgate quick: cancelled', summary: `${request.detail}.` });
  assert.deepEqual(m.CHECK.failed({ suite: 'quick', why: 'the run ended failure' }), { title: 'perfgate quick: error', summary: 'No verdict: the run ended failure.' });
});

test("what came from a run's artifact is shown as code, on one line, at most 300 characters", () => {
  assert.equal(m.untrusted('archive path "@everyone [x](https://evil)" leaves\nthe folder'), '`archive path "@everyone [x](https://evil)" leaves the folder`');
  assert.equal(m.untrusted('x'.repeat(400)), `\`${'x'.repeat(299)}…\``);
  // A fence longer than the backticks inside: they are shown, and cannot end the span.
  assert.equal(m.untrusted('a `b` c'), '``a `b` c``');
});

test('a backtick in a quoted command cannot end the code span', () => {
  assert.equal(m.REPLIES.closed({ author: 'm', prNumber: 1, line: '/perf quick `x`' }), '@m pull request #1 is closed: `` /perf quick `x` `` was not started.');
});
