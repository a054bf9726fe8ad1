import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ciTool, CI_TOOL_VERSIONS } from '../../support/ci-tools.mjs';

const SUPPORT = fileURLToPath(new URL('../../support/ci-tools.mjs', import.meta.url));

describe('finding act and actionlint', () => {
  it('finds the pinned versions that make setup installed', () => {
    // act creates $XDG_CONFIG_HOME/act whenever it starts: give it a folder of its own.
    const config = mkdtempSync(path.join(os.tmpdir(), 'perfgate-act-config-'));
    let act;
    try {
      act = spawnSync(ciTool('act'), ['--version'], { encoding: 'utf8', env: { ...process.env, XDG_CONFIG_HOME: config } });
    } finally {
      rmSync(config, { recursive: true, force: true });
    }
    assert.equal(act.stdout.trim(), `act version ${CI_TOOL_VERSIONS.act.replace(/^v/, '')}`);
    const actionlint = spawnSync(ciTool('actionlint'), ['-version'], { encoding: 'utf8' });
    assert.equal(actionlint.stdout.split('\n')[0], CI_TOOL_VERSIONS.actionlint);
  });

  it('says to run make setup when a tool is missing', () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'perfgate-no-tools-'));
    try {
      const probe = spawnSync(process.execPath, ['--input-type=module', '-e', `import { ciTool } from ${JSON.stringify(SUPPORT)}; ciTool('act');`], {
        encoding: 'utf8',
        env: { ...process.env, PERFGATE_CACHE: empty },
      });
      assert.notEqual(probe.status, 0);
      assert.match(probe.stderr, new RegExp(`act v0\\.2\\.89 is not installed at ${empty}/tools/bin/act: run make setup`));
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
