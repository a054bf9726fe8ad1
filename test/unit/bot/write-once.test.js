'use strict';
// The one place a write that makes something new is sent again: only after looking for it, only
// when GitHub may have carried it out, and never more than its tries.
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { writeOnce, mayHaveHappened } = require('../../../bot/src/app/write-once');

const answerLost = (status) => Object.assign(new Error(`status ${status}`), { status });
// A write and its look, recording what was called.
function github({ failures = [], madeAnyway = true }) {
  const calls = [];
  let made = null;
  return {
    calls,
    find: async () => {
      calls.push('find');
      return made;
    },
    write: async () => {
      calls.push('write');
      const failure = failures.shift();
      if (failure && !madeAnyway) throw failure;
      made = { id: calls.length };
      if (failure) throw failure;
      return made;
    },
  };
}
const fast = { pauseMs: () => 1 };

test('which failures may hide a write GitHub carried out', () => {
  assert.deepEqual([502, 500, 503].map((s) => mayHaveHappened(answerLost(s))), [true, true, true]);
  assert.equal(mayHaveHappened(Object.assign(new Error('reset'), { name: 'TypeError' })), true);
  assert.deepEqual([400, 403, 404, 409, 422].map((s) => mayHaveHappened(answerLost(s))), [false, false, false, false, false]);
  assert.equal(mayHaveHappened(Object.assign(new Error('stopping'), { name: 'AbortError' })), false);
});

test('an answer lost after the write: found, not written again', async () => {
  const gh = github({ failures: [answerLost(502)] });
  assert.deepEqual(await writeOnce({ ...gh, ...fast }), { id: 1 });
  assert.deepEqual(gh.calls, ['write', 'find']);
});

test('a write GitHub never carried out: looked for, then written again', async () => {
  const gh = github({ failures: [answerLost(502)], madeAnyway: false });
  assert.deepEqual(await writeOnce({ ...gh, ...fast }), { id: 3 });
  assert.deepEqual(gh.calls, ['write', 'find', 'write']);
});

test('a refusal is thrown at once; lookFirst finds what an earlier attempt made; tries are bounded', async () => {
  const refused = github({ failures: [answerLost(422)], madeAnyway: false });
  await assert.rejects(writeOnce({ ...refused, ...fast }), /status 422/);
  assert.deepEqual(refused.calls, ['write']);

  const earlier = github({});
  await earlier.write();
  earlier.calls.length = 0;
  assert.deepEqual(await writeOnce({ ...earlier, lookFirst: true, ...fast }), { id: 1 });
  assert.deepEqual(earlier.calls, ['find']);

  const down = github({ failures: [answerLost(503), answerLost(503), answerLost(503)], madeAnyway: false });
  await assert.rejects(writeOnce({ ...down, tries: 3, ...fast }), /status 503/);
  assert.deepEqual(down.calls, ['write', 'find', 'write', 'find', 'write']);
});
