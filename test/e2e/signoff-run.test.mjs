// The sign-off's completion path as bench/signoff-run.mjs drives it (docs/archive/notebook-2026-11.md):
// the run folders a full-suite sign-off leaves (here the tiny full run in two shards, merged by
// `perfgate merge`) delivered as perf-signoff.yml's artifacts to `perfgate bot` against the
// GitHub double, ending with the commit status perfgate/signoff and the report.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { signoffThroughBot } from '../../bench/signoff-run.mjs';

const require = createRequire(import.meta.url);
const core = require('@perfgate/core');
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('a measured sign-off through the bot', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'perfgate-signoff-e2e-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('two shards merged → artifacts → bot: pending then failure on the candidate, the report as reply and in the run folder', async () => {
    for (const k of [1, 2]) {
      mkdirSync(path.join(dir, `full-${k}`));
      cpSync(path.join(ROOT, `test/fixtures/results/full-shards-tiny/shard-${k}/results.json`), path.join(dir, `full-${k}/results.json`));
    }
    try {
      execFileSync(process.execPath, [path.join(ROOT, 'cli/bin/perfgate.js'), 'merge', path.join(dir, 'full-1'), path.join(dir, 'full-2'), '--out', path.join(dir, 'full')], { stdio: 'ignore' });
    } catch (err) {
      assert.equal(err.status, 1, 'perfgate merge: the tiny run has a fail');
    }
    const r = await signoffThroughBot({ runsDir: dir });
    const verdict = JSON.parse(readFileSync(path.join(dir, 'full/verdict.json'), 'utf8'));
    const decision = core.signoffDecision({ verdict });
    assert.deepEqual(r.statuses, ['pending', decision.state]);
    assert.equal(decision.state, 'failure');
    assert.equal(r.status.description, decision.description);
    assert.deepEqual(r.dispatch.inputs['previous-ref'], 'mariadb-10.11.18');
    assert.deepEqual([r.request.status, r.signoff.status, r.signoff.state], ['completed', 'completed', 'failure']);
    assert.deepEqual(r.signoff.verdicts, [{ suite: 'full', verdict, problem: null }]);
    for (const file of ['signoff.md', 'signoff.html', 'signoff-reply.md']) assert.ok(existsSync(path.join(dir, 'full', file)), file);
    // The reply and signoff.md are one renderer's output for the same sign-off.
    assert.equal(r.reply.split('\n').slice(1).join('\n').trimEnd(), readFileSync(path.join(dir, 'full/signoff.md'), 'utf8').trimEnd());
  });
});
