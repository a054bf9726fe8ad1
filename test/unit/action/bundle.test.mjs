// action/dist/index.js is what GitHub runs: it must be exactly what action/src builds to.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { bundle, DEFAULT_OUTFILE } from '../../../action/build.mjs';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

describe('the action bundle', () => {
  it('matches its source (rebuild: npm run build -w action)', async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bundle-'));
    try {
      const rebuilt = await bundle(path.join(folder, 'index.js'));
      const fresh = readFileSync(rebuilt, 'utf8');
      const committed = readFileSync(DEFAULT_OUTFILE, 'utf8');
      assert.ok(fresh === committed, `action/dist/index.js differs from a fresh build of action/src (${committed.length} vs ${fresh.length} characters): run npm run build -w action and commit it`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('finds perfgate\'s files from where it lies in the repository, not from where it was built', () => {
    const text = readFileSync(DEFAULT_OUTFILE, 'utf8');
    assert.match(text, /__perfgateBundleDir\("\.\.\/\.\.\/core\/src\/config"\), "\.\.", "\.\.", "\.\.", "thresholds"\)/);
    assert.match(text, /__perfgateBundleDir\("\.\.\/\.\.\/cli\/src"\), "\.\.", "\.\."\)/);
    assert.ok(!text.includes(ROOT), 'no absolute path of the machine it was built on');
  });
});
