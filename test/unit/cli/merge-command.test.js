'use strict';
// perfgate merge on the run folders of two real shards of the full suite (fixtures), as a
// merge job of a workflow matrix would run it after downloading each runner's artifact.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runMain } = require('../../support/cli-main');
const { schemaProblem } = require('../../../core/src/schemas');

const SHARDS = path.join(__dirname, '../../fixtures/results/full-shards-tiny');

const cli = (args, cwd) => runMain(args, { cwd });

// A folder holding shard-1/ and shard-2/ as downloaded artifacts; `change(k, doc)` edits one.
function workspace(t, change = (k, doc) => doc) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfgate-merge-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const k of [1, 2]) {
    fs.mkdirSync(path.join(dir, `shard-${k}`));
    const doc = JSON.parse(fs.readFileSync(path.join(SHARDS, `shard-${k}`, 'results.json'), 'utf8'));
    fs.writeFileSync(path.join(dir, `shard-${k}`, 'results.json'), JSON.stringify(change(k, doc)));
  }
  return dir;
}

test('perfgate merge writes one run folder: plan, results, verdict and reports of all 42 rows', async (t) => {
  const dir = workspace(t);
  const r = await cli(['merge', 'shard-2', 'shard-1', '--out', 'merged'], dir);
  assert.equal(r.stderr.split('\n')[0], 'perfgate merge: shards 1/2 from shard-1, 2/2 from shard-2');
  const out = path.join(dir, 'merged');
  const results = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'));
  const verdict = JSON.parse(fs.readFileSync(path.join(out, 'verdict.json'), 'utf8'));
  const plan = JSON.parse(fs.readFileSync(path.join(out, 'plan.json'), 'utf8'));
  assert.equal(schemaProblem('results', results), null);
  assert.equal(schemaProblem('verdict', verdict), null);
  assert.equal(schemaProblem('plan', plan), null);
  assert.deepEqual(results.shards.merged.map((p) => p.folder), ['shard-1', 'shard-2']);
  assert.equal(verdict.benchmarks.length, 42);
  assert.equal(r.code, verdict.exit_code);
  for (const f of ['comment.md', 'summary.md', 'report.html']) assert.ok(fs.statSync(path.join(out, f)).size > 1000, f);
  assert.match(r.stdout, /^point-query\.pre_range=100 .*\npoint-query_range=100 /m);
  // The shard folders are left as they were.
  assert.deepEqual(fs.readdirSync(path.join(dir, 'shard-1')), ['results.json']);
});

test('refusals and missing shards: exit 2, one line, nothing written', async (t) => {
  const otherCommit = (k, doc) => { if (k === 2) doc.sides.head.commit = 'abc123'; return doc; };
  const cases = [
    [workspace(t), ['merge', 'shard-1', '--out', 'merged'],
      'perfgate merge: shard 2/2 is missing (shard-1 is 1/2); pass the folder of every shard, or --allow-partial for a report marked partial'],
    [workspace(t), ['merge', 'shard-1', 'shard-1', '--out', 'merged'],
      "perfgate merge: shard-1: key 'plan.shard.index' is 1 (shard 1/2) but so is shard-1's: the same shard twice"],
    [workspace(t, otherCommit), ['merge', 'shard-1', 'shard-2', '--out', 'merged'],
      "perfgate merge: shard-2: key 'sides.head' is 10.11.19-MariaDB-0+deb12u1 @ abc123 but shard-1 has 10.11.19-MariaDB-0+deb12u1: not the same head server"],
    [workspace(t), ['merge', 'shard-1', 'nope', '--out', 'merged'],
      "perfgate merge: 'nope': not a directory; expected the run folder of one shard, holding results.json"],
    [workspace(t), ['merge', 'shard-1', 'shard-2', '--out', 'shard-2'],
      "perfgate merge: --out 'shard-2' is the shard folder 'shard-2'; expected a folder of its own for the merged run"],
    [workspace(t), ['merge', '--out', 'merged'],
      'perfgate merge: the shard run folders are missing; expected perfgate merge <run-dir>… --out <dir>'],
    [workspace(t), ['merge', 'shard-1', 'shard-2'], 'perfgate merge: --out is missing; expected --out <dir>'],
  ];
  for (const [dir, args, message] of cases) {
    const r = await cli(args, dir);
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.stderr, `${message}\n`);
    assert.equal(r.stdout, '');
    assert.equal(fs.existsSync(path.join(dir, 'merged')), false, 'nothing written');
  }
  const dir = workspace(t);
  fs.mkdirSync(path.join(dir, 'empty'));
  const r = await cli(['merge', 'shard-1', 'empty', '--out', 'merged'], dir);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^perfgate merge: empty\/results\.json: cannot read it \(ENOENT\); expected a perfgate\.results\/v1 document\n$/);
});

test('--out is never a shard through a link, nor a folder of other files: nothing of either is touched', async (t) => {
  const dir = workspace(t);
  fs.symlinkSync('shard-1', path.join(dir, 'alias'));
  const before = fs.readFileSync(path.join(dir, 'shard-1', 'results.json'), 'utf8');
  const linked = await cli(['merge', 'shard-1', 'shard-2', '--out', 'alias'], dir);
  assert.equal(linked.code, 2);
  assert.equal(linked.stderr, "perfgate merge: --out 'alias' is the shard folder 'shard-1'; expected a folder of its own for the merged run\n");
  assert.equal(fs.readFileSync(path.join(dir, 'shard-1', 'results.json'), 'utf8'), before);
  // A folder of the user's, whose files carry names a run folder's outputs have.
  const notes = path.join(dir, 'notes');
  fs.mkdirSync(path.join(notes, 'heads', 'deep'), { recursive: true });
  for (const f of ['summary.md', 'plan.extra-7.json', 'heads/deep/notes.txt']) fs.writeFileSync(path.join(notes, f), 'mine');
  const r = await cli(['merge', 'shard-1', 'shard-2', '--out', 'notes'], dir);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^perfgate merge: --out '.*notes' is not a run folder \(none of plan\.json, results\.json, verdict\.json, chain\.json, bisect\.json\) but holds heads, plan\.extra-7\.json, summary\.md, which a run would remove or replace; expected a new folder, an earlier run folder, or one without those names\n$/);
  for (const f of ['summary.md', 'plan.extra-7.json', 'heads/deep/notes.txt']) assert.equal(fs.readFileSync(path.join(notes, f), 'utf8'), 'mine');
  // A folder of the user's without such names (their thresholds beside the run, say) is used.
  fs.mkdirSync(path.join(dir, 'mine', 'thresholds'), { recursive: true });
  assert.notEqual((await cli(['merge', 'shard-1', 'shard-2', '--out', 'mine'], dir)).code, 2);
  assert.ok(fs.existsSync(path.join(dir, 'mine', 'thresholds')));
  // An earlier merged run folder is taken again.
  assert.notEqual((await cli(['merge', 'shard-1', 'shard-2', '--out', 'merged'], dir)).code, 2);
  const again = await cli(['merge', 'shard-1', 'shard-2', '--out', 'merged'], dir);
  assert.notEqual(again.code, 2, again.stderr);
});

test('--allow-partial: a merged report marked partial, exit 3 when the rest passes', async (t) => {
  const dir = workspace(t);
  const thresholds = path.join(dir, 'thresholds');
  fs.mkdirSync(path.join(thresholds, 'suites'), { recursive: true });
  const full = fs.readFileSync(path.join(__dirname, '../../../thresholds/suites/full.yml'), 'utf8');
  fs.writeFileSync(path.join(thresholds, 'suites', 'full.yml'), full.replace('default: {warn: 0.97, fail: 0.93,', 'default: {warn: 0.000001, fail: 0.000001,').replace('rqps: {warn: 0.98, fail: 0.97}', 'rqps: {warn: 0.000001, fail: 0.000001}'));
  const r = await cli(['merge', 'shard-2', '--out', 'merged', '--allow-partial', '--thresholds', 'thresholds'], dir);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stdout, /^Undecided: shard 1\/2 is missing, 21 of 42 microbenchmarks not measured\. Pass: all 21 comparisons within their limits\.$/m);
  assert.match(r.stdout, /^PARTIAL: shard 1\/2 is missing; not measured: point-query\.pre_range=100, /m);
  const comment = fs.readFileSync(path.join(dir, 'merged', 'comment.md'), 'utf8');
  assert.match(comment, /\*\*Undecided: shard 1\/2 is missing/);
});
