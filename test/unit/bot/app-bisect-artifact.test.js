'use strict';
// bisect.json from a run is untrusted: each rule of checkBisectDocument, with the line it
// answers, on documents made by the same core functions the cli uses.
const test = require('node:test');
const assert = require('node:assert/strict');
const { checkBisectDocument } = require('../../../bot/src/app/bisect-artifact');
const { ArtifactRejected } = require('../../../bot/src/app/artifact');
const { bisectDocument } = require('../../support/bisect-document.js');

const SHAS = Array.from({ length: 11 }, (_, i) => (i + 1).toString(16).padStart(2, '0').repeat(20));
const OTHER = 'e'.repeat(40);
const pinned = { goodSha: SHAS[0], badSha: SHAS[10] };

function rejects(edit, message, { final = true, upTo = null } = {}) {
  const doc = bisectDocument({ shas: SHAS, upTo });
  edit(doc);
  assert.throws(() => checkBisectDocument(doc, { ...pinned, final }), (err) => err instanceof ArtifactRejected && err.message === message);
}

test('a finished bisection of the pinned range is taken; one in progress only as progress', () => {
  assert.equal(checkBisectDocument(bisectDocument({ shas: SHAS }), { ...pinned, final: true }).culprit.commit, SHAS[7]);
  assert.equal(checkBisectDocument(bisectDocument({ shas: SHAS, upTo: 2 }), { ...pinned, final: false }).status, 'running');
  rejects(() => {}, 'bisect.json: the bisection is still running (status running), though the run ended', { upTo: 2 });
});

test('each rule, with its line', () => {
  rejects((d) => { d.culprit.commit = 'abc'; }, 'bisect.json: culprit.commit: "abc" must match pattern "^[0-9a-f]{40}$"');
  rejects((d) => { d.steps[1].commit = '../../x'; }, 'bisect.json: steps[1].commit: "../../x" must match pattern "^[0-9a-f]{40}$"');
  rejects((d) => { d.good.commit = OTHER; }, `bisect.json: good.commit is ${OTHER}, but the command pinned ${SHAS[0]}`);
  rejects((d) => { d.bad.commit = OTHER; }, `bisect.json: bad.commit is ${OTHER}, but the command pinned ${SHAS[10]}`);
  rejects((d) => { d.commits.pop(); }, `bisect.json: commits run from ${SHAS[0]} to ${SHAS[9]}, not from the pinned good ${SHAS[0]} to the pinned bad ${SHAS[10]}`);
  rejects((d) => { d.commits[3].commit = SHAS[2]; }, 'bisect.json: commits lists a commit twice');
  rejects((d) => { d.steps[2].commit = OTHER; }, `bisect.json: steps[2].commit ${OTHER} is not in the range searched`);
  rejects((d) => { d.steps[2].against = OTHER; }, `bisect.json: steps[2].against ${OTHER} is not in the range searched`);
  rejects((d) => { d.steps[2].position = 3; }, `bisect.json: steps[2].position 3 is not where ${SHAS[7]} is in commits`);
  rejects((d) => { d.candidates = [OTHER]; }, `bisect.json: candidate ${OTHER} is not in the range searched`);
  rejects((d) => { d.culprit = null; }, 'bisect.json: status found names no culprit');
  rejects((d) => { d.culprit.commit = OTHER; }, `bisect.json: the culprit ${OTHER} is not a commit after the good end of the range searched`);
  rejects((d) => { d.culprit.commit = SHAS[0]; }, `bisect.json: the culprit ${SHAS[0]} is not a commit after the good end of the range searched`);
  rejects((d) => { d.culprit.parent = SHAS[2]; }, `bisect.json: the culprit's parent ${SHAS[2]} is not the commit before it in the range (${SHAS[6]})`);
  rejects((d) => { d.culprit.position = 6; }, 'bisect.json: culprit.position 6 is not where the culprit is in commits (7)');
  rejects((d) => { d.schema = 'perfgate.bisect/v2'; }, 'bisect.json: schema: "perfgate.bisect/v2" must be equal to constant');
});
