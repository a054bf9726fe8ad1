'use strict';
// A bisect workflow's artifacts are untrusted input, as any run's (artifact.js): the zip is
// read with the same limits and path rules, and bisect.json must then
//   - be valid by schema/bisect.schema.json (every SHA in it 40 hex digits);
//   - search exactly the range the command pinned: good and bad as pinned, the first and last
//     of its commits, each commit once;
//   - measure only commits of that range (every step, against the good end or the parent);
//   - at the end, have finished (no longer running) and, when it names a culprit, name a
//     commit of the range after the good end, with the commit before it as its parent.
// Pure functions but the download; a broken rule throws ArtifactRejected naming it.
const core = require('@perfgate/core');
const { ArtifactRejected, downloadArtifact } = require('./artifact');
const bisectContract = require('./bisect-contract');

const reject = (why) => { throw new ArtifactRejected(why); };

/**
 * @param doc      bisect.json as read from the artifact
 * @param pinned   {goodSha, badSha}: what the command pinned
 * @param final    true for the result artifact: the search must be over
 * @returns doc, checked
 */
function checkBisectDocument(doc, { goodSha, badSha, final }) {
  const problem = core.schemaProblem('bisect', doc);
  if (problem) reject(`bisect.json: ${problem}`);
  if (doc.good.commit !== goodSha) reject(`bisect.json: good.commit is ${doc.good.commit}, but the command pinned ${goodSha}`);
  if (doc.bad.commit !== badSha) reject(`bisect.json: bad.commit is ${doc.bad.commit}, but the command pinned ${badSha}`);
  const order = doc.commits.map((c) => c.commit);
  if (order[0] !== goodSha || order.at(-1) !== badSha) reject(`bisect.json: commits run from ${order[0]} to ${order.at(-1)}, not from the pinned good ${goodSha} to the pinned bad ${badSha}`);
  const position = new Map(order.map((sha, i) => [sha, i]));
  if (position.size !== order.length) reject('bisect.json: commits lists a commit twice');
  for (const step of doc.steps) {
    for (const [key, sha] of [['commit', step.commit], ['against', step.against]]) {
      if (!position.has(sha)) reject(`bisect.json: steps[${step.n}].${key} ${sha} is not in the range searched`);
    }
    if (step.position !== null && order[step.position] !== step.commit) reject(`bisect.json: steps[${step.n}].position ${step.position} is not where ${step.commit} is in commits`);
  }
  for (const sha of doc.candidates) if (!position.has(sha)) reject(`bisect.json: candidate ${sha} is not in the range searched`);
  if (final && doc.status === 'running') reject('bisect.json: the bisection is still running (status running), though the run ended');
  if (doc.status === 'found' && !doc.culprit) reject('bisect.json: status found names no culprit');
  if (doc.culprit) {
    const at = position.get(doc.culprit.commit);
    if (!(at > 0)) reject(`bisect.json: the culprit ${doc.culprit.commit} is not a commit after the good end of the range searched`);
    if (doc.culprit.parent !== order[at - 1]) reject(`bisect.json: the culprit's parent ${doc.culprit.parent} is not the commit before it in the range (${order[at - 1]})`);
    if (doc.culprit.position !== at) reject(`bisect.json: culprit.position ${doc.culprit.position} is not where the culprit is in commits (${at})`);
  }
  return doc;
}

/** Downloads one artifact of a bisect run (bisect.json at its top) and checks it. */
async function downloadBisectDocument(octokit, { owner, repo, artifact, maxBytes, goodSha, badSha, final }) {
  if (artifact.expired) reject(`the artifact ${artifact.name} has expired`);
  if (artifact.size_in_bytes > maxBytes) reject(`the artifact ${artifact.name} is ${artifact.size_in_bytes} bytes; at most ${maxBytes} are accepted`);
  let read;
  try {
    read = await downloadArtifact(octokit, { owner, repo, artifact, maxBytes, documents: bisectContract.DOCUMENTS });
    if (!read.documents['bisect.json']) reject('it has no bisect.json at its top');
    return checkBisectDocument(read.documents['bisect.json'], { goodSha, badSha, final });
  } catch (err) {
    if (err instanceof ArtifactRejected) reject(`${artifact.name}: ${err.message}`);
    throw err;
  }
}

module.exports = { checkBisectDocument, downloadBisectDocument };
