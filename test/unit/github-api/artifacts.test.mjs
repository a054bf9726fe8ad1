import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startGitHubDouble } from '../../support/github-api/index.mjs';
import { assertNoProblems, doubleOptions, GITHUB_TOKEN, OWNER, plainOctokit, REPO } from './helpers.mjs';

// Captured from a real act v0.2.89 run of test/fixtures/workflows/pr-comment.yml (GITHUB_RUN_ID
// 4243): act's artifact server wrote the zip @actions/artifact uploaded to <run>/<name>/<name>.zip.
const CAPTURED = fileURLToPath(new URL('../../fixtures/act-artifacts', import.meta.url));
const CAPTURED_ZIP = path.join(CAPTURED, '4243', 'fixture-report', 'fixture-report.zip');

describe('a run\'s artifacts, served from act\'s artifact folder', () => {
  let folder;
  let gh;
  before(async () => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-artifacts-'));
    cpSync(CAPTURED, folder, { recursive: true });
    // An upload act started but that never finished: act leaves an empty zip behind.
    mkdirSync(path.join(folder, '4243', 'unfinished'), { recursive: true });
    writeFileSync(path.join(folder, '4243', 'unfinished', 'unfinished.zip'), '');
    gh = await startGitHubDouble(doubleOptions({ artifactsDir: folder, artifactUrlLifetimeMs: 1500 }));
  });
  after(async () => {
    await gh.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('lists the finished artifacts of a run', async () => {
    const { data } = await plainOctokit(gh).rest.actions.listWorkflowRunArtifacts({ owner: OWNER, repo: REPO, run_id: 4243 });
    assert.equal(data.total_count, 1);
    const [artifact] = data.artifacts;
    assert.equal(artifact.name, 'fixture-report');
    assert.equal(artifact.size_in_bytes, readFileSync(CAPTURED_ZIP).length);
    assert.equal(artifact.workflow_run.id, 4243);
    assert.match(artifact.digest, /^sha256:[0-9a-f]{64}$/);
    const { data: byName } = await plainOctokit(gh).rest.actions.listWorkflowRunArtifacts({ owner: OWNER, repo: REPO, run_id: 4243, name: 'nothing-by-this-name' });
    assert.equal(byName.total_count, 0);
  });

  it('downloads through a 302 to a short-lived URL, as GitHub does, and the bytes are act\'s zip', async () => {
    const { data } = await plainOctokit(gh).rest.actions.listWorkflowRunArtifacts({ owner: OWNER, repo: REPO, run_id: 4243 });
    const id = data.artifacts[0].id;
    const redirect = await fetch(`${gh.url}/repos/${OWNER}/${REPO}/actions/artifacts/${id}/zip`, { headers: { authorization: `token ${GITHUB_TOKEN}` }, redirect: 'manual' });
    assert.equal(redirect.status, 302);
    const location = redirect.headers.get('location');
    const zip = Buffer.from(await (await fetch(location)).arrayBuffer());
    assert.deepEqual(zip, readFileSync(CAPTURED_ZIP));
    assert.equal(zip.subarray(0, 4).toString('latin1'), 'PK\u0003\u0004');

    const viaOctokit = await plainOctokit(gh).rest.actions.downloadArtifact({ owner: OWNER, repo: REPO, artifact_id: id, archive_format: 'zip' });
    assert.deepEqual(Buffer.from(viaOctokit.data), readFileSync(CAPTURED_ZIP));

    await new Promise((resolve) => setTimeout(resolve, 1600));
    const expired = await fetch(location);
    assert.equal(expired.status, 403, 'the download URL expires');
  });

  it('answers 404 for a run with no artifacts and no record, and for an unknown artifact id', async () => {
    await assert.rejects(plainOctokit(gh).rest.actions.listWorkflowRunArtifacts({ owner: OWNER, repo: REPO, run_id: 999 }), { status: 404 });
    await assert.rejects(plainOctokit(gh).rest.actions.downloadArtifact({ owner: OWNER, repo: REPO, artifact_id: 12345, archive_format: 'zip' }), { status: 404 });
    assertNoProblems(assert, gh);
  });
});
