'use strict';
// The history store's tests on SQLite files (see test/support/store-contract.js).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { storeContract } = require('../../support/store-contract');

let dir = null;
let count = 0;
storeContract({
  name: 'SQLite',
  floatTolerance: 0,
  setup() { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-store-')); },
  teardown() { fs.rmSync(dir, { recursive: true, force: true }); },
  fresh() { count += 1; return path.join(dir, `history-${count}.db`); },
});
