// The report job's verdict from the run folders it downloaded: one folder as it is, shards
// merged and judged with the limits they were measured with (only those whose digest the
// measure job gave), and every way the folders can disagree or be missing named.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { thresholdsDigest } from '../../../action/src/base-thresholds.js';
import { verdictOf } from '../../../action/src/report.js';

const require = createRequire(import.meta.url);
const core = require('@perfgate/core');
const perfgate = require('perfgate');
const RESULTS = fileURLToPath(new URL('../../fixtures/results/tiny-quick.json', import.meta.url));
const BASE = 'b'.repeat(40);
const HEAD = 'a'.repeat(40);
let folder;

before(() => { folder = mkdtempSync(path.join(os.tmpdir(), 'perfgate-report-')); });
after(() => rmSync(folder, { recursive: true, force: true }));

/**
 * A measure job's run folder holding the captured results; with `shard`, the part of them that
 * shard of the plan measures, as compare --shard K/N records it.
 */
function runFolder(name, { shard = null, run = {}, head = HEAD, edit = () => {}, results: measured = (r) => r } = {}) {
  const dir = path.join(folder, name);
  mkdirSync(dir, { recursive: true });
  const results = measured(JSON.parse(readFileSync(RESULTS, 'utf8')));
  // The measure job records the commits it measured (action/src/measure.js).
  for (const [side, sha] of [['base', BASE], ['head', head]]) {
    results.sides[side].commit = sha;
    results.plan.sides[side].commit = sha;
  }
  if (shard) {
    const all = results.plan.benchmarks;
    results.plan.shard = { ...shard, suite_benchmarks: all.map((b) => b.id) };
    results.plan.benchmarks = core.shardOf(all, shard.index, shard.count, 'quick');
  }
  const kept = new Set(results.plan.benchmarks.map((b) => b.id));
  results.benchmarks = results.benchmarks.filter((b) => kept.has(b.id));
  perfgate.writeDocument(path.join(dir, 'results.json'), 'results', results);
  const verdict = core.judge(results, core.findSuite(core.loadThresholds(), 'quick'));
  edit(verdict);
  perfgate.writeReports(dir, verdict);
  perfgate.writeDocument(path.join(dir, 'verdict.json'), 'verdict', verdict);
  perfgate.writeDocument(path.join(dir, 'action-run.json'), 'action-run', {
    schema: 'perfgate.action-run/v1', suite: 'quick', shard, pull_request: 7, base_sha: BASE, head_sha: head, thresholds: null, status: 'judged', message: null, ...run,
  });
  return { name, id: 1, dir };
}

const SETTINGS = { suite: 'quick', shard: null, thresholdsDigest: thresholdsDigest(core.SHIPPED_THRESHOLDS_DIR) };

// The head at half the base's QPS: every row fails with the shipped limits.
function slowHead(results) {
  for (const b of results.benchmarks) {
    const base = b.rounds.filter((x) => x.side === 'base');
    let i = 0;
    for (const x of b.rounds) {
      if (x.side !== 'head') continue;
      const m = base[i++ % base.length];
      Object.assign(x, { qps: m.qps / 2, tps: m.tps / 2, queries: Math.round(m.queries / 2), cpu_per_query_us: m.cpu_per_query_us, cs_per_query: m.cs_per_query });
    }
  }
  return results;
}

// A shard measured with a fork's limits (here the shipped ones, as the base commit has them),
// which the measure job copies into the run folder's thresholds/ for the report job.
function forkShard(index, count) {
  const shard = runFolder(`perfgate-quick-shard-${index}-of-${count}`, {
    shard: { index, count }, results: slowHead,
    run: { thresholds: { commit: BASE, ref: BASE, label: 'base commit', folder: 'perfgate/thresholds' } },
  });
  cpSync(core.SHIPPED_THRESHOLDS_DIR, path.join(shard.dir, 'thresholds'), { recursive: true });
  return shard;
}

describe('verdictOf', () => {
  it('one run folder: its own verdict', () => {
    const one = runFolder('perfgate-quick');
    const { verdict, problem } = verdictOf([one], { settings: SETTINGS, into: folder });
    assert.equal(problem, undefined);
    assert.deepEqual(verdict, JSON.parse(readFileSync(path.join(one.dir, 'verdict.json'), 'utf8')));
  });

  it('two shards: every row of both, judged once, as the whole run judges', () => {
    const shards = [1, 2].map((index) => runFolder(`perfgate-quick-shard-${index}-of-2`, { shard: { index, count: 2 } }));
    const { verdict, dir } = verdictOf(shards, { settings: SETTINGS, into: folder });
    const whole = core.judge(JSON.parse(readFileSync(RESULTS, 'utf8')), core.findSuite(core.loadThresholds(), 'quick'));
    assert.deepEqual(verdict.benchmarks.map((b) => [b.id, b.verdict]).sort(), whole.benchmarks.map((b) => [b.id, b.verdict]).sort());
    assert.equal(verdict.verdict, whole.verdict);
    assert.equal(path.basename(dir), 'perfgate-quick-merged');
    assert.deepEqual(JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')).shards.merged.map((p) => p.index), [1, 2]);
    assert.ok(readFileSync(path.join(dir, 'comment.md'), 'utf8').startsWith('<!-- perfgate:comment suite=quick -->'));
  });

  it('names a missing shard, a shard without a verdict, and folders that disagree', () => {
    const first = runFolder('perfgate-quick-shard-1-of-3', { shard: { index: 1, count: 3 } });
    assert.equal(verdictOf([first], { settings: SETTINGS, into: folder }).problem, 'shards 2, 3 of 3 left no run folder');
    const broken = runFolder('perfgate-quick-shard-2-of-3', { shard: { index: 2, count: 3 }, run: { status: 'error', message: 'the harness exited with code 1 but wrote no results.json' } });
    assert.equal(verdictOf([first, broken], { settings: SETTINGS, into: folder }).problem, 'perfgate-quick-shard-2-of-3: the run has no verdict (error: the harness exited with code 1 but wrote no results.json)');
    const other = runFolder('perfgate-quick-shard-3-of-3', { shard: { index: 3, count: 3 }, head: 'c'.repeat(40) });
    assert.equal(verdictOf([first, other], { settings: SETTINGS, into: folder }).problem, `the run folders disagree: perfgate-quick-shard-3-of-3 has head_sha ${'c'.repeat(40)}, perfgate-quick-shard-1-of-3 has head_sha ${HEAD}`);
  });

  it("names both suites and the artifact when a run folder's verdict is of another suite than the job's input", () => {
    const folders = [runFolder('perfgate-quick', { edit: (verdict) => { verdict.suite = 'full'; } })];
    assert.equal(verdictOf(folders, { settings: SETTINGS, into: folder }).problem, 'perfgate-quick/verdict.json: suite is "full", but input suite is quick');
    const all = [runFolder('perfgate-quick', { run: { suite: 'ahi' } })];
    assert.equal(verdictOf(all, { settings: SETTINGS, into: folder }).problem, 'perfgate-quick/action-run.json: suite is "ahi", but input suite is quick');
  });

  it('checks each run folder against the inputs: the pull request and the head', () => {
    const one = runFolder('perfgate-quick');
    assert.equal(verdictOf([one], { settings: { ...SETTINGS, pullRequest: 8 }, into: folder }).problem, 'perfgate-quick/action-run.json: pull_request is 7, but input pull-request is 8');
    assert.equal(verdictOf([one], { settings: { ...SETTINGS, pullRequest: 7, headSha: 'd'.repeat(40) }, into: folder }).problem, `perfgate-quick/action-run.json: head_sha is ${HEAD}, but input head-sha is ${'d'.repeat(40)}`);
    assert.equal(verdictOf([one], { settings: { ...SETTINGS, pullRequest: 7, headSha: HEAD }, into: folder }).problem, undefined);
  });

  it('refuses a symbolic link or a document that is not JSON in a downloaded folder', () => {
    const linked = runFolder('perfgate-quick');
    rmSync(path.join(linked.dir, 'verdict.json'));
    symlinkSync('/etc/passwd', path.join(linked.dir, 'verdict.json'));
    assert.equal(verdictOf([linked], { settings: SETTINGS, into: folder }).problem, 'perfgate-quick: archive entry "verdict.json" is a symbolic link');
    writeFileSync(path.join(runFolder('perfgate-quick').dir, 'results.json'), '{"schema":');
    assert.equal(verdictOf([{ name: 'perfgate-quick', id: 1, dir: path.join(folder, 'perfgate-quick') }], { settings: SETTINGS, into: folder }).problem, 'perfgate-quick: results.json is not JSON (Unexpected end of JSON input)');
  });

  // The head's server could write the run folder while it was measured: were its limits
  // trusted, it could loosen the gate of the merged run that decides.
  it('merges shards only with the limits whose digest the measure job gave: limits rewritten in a run folder are refused', () => {
    const shards = [forkShard(1, 2), forkShard(2, 2)];
    const settings = { ...SETTINGS, pullRequest: 7, headSha: HEAD };
    const kept = verdictOf(shards, { settings, into: folder });
    assert.equal(kept.problem, undefined);
    assert.equal(kept.verdict.verdict, 'fail');

    const file = path.join(shards[0].dir, 'thresholds', 'suites', 'quick.yml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/default: \{warn: 0\.97, fail: 0\.93.*/, 'default: {warn: 0.02, fail: 0.01, instructions: {warn: 1.9, fail: 2}}'));
    const rewritten = thresholdsDigest(path.join(shards[0].dir, 'thresholds'));
    assert.notEqual(rewritten, SETTINGS.thresholdsDigest, 'the limits were rewritten');
    assert.deepEqual(verdictOf(shards, { settings, into: folder }), {
      problem: `perfgate-quick-shard-1-of-2/thresholds/ holds other limits (digest ${rewritten}) than the measure job read before anything was built (input thresholds-digest ${SETTINGS.thresholdsDigest}): its run folder was changed after they were read`,
      run: null,
    });
  });

  it("does not merge shards without the measure job's digest of its limits", () => {
    const shards = [1, 2].map((index) => runFolder(`perfgate-quick-shard-${index}-of-2`, { shard: { index, count: 2 } }));
    assert.equal(verdictOf(shards, { settings: { ...SETTINGS, thresholdsDigest: null }, into: folder }).problem,
      "input thresholds-digest is empty; expected the measure job's output thresholds-digest, the digest of the limits it read before anything was built, without which shards are not merged");
    const [first, second] = [forkShard(1, 2), forkShard(2, 2)];
    rmSync(path.join(first.dir, 'thresholds'), { recursive: true });
    assert.equal(verdictOf([first, second], { settings: SETTINGS, into: folder }).problem,
      'the limits the shards were measured with cannot be read (perfgate-quick-shard-1-of-2/thresholds/: ENOENT)');
  });
});
