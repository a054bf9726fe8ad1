'use strict';
// A workflow run's artifact is untrusted input: the run built and ran a pull request's code on
// the runner that made it. The zip is downloaded here, capped before and while downloading, and
// its entries listed into core's run folder reader (core.runFolderListing, checkRunFolder: the
// same rules the action's report job applies to the folders it downloads): names, sizes, the
// documents' JSON and schemas, the commits, suite, pull request and shard. Nothing is written
// to disk: the documents are read into memory, the rest is never unpacked.
const yauzl = require('yauzl');
const core = require('@perfgate/core');

// Every rejection, from core's reader or from the download here, is this one error.
const ArtifactRejected = core.RunFolderRejected;

// A download of up to PERFGATE_MAX_ARTIFACT_BYTES from GitHub's storage, body included, that
// takes longer is abandoned (and the job tried again) rather than waited on for good.
const DOWNLOAD_TIMEOUT_MS = 10 * 60 * 1000;

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

const reject = (why) => { throw new ArtifactRejected(why); };

function openZip(buffer) {
  return new Promise((resolve, reject) => {
    // Names are checked by core's reader, not by yauzl, so that every rule lives in one place.
    yauzl.fromBuffer(buffer, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true }, (err, zip) => {
      if (err) reject(new ArtifactRejected(`the artifact is not a readable zip (${err.message})`));
      else resolve(zip);
    });
  });
}

// The zip's entries one at a time (null at the end); a broken zip rejects the artifact.
function entryReader(zip) {
  let waiting = null;
  let failure = null;
  zip.on('entry', (entry) => waiting.resolve(entry));
  zip.on('end', () => waiting.resolve(null));
  zip.on('error', (err) => {
    failure = new ArtifactRejected(`the artifact is not a readable zip (${err.message})`);
    if (waiting) waiting.reject(failure);
  });
  return () => new Promise((resolve, rejectNext) => {
    if (failure) {
      rejectNext(failure);
      return;
    }
    waiting = { resolve, reject: rejectNext };
    zip.readEntry();
  });
}

function readEntry(zip, entry, limit) {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err) return reject(new ArtifactRejected(`cannot unpack ${entry.decodedName} (${err.message})`));
      const chunks = [];
      let size = 0;
      stream.on('data', (chunk) => {
        size += chunk.length;
        if (size > limit) {
          stream.destroy();
          reject(new ArtifactRejected(`${entry.decodedName} unpacks to more than ${limit} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      stream.on('error', (e) => reject(new ArtifactRejected(`cannot unpack ${entry.decodedName} (${e.message})`)));
      stream.on('end', () => resolve(Buffer.concat(chunks)));
      return undefined;
    });
  });
}

/**
 * Reads a run folder zip (the documents named in `documents`, file name → schema kind; the
 * run folder's by default). Returns {entries: [paths], documents: {'results.json': object, ...}}
 * or throws ArtifactRejected naming the first entry that breaks a rule.
 */
async function readRunFolder(buffer, { maxBytes, documents = core.RUN_FOLDER_DOCUMENTS }) {
  const zip = await openZip(buffer);
  try {
    const listing = core.runFolderListing({ maxBytes, documents, count: zip.entryCount });
    const next = entryReader(zip);
    for (;;) {
      const entry = await next();
      if (!entry) break;
      const name = entry.fileName.toString('utf8');
      entry.decodedName = name;
      const added = listing.add({
        name,
        size: entry.uncompressedSize,
        symlink: ((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK,
        directory: name.endsWith('/'),
      });
      // Unpacked no further than the document's own ceiling: the zip's header may lie about it.
      if (added && added.kind) listing.document(added.path, await readEntry(zip, entry, added.maxBytes));
    }
    return { entries: listing.entries(), documents: listing.documents() };
  } finally {
    zip.close();
  }
}

/** Reads at most `limit` bytes of a response body; more is a rejection, not a truncation. */
async function readCapped(response, limit) {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) reject(`the artifact download is ${declared} bytes; at most ${limit} are accepted`);
  const chunks = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.length;
    if (size > limit) reject(`the artifact download is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks.map((c) => Buffer.from(c)));
}

/** Downloads one artifact (its short-lived URL, capped) and reads it (readRunFolder). */
async function downloadArtifact(octokit, { owner, repo, artifact, maxBytes, documents }) {
  // GitHub answers with a redirect to a short-lived URL that needs no token: follow it by hand,
  // so that the token never goes to the storage host and the body can be capped.
  const answer = await octokit.rest.actions.downloadArtifact({ owner, repo, artifact_id: artifact.id, archive_format: 'zip', request: { redirect: 'manual' } });
  const location = answer.headers.location;
  if (!location) throw new Error(`GitHub answered ${answer.status} without a download location for artifact ${artifact.id}`);
  const response = await fetch(location, { redirect: 'follow', signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`downloading artifact ${artifact.id} failed: ${response.status} ${response.statusText}`);
  return readRunFolder(await readCapped(response, maxBytes), { maxBytes, documents });
}

/**
 * Downloads the run folder artifacts of a workflow run for `suite` (perfgate-<suite>, or its
 * shards; `exact`: that one artifact alone) and reads each. Returns [{name, entries, documents}]
 * by name. Throws ArtifactRejected when there is none or one breaks a rule; other errors
 * (network, GitHub 5xx) are worth trying again.
 */
async function downloadRunFolders(octokit, { owner, repo, runId, suite, maxBytes, exact = false }) {
  const listed = await octokit.paginate(octokit.rest.actions.listWorkflowRunArtifacts, { owner, repo, run_id: runId, per_page: 100 });
  const wanted = (name) => (exact ? name === `perfgate-${suite}` : core.isRunArtifact(name, suite));
  const found = listed.filter((a) => wanted(a.name)).sort((a, b) => a.name.localeCompare(b.name));
  if (!found.length) reject(`the run uploaded no run folder (an artifact perfgate-${suite}${exact ? '' : ', or its shards'})`);
  const names = found.map((a) => a.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) reject(`the run uploaded two artifacts named ${twice}`);
  const folders = [];
  for (const artifact of found) {
    if (artifact.expired) reject(`the artifact ${artifact.name} has expired`);
    if (artifact.size_in_bytes > maxBytes) reject(`the artifact ${artifact.name} is ${artifact.size_in_bytes} bytes; at most ${maxBytes} are accepted`);
  }
  for (const artifact of found) {
    try {
      folders.push({ name: artifact.name, ...(await downloadArtifact(octokit, { owner, repo, artifact, maxBytes })) });
    } catch (err) {
      if (err instanceof ArtifactRejected) reject(`${artifact.name}: ${err.message}`);
      throw err;
    }
  }
  return folders;
}

// checkRunFolder is core's, named here too for the jobs that download and then check.
module.exports = { ArtifactRejected, readRunFolder, checkRunFolder: core.checkRunFolder, downloadArtifact, downloadRunFolders };
