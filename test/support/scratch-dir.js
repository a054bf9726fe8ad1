'use strict';
// A temporary folder for one test process, removed when that process exits: tests leave
// nothing behind on the machine they run on (benchmark runners run them as root).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const made = [];
process.on('exit', () => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder under the system's temp folder, named `<prefix>XXXXXX`. */
function scratchDir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

module.exports = { scratchDir };
