'use strict';
// Decisions live in core's domain modules and renderers show them: a domain module never
// imports a renderer (render/format.js, which only formats numbers, is the one exception).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const SRC = path.join(__dirname, '../../../core/src');
const ALLOWED = new Set(['./render/format']);

test('no domain module of core imports a renderer', () => {
  const offenders = [];
  for (const entry of fs.readdirSync(SRC)) {
    if (!entry.endsWith('.js') || entry === 'index.js') continue;
    const text = fs.readFileSync(path.join(SRC, entry), 'utf8');
    for (const [, spec] of text.matchAll(/require\('(\.\/render[^']*)'\)/g)) if (!ALLOWED.has(spec)) offenders.push(`${entry} requires ${spec}`);
  }
  assert.deepEqual(offenders, []);
});

test('the signal and sign-off decisions come from domain modules, under the entry point\'s names', () => {
  const core = require('../../../core');
  assert.equal(core.signalVerdict, require('../../../core/src/signals').signalVerdict);
  assert.deepEqual(core.REGRESSION_SIGNALS, ['rqps', 'instructions_per_query']);
  assert.equal(core.signoffDecision, require('../../../core/src/signoff').signoffDecision);
  assert.equal(core.SIGNOFF_CONTEXT, 'perfgate/signoff');
});
