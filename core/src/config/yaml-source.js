'use strict';
// One YAML file of thresholds/ as parsed text plus node positions, so that every check made
// on its data can report `file:line: key.path: problem; expected form`.
const { parseDocument, LineCounter, isMap, isSeq, isScalar } = require('yaml');
const { ConfigError } = require('../errors');

function keyOf(pair) {
  return isScalar(pair.key) ? pair.key.value : pair.key;
}

// `limits.default.warn`, `benchmarks[3]`: the form users see in error messages.
function formatKeyPath(path) {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${seg}` : String(seg);
  }
  return out || '(top level)';
}

// How a value is quoted in messages: strings in quotes, everything else as JSON.
function show(value) {
  if (typeof value === 'string') return `'${value}'`;
  if (value === undefined) return 'nothing';
  return JSON.stringify(value);
}

class YamlSource {
  constructor(displayName, text) {
    this.file = displayName;
    this.lines = new LineCounter();
    this.doc = parseDocument(text, { lineCounter: this.lines, prettyErrors: false });
    const [first] = [...this.doc.errors, ...this.doc.warnings.filter((w) => w.code !== 'TAG_RESOLVE_FAILED')];
    if (first) {
      // An unclosed bracket is detected at the end of the text: point at the last written line.
      const lastLine = text.replace(/\s+$/, '').split('\n').length;
      const line = Math.min(this.lines.linePos(first.pos[0]).line, lastLine);
      const message = first.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
      throw new ConfigError(`${this.file}:${line}: malformed YAML: ${message}`);
    }
    try {
      this.data = this.doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      // Aliases that expand past the count (a "billion laughs" file) are refused, not expanded.
      throw new ConfigError(`${this.file}: malformed YAML: ${String(err.message).split('\n')[0]}`);
    }
  }

  // Line (1-based) of the key at `path`, or of the closest enclosing node that exists.
  lineOf(path) {
    let node = this.doc.contents;
    let at = node;
    for (const seg of path) {
      if (isMap(node)) {
        const pair = node.items.find((p) => keyOf(p) === seg);
        if (!pair) break;
        at = pair.key || pair.value;
        node = pair.value;
      } else if (isSeq(node) && typeof seg === 'number' && node.items[seg]) {
        node = node.items[seg];
        at = node;
      } else {
        break;
      }
    }
    const offset = at && at.range ? at.range[0] : 0;
    return this.lines.linePos(offset).line;
  }

  // Throws the one-line error every config problem becomes.
  fail(path, problem) {
    throw new ConfigError(`${this.file}:${this.lineOf(path)}: ${formatKeyPath(path)}: ${problem}`);
  }
}

module.exports = { YamlSource, formatKeyPath, show };
