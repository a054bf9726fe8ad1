'use strict';
// A copy of the shipped thresholds/ in a temp folder, with some files replaced or edited, so
// that each config error can be provoked on an otherwise valid set.
const fs = require('node:fs');
const path = require('node:path');
const { SHIPPED_DIR } = require('../../core/src/config/thresholds');
const { scratchDir } = require('./scratch-dir');

function thresholdsWith(edits = {}) {
  const dir = scratchDir('perfgate-thresholds-');
  fs.cpSync(SHIPPED_DIR, dir, { recursive: true });
  for (const [file, edit] of Object.entries(edits)) {
    const target = path.join(dir, file);
    if (edit === null) {
      fs.rmSync(target);
      continue;
    }
    const before = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
    const after = typeof edit === 'function' ? edit(before) : edit;
    if (typeof edit === 'function' && after === before) throw new Error(`edit of ${file} changed nothing`);
    fs.writeFileSync(target, after);
  }
  return dir;
}

// Line number (1-based) of the first line of `file` in `dir` that contains `needle`.
function lineOf(dir, file, needle) {
  const lines = fs.readFileSync(path.join(dir, file), 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`${needle} not in ${file}`);
  return i + 1;
}

module.exports = { thresholdsWith, lineOf };
