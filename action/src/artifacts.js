// The run folder as a workflow artifact: uploaded by the measure job, downloaded (through the
// REST API, which works across jobs of one run) by the report job.
import fs from 'node:fs';
import path from 'node:path';
import { DefaultArtifactClient } from '@actions/artifact';
import * as core from '@actions/core';

function filesUnder(dir) {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name))
    .sort();
}

/** Why no artifact service is offered here, or null when there is one. */
export function artifactServiceMissing(env) {
  const missing = ['ACTIONS_RUNTIME_TOKEN', 'ACTIONS_RESULTS_URL'].filter((name) => !env[name]);
  return missing.length ? `${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not set` : null;
}

/**
 * Uploads `dir` as artifact `name`. Where no artifact service is offered (the entry point run
 * by hand), the upload is skipped with one warning.
 * @returns {id, size} or null when skipped
 */
export async function uploadRunFolder({ name, dir, env }) {
  const missing = artifactServiceMissing(env);
  if (missing) {
    core.warning(`no artifact service (${missing}): the run folder ${dir} is not uploaded`);
    return null;
  }
  const { id, size } = await new DefaultArtifactClient().uploadArtifact(name, filesUnder(dir), dir, { retentionDays: 30 });
  core.info(`uploaded the run folder as artifact ${name} (id ${id}, ${size} bytes)`);
  return { id, size };
}

/**
 * Uploads `files` (paths relative to `dir`) as artifact `name`; skipped with one warning where
 * no artifact service is offered. Returns {id, size} or null when skipped.
 */
export async function uploadFiles({ name, dir, files, env, retentionDays }) {
  const missing = artifactServiceMissing(env);
  if (missing) {
    core.warning(`no artifact service (${missing}): ${name} is not uploaded`);
    return null;
  }
  const { id, size } = await new DefaultArtifactClient().uploadArtifact(name, files.map((f) => path.join(dir, f)), dir, { retentionDays });
  core.info(`uploaded artifact ${name} (id ${id}, ${size} bytes)`);
  return { id, size };
}

/** The URL people open to download an artifact of this run. */
export function artifactUrl({ serverUrl, repository, runId }, id) {
  return `${serverUrl}/${repository.fullName}/actions/runs/${runId}/artifacts/${id}`;
}

/**
 * Downloads every artifact of this workflow run whose name is `prefix` or `prefix-shard-…`
 * into `<into>/<name>/`.
 * @returns [{name, id, dir}] sorted by name
 */
export async function downloadRunFolders({ prefix, into, token, repository, runId }) {
  const client = new DefaultArtifactClient();
  const findBy = { token, workflowRunId: Number(runId), repositoryOwner: repository.owner, repositoryName: repository.repo };
  const { artifacts } = await client.listArtifacts({ findBy, latest: true });
  const wanted = artifacts.filter((artifact) => artifact.name === prefix || artifact.name.startsWith(`${prefix}-shard-`));
  const folders = [];
  for (const artifact of wanted.sort((a, b) => a.name.localeCompare(b.name))) {
    const dir = path.join(into, artifact.name);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    await client.downloadArtifact(artifact.id, { path: dir, findBy });
    folders.push({ name: artifact.name, id: artifact.id, dir });
  }
  return folders;
}
