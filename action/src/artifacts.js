// The run folder as a workflow artifact: uploaded by the measure job, downloaded (through the
// REST API, which works across jobs of one run) by the report job, and read back through
// core's run folder reader, the bot's too: a run folder comes from a runner that built a pull
// request's code, and is hostile until checked.
import fs from 'node:fs';
import path from 'node:path';
import { DefaultArtifactClient } from '@actions/artifact';
import * as core from '@actions/core';
import perfgateCore from '@perfgate/core';

function filesUnder(dir) {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name))
    .sort();
}

export class ArtifactServiceError extends Error {
  get name() { return 'ArtifactServiceError'; }
}

/**
 * Why @actions/artifact cannot carry run folders on this server, or null: a GitHub Enterprise
 * Server (any host but github.com, *.ghe.com and *.localhost, the rule of @actions/artifact's
 * isGhes), whose artifact service it refuses to use. Pure.
 */
export function enterpriseServerRefusal(serverUrl) {
  let host;
  try {
    host = new URL(serverUrl || 'https://github.com').hostname.trimEnd().toLowerCase();
  } catch {
    return `environment GITHUB_SERVER_URL: '${serverUrl}' is not a URL; expected the GitHub server the workflow runs on, e.g. https://github.com`;
  }
  if (host === 'github.com' || host.endsWith('.ghe.com') || host.endsWith('.localhost')) return null;
  return `${serverUrl} is a GitHub Enterprise Server, and @actions/artifact, which carries perfgate's run folders `
    + 'from the measure jobs to the report and signoff jobs, works only on github.com and GHE.com. Run the perfgate '
    + 'workflows on github.com or GHE.com; on GitHub Enterprise Server run the perfgate command in a job of your own '
    + '(docs/action.md, "GitHub Enterprise Server")';
}

/**
 * Fails before anything is measured where run folders could not be uploaded afterwards: an
 * artifact service is offered, on a GitHub Enterprise Server.
 */
export function checkArtifactService(env) {
  if (artifactServiceMissing(env)) return;
  const refusal = enterpriseServerRefusal(env.GITHUB_SERVER_URL);
  if (refusal) throw new ArtifactServiceError(refusal);
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
  checkArtifactService(env);
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
  checkArtifactService(env);
  const { id, size } = await new DefaultArtifactClient().uploadArtifact(name, files.map((f) => path.join(dir, f)), dir, { retentionDays });
  core.info(`uploaded artifact ${name} (id ${id}, ${size} bytes)`);
  return { id, size };
}

/** The URL people open to download an artifact of this run. */
export function artifactUrl({ serverUrl, repository, runId }, id) {
  return `${serverUrl}/${repository.fullName}/actions/runs/${runId}/artifacts/${id}`;
}

/**
 * Downloads every run folder artifact of `suite` of this workflow run (perfgate-<suite>, or its
 * shards perfgate-<suite>-shard-K-of-N: core.isRunArtifact) into `<into>/<name>/`.
 * @returns [{name, id, dir}] sorted by name
 */
export async function downloadRunFolders({ suite, into, token, repository, runId, serverUrl }) {
  const refusal = enterpriseServerRefusal(serverUrl);
  if (refusal) throw new ArtifactServiceError(refusal);
  const client = new DefaultArtifactClient();
  const findBy = { token, workflowRunId: Number(runId), repositoryOwner: repository.owner, repositoryName: repository.repo };
  const { artifacts } = await client.listArtifacts({ findBy, latest: true });
  const wanted = artifacts.filter((artifact) => perfgateCore.isRunArtifact(artifact.name, suite));
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

/**
 * A downloaded run folder read through core's reader: every file listed (its path, its size;
 * symbolic links and special files refused), the documents read and parsed.
 * @returns {entries, documents} for core.checkRunFolder; throws core.RunFolderRejected
 */
export function readRunFolderFiles(dir, { maxBytes = perfgateCore.RUN_FOLDER_MAX_BYTES } = {}) {
  const listing = perfgateCore.runFolderListing({ maxBytes });
  const found = fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name))
    .sort();
  for (const full of found) {
    const stat = fs.lstatSync(full);
    const added = listing.add({
      name: path.relative(dir, full).split(path.sep).join('/'),
      size: stat.size,
      symlink: stat.isSymbolicLink(),
      directory: stat.isDirectory(),
      special: !stat.isFile() && !stat.isDirectory() && !stat.isSymbolicLink(),
    });
    if (added && added.kind) listing.document(added.path, fs.readFileSync(full));
  }
  return { entries: listing.entries(), documents: listing.documents() };
}
