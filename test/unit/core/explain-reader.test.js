'use strict';
// explain.json as an attacker would write it: the harness writes it while a pull request's
// servers run, so every file name, key and size is checked before a word of it is used.
const test = require('node:test');
const assert = require('node:assert/strict');
const { readExplain } = require('../../../core/src/explain/untrusted-explain');
const { side, explainDoc } = require('../../fixtures/explain/documents');

const FILES = ['results.json', 'explain/ui.base.offcpu.folded', 'explain/ui.head.offcpu.folded'];
const good = () => explainDoc([{ id: 'ui', base: side('pfs19_p1', 'update-index', { stack: 'aa1', stackFiles: 'explain/ui.base.offcpu.folded' }), head: side('pfs19_sleep', 'update-index', { stack: 'sleep', stackFiles: 'explain/ui.head.offcpu.folded' }) }]);
const bytes = (doc) => Buffer.from(JSON.stringify(doc));
const read = (doc, options = { entries: FILES, rowIds: ['ui'] }) => readExplain(typeof doc === 'string' ? Buffer.from(doc) : bytes(doc), options);
const withFile = (name) => {
  const doc = good();
  doc.rows[0].sides.head.stacks.offcpu_file = name;
  return doc;
};

test('a real explain.json is read whole, with the run folder\'s entries and rows', () => {
  const doc = read(good());
  assert.equal(doc.rows[0].sides.head.stacks.offcpu_file, 'explain/ui.head.offcpu.folded');
  assert.equal(read(good(), {}).rows.length, 1, 'without entries or rows to hold it to');
});

test('files that leave the run folder, or are not its folded stacks, or are not there, are refused by key', () => {
  const cases = [
    ['/etc/shadow', /^explain\.json: rows\[0\]\.sides\.head\.stacks\.offcpu_file: .*a path relative to the run folder/],
    ['explain/../../../etc/passwd', /offcpu_file: .*a path relative to the run folder/],
    ['explain/./../results.json', /offcpu_file: .*a path relative to the run folder/],
    ['results.json', /^explain\.json: rows\[0\]\.sides\.head\.stacks\.offcpu_file: "results\.json" is not a folded stack file under explain\/; expected explain\/<row>\.<side>\.<oncpu\|offcpu>\.folded$/],
    ['explain/sub/x.folded', /is not a folded stack file under explain\//],
    ['explain/other.folded', /^explain\.json: rows\[0\]\.sides\.head\.stacks\.offcpu_file: "explain\/other\.folded" is not in the run folder$/],
  ];
  for (const [name, message] of cases) assert.throws(() => read(withFile(name)), (err) => err.name === 'RunFolderRejected' && message.test(err.message), name);
  // A file the run folder holds, named through "./", is the same file.
  assert.equal(read(withFile('./explain/ui.head.offcpu.folded')).rows.length, 1);
});

test('not JSON, too large, too deep, not the schema: refused naming the file and the key', () => {
  const rejects = (input, message, options) => assert.throws(() => read(input, options), (err) => err.name === 'RunFolderRejected' && message.test(err.message), String(message));
  rejects('{"schema": ', /^explain\.json is not JSON \(/);
  rejects('['.repeat(600_000), /^explain\.json holds 600000 JSON objects and arrays; at most 500000 are accepted$/);
  rejects(good(), /^explain\.json unpacks to more than 100 bytes$/, { maxBytes: 100 });
  rejects({ ...good(), schema: 'perfgate.explain/v9' }, /^explain\.json: schema: "perfgate\.explain\/v9" must be equal to constant$/);
  const extra = good();
  extra.rows[0].sides.base.counters.windows[0].deltas.Com_select = 'lots';
  rejects(extra, /^explain\.json: rows\[0\]\.sides\.base\.counters\.windows\[0\]\.deltas\.Com_select: "lots" must be number$/);
  const proto = JSON.parse(JSON.stringify(good()).replace('"unavailable":{}', '"unavailable":{"__proto__":"x"}'));
  rejects(proto, /unavailable.__proto__: unknown key/);
});

test('a row explained twice, or one results.json does not hold, is refused', () => {
  const twice = good();
  twice.rows.push(twice.rows[0]);
  assert.throws(() => read(twice), /^RunFolderRejected: explain\.json: rows\[1\]\.id: "ui" is explained twice; expected each row once$|explained twice/);
  assert.throws(() => read(good(), { entries: FILES, rowIds: ['other'] }), /explain\.json: rows\[0\]\.id: "ui" is not a row of results\.json/);
});
