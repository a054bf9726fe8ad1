#!/usr/bin/env node
'use strict';
// Thin entry point: all work happens in src/main.js so that it can be tested without a process.
const { main } = require('../src/main');

main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, signals: true })
  .then((code) => { process.exitCode = code; })
  .catch((err) => {
    process.stderr.write(`perfgate: internal error: ${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 4;
  });
