'use strict';
// Shards of one comparison merged by the one mergeResults and judged by the one judge, on real
// shard results: the full suite in two shards (perfgate compare --suite full --shard K/2) of
// MariaDB 10.11.18 against 10.11.19 at 2 tables × 1,000 rows, 2 rounds of 1 s.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { mergeResults } = require('../../../core/src/merge-results');
const { judge } = require('../../../core/src/verdict');
const { schemaProblem } = require('../../../core/src/schemas');
const { readVerdict } = require('../../../core/src/verdict-versions');
const { loadThresholds } = require('../../../core/src/config/thresholds');
const { UsageError } = require('../../../core/src/errors');
const { renderComment, renderSummary, renderReport, renderVerdictTable } = require('../../../core/src/render');

const SHARDS = path.join(__dirname, '../../fixtures/results/full-shards-tiny');
const full = loadThresholds().suites.full;

// A shard's results as perfgate merge reads them: named by the folder they came from.
function shard(k, change = (d) => d, folder = `runs/shard-${k}`) {
  const doc = change(JSON.parse(fs.readFileSync(path.join(SHARDS, `shard-${k}`, 'results.json'), 'utf8')));
  Object.defineProperty(doc, '__file', { value: folder, enumerable: false });
  return doc;
}
const merge = (docs, options = {}) => mergeResults(docs, { shards: true, ...options });
const refused = (docs, message, options) => assert.throws(() => merge(docs, options), (err) => {
  assert.ok(err instanceof UsageError, err.stack);
  assert.equal(err.message, message);
  return true;
});

test('the fixtures are two real shards of the full suite', () => {
  const [a, b] = [shard(1), shard(2)];
  assert.deepEqual([a.plan.shard.index, b.plan.shard.index, a.plan.shard.count], [1, 2, 2]);
  assert.deepEqual(a.plan.shard.suite_benchmarks, full.benchmarks);
  assert.equal(a.benchmarks.length + b.benchmarks.length, 42);
  assert.equal(a.status, 'ok');
  assert.equal(b.status, 'ok');
});

test('merged: every microbenchmark once in the suite order, every round kept, shards recorded', () => {
  const [a, b] = [shard(1), shard(2)];
  const merged = merge([b, a]);
  assert.equal(schemaProblem('results', merged), null);
  assert.deepEqual(merged.benchmarks.map((x) => x.id), full.benchmarks);
  assert.deepEqual(merged.plan.benchmarks.map((x) => x.id), full.benchmarks);
  assert.equal(merged.plan.shard, undefined);
  assert.equal(schemaProblem('plan', merged.plan), null);
  const rounds = (docs) => docs.flatMap((d) => d.benchmarks).reduce((n, x) => n + x.rounds.length, 0);
  assert.equal(rounds([merged]), rounds([a, b]));
  assert.equal(merged.status, 'ok');
  assert.equal(merged.started, [a.started, b.started].sort()[0]);
  assert.equal(merged.finished, [a.finished, b.finished].sort()[1]);
  assert.deepEqual(merged.shards, {
    count: 2,
    benchmarks_in_suite: 42,
    merged: [
      { index: 1, folder: 'runs/shard-1', benchmarks: 21, machine_id: a.machine.id, hostname: a.machine.hostname, started: a.started, finished: a.finished },
      { index: 2, folder: 'runs/shard-2', benchmarks: 21, machine_id: b.machine.id, hostname: b.machine.hostname, started: b.started, finished: b.finished },
    ],
    missing: [],
    not_measured: [],
  });
  // the order the folders are given in does not matter
  assert.deepEqual(merge([a, b]), merged);
});

test('the merged verdict: 42 rows judged as one run, .pre rows beside their twins in every report', () => {
  const verdict = judge(merge([shard(1), shard(2)]), full);
  assert.equal(schemaProblem('verdict', verdict), null);
  assert.equal(verdict.benchmarks.length, 42);
  assert.equal(Object.values(verdict.counts).reduce((n, c) => n + c, 0), 42);
  assert.equal(verdict.run.shards.count, 2);
  assert.equal(verdict.run.shard, undefined);
  assert.doesNotMatch(verdict.headline, /Partial/);
  const pairs = [['point-query.pre_range=100', 'point-query_range=100'], ['read-only.pre_range=10000', 'read-only_range=10000'], ['range-notcovered-si.pre_range=100', 'range-notcovered-si_range=100']];
  const rowsOf = (text, pattern) => text.split('\n').map((line) => (pattern.exec(line) || [])[1]).filter(Boolean);
  const outputs = {
    comment: rowsOf(renderComment(verdict), /^\| \S+ \| ([^ |]+_range=\d+) \|/),
    summary: rowsOf(renderSummary(verdict), /^\| \S+ \| ([^ |]+_range=\d+) \|/),
    html: rowsOf(renderReport(verdict), /<tr class="\w+"><td class="mark">\w+<\/td><td>([^<]+)<\/td>/),
    terminal: rowsOf(renderVerdictTable(verdict), /^([a-z][^ ]*_range=\d+) /),
  };
  for (const [name, rows] of Object.entries(outputs)) {
    assert.equal(rows.length, 42, name);
    for (const [pre, post] of pairs) assert.equal(rows.indexOf(post), rows.indexOf(pre) + 1, `${name}: ${pre} then ${post}`);
    // grouped as the posts: point rows, then range rows, then the writes
    assert.deepEqual([rows[0], rows[1]], ['point-query.pre_range=100', 'point-query_range=100'], name);
    assert.deepEqual(rows.slice(-2), ['delete_range=100', 'insert_range=100'], name);
  }
  for (const text of [renderComment(verdict), renderSummary(verdict), renderVerdictTable(verdict), renderReport(verdict)]) {
    assert.ok(text.includes('Rows named .pre ran on freshly loaded tables, before the writes; the row after each, the same name without .pre, ran after the writes.'));
    assert.ok(text.includes('Merged from 2 of 2 shards on 1 runner (vm), each on tables loaded for that shard: 1/2 from runs/shard-1, 2/2 from runs/shard-2.'));
  }
});

test('one shard judged alone says which part of the suite it is', () => {
  const verdict = judge(shard(2), full);
  assert.equal(schemaProblem('verdict', verdict), null);
  assert.deepEqual(verdict.run.shard, { index: 2, count: 2, benchmarks_in_suite: 42 });
  assert.match(renderComment(verdict), /Shard 2 of 2: 21 of the suite's 42 microbenchmarks, on tables loaded for this shard; perfgate merge joins the shards into one report\./);
});

test('refused, one line naming the folder, the key and both values', () => {
  const other = (k, change) => shard(k, change);
  refused([shard(1), other(2, (d) => { d.sides.head.commit = 'abc123'; return d; })],
    "runs/shard-2: key 'sides.head' is 10.11.19-MariaDB-0+deb12u1 @ abc123 but runs/shard-1 has 10.11.19-MariaDB-0+deb12u1: not the same head server");
  refused([shard(1), other(2, (d) => { d.sides.base.version = '10.11.17-MariaDB'; return d; })],
    "runs/shard-2: key 'sides.base' is 10.11.17-MariaDB but runs/shard-1 has 10.11.18-MariaDB-0+deb12u1: not the same base server");
  refused([shard(1), other(2, (d) => { d.plan.suite = 'quick'; return d; })],
    "runs/shard-2: key 'plan.suite' is \"quick\" but runs/shard-1 has \"full\": different suites cannot be judged together");
  refused([shard(1), other(2, (d) => { d.machine.hardware_class = '16c-64g'; d.machine.id = 'other'; return d; })],
    "runs/shard-2: key 'machine.hardware_class' is \"16c-64g\" but runs/shard-1 has \"2c-24g\": timings from different machine classes are not comparable (pass --allow-different-machines to merge them anyway)");
  refused([shard(1), other(2, (d) => { d.plan.shard.count = 3; return d; })],
    "runs/shard-2: key 'plan.shard.count' is 3 but runs/shard-1 has 2: shards of different splits cannot be merged");
  refused([shard(1), shard(1, undefined, 'runs/again')],
    "runs/again: key 'plan.shard.index' is 1 (shard 1/2) but so is runs/shard-1's: the same shard twice");
  refused([shard(1), other(2, (d) => { delete d.plan.shard; return d; })],
    "runs/shard-2: key 'plan.shard' is missing: not the results of one shard (perfgate compare --shard K/N)");
  refused([shard(1), other(2, (d) => { d.plan.scale.rows = 5000; return d; })],
    'runs/shard-2: key \'plan.scale\' is {"tables":2,"rows":5000} but runs/shard-1 has {"tables":2,"rows":1000}: shards of one comparison run at the same scale and timing');
  refused([shard(1), other(2, (d) => { d.plan.shard.suite_benchmarks[3] = 'scan_range=100'; return d; })],
    "runs/shard-2: key 'plan.shard.suite_benchmarks' has 'scan_range=100' at position 4 but runs/shard-1 has 'random-points.pre_range=1000': the shards were split from different suites");
});

test('runners of one machine class may differ; a different class is merged only when allowed', () => {
  const elsewhere = shard(2, (d) => { d.machine.id = 'another-runner'; d.machine.hostname = 'runner-2'; return d; });
  const merged = merge([shard(1), elsewhere]);
  assert.deepEqual(merged.shards.merged.map((p) => p.machine_id), [shard(1).machine.id, 'another-runner']);
  assert.match(renderComment(judge(merged, full)), /Merged from 2 of 2 shards on 2 runners \(vm, runner-2\)/);
  const bigger = shard(2, (d) => { d.machine.hardware_class = '16c-64g'; return d; });
  assert.equal(merge([shard(1), bigger], { allowDifferentMachines: true }).benchmarks.length, 42);
});

test('missing shards: refused with their names, or a report marked partial that is at best undecided', () => {
  refused([shard(2)], 'shard 1/2 is missing (runs/shard-2 is 2/2); pass the folder of every shard, or --allow-partial for a report marked partial');
  const four = (k, index) => shard(k, (d) => { d.plan.shard.count = 4; d.plan.shard.index = index; return d; }, `runs/s${index}`);
  refused([four(1, 1), four(2, 3)], 'shards 2/4 and 4/4 are missing (runs/s1 is 1/4; runs/s3 is 3/4); pass the folder of every shard, or --allow-partial for a report marked partial');

  const merged = merge([shard(2)], { allowPartial: true });
  assert.equal(schemaProblem('results', merged), null);
  assert.deepEqual(merged.shards.missing, [1]);
  assert.deepEqual(merged.shards.not_measured, shard(1).plan.benchmarks.map((b) => b.id));
  // Every measured row passes under limits nothing fails: the merge is still undecided.
  const verdict = judge(merged, { limits: { default: { warn: 1e-6, fail: 1e-6 } } });
  assert.equal(schemaProblem('verdict', verdict), null);
  assert.equal(verdict.counts.pass, 21);
  assert.equal(verdict.verdict, 'undecided');
  assert.equal(verdict.exit_code, 3);
  assert.equal(verdict.headline, 'Undecided: shard 1/2 is missing, 21 of 42 microbenchmarks not measured. Pass: all 21 comparisons within their limits.');
  const comment = renderComment(verdict);
  assert.match(comment, /^### ❔ perfgate full: undecided$/m);
  assert.ok(comment.includes(`PARTIAL: shard 1/2 is missing; not measured: ${merged.shards.not_measured.join(', ')}.`));
  // A fail among the measured rows stays a fail.
  assert.equal(judge(merged, { limits: { default: { warn: 5, fail: 5 } } }).verdict, 'fail');
});

test('a shard whose results lost a row its plan lists makes the merged run an error, not a pass of the rest', () => {
  const lost = shard(2, (d) => ({ ...d, benchmarks: d.benchmarks.slice(1) }));
  const gone = shard(2).benchmarks[0].id;
  const v = judge(merge([shard(1), lost]), full);
  assert.equal(v.verdict, 'error');
  assert.match(v.headline, new RegExp(`the results hold no rounds or windows of 1 planned microbenchmark \\(${gone.replace(/[.=]/g, '\\$&')}\\)`));
});

test('a cancelled shard counts as missing', () => {
  const cancelled = shard(1, (d) => ({ ...d, status: 'cancelled', benchmarks: [], errors: [{ side: null, benchmark: null, step: 'cancelled', message: 'cancelled by SIGTERM; nothing measured counts' }] }));
  refused([cancelled, shard(2)], 'shard 1/2 is missing (runs/shard-2 is 2/2; runs/shard-1 was cancelled); pass the folder of every shard, or --allow-partial for a report marked partial');
  const merged = merge([cancelled, shard(2)], { allowPartial: true });
  assert.deepEqual(merged.shards.missing, [1]);
  assert.deepEqual(merged.errors, []);
  assert.deepEqual(merged.warnings.slice(-1), ['shard 1/2 (runs/shard-1) was cancelled: its microbenchmarks count as missing']);
  // Rows it measured before the cancel are not shown as if the shard had been merged.
  const cancelledWithRows = shard(1, (d) => ({ ...d, status: 'cancelled' }));
  const partial = merge([cancelledWithRows, shard(2)], { allowPartial: true });
  assert.deepEqual(partial.shards.missing, [1]);
  assert.deepEqual(partial.benchmarks.map((b) => b.id), shard(2).benchmarks.map((b) => b.id));
  assert.equal(schemaProblem('results', partial), null);
});

test('a server that failed in one shard makes that shard\'s rows errors, not the other shard\'s', () => {
  const failed = shard(2, (d) => {
    const message = 'base: the server did not start';
    d.status = 'error';
    d.errors = [{ side: 'base', benchmark: null, step: 'start', message }, ...d.benchmarks.map((b) => ({ side: 'base', benchmark: b.id, step: 'skipped', message: `not measured: ${message}` }))];
    d.benchmarks = d.benchmarks.map((b) => ({ ...b, status: 'error', error: { side: 'base', step: 'skipped', message: `not measured: ${message}` }, rounds: [] }));
    return d;
  });
  const merged = merge([shard(1), failed]);
  assert.equal(merged.status, 'error');
  assert.deepEqual(merged.errors[0], { side: 'base', benchmark: null, step: 'start', message: 'shard 2/2: base: the server did not start', shard: 2 });
  const verdict = judge(merged, full);
  assert.equal(verdict.verdict, 'error');
  const byId = new Map(verdict.benchmarks.map((b) => [b.id, b]));
  for (const id of shard(2).plan.benchmarks.map((b) => b.id)) assert.equal(byId.get(id).verdict, 'error', id);
  for (const id of shard(1).plan.benchmarks.map((b) => b.id)) assert.notEqual(byId.get(id).verdict, 'error', id);
  assert.match(verdict.headline, /^Error: no verdict for .*: the measurement failed\.$/);
});

test('comment.md of the 42-row merged verdict: whole within GitHub\'s limit; a tighter limit drops rows, passing ones first, and says so', () => {
  const verdict = judge(merge([shard(1), shard(2)]), full);
  const comment = renderComment(verdict, { reportLink: 'https://github.com/o/r/actions/runs/1/artifacts/2' });
  assert.ok(comment.length <= 65536, `${comment.length} characters`);
  assert.equal(comment.split('\n').filter((l) => /^\| \S+ \| [^ |]+_range=\d+ \|/.test(l)).length, 42);
  assert.doesNotMatch(comment, /rows are left out/);
  // 42 rows take about 9,500 characters: a limit 1,500 below makes some rows go
  const limit = comment.length - 1500;
  const cut = renderComment(verdict, { limit, reportLink: 'the artifact' });
  assert.ok(cut.length <= limit);
  const kept = cut.split('\n').filter((l) => /^\| \S+ \| [^ |]+_range=\d+ \|/.test(l)).length;
  assert.ok(kept > 0 && kept < 42, `${kept} rows kept`);
  assert.match(cut, new RegExp(`_${42 - kept} of 42 rows are left out to fit GitHub's comment size; the full report is the artifact\\._`));
  const severity = { pass: 0, warn: 1, undecided: 2, fail: 3, error: 4 };
  const [shown, dropped] = [verdict.benchmarks.filter((b) => cut.includes(`| ${b.id} |`)), verdict.benchmarks.filter((b) => !cut.includes(`| ${b.id} |`))];
  assert.ok(Math.max(...dropped.map((b) => severity[b.verdict])) <= Math.min(...shown.map((b) => severity[b.verdict])), 'no dropped row is worse than a kept one');
});

test('perfgate judge does not join shards: that is perfgate merge\'s job', () => {
  assert.throws(() => mergeResults([shard(1), shard(2)]), {
    message: "runs/shard-2: key 'plan.shard.index' is 2 but runs/shard-1 has 1: the shards of a suite are joined by perfgate merge",
  });
});

// The verdict of the full suite at its default scale and timing (8 × 250,000 rows, 6 rounds of
// 5 s per side), run as four shards one after another and merged (docs/archive/notebook-2026-11.md).
test('the 42-row verdict of the full suite at its defaults: comment.md whole within GitHub\'s limit', () => {
  // Captured as perfgate.verdict/v1: read as every reader of a stored verdict reads it.
  const read = readVerdict(JSON.parse(fs.readFileSync(path.join(__dirname, '../../fixtures/verdicts/full-4-shards/verdict.json'), 'utf8')));
  assert.equal(read.problem, undefined);
  const { verdict } = read;
  assert.equal(schemaProblem('verdict', verdict), null);
  assert.equal(verdict.benchmarks.length, 42);
  assert.deepEqual(verdict.run.shards.merged.map((p) => p.index), [1, 2, 3, 4]);
  const comment = renderComment(verdict, { reportLink: 'https://github.com/o/r/actions/runs/1/artifacts/2' });
  assert.ok(comment.length <= 65536, `${comment.length} characters`);
  const rows = comment.split('\n').map((l) => (/^\| \S+ \| ([^ |]+_range=\d+) \|/.exec(l) || [])[1]).filter(Boolean);
  assert.deepEqual([...rows].sort(), [...full.benchmarks].sort());
  for (const name of full.benchmarks.filter((n) => n.includes('.pre_'))) assert.equal(rows[rows.indexOf(name) + 1], name.replace('.pre_', '_'));
  assert.doesNotMatch(comment, /rows are left out/);
});
