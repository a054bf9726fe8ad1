'use strict';
// The request life cycle is one table: who may move a request from which status to which.
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { REQUEST_LIFECYCLE, REQUEST_STATUSES, ACTIVE_STATUSES, requestMovesTo } = require('../../../bot/src/store');

test('the moves of the table, by whom', () => {
  const moves = [];
  for (const [from, to] of Object.entries(REQUEST_LIFECYCLE)) {
    for (const [status, movers] of Object.entries(to)) moves.push(`${from} → ${status}: ${movers.join(', ')}`);
  }
  assert.deepEqual(moves, [
    'received → refused: command',
    'received → invalid: command',
    'received → answered: command',
    'received → pinned: command',
    'received → cancelled: command, push, cancel',
    'received → failed: command, sweep',
    'pinned → dispatching: command',
    'pinned → cancelled: push, cancel',
    'pinned → failed: command, sweep',
    'dispatching → dispatched: command, sweep',
    'dispatching → failed: command, sweep',
    'dispatching → cancelled: push, cancel',
    'dispatched → completed: run',
    'dispatched → failed: run, sweep',
    'dispatched → cancelled: push, cancel',
    'cancelled → refused: command',
    'cancelled → invalid: command',
    'cancelled → answered: command',
  ]);
  assert.deepEqual(ACTIVE_STATUSES, ['received', 'pinned', 'dispatching', 'dispatched']);
  // Every status is reached from received, and names only statuses of the table.
  const reached = new Set(['received']);
  for (let grew = true; grew;) {
    grew = false;
    for (const from of [...reached]) for (const to of Object.keys(REQUEST_LIFECYCLE[from])) if (!reached.has(to)) grew = reached.add(to);
  }
  assert.deepEqual([...reached].sort(), [...REQUEST_STATUSES].sort());
});

test('where a mover may move a request from; a move the table lacks is an error naming it', () => {
  assert.deepEqual(requestMovesTo('cancelled', 'push'), ['received', 'pinned', 'dispatching', 'dispatched']);
  assert.deepEqual(requestMovesTo('refused', 'command'), ['received', 'cancelled']);
  assert.deepEqual(requestMovesTo('completed', 'run'), ['dispatched']);
  // The sweep finishes or reports what a job gave up on: never a request that was answered.
  assert.deepEqual(requestMovesTo('failed', 'sweep'), ['received', 'pinned', 'dispatching', 'dispatched']);
  assert.throws(() => requestMovesTo('dispatched', 'run'), /^StoreError: transition: no request moves to 'dispatched' by run; see LIFECYCLE in store\/requests.js$/);
  assert.throws(() => requestMovesTo('merged', 'command'), /unknown status "merged"; expected one of received, pinned/);
  assert.throws(() => requestMovesTo('failed', 'maintainer'), /unknown mover "maintainer"; expected one of command, push, cancel, run, sweep/);
});
