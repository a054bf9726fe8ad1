// A run's artifacts, read from the folder act's artifact server writes (--artifact-server-path).
//
// act v0.2.89 stores an artifact uploaded through the v4 protocol (@actions/artifact 2 and later,
// actions/upload-artifact@v4) as DIR/<run id>/<name>/<name>.zip: the zip the client built,
// byte for byte. act serves only the upload/download protocol the toolkit speaks, not the REST
// endpoints that list and download a run's artifacts; the double serves those from this folder.
// (The old v3 protocol stored loose files instead; GitHub has retired it and it is not read here.)
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { timestamp } from './state.mjs';

const RETENTION_MS = 90 * 24 * 60 * 60 * 1000;
// act creates <name>.zip empty when an upload starts; a zip has at least its 22-byte end record,
// so anything shorter is an upload that never finished and GitHub would not list it.
const SMALLEST_ZIP = 22;
// GitHub's artifact download URLs expire after a minute.
export const DOWNLOAD_URL_LIFETIME_MS = 60 * 1000;

export class ArtifactStore {
  constructor(state, directory, { downloadLifetimeMs = DOWNLOAD_URL_LIFETIME_MS } = {}) {
    this.state = state;
    this.directory = directory;
    this.downloadLifetimeMs = downloadLifetimeMs;
    this.ids = new Map();
    this.byId = new Map();
    this.downloads = new Map();
  }

  /** The v4 artifacts of one run, oldest first, each with a stable id. */
  listRun(runId) {
    if (!this.directory) return [];
    const runDirectory = path.join(this.directory, String(runId));
    let names;
    try {
      names = readdirSync(runDirectory, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    } catch (error) {
      if (error.code === 'ENOENT') return [];
      throw error;
    }
    const artifacts = [];
    for (const name of names) {
      const zipPath = path.join(runDirectory, name, `${name}.zip`);
      let stats;
      try {
        stats = statSync(zipPath);
      } catch (error) {
        if (error.code === 'ENOENT') continue;
        throw error;
      }
      if (stats.size < SMALLEST_ZIP) continue;
      artifacts.push(this.register(Number(runId), name, zipPath, stats));
    }
    return artifacts.sort((a, b) => a.createdMs - b.createdMs || a.id - b.id);
  }

  register(runId, name, zipPath, stats) {
    const key = `${runId}/${name}`;
    if (!this.ids.has(key)) this.ids.set(key, this.state.nextId('artifact', 4_000_000_000));
    const id = this.ids.get(key);
    const entry = {
      id,
      runId,
      name,
      zipPath,
      size: stats.size,
      createdMs: stats.mtimeMs,
      createdAt: timestamp(stats.mtime),
      expiresAt: timestamp(new Date(stats.mtimeMs + RETENTION_MS)),
      digest: `sha256:${createHash('sha256').update(readFileSync(zipPath)).digest('hex')}`,
      headSha: '0'.repeat(40),
    };
    this.byId.set(id, entry);
    return entry;
  }

  /** An artifact by id, as long as its zip is still in the folder. */
  get(id) {
    const entry = this.byId.get(Number(id));
    if (!entry) return undefined;
    try {
      statSync(entry.zipPath);
    } catch {
      return undefined;
    }
    return entry;
  }

  /** A short-lived (a minute, as on GitHub) download path for the zip, like the signed blob URLs GitHub redirects to. */
  signDownload(entry) {
    const key = randomBytes(16).toString('hex');
    this.downloads.set(key, { zipPath: entry.zipPath, expiresMs: Date.now() + this.downloadLifetimeMs });
    return `/_double/artifact-blobs/${key}/${encodeURIComponent(entry.name)}.zip`;
  }

  /** The zip behind a signed path, or a reason it cannot be served. */
  resolveDownload(key) {
    const download = this.downloads.get(key);
    if (!download) return { error: 'unknown download link' };
    if (Date.now() > download.expiresMs) return { error: 'download link expired' };
    return { body: readFileSync(download.zipPath) };
  }
}
