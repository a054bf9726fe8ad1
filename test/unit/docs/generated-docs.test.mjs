// The docs' generated blocks (scripts/generate-docs.mjs) are what their source files say now,
// as actions/checkout's CI fails when dist/ is not what its source builds to.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createRequire } from 'node:module';
import { generated, replaceBlock, ROOT } from '../../../scripts/generate-docs.mjs';

const require = createRequire(import.meta.url);
const { variantSections, evidenceTables } = require('../../../bench/evidence.js');

const SOURCES = ['README.md', 'docs', 'action/action.yml', '.github/examples', 'thresholds/suites/quick.yml', 'bench/results'];

function copyOfSources(t) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'perfgate-docs-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  for (const p of SOURCES) cpSync(path.join(ROOT, p), path.join(root, p), { recursive: true });
  return root;
}

test('every generated block of the docs is what its source says now (run node scripts/generate-docs.mjs)', () => {
  const stale = generated().filter((f) => f.fresh !== f.current).map((f) => `${f.file}: ${f.stale.join(', ')}`);
  assert.deepEqual(stale, []);
});

test('a changed source makes its block stale, and only that block', (t) => {
  const root = copyOfSources(t);
  const action = path.join(root, 'action/action.yml');
  writeFileSync(action, readFileSync(action, 'utf8').replace('Suite to run, a file', 'The suite to run, a file'));
  const quick = path.join(root, 'thresholds/suites/quick.yml');
  writeFileSync(quick, `${readFileSync(quick, 'utf8')}# one more line\n`);
  const stale = generated(root).filter((f) => f.fresh !== f.current).map((f) => [f.file, f.stale]);
  assert.deepEqual(stale, [['docs/action.md', ['action-inputs']], ['docs/usage.md', ['quick-suite']]]);
  const usage = generated(root).find((f) => f.file === 'docs/usage.md').fresh;
  assert.ok(usage.includes('# one more line\n```\n<!-- end of generated: quick-suite -->'));
});

test('the inputs table holds every input of action.yml with its default, escaped for a table cell', () => {
  const action = readFileSync(path.join(ROOT, 'docs/action.md'), 'utf8');
  assert.match(action, /^\| `job` \| \(required\) \| Which part of a perfgate workflow this step is\. `gate`: .*`bisect`: .*`signoff`: /m);
  assert.match(action, /^\| `work-dir` \| `\$\{\{ runner\.temp \}\}\/perfgate` \| /m);
  assert.match(action, /^\| `comment-author` \| `github-actions\[bot\]` \| .*&lt;app-slug>\[bot\]/m);
});

test('a block in a list item is indented as its marker, so that it stays in the item', () => {
  const text = '1. step:\n\n   <!-- generated: x; edit its source, then run node scripts/generate-docs.mjs -->\n   <!-- end of generated: x -->\n2. next\n';
  assert.equal(replaceBlock(text, 'README.md', 'x', '```\na\n\nb\n```'),
    '1. step:\n\n   <!-- generated: x; edit its source, then run node scripts/generate-docs.mjs -->\n   ```\n   a\n\n   b\n   ```\n   <!-- end of generated: x -->\n2. next\n');
});

test('a missing marker is an error naming the file and the block', () => {
  assert.throws(() => replaceBlock('# no markers\n', 'docs/x.md', 'action-inputs', 'body'), /^Error: docs\/x\.md: no block 'action-inputs'; expected the line <!-- generated: action-inputs;/);
});

test('evidence: counts fold to the outcomes a reader meets; an unknown word names the file and line', () => {
  const text = [
    'regression variants, 2026-11-29, 5 runs each (x); verdict counts as fail/warn/inconclusive (at least warn)/inconclusive/pass (open)/pass',
    '| variant | row | touched | instr/o (median) | all threads (median) | rQPS (median) | shipped limits |',
    '|---|---|---|--:|--:|--:|--:|',
    '| v | point-query | yes | 1.000 | 1.000 | 0.950 | 1/1/1/1/0/1 |',
    'A/A (shipped limits): 4 row verdicts: 0/0/0/0/3/1',
  ].join('\n');
  const [s] = variantSections(text, 'f.txt');
  assert.deepEqual(s.rows[0].shipped, { fail: 1, warn: 1, undecided: 2, pass: 1, error: 0 });
  assert.deepEqual(s.aa.shipped, { fail: 0, warn: 0, undecided: 0, pass: 4, error: 0 });
  assert.throws(() => variantSections(text.replace('1/1/1/1/0/1', '1/1'), 'f.txt'), /^Error: f\.txt:4: '1\/1' is not 6 counts/);
  assert.throws(() => variantSections(text.replace('/pass (open)/', '/maybe/'), 'f.txt'), /^Error: f\.txt:4: unknown verdict 'maybe'/);
});

test('evidence: every variant row of the results checked in is in the table, with its verdicts', () => {
  const tables = evidenceTables(path.join(ROOT, 'bench/results'));
  assert.match(tables, /^\| sleep-15 \| update-index_range=100 \| 1\.000 \| 0\.862 \| 5 fail \| 5 fail \| \[regression-variants-source-sleep-2026-11-29\.txt\]/m);
  assert.match(tables, /^\| A\/A: one build on both sides \| shipped \| 30 \| 30 pass \| \[aa-1thread-pinned-2026-11-29\.txt\]/m);
});
