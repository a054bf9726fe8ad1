'use strict';
// A copy of the shipped thresholds/ in a temp folder, with some files replaced or edited, so
// that each config error can be provoked on an otherwise valid set.
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');
const { SHIPPED_DIR, loadThresholds } = require('../../core/src/config/thresholds');
const { ConfigError } = require('../../core/src/errors');
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
    fs.mkdirSync(path.dirname(target), { recursive: true });
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

// The one-line ConfigError (exit 2) a bad thresholds folder is refused with.
function configErrorOf(dir) {
  try {
    loadThresholds(dir);
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${err.stack}`);
    assert.equal(err.exitCode, 2);
    assert.ok(!err.message.includes('\n'), 'error is one line');
    return err.message;
  }
  return assert.fail('loadThresholds accepted a bad thresholds folder');
}

// Each case {name, edits, file, at | line(dir), expect(file, line)} as a subtest of `t`: the
// edited copy is refused with exactly the expected one-line error.
async function expectConfigErrors(t, cases) {
  for (const c of cases) {
    await t.test(c.name, () => {
      const dir = thresholdsWith(c.edits);
      const file = path.join(dir, c.file);
      const line = c.line ? c.line(dir) : lineOf(dir, c.file, c.at);
      assert.equal(configErrorOf(dir), c.expect(file, line));
    });
  }
}

module.exports = { thresholdsWith, lineOf, configErrorOf, expectConfigErrors };
