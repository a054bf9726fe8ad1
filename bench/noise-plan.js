#!/usr/bin/env node
'use strict';
// Writes the plan of an A/A noise run: one server on both sides, the quick suite at its default
// scale and timing, with more rounds.  usage: node bench/noise-plan.js <basedir> <rounds> <plan.json>
const fs = require('node:fs');
const path = require('node:path');
const { loadThresholds } = require('../gate/src/config');
const { resolvePlan } = require('../gate/src/plan');

const [basedir, rounds, out] = process.argv.slice(2);
if (!basedir || !rounds || !out) {
  process.stderr.write('usage: node bench/noise-plan.js <basedir> <rounds> <plan.json>\n');
  process.exit(2);
}
const side = { basedir: path.resolve(basedir), label: 'A' };
const plan = resolvePlan(loadThresholds(), 'quick', { rounds: Number(rounds) }, { base: side, head: { ...side, label: 'A\'' } },
  new Date().toISOString());
fs.writeFileSync(out, `${JSON.stringify(plan, null, 2)}\n`);
