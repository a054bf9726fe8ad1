'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { stickyComments, commentMarker } = require('@perfgate/core');

const marker = commentMarker('quick');
const comment = (id, login, body) => ({ id, user: { login }, body });

test('the sticky comment is the oldest comment of the author that starts with the marker', () => {
  const comments = [
    comment(30, 'perfgate[bot]', `${marker}\nnewer`),
    comment(10, 'someone', `${marker}\nquoted by a person`),
    comment(20, 'perfgate[bot]', `${marker}\nolder`),
    comment(25, 'perfgate[bot]', `${commentMarker('full')}\nanother suite`),
    comment(5, 'perfgate[bot]', `text first\n${marker}`),
    comment(6, 'github-actions[bot]', `${marker}\nthe action's`),
  ];
  const { kept, duplicates } = stickyComments(comments, { marker, author: 'perfgate[bot]' });
  assert.equal(kept.id, 20);
  assert.deepEqual(duplicates.map((c) => c.id), [30]);
  assert.equal(stickyComments(comments, { marker, author: 'github-actions[bot]' }).kept.id, 6);
});

test('no sticky comment yet: kept is null', () => {
  assert.deepEqual(stickyComments([comment(1, 'perfgate[bot]', 'hello'), { id: 2, user: null, body: marker }], { marker, author: 'perfgate[bot]' }), { kept: null, duplicates: [] });
});

test('a missing marker or author is a programming error', () => {
  assert.throws(() => stickyComments([], { marker: '', author: 'x' }), /marker must be a non-empty string/);
  assert.throws(() => stickyComments([], { marker, author: undefined }), /author must be a login/);
});
