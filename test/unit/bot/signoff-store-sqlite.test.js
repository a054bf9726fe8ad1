'use strict';
// The sign-off tables on a SQLite file (see test/support/signoff-store-contract.js).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { signoffStoreContract } = require('../../support/signoff-store-contract');

let dir = null;
signoffStoreContract({
  name: 'SQLite',
  setup() { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-signoff-store-')); },
  teardown() { fs.rmSync(dir, { recursive: true, force: true }); },
  fresh() { return path.join(dir, 'history.db'); },
});
