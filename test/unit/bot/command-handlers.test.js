'use strict';
// One handler per /perf command: the table names every command of the grammar, and nothing else.
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { COMMANDS } = require('../../../bot/src/commands');
const { commandHandlers } = require('../../../bot/src/app/command-handlers');

test('every command of the grammar has its handler, a function of (ctx, {octokit, request, command, job, lookFirst})', () => {
  const handlers = commandHandlers({ bisect: {} });
  assert.deepEqual(Object.keys(handlers).sort(), COMMANDS.map((c) => c.name).sort());
  for (const [name, handler] of Object.entries(handlers)) assert.equal(typeof handler, 'function', name);
  // The three suites measure the same way.
  assert.equal(handlers.quick, handlers.full);
  assert.equal(handlers.quick, handlers.ahi);
});
