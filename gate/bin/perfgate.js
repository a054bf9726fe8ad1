#!/usr/bin/env node
'use strict';
// Thin entry point: all work happens in src/cli.js so that it can be tested without a process.
const { main } = require('../src/cli');

main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env })
  .then((code) => { process.exitCode = code; })
  .catch((err) => {
    process.stderr.write(`perfgate: internal error: ${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 4;
  });
