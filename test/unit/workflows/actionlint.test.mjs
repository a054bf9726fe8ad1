import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ciTool } from '../../support/ci-tools.mjs';

const FIXTURE_WORKFLOWS = fileURLToPath(new URL('../../fixtures/workflows', import.meta.url));

function actionlint(...args) {
  return spawnSync(ciTool('actionlint'), ['-no-color', ...args], { encoding: 'utf8' });
}

const REPO = fileURLToPath(new URL('../../..', import.meta.url));

// Every workflow file under .github/, at any depth (the CI workflow and the examples a fork copies).
function repositoryWorkflows(dir = path.join(REPO, '.github')) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return repositoryWorkflows(full);
    // actionlint.yaml is actionlint's own settings, not a workflow.
    return /\.ya?ml$/.test(entry.name) && !/^actionlint\.ya?ml$/.test(entry.name) ? [full] : [];
  });
}

describe('actionlint', () => {
  it('finds nothing wrong in this repository\'s workflows', () => {
    const files = repositoryWorkflows();
    assert.ok(files.some((f) => f.endsWith('ci.yml')), files.join(', '));
    for (const example of ['perf-pr.yml', 'perf-command.yml', 'perf-full.yml', 'perf-bisect.yml']) {
      assert.ok(files.some((f) => f.endsWith(`examples/${example}`)), `${example} is linted: ${files.join(', ')}`);
    }
    const result = actionlint(...files);
    assert.equal(result.status, 0, result.stdout + result.stderr);
  });

  it('finds nothing wrong in the fixture workflows', () => {
    const files = readdirSync(FIXTURE_WORKFLOWS).filter((name) => /\.ya?ml$/.test(name)).map((name) => path.join(FIXTURE_WORKFLOWS, name));
    assert.ok(files.length > 0);
    const result = actionlint(...files);
    assert.equal(result.status, 0, result.stdout + result.stderr);
  });

  it('reports a workflow that names a context property GitHub does not have', () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-actionlint-'));
    try {
      const file = path.join(folder, 'typo.yml');
      writeFileSync(file, 'on: pull_request\njobs:\n  perf:\n    runs-on: self-hosted\n    steps:\n      - run: echo "${{ github.evnt_name }}"\n');
      const result = actionlint(file);
      assert.equal(result.status, 1);
      assert.match(result.stdout, /typo\.yml:6:\d+: property "evnt_name" is not defined/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
