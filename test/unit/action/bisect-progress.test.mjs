// job: bisect: after every finished step, and only then, a snapshot of bisect.json is kept for
// the artifact perfgate-bisect-progress-<N> (N = its steps), N only growing; the upload is
// skipped with a warning where no artifact service is offered, and the bisection goes on.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { marked } from 'marked';
import { bisectSummary, progressArtifact, progressUploader } from '../../../action/src/bisect.js';

const require = createRequire(import.meta.url);
const { bisectDocument } = require('../../support/bisect-document.js');

describe('job: bisect progress', () => {
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'perfgate-bisect-progress-'));
  after(() => rmSync(workDir, { recursive: true, force: true }));

  it('keeps one snapshot per finished step, named by its step count', async () => {
    const uploader = progressUploader({ workDir, env: {} });
    const at = (steps) => bisectDocument({ upTo: steps });
    uploader.onProgress({ type: 'range', commits: 11, good: 'a', bad: 'b', goodName: 'base', badName: 'tip' }, at(0));
    uploader.onProgress({ type: 'measure', step: 0, kind: 'confirm', commit: 'b'.repeat(40), against: 'a'.repeat(40), position: 10, commits: 11, attempt: 1, signals: ['instructions'] }, at(1));
    uploader.onProgress({ type: 'confirm', step: 0, reason: 'regressed' }, at(1));
    uploader.onProgress({ type: 'decision', step: 1, commit: 'c'.repeat(40), decision: 'good', reason: 'why', progress: { left: 4, stepsLeft: 3 }, lo: 'a', hi: 'b' }, at(2));
    // The same count again (an event that finished no step) makes no second snapshot.
    uploader.onProgress({ type: 'decision', step: 1, commit: 'c'.repeat(40), decision: 'good', reason: 'why', progress: { left: 4, stepsLeft: 3 }, lo: 'a', hi: 'b' }, at(2));
    await uploader.settled();
    assert.equal(existsSync(path.join(workDir, 'progress', '0')), false);
    assert.deepEqual(JSON.parse(readFileSync(path.join(workDir, 'progress', '1', 'bisect.json'), 'utf8')).steps.length, 1);
    assert.deepEqual(JSON.parse(readFileSync(path.join(workDir, 'progress', '2', 'bisect.json'), 'utf8')).steps.length, 2);
    assert.equal(progressArtifact(2), 'perfgate-bisect-progress-2');
  });

  it('the job summary shows the bisection as text: a commit subject cannot close its block or add HTML', () => {
    const subjects = Array.from({ length: 11 }, (_, i) => (i === 7 ? 'row0upd: </code></pre><img src=x onerror=alert(1)> ``` @team [x](https://evil.example)' : `commit ${i}`));
    const core = require('@perfgate/core');
    const text = core.renderBisect(bisectDocument({ subjects }));
    const summary = bisectSummary(text);
    const html = marked.parse(summary, { gfm: true });
    assert.deepEqual([...html.matchAll(/<([a-z]+)/g)].map((m) => m[1]), ['pre', 'code']);
    assert.ok(html.includes('&lt;/code&gt;&lt;/pre&gt;&lt;img src=x'), html);
  });
});
