// scripts/render-pictures.mjs: a run folder is input like any other, checked before it is drawn;
// the comment page is the comment perfgate writes, as GitHub shows it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createRequire } from 'node:module';
import { commentPage, readVerdict } from '../../../scripts/render-pictures.mjs';

const require = createRequire(import.meta.url);
const { judge } = require('../../../core/src/verdict');
const { capturedResults, loadResults } = require('../../support/captured-results');

const verdictOf = (name) => judge(loadResults(capturedResults().find((c) => c.name === name).file), { limits: { default: { warn: 0.97, fail: 0.93 } } });

test('a run folder without a valid verdict.json is refused, naming the file', (t) => {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-pictures-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  assert.throws(() => readVerdict(folder), new RegExp(`^Error: ${folder}: no verdict\\.json; expected a run folder of perfgate compare$`));
  writeFileSync(path.join(folder, 'verdict.json'), '{"verdict": ');
  assert.throws(() => readVerdict(folder), /verdict\.json: not JSON/);
  writeFileSync(path.join(folder, 'verdict.json'), JSON.stringify({ verdict: 'pass', benchmarks: '<img src=x>' }));
  assert.throws(() => readVerdict(folder), /verdict\.json: /);
  const good = verdictOf('io-tiny');
  writeFileSync(path.join(folder, 'verdict.json'), JSON.stringify(good));
  assert.deepEqual(readVerdict(folder), JSON.parse(JSON.stringify(good)));
});

test('the comment page: the comment rendered as GitHub does, its alert as a box, no chart source', () => {
  const verdict = verdictOf('io-tiny');
  verdict.doctor = ['cpus: 2 logical CPUs'];
  const html = commentPage(verdict);
  assert.match(html, /<div class="who"><b>github-actions<\/b> bot commented<\/div>/);
  assert.match(html, /<h3>.* perfgate quick: /);
  assert.match(html, /<blockquote class="alert warning"><p><b>Warning<\/b><br>/);
  assert.match(html, /<table>\n<thead>\n<tr>\n<th/);
  assert.doesNotMatch(html, /xychart-beta|\[!WARNING\]/);
});
