#!/usr/bin/env node
'use strict';
// Writes the plan that bench/instructions.py measures: the quick suite at its default scale,
// base and head as given (the same directory twice for A/A).
// usage: node bench/instructions-plan.js <base basedir> <head basedir> <plan.json>
const fs = require('node:fs');
const path = require('node:path');
const { loadThresholds } = require('../gate/src/config');
const { resolvePlan } = require('../gate/src/plan');

const [base, head, out] = process.argv.slice(2);
if (!base || !head || !out) {
  process.stderr.write('usage: node bench/instructions-plan.js <base basedir> <head basedir> <plan.json>\n');
  process.exit(2);
}
const side = (dir, label) => ({ basedir: path.resolve(dir), label });
const sides = base === head
  ? { base: side(base, 'A'), head: side(head, 'A\'') }
  : { base: side(base, path.basename(path.dirname(path.resolve(base)))),
      head: side(head, path.basename(path.dirname(path.resolve(head)))) };
const plan = resolvePlan(loadThresholds(), 'quick', {}, sides, new Date().toISOString());
fs.writeFileSync(out, `${JSON.stringify(plan, null, 2)}\n`);
