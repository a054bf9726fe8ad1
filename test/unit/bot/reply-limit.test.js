'use strict';
// The limit on replies to someone who may not run commands (bot/src/app/reply-limit.js): one
// per pull request per hour, counted from the last reply they got; comments still waiting for
// their job count, so that comments taken side by side do not each get one.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { outsiderReply, undecided, OUTSIDER_REPLY_WINDOW_MS } = require('../../../bot/src/app/reply-limit');

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 24, 12);
let nextId = 1;
// A request as the store gives it; `at` minutes after T0.
const request = ({ author = 'outsider', at = 0, status = 'received', command = 'quick', replyId = null, suite = null } = {}) => {
  const id = nextId++;
  return { id, commentId: 1000 + id, author, command, status, replyId, suite, commentCreatedAt: T0 + at * MINUTE, createdAt: T0 + at * MINUTE + 50 };
};
const decide = (r, others) => outsiderReply(r, [...others, r]).answer;

test('the window is an hour', () => {
  assert.equal(OUTSIDER_REPLY_WINDOW_MS, 60 * MINUTE);
});

test('the first comment is answered; within the hour of a reply the next ones are not, with the reason kept', () => {
  const refused = request({ status: 'refused', replyId: 5 });
  const next = request({ at: 10 });
  assert.equal(decide(request(), []), true);
  assert.deepEqual(outsiderReply(next, [refused, next]), {
    answer: false,
    because: `not answered: @outsider may not run commands, and their comment ${refused.commentId}, less than 60 minutes earlier, takes the one reply that allows`,
  });
  assert.equal(decide(request({ at: 59 }), [refused]), false);
  assert.equal(decide(request({ at: 60 }), [refused]), false, 'exactly an hour later is still within it');
  assert.equal(decide(request({ at: 61 }), [refused]), true);
});

test('what counts: a refusal or the help text they got, or a comment still waiting for its job', () => {
  const later = (earlier) => decide(request({ at: 5 }), [earlier]);
  assert.equal(later(request({ status: 'answered', command: 'help', replyId: 9 })), false, 'the help text');
  assert.equal(later(request({ status: 'received' })), false, 'waiting: it may get the reply');
  assert.equal(later(request({ status: 'cancelled' })), false, 'cancelled by a push before its job ran: its job still refuses');
  // Not answered themselves, or answers to someone who was allowed to run the command.
  assert.equal(later(request({ status: 'refused', replyId: null })), true, 'a refusal that was not sent');
  assert.equal(later(request({ status: 'answered', command: 'help', replyId: null })), true, 'help that was not sent');
  assert.equal(later(request({ status: 'dispatched', suite: 'quick', replyId: 3 })), true);
  assert.equal(later(request({ status: 'cancelled', suite: 'quick' })), true, 'cancelled after it was pinned');
  assert.equal(later(request({ status: 'invalid', replyId: 3 })), true, 'the parser answers only those allowed');
  assert.equal(later(request({ status: 'answered', command: 'cancel', replyId: 3 })), true);
});

test('only earlier comments of the same author count, in any letter case', () => {
  const mine = request({ status: 'refused', replyId: 1, author: 'Outsider' });
  assert.equal(decide(request({ at: 1, author: 'OUTSIDER' }), [mine]), false);
  assert.equal(decide(request({ at: 1, author: 'someone-else' }), [mine]), true);
  // Recorded after this one (a later id): it waits for this one, not the other way round.
  const first = request({ at: 1 });
  const second = request({ at: 2 });
  assert.equal(outsiderReply(first, [first, second]).answer, true);
  assert.equal(outsiderReply(second, [first, second]).answer, false);
});

test('a window moves with the replies sent: comments held back do not start one', () => {
  const replied = request({ status: 'refused', replyId: 1 });
  const held = request({ at: 50, status: 'refused' });
  assert.equal(decide(request({ at: 70 }), [replied, held]), true, '70 minutes after the reply, 20 after a comment that got none');
});

test('undecided: received, or cancelled before its job pinned or answered it', () => {
  assert.deepEqual(
    [request(), request({ status: 'cancelled' }), request({ status: 'cancelled', suite: 'quick' }), request({ status: 'cancelled', replyId: 4 }), request({ status: 'pinned', suite: 'quick' }), request({ status: 'refused' })].map(undecided),
    [true, true, false, false, false, false],
  );
});
