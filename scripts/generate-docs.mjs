#!/usr/bin/env node
// The parts of the docs that repeat a file of the code: each is written between two markers
// from that file, so it cannot drift. `node scripts/generate-docs.mjs` rewrites them;
// `--check` writes nothing and exits 1 naming every stale block (test/unit/docs runs it).
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const YAML = require('yaml');
const { evidenceTables } = require('../bench/evidence.js');

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const COMMAND = 'node scripts/generate-docs.mjs';

const cell = (s) => String(s ?? '').replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|').replace(/</g, '&lt;');
const table = (header, rows) => [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');

function actionInputs(read) {
  const action = YAML.parse(read('action/action.yml'));
  return table(['input', 'default', 'what it is'], Object.entries(action.inputs).map(([name, i]) => [
    `\`${name}\``,
    i.required ? '(required)' : i.default === '' ? '' : `\`${i.default}\``,
    i.description,
  ]));
}

function actionOutputs(read) {
  const action = YAML.parse(read('action/action.yml'));
  return table(['output', 'what it is'], Object.entries(action.outputs).map(([name, o]) => [`\`${name}\``, o.description]));
}

// A workflow's purpose is its file's first comment up to ": copy this file".
function exampleWorkflows(read, list) {
  const files = list('.github/examples').filter((f) => f.endsWith('.yml')).sort();
  return table(['file', 'started by', 'jobs', 'what'], files.map((f) => {
    const text = read(`.github/examples/${f}`);
    const doc = YAML.parse(text);
    const on = Object.entries(doc.on || {}).map(([event, spec]) => (spec && spec.types ? `${event} (${spec.types.join(', ')})` : spec && spec.tags ? `${event} of tags ${spec.tags.join(', ')}` : event));
    const what = (text.match(/^# (.*?): copy this file/m) || [null, ''])[1];
    return [`[\`${f}\`](../.github/examples/${f})`, on.join(', '), Object.keys(doc.jobs).map((j) => `\`${j}\``).join(', '), what];
  }));
}

const fence = (lang, text) => `\`\`\`${lang}\n${text.replace(/\n+$/, '')}\n\`\`\``;

// The step of the pull-request workflow's measure job that runs perfgate, as the fork copies
// it, without its comments.
function measureStep(read) {
  const lines = read('.github/examples/perf-pr.yml').split('\n');
  const job = lines.indexOf('  measure:');
  const start = lines.findIndex((l, k) => k > job && l.startsWith('      - uses: perfgate/'));
  if (job < 0 || start < 0) throw new Error('.github/examples/perf-pr.yml: no `measure:` job with a step `- uses: perfgate/…`');
  let end = start + 1;
  while (end < lines.length && (lines[end].startsWith('        ') || !lines[end].trim())) end += 1;
  const step = lines.slice(start, end).filter((l) => l.trim() && !/^\s*#/.test(l)).map((l) => l.slice(6).replace(/\s+#.*$/, ''));
  return fence('yaml', step.join('\n'));
}

/** Every generated block: the file it lives in, its name and its text from the code's files. */
export function blocks(root = ROOT) {
  const read = (p) => readFileSync(path.join(root, p), 'utf8');
  const list = (p) => readdirSync(path.join(root, p));
  return [
    { file: 'README.md', name: 'measure-step', text: () => measureStep(read) },
    { file: 'docs/action.md', name: 'example-workflows', text: () => exampleWorkflows(read, list) },
    { file: 'docs/action.md', name: 'action-inputs', text: () => actionInputs(read) },
    { file: 'docs/action.md', name: 'action-outputs', text: () => actionOutputs(read) },
    { file: 'docs/usage.md', name: 'quick-suite', text: () => fence('yaml', read('thresholds/suites/quick.yml')) },
    { file: 'docs/measurements.md', name: 'evidence', text: () => evidenceTables(path.join(root, 'bench/results')) },
  ];
}

const begin = (name) => `<!-- generated: ${name}; edit its source, then run ${COMMAND} -->`;
const end = (name) => `<!-- end of generated: ${name} -->`;

/**
 * `text` with the block `name` replaced by `body`, indented as its first marker is (a block in
 * a list item stays in it); throws naming the file when a marker is missing.
 */
export function replaceBlock(text, file, name, body) {
  const from = text.indexOf(begin(name));
  const to = text.indexOf(end(name));
  if (from < 0 || to < from) throw new Error(`${file}: no block '${name}'; expected the line ${begin(name)} and later ${end(name)}`);
  const indent = text.slice(text.lastIndexOf('\n', from) + 1, from);
  const indented = body.split('\n').map((l) => (l ? `${indent}${l}` : l)).join('\n');
  return `${text.slice(0, from)}${begin(name)}\n${indented}\n${indent}${text.slice(to)}`;
}

/** Each file holding generated blocks, with its text as it is and as the code says it should be. */
export function generated(root = ROOT) {
  const files = new Map();
  for (const b of blocks(root)) {
    if (!files.has(b.file)) {
      const text = readFileSync(path.join(root, b.file), 'utf8');
      files.set(b.file, { file: b.file, current: text, fresh: text, stale: [] });
    }
    const f = files.get(b.file);
    const next = replaceBlock(f.fresh, b.file, b.name, b.text());
    if (next !== f.fresh) f.stale.push(b.name);
    f.fresh = next;
  }
  return [...files.values()];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const f of generated()) {
    if (f.fresh === f.current) continue;
    stale += 1;
    if (check) console.error(`${f.file}: stale: ${f.stale.join(', ')}; run ${COMMAND}`);
    else writeFileSync(path.join(ROOT, f.file), f.fresh);
  }
  process.exitCode = check && stale ? 1 : 0;
}
