'use strict';
// Watching main: the regression issue rendered from real captured results, and the decisions
// (confirm, file, noise, sighting, close) taken after each judged main commit.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const core = require('@perfgate/core');

const { REPO, GOOD, BAD, NEXT, LIMITS, regressed, aa, aaRun } = require('../../support/watch-runs');

test('the issue of a regression renders from a real run with every field filled', () => {
  const dedupeKey = core.dedupeKey({ repo: REPO, benchKey: 'point-query', signal: 'instructions_per_query', firstBad: BAD });
  const { title, body } = core.regressionIssue({
    verdict: regressed(), benchmarkId: 'point-query', signal: 'instructions_per_query', repo: REPO,
    lastGood: GOOD, firstBad: BAD, dedupeKey, confirmation: { remeasured: 'instr/o 1.089 [1.071, 1.106]' },
  });
  assert.equal(title, 'point-query: 1.088× instructions per query since abc1234');
  assert.ok(body.startsWith(`<!-- perfgate:regression ${dedupeKey} -->\n`));
  for (const section of ['### Measurement', '### Where the instructions went', '### Commit range', '### Server options', '### Machine', '### Reproduce by hand']) {
    assert.ok(body.includes(`\n${section}\n`), `missing ${section}`);
  }
  // The table with intervals, cpu/o, cs/o and instr/o, the grown functions, the range, the options that differ.
  assert.match(body, /\| ❌ \| point-query \| 0\.85 \| 0\.52–1\.37 \| 1\.088 \| 1\.071–1\.106 \| 1\.15 \| 1\.05 \| 0\.17 \| 0\.31 \| 1\.83 \| 3 \|/);
  assert.match(body, /\| `handler::ha_index_read_idx_map\(/);
  assert.ok(body.includes(`git log --first-parent --oneline ${GOOD}..${BAD}`));
  assert.ok(body.includes(`perfgate bisect --source <checkout> --good ${GOOD} --bad ${BAD} --tests point-query`));
  assert.match(body, /\| \*\*performance_schema\*\* \| OFF \| ON \|/);
  assert.match(body, /- fingerprint: `ce1c063cdb6b2b21`/);
  assert.match(body, /```sh\n# load the tables[^\n]*\nsysbench oltp_point_select [^\n]* prepare\n/);
  // No empty field and no placeholder anywhere: no empty or dash-only table cell, nothing unset.
  // (Header rows are left out: the status column's heading is blank on purpose.)
  const lines = body.split('\n');
  const separator = (l) => /^\|[:\-| ]+\|$/.test(l || '');
  const cells = lines.filter((l, n) => l.startsWith('|') && !separator(l) && !separator(lines[n + 1]))
    .flatMap((l) => l.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim()));
  assert.deepEqual(cells.filter((c) => c === '' || c === '–' || c === '-'), [], 'an empty or placeholder cell');
  assert.doesNotMatch(body, /undefined|null|NaN|\[object|\{\{|TODO|\?\s×/);
  assert.ok(body.length < core.GITHUB_COMMENT_LIMIT);
});

test('an issue is refused without a confirmation, for an unknown signal or microbenchmark', () => {
  const base = { verdict: regressed(), benchmarkId: 'point-query', signal: 'instructions_per_query', repo: REPO, lastGood: GOOD, firstBad: BAD, dedupeKey: 'k' };
  assert.throws(() => core.regressionIssue({ ...base, confirmation: {} }), /filed only when confirmed/);
  assert.throws(() => core.regressionIssue({ ...base, signal: 'qps', confirmation: { changePoint: 'x' } }), /unknown signal "qps": expected one of rqps, instructions_per_query/);
  assert.throws(() => core.regressionIssue({ ...base, benchmarkId: 'nope', confirmation: { changePoint: 'x' } }), /has no microbenchmark 'nope'/);
});

test('follow-up comments name the commits', () => {
  const at = { benchmarkId: 'point-query', signal: 'instructions_per_query', base: GOOD };
  assert.equal(core.sightingComment({ ...at, verdict: regressed(), head: NEXT, sightings: 2 }),
    `Seen again (sighting 2) at ${NEXT} against ${GOOD}: instr/o 1.088 [1.071, 1.106]. 9% more instructions per query: instr/o 1.088 [1.071, 1.106] lies wholly above the fail limit 1.04; rQPS 0.85 [0.52, 1.37] reaches below the fail limit 0.93 after 3 pairs.\n`);
  assert.equal(core.recoveryComment({ ...at, verdict: aa(), head: NEXT }),
    `Back within limits at ${NEXT} (instr/o 1.001 [0.999, 1.002] against ${GOOD}): fixed by ${NEXT}. Closing.\n`);
});

test('the dedupe key is readable, and a digest when it would not fit the column', () => {
  assert.equal(core.dedupeKey({ repo: REPO, benchKey: 'point-query', signal: 'rqps', firstBad: BAD }), `${REPO}:point-query:rqps@${BAD}`);
  const long = core.dedupeKey({ repo: REPO, benchKey: 'x'.repeat(200), signal: 'rqps', firstBad: BAD });
  assert.match(long, /^sha256:[0-9a-f]{64}$/);
  assert.throws(() => core.dedupeKey({ repo: REPO, benchKey: '', signal: 'rqps', firstBad: BAD }), /'benchKey' must be a non-empty string, got ""/);
});

const instr = (actions) => actions.filter((a) => a.signal === 'instructions_per_query');

test('a fail is re-measured first; confirmed it files, unconfirmed it is noise; a change point confirms it alone', () => {
  const run = { repo: REPO, base: GOOD, head: BAD, verdict: regressed() };
  assert.deepEqual(instr(core.watchDecisions(run)), [
    { action: 'confirm', benchKey: 'point-query', signal: 'instructions_per_query' },
    { action: 'confirm', benchKey: 'update-index_range=100', signal: 'instructions_per_query' },
  ]);
  const filed = instr(core.watchDecisions({ ...run, confirmation: regressed() }));
  assert.deepEqual(filed.map((a) => [a.action, a.benchKey, a.confirmation.remeasured]), [
    ['file', 'point-query', 'instr/o 1.088 [1.071, 1.106]'], ['file', 'update-index_range=100', 'instr/o 1.049 [1.043, 1.055]']]);
  const noise = instr(core.watchDecisions({ ...run, confirmation: aa() }));
  assert.deepEqual(noise.map((a) => a.action), ['noise', 'noise']);
  assert.equal(noise[0].reason, `not confirmed: instr/o 1.088 [1.071, 1.106] at ${BAD} against ${GOOD} was not reproduced by the re-measurement (instr/o 1.001 [0.999, 1.002], pass), and no change point is there`);
  const byPoint = instr(core.watchDecisions({ ...run, confirmation: aa(), changePoints: [{ benchKey: 'point-query', signal: 'instructions_per_query', sha: BAD, description: 'E-Divisive' }] }));
  assert.deepEqual(byPoint.map((a) => a.action), ['file', 'noise']);
  assert.deepEqual(byPoint[0].confirmation, { changePoint: 'E-Divisive' });
  // Decided once: a key the history holds is not decided again.
  assert.deepEqual(instr(core.watchDecisions({ ...run, confirmation: regressed(), recorded: filed.map((a) => a.dedupeKey) })), []);
});

test('an open regression gets a sighting while it fails and is closed by the first commit within limits', () => {
  const open = [{ dedupeKey: 'K', benchKey: 'point-query', signal: 'instructions_per_query', lastGood: GOOD, lastSeen: BAD }];
  const still = { repo: REPO, base: GOOD, verdict: regressed(), open };
  assert.deepEqual(instr(core.watchDecisions({ ...still, head: BAD })).filter((a) => a.benchKey === 'point-query'), []);
  assert.deepEqual(instr(core.watchDecisions({ ...still, head: NEXT })).filter((a) => a.benchKey === 'point-query'),
    [{ action: 'sighting', benchKey: 'point-query', signal: 'instructions_per_query', dedupeKey: 'K' }]);
  assert.deepEqual(instr(core.watchDecisions({ repo: REPO, base: GOOD, head: NEXT, verdict: aa(), open })),
    [{ action: 'close', benchKey: 'point-query', signal: 'instructions_per_query', dedupeKey: 'K', fixedBy: NEXT }]);
  // A run against another base (two commits after the regression compare equal) says nothing.
  assert.deepEqual(instr(core.watchDecisions({ repo: REPO, base: BAD, head: NEXT, verdict: aa(), open })), []);
});

test('a run whose head server failed neither closes nor files a regression', () => {
  // The real A/A run, with the head server crashing after its rounds: the run is an error, and
  // rows that would have passed must not read as "back within limits".
  const results = JSON.parse(JSON.stringify(aaRun().results));
  results.status = 'error';
  results.errors = [{ side: 'head', benchmark: null, step: 'run', message: 'head: server exited (signal 11)' }];
  const verdict = core.judge(results, LIMITS);
  assert.equal(verdict.verdict, 'error');
  assert.ok(verdict.benchmarks.every((b) => b.time_verdict === null && !('instructions_verdict' in b)));
  assert.equal(core.schemaProblem('verdict', verdict), null);
  const open = [{ dedupeKey: 'K', benchKey: 'point-query', signal: 'instructions_per_query', lastGood: GOOD, lastSeen: BAD }];
  assert.deepEqual(core.watchDecisions({ repo: REPO, base: GOOD, head: NEXT, verdict, open }), []);
  // A row's own error does the same, whatever its signals read.
  const row = { ...aa().benchmarks.find((b) => b.id === 'point-query'), verdict: 'error' };
  assert.deepEqual(core.watchDecisions({ repo: REPO, base: GOOD, head: NEXT, verdict: { ...aa(), benchmarks: [row] }, open }), []);
});
