'use strict';
// The release sign-off's decision and report, on real merged verdicts of the full suite:
// test/fixtures/verdicts/full-4-shards (the shipped full suite in four shards, 10.11.18 against
// 10.11.19) and, when present, test/fixtures/verdicts/signoff-10.11.18-10.11.19 (the sign-off
// run measured for docs/archive/notebook-2026-11.md).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const core = require('../../../core');
const { signoffDecision, SIGNOFF_CONTEXT, STATUS_DESCRIPTION_LIMIT } = require('../../../core/src/signoff');
const { renderSignoff } = require('../../../core/src/render/signoff');
const { readVerdict } = require('../../../core/src/verdict-versions');

const FIXTURES = path.join(__dirname, '../../fixtures/verdicts');
// Captured verdicts of real runs, written as perfgate.verdict/v1: read as every reader reads them.
const fixtureVerdict = (name) => readVerdict(JSON.parse(fs.readFileSync(path.join(FIXTURES, name, 'verdict.json'), 'utf8'))).verdict;
const FULL = fixtureVerdict('full-4-shards');
const NAMES = FULL.benchmarks.map((b) => b.name);
const SIDES = { candidate: { ref: 'mariadb-10.11.19', sha: 'a'.repeat(40) }, previous: { ref: 'mariadb-10.11.18', sha: 'b'.repeat(40) } };

// The captured verdict with some rows' verdicts set: the rest keep their measured numbers, and
// the run's verdict is their worst, as judge makes it.
const ORDER = ['pass', 'warn', 'undecided', 'fail', 'error'];
function withVerdicts(verdict, set) {
  const copy = structuredClone(verdict);
  for (const b of copy.benchmarks) if (Object.hasOwn(set, b.name)) b.verdict = set[b.name];
  copy.verdict = ORDER[Math.max(...copy.benchmarks.map((b) => ORDER.indexOf(b.verdict)))];
  return copy;
}
const allPass = () => withVerdicts(FULL, Object.fromEntries(NAMES.map((n) => [n, 'pass'])));
const waiver = (microbenchmark, reason = 'known: the new default costs this', author = 'alice') => ({ microbenchmark, reason, author, createdAt: Date.UTC(2026, 10, 23, 17) });

test('the shipped full suite is 42 microbenchmarks in the posts\' groups', () => {
  assert.equal(FULL.benchmarks.length, 42);
  assert.deepEqual([...new Set(FULL.benchmarks.map((b) => b.group))].sort(), ['point', 'range', 'write']);
});

test('success only when every microbenchmark passes or warns', () => {
  const d = signoffDecision({ verdict: allPass() });
  assert.equal(d.state, 'success');
  assert.equal(d.description, 'All 42 microbenchmarks within limits');
  const warned = signoffDecision({ verdict: withVerdicts(allPass(), { 'scan_range=100': 'warn' }) });
  assert.equal(warned.state, 'success');
});

test('one failing microbenchmark is a failure that names it', () => {
  const d = signoffDecision({ verdict: withVerdicts(allPass(), { 'update-index_range=100': 'fail' }) });
  assert.equal(d.state, 'failure');
  assert.equal(d.description, '1 of 42 not within limits (update-index_range=100 fail)');
  assert.deepEqual(d.blocking, [{ id: 'update-index_range=100', verdict: 'fail' }]);
});

test('undecided is not within limits: the captured full run fails the sign-off', () => {
  const d = signoffDecision({ verdict: FULL });
  assert.equal(d.state, 'failure');
  assert.equal(d.blocking.length, FULL.counts.undecided + FULL.counts.fail);
  assert.equal(d.within.length, FULL.counts.pass + FULL.counts.warn);
  assert.ok(d.description.length <= STATUS_DESCRIPTION_LIMIT, d.description);
  assert.match(d.description, /^37 of 42 not within limits \(point-query\.pre_range=100 undecided, random-points\.pre_range=10 undecided and 35 more\)$/);
});

test('a waived failure makes it a success, and the description says so', () => {
  const failing = withVerdicts(allPass(), { 'update-index_range=100': 'fail' });
  const d = signoffDecision({ verdict: failing, waivers: [waiver('update-index_range=100')] });
  assert.equal(d.state, 'success');
  assert.equal(d.description, 'All 42 microbenchmarks within limits, 1 waived');
  assert.deepEqual(d.waived, ['update-index_range=100']);
  // Every blocking row of the captured run waived: success.
  const all = signoffDecision({ verdict: FULL, waivers: signoffDecision({ verdict: FULL }).blocking.map((b) => waiver(b.id)) });
  assert.equal(all.state, 'success');
  assert.equal(all.waived.length, 37);
});

test('a waiver of another microbenchmark does not help, and is reported as unknown when not in the run', () => {
  const failing = withVerdicts(allPass(), { 'update-index_range=100': 'fail' });
  const d = signoffDecision({ verdict: failing, waivers: [waiver('scan_range=100'), waiver('no-such_range=1')] });
  assert.equal(d.state, 'failure');
  assert.deepEqual(d.unknownWaivers, ['no-such_range=1']);
});

test('error: a run that failed, a microbenchmark that errored, a merge with shards missing', () => {
  const failed = signoffDecision({ verdict: null, runFailed: 'the run ended failure (its artifact perfgate-full-shard-2-of-4 has no verdict.json)' });
  assert.equal(failed.state, 'error');
  assert.ok(failed.description.startsWith('The sign-off run failed: the run ended failure'));
  assert.ok(failed.description.length <= STATUS_DESCRIPTION_LIMIT);
  assert.equal(signoffDecision({ verdict: null }).state, 'error');
  const errored = signoffDecision({ verdict: withVerdicts(allPass(), { 'insert_range=100': 'error' }) });
  assert.equal(errored.state, 'error');
  assert.equal(errored.description, '1 microbenchmark failed to run: insert_range=100');
  const partial = allPass();
  partial.run.shards = { ...partial.run.shards, missing: [3], not_measured: ['scan_range=100', 'delete_range=100'] };
  const p = signoffDecision({ verdict: partial });
  assert.equal(p.state, 'error');
  assert.equal(p.description, 'Partial run: 2 microbenchmarks not measured (scan_range=100, delete_range=100)');
});

test('a run verdict of error with every row within limits is an error, never a success', () => {
  // The harness failed after the rounds: the rows read pass, the run does not.
  const broken = allPass();
  broken.verdict = 'error';
  broken.errors = ['internal: harness fault after the rounds'];
  const d = signoffDecision({ verdict: broken });
  assert.equal(d.state, 'error');
  assert.equal(d.description, 'The sign-off run has errors: internal: harness fault after the rounds');
  // Any run verdict beyond the limits that no row explains is not signed off either.
  const odd = allPass();
  odd.verdict = 'fail';
  assert.equal(signoffDecision({ verdict: odd }).state, 'error');
});

test('an AHI gain cell beyond its limits blocks the sign-off like a row, and can be waived by its name', () => {
  const withAhi = allPass();
  withAhi.verdict = 'fail';
  withAhi.ahi = [{ id: 'point-select@4:ahi-gain', name: 'point-select', threads: 4, verdict: 'fail' }];
  const d = signoffDecision({ verdict: withAhi });
  assert.equal(d.state, 'failure');
  assert.deepEqual(d.blocking, [{ id: 'point-select (4 threads) AHI gain', verdict: 'fail' }]);
  const w = signoffDecision({ verdict: withAhi, waivers: [waiver('point-select (4 threads) AHI gain')] });
  assert.equal(w.state, 'success');
});

test('signoff.md: the decision, every row once under the posts\' groups, charts, the waivers', () => {
  const failing = withVerdicts(FULL, { 'update-index_range=100': 'fail' });
  const { decision, files } = renderSignoff(failing, { ...SIDES, waivers: [waiver('update-inlist_range=100', 'a | pipe\nand a newline', 'bob')], runUrl: 'https://github.com/o/r/actions/runs/7' });
  const md = files['signoff.md'];
  assert.equal(decision.state, 'failure');
  assert.ok(md.startsWith('<!-- perfgate:signoff -->\n## ❌ Release sign-off: `mariadb-10.11.19` against `mariadb-10.11.18` — failure\n'), md.slice(0, 200));
  assert.ok(md.includes(`Commit status \`${SIGNOFF_CONTEXT}\` on the candidate: \`failure\``));
  const headings = md.split('\n').filter((l) => l.startsWith('### ')).map((l) => l.slice(4));
  assert.deepEqual(headings, [
    'Point queries, before the writes (.pre)', 'Point queries, after the writes',
    'Range queries, before the writes (.pre)', 'Range queries, after the writes',
    'Writes', 'Waivers', 'Decision',
  ]);
  for (const name of NAMES) {
    assert.equal(md.split('\n').filter((l) => l.startsWith('| ') && l.includes(` | ${name} | `)).length, 1, name);
  }
  assert.equal((md.match(/```mermaid/g) || []).length, 5);
  assert.match(md, /\| 🏳️ ❔ \| update-inlist_range=100 \| 0\.73 \| [0-9.]+–[0-9.]+ \| [0-9.]+ \| [0-9.]+ \| 6 \| undecided, waived \|/);
  assert.ok(md.includes('| update-inlist_range=100 | undecided | @bob | a \\| pipe and a newline | 2026-11-23 17:00 |'));
  assert.ok(md.includes('`update-index_range=100` (fail)'));
  assert.ok(md.length < core.GITHUB_COMMENT_LIMIT, `${md.length} characters`);
  // The captured run measured Debian's installed servers: the report says so.
  assert.ok(md.includes('\nMeasured installed servers, not builds of the pinned commits: candidate 10.11.19-MariaDB-0+deb12u1 from /root/.cache/perfgate/servers/mariadb-10.11.19/usr, previous 10.11.18-MariaDB-0+deb12u1 from /root/.cache/perfgate/servers/mariadb-10.11.18/usr.\n'));
  const built = structuredClone(failing);
  built.run.sides.head.commit = 'a'.repeat(40);
  built.run.sides.base.commit = 'b'.repeat(40);
  assert.ok(!renderSignoff(built, SIDES).files['signoff.md'].includes('Measured installed servers'));
});

test('signoff.html: self-contained, one inline SVG chart per section, waivers listed, decision', () => {
  const { files } = renderSignoff(FULL, { ...SIDES, waivers: [waiver('scan_range=100', '<script>alert(1)</script>')] });
  const html = files['signoff.html'];
  assert.ok(html.startsWith('<!doctype html>'));
  assert.equal((html.match(/<svg /g) || []).length, 5);
  assert.ok(!/(src|href)="https?:/.test(html), 'no external requests');
  assert.ok(!html.includes('<script>'));
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  assert.ok(html.includes('data-state="failure"'));
  for (const name of NAMES) assert.ok(html.includes(`data-benchmark="${name}"`), name);
});

test('a run with no verdict still gets a report that says why', () => {
  const { decision, files } = renderSignoff(null, { ...SIDES, runFailed: 'the run uploaded no run folder' });
  assert.equal(decision.state, 'error');
  assert.ok(files['signoff.md'].includes('The sign-off run failed: the run uploaded no run folder'));
  assert.ok(files['signoff.html'].includes('data-state="error"'));
});

test('the core entry point exports the sign-off', () => {
  assert.equal(core.signoffDecision, signoffDecision);
  assert.equal(core.renderSignoff, renderSignoff);
});

// The sign-off run measured for docs/archive/notebook-2026-11.md: previous Debian 10.11.18, candidate
// 10.11.19, the full suite (time and instructions) in four shards, merged.
test('the measured sign-off run: every microbenchmark reported once, the decision from its verdicts', () => {
  const verdict = fixtureVerdict('signoff-10.11.18-10.11.19');
  assert.equal(verdict.benchmarks.length, 42);
  const { decision, files } = renderSignoff(verdict, SIDES);
  const blocking = verdict.benchmarks.filter((b) => !['pass', 'warn'].includes(b.verdict));
  assert.deepEqual(decision.blocking.map((b) => b.id), blocking.map((b) => b.name));
  assert.equal(decision.state, blocking.some((b) => b.verdict === 'error') ? 'error' : blocking.length ? 'failure' : 'success');
  for (const b of verdict.benchmarks) assert.equal(files['signoff.md'].split('\n').filter((l) => l.includes(` | ${b.name} | `)).length, 1, b.name);
  assert.ok(files['signoff.md'].length < core.GITHUB_COMMENT_LIMIT);
});

// A sign-off of several suites: the full suite beside real verdicts of the DDL suite (the e2e
// fork's slower index build, 7 Dec) and of TPC-C (an A/A run, 6 Dec, judged here).
const DDL = fixtureVerdict('ddl-quick-slow-index');
const TPCC = core.judge(JSON.parse(fs.readFileSync(path.join(__dirname, '../../fixtures/signoff/tpcc-aa-results.json'), 'utf8')), core.findSuite(core.loadThresholds(), 'tpcc'));
const suitesOf = (full, ddl = DDL, tpcc = TPCC) => [{ suite: 'full', verdict: full }, { suite: 'ddl-quick', verdict: ddl }, { suite: 'tpcc', verdict: tpcc }];

test('several suites: every row of every suite and each suite as a whole decide, each named as it is waived', () => {
  const d = signoffDecision({ suites: suitesOf(allPass()) });
  assert.equal(d.state, 'failure');
  const ddlBlocking = DDL.benchmarks.filter((b) => !['pass', 'warn'].includes(b.verdict)).map((b) => b.name);
  assert.deepEqual(d.blocking.map((b) => b.id), [...ddlBlocking, 'ddl-quick-suite', 'tpcc']);
  assert.ok(d.description.startsWith(`${ddlBlocking.length + 1} of 50 not within limits, a suite as a whole not within limits (`), d.description);
  // Waiving each blocking item signs it off; the count is of rows, not of suite-wide entries.
  const all = signoffDecision({ suites: suitesOf(allPass()), waivers: d.blocking.map((b) => waiver(b.id)) });
  assert.equal(all.state, 'success');
  assert.equal(all.description, `All 50 microbenchmarks within limits, ${d.blocking.length} waived`);
  // Without the suite-wide waiver the DDL suite as a whole still blocks.
  const rowsOnly = signoffDecision({ suites: suitesOf(allPass()), waivers: d.blocking.filter((b) => b.id !== 'ddl-quick-suite').map((b) => waiver(b.id)) });
  assert.equal(rowsOnly.state, 'failure');
  assert.match(rowsOnly.description, /^a suite as a whole not within limits \(ddl-quick-suite fail\)/);
});

test('several suites: one that left no verdict, or errored, makes the sign-off an error naming it', () => {
  const missing = signoffDecision({ suites: [{ suite: 'full', verdict: allPass() }, { suite: 'tpcc', verdict: null, problem: 'the run uploaded no run folder perfgate-signoff-tpcc' }] });
  assert.equal(missing.state, 'error');
  assert.equal(missing.description, 'the tpcc suite left no verdict: the run uploaded no run folder perfgate-signoff-tpcc');
  const broken = structuredClone(TPCC);
  broken.benchmarks[0].verdict = 'error';
  const errored = signoffDecision({ suites: suitesOf(allPass(), DDL, broken), waivers: DDL.benchmarks.map((b) => waiver(b.name)) });
  assert.equal(errored.state, 'error');
  assert.equal(errored.description, 'tpcc: 1 microbenchmark failed to run: tpcc');
  // A failing suite does not hide another's error: errors decide first.
  assert.equal(signoffDecision({ suites: suitesOf(withVerdicts(allPass(), { 'insert_range=100': 'fail' }), DDL, broken) }).state, 'error');
});

test('the full suite as a whole beyond its limits with every row within them fails the sign-off, not an error', () => {
  const wide = allPass();
  wide.verdict = 'fail';
  wide.suite_wide = { limits: {}, entries: [{ id: 'write rows', group: 'write', rows: [], verdict: 'fail' }], left_out: [], notes: [] };
  const d = signoffDecision({ verdict: wide });
  assert.equal(d.state, 'failure');
  assert.deepEqual(d.blocking, [{ id: 'full-suite.write', verdict: 'fail' }]);
  assert.equal(signoffDecision({ verdict: wide, waivers: [waiver('full-suite.write')] }).state, 'success');
});

test('signoff.md and .html of several suites: each suite\'s rows once under its name, its suite-wide table, a suite without verdict said', () => {
  const parts = suitesOf(allPass());
  const { decision, files } = renderSignoff(parts, SIDES);
  const md = files['signoff.md'];
  assert.equal(decision.state, 'failure');
  assert.match(md, /· suites `full`, `ddl-quick`, `tpcc`/);
  const headings = md.split('\n').filter((l) => l.startsWith('### ')).map((l) => l.slice(4));
  assert.ok(headings.includes('full: Writes'), headings.join(' / '));
  assert.ok(headings.includes('ddl-quick: the suite as a whole'), headings.join(' / '));
  assert.ok(headings.some((h) => h.startsWith('tpcc: ')), headings.join(' / '));
  for (const b of [...NAMES, ...DDL.benchmarks.map((x) => x.name), 'tpcc']) {
    assert.equal(md.split('\n').filter((l) => l.startsWith('| ') && l.includes(` | ${b} | `)).length, 1, b);
  }
  assert.match(md, /\| ❌ \| ddl-quick-suite \| /);
  assert.ok(md.length < core.GITHUB_COMMENT_LIMIT, `${md.length} characters`);
  const html = files['signoff.html'];
  for (const b of DDL.benchmarks) assert.ok(html.includes(`data-benchmark="${b.name}"`), b.name);
  assert.ok(!html.includes('class=""'), 'every row\'s class attribute is well formed');
  const without = renderSignoff([{ suite: 'full', verdict: allPass() }, { suite: 'tpcc', verdict: null, problem: 'its measure job failed' }], SIDES);
  assert.equal(without.decision.state, 'error');
  assert.match(without.files['signoff.md'], /### tpcc\n\nNo verdict: its measure job failed\./);
  assert.match(without.files['signoff.html'], /<h2 data-suite="tpcc">tpcc<\/h2><p>No verdict: its measure job failed\.<\/p>/);
});
