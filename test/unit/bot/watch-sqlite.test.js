'use strict';
// Watching main on SQLite files (see test/support/watch-contract.js).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { watchContract } = require('../../support/watch-contract');

let dir = null;
let count = 0;
watchContract({
  name: 'SQLite',
  setup() { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-watch-')); },
  teardown() { if (dir) fs.rmSync(dir, { recursive: true, force: true }); },
  fresh() { count += 1; return path.join(dir, `history-${count}.db`); },
});
