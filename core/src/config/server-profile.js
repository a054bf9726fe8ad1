'use strict';
// The [mysqld] options of a profile (thresholds/profiles/<name>.cnf), in file order. Values stay
// strings ("1G", "OFF") because the harness writes them back into my.cnf verbatim; an option
// written without a value (`disable_log_bin`) is null, and is written back the same way: some
// options take no value at all, and `= ON` would be an error or, for log_bin, a file name.
const { ConfigError } = require('../errors');

// Returns {options, lines}: lines maps each option to its line, for errors found later.
function parseCnf(text, file) {
  const options = {};
  const lines = {};
  let section = null;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) return;
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) {
      section = header[1].trim();
      return;
    }
    if (section === null) {
      throw new ConfigError(`${file}:${i + 1}: ${JSON.stringify(line)} is outside a section; expected it under [mysqld]`);
    }
    if (section !== 'mysqld') return;
    const m = /^([A-Za-z0-9_.-]+)\s*(?:=\s*(.*))?$/.exec(line);
    if (!m) throw new ConfigError(`${file}:${i + 1}: ${JSON.stringify(line)} is not an option; expected name = value`);
    options[m[1]] = m[2] === undefined ? null : m[2].replace(/\s+#.*$/, '').trim();
    lines[m[1]] = i + 1;
  });
  return { options, lines };
}

module.exports = { parseCnf };
