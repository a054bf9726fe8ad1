'use strict';
// A row's cause: the findings of every kind of evidence, the one that leads, its line, and the
// verdict with causes attached (never a verdict changed), on real windows of built regressions
// (test/fixtures/explain/documents.js) and on A/A pairs, which must name none.
const test = require('node:test');
const assert = require('node:assert/strict');
const { withCauses, causeOf, leadOf } = require('../../../core/src/explain/cause');
const { schemaProblem } = require('../../../core/src/schemas');
const { readVerdict } = require('../../../core/src/verdict-versions');
const { side, planShapes, explainDoc } = require('../../fixtures/explain/documents');

const captured = () => readVerdict(require('../../fixtures/verdicts/signoff-10.11.18-10.11.19/verdict.json')).verdict;
// The captured verdict with `flagged` rows made fails (their other figures as measured).
function verdictWith(flagged) {
  const v = captured();
  for (const b of v.benchmarks) if (flagged.includes(b.id)) Object.assign(b, { verdict: 'fail' });
  return v;
}
const UI = 'update-index_range=100';
const PQ = 'point-query_range=100';
const row = (v, id) => v.benchmarks.find((b) => b.id === id);

test('the fsync per commit is the cause, named by its counter, before the Commit time it costs', () => {
  const doc = explainDoc([{ id: UI, base: side('pfs19_p1', 'update-index', { stack: 'aa1' }), head: side('pfs19_fsync', 'update-index', { stack: 'aa2' }), plans: planShapes('explain_19_a', 'explain_18_a') }]);
  const cause = causeOf(doc.rows[0], row(captured(), UI));
  assert.equal(cause.line, 'an fsync of InnoDB files per query more: Innodb_data_fsyncs/o 0.00 → 1.00 (MariaDB counts its redo-log flushes here)');
  assert.equal(cause.kind, 'counters');
  assert.deepEqual(cause.looked_at, ['counters', 'waits', 'stacks', 'plans']);
  assert.deepEqual(cause.not_looked_at, [{ what: 'memory', why: 'no memory windows of both sides' }]);
  assert.ok(cause.details.waits.some((w) => w.line.startsWith('time in stage/sql/Commit: +')));
});

test('the sleeping commit path: the Commit stage\'s time leads, the off-CPU frames under it in the details', () => {
  const doc = explainDoc([{ id: UI, base: side('pfs19_p1', 'update-index', { stack: 'aa1' }), head: side('pfs19_sleep', 'update-index', { stack: 'sleep' }) }]);
  const cause = causeOf(doc.rows[0], row(captured(), UI));
  assert.equal(cause.line, 'time in stage/sql/Commit: +116 µs/query (5.50 → 122)');
  assert.deepEqual(cause.details.stacks.map((s) => s.line), ['waits in trans_commit_stmt → ha_commit_trans → … → clock_nanosleep: +27.29 µs/query off-CPU (0.00 → 27.29)']);
  // Without performance_schema the floor is 5% of the recorded window's wall time per query
  // (637 µs, the client's time in it): the 27 µs are below it, and no cause is named.
  const noPfs = explainDoc([{ id: UI, base: { ...side('pfs19_p1', 'update-index', { stack: 'aa1' }), waits: null }, head: { ...side('pfs19_sleep', 'update-index', { stack: 'sleep' }), waits: null } }]);
  assert.equal(causeOf(noPfs.rows[0], { ...row(captured(), UI), instructions_functions: null }).line, 'no cause found: looked at counters and stacks; not looked at: waits (no performance_schema windows of both sides), plans (no statement shapes captured), memory (no memory windows of both sides)');
});

test('the leaking head: memory, with the counters it could not compare said', () => {
  const doc = explainDoc([{ id: PQ, base: side('mem19_a', 'point-query'), head: side('mem19_leak', 'point-query') }]);
  const cause = causeOf(doc.rows[0], row(captured(), PQ));
  assert.equal(cause.line, 'memory grows 817 B per query more (a leak?): 0.00 → 817 B/query resident, the buffer pool\'s new pages aside');
  assert.deepEqual(cause.not_looked_at.map((n) => n.what), ['counters', 'waits', 'stacks', 'plans']);
  assert.equal(cause.not_looked_at[0].why, '2 counter windows a side, 3 needed');
});

test('memory the probe did not get to: the timed rounds\' figure where the verdict judged it beyond a limit, never otherwise', () => {
  // The MySQL leak variant's scan_range=100 (7 Dec): the probes' time went to the counters.
  const grown = { base: 208.9, head: 1277.3, difference: { estimate: 1068.4, low: 731.7, high: 1405.0 }, verdict: 'fail' };
  const doc = explainDoc([{ id: UI, base: { ...side('pfs19_p1', 'update-index'), memory: null }, head: { ...side('pfs19_p1', 'update-index'), memory: null } }]);
  const plain = { ...row(captured(), UI), instructions_functions: null };
  const cause = causeOf(doc.rows[0], { ...plain, memory: grown });
  assert.equal(cause.line, 'memory grows 1,068 B per query more over the timed rounds (a leak?): 209 → 1,277 B/query resident, head−base [732, 1,405]');
  assert.ok(cause.looked_at.includes('memory'));
  // Within the limits, or an interval that reaches zero: the rounds say nothing, the probe's absence is said.
  for (const memory of [{ ...grown, verdict: 'pass' }, { ...grown, verdict: 'undecided' }, { ...grown, difference: { ...grown.difference, low: -5 } }, undefined]) {
    const none = causeOf(doc.rows[0], { ...plain, memory });
    assert.doesNotMatch(none.line, /memory grows/, JSON.stringify(memory));
    assert.ok(none.not_looked_at.some((n) => n.what === 'memory'), JSON.stringify(memory));
  }
});

test('a plan that changed leads every other finding', () => {
  const doc = explainDoc([{ id: UI, base: side('pfs19_p1', 'update-index'), head: side('pfs19_fsync', 'update-index'), plans: planShapes('explain_19_a', 'explain_19_opt') }]);
  const cause = causeOf(doc.rows[0], row(captured(), UI));
  assert.equal(cause.kind, 'plans');
  assert.match(cause.line, /^the plan of `SELECT id, k, c, pad FROM sbtestN FORCE INDEX \(k_N\) WHERE k IN \(\?,\.\.\.\)` changed: ref on k_7 → range on k_7/);
});

test('the adaptive hash index: work counters, when nothing above them found anything', () => {
  const doc = explainDoc([{ id: PQ, base: side('e19_p1', 'point-query'), head: side('e19_ahi', 'point-query') }]);
  assert.equal(causeOf(doc.rows[0], row(captured(), PQ)).line, 'more adaptive hash index lookups: Innodb_adaptive_hash_hash_searches/o 0.00 → 0.55');
  // The other way round the work fell: said in the details, never the cause.
  const back = explainDoc([{ id: PQ, base: side('e19_ahi', 'point-query'), head: side('e19_p1', 'point-query') }]);
  const cause = causeOf(back.rows[0], { ...row(captured(), PQ), instructions_functions: null });
  assert.equal(cause.line, 'no cause found: looked at counters; not looked at: waits (no performance_schema windows of both sides), stacks (no off-CPU stacks of both sides), plans (no statement shapes captured), memory (no memory windows of both sides)');
  assert.deepEqual(cause.details.counters.map((c) => c.line), ['fewer adaptive hash index lookups: Innodb_adaptive_hash_hash_searches/o 0.55 → 0.00', 'fewer B-tree searches the adaptive hash index did not answer: Innodb_adaptive_hash_non_hash_searches/o 0.45 → 0.00']);
});

test('A/A and 10.11.18 → 10.11.19: no cause on any row, and what was looked at said', () => {
  const pairs = [['pfs18_p1', 'pfs18_p2', 'explain_18_a', 'explain_18_b'], ['pfs18_p1', 'pfs19_p1', 'explain_18_a', 'explain_19_a'], ['pfs19_p1', 'pfs18_p2', 'explain_19_a', 'explain_18_b']];
  const rows = ['point-query', 'update-index', 'insert', 'scan'];
  const stackPairs = [['aa1', 'aa2'], ['pq_aa1_20k', 'pq_aa2_20k'], ['ui_aa1_20k', 'ui_aa2_20k'], ['aa2', 'aa1']];
  let n = 0;
  for (const [a, b, pa, pb] of pairs) {
    for (const [k, r] of rows.entries()) {
      const [sa, sb] = stackPairs[k];
      const base = { ...side(a, r, { stack: sa }), memory: side('mem19_a', 'insert').memory };
      const head = { ...side(b, r, { stack: sb }), memory: side('mem19_b', 'insert').memory };
      const doc = explainDoc([{ id: UI, base, head, plans: planShapes(pa, pb) }]);
      const cause = causeOf(doc.rows[0], { ...row(captured(), UI), instructions_functions: null });
      assert.equal(cause.line, 'no cause found: looked at counters, waits, stacks, plans and memory', `${a} → ${b} ${r}`);
      assert.equal(cause.kind, null);
      n += 1;
    }
  }
  assert.equal(n, 12);
});

const remeasure = (ratio) => ({ variables: [{ name: 'innodb_flush_log_at_trx_commit', base: '2', head: '1' }], set: ['innodb_flush_log_at_trx_commit'], still_differ: [],
  rounds: [0, 1, 2, 3, 4].flatMap((index) => [{ index, side: 'base', qps: 1000 }, { index, side: 'head', qps: 1000 * ratio * (index % 2 ? 1.005 : 0.995) }]) });

test('defaults that bring the head back lead the counters; defaults that do not are said beside the cause', () => {
  const at = (ratio) => causeOf(explainDoc([{ id: UI, base: side('pfs19_p1', 'update-index'), head: side('pfs19_fsync', 'update-index'), defaults: remeasure(ratio) }]).rows[0], row(captured(), UI));
  assert.equal(at(1).line, 'with the base\'s settings (innodb_flush_log_at_trx_commit 2) the head measures 1.00 [0.99, 1.01]: the changed default explains it');
  assert.equal(at(0.8).line, 'an fsync of InnoDB files per query more: Innodb_data_fsyncs/o 0.00 → 1.00 (MariaDB counts its redo-log flushes here); the code is slower with the same settings: with the base\'s settings (innodb_flush_log_at_trx_commit 2) the head measures 0.80 [0.79, 0.80]');
});

test('a re-measure that could not run is said as not looked at; no variable differing says nothing of defaults', () => {
  const skipped = 'skipped: the row\'s 60 s (suite key explain.seconds_per_row) were spent before it';
  const base = { ...side('pfs19_p1', 'update-index'), unavailable: { defaults: skipped } };
  const head = { ...side('pfs19_p1', 'update-index'), unavailable: { defaults: skipped } };
  const cause = causeOf(explainDoc([{ id: UI, base, head, defaults: null }]).rows[0], row(captured(), UI));
  assert.deepEqual(cause.not_looked_at.find((n) => n.what === 'defaults'), { what: 'defaults', why: skipped });
  assert.ok(!cause.looked_at.includes('defaults'));
  const plain = causeOf(explainDoc([{ id: UI, base: side('pfs19_p1', 'update-index'), head: side('pfs19_p1', 'update-index'), defaults: null }]).rows[0], row(captured(), UI));
  assert.ok(!plain.line.includes('default') && !plain.not_looked_at.some((n) => n.what === 'defaults'), plain.line);
});

test('a re-measure that did not run names the variables that differ beside the cause, and why once', () => {
  const skipped = 'skipped: the row\'s 60 s (suite key explain.seconds_per_row) were spent before it';
  const variables = [{ name: 'sort_buffer_size', base: '2097152', head: '32768' }, { name: 'optimizer_switch.rowid_filter', base: 'on', head: null }, { name: 'a', base: '1', head: '2' }, { name: 'b', base: 'x'.repeat(4000), head: '2' }];
  const unmeasured = { variables, set: [], refused: [], still_differ: [], rounds: [], not_measured: skipped };
  const at = (headSide) => causeOf(explainDoc([{ id: UI, base: side('pfs19_p1', 'update-index'), head: side(headSide, 'update-index'), defaults: unmeasured }]).rows[0], row(captured(), UI));
  const said = '4 server variables differ (sort_buffer_size 2097152 → 32768, optimizer_switch.rowid_filter on → (none), a 1 → 2 and 1 more), not re-measured with the base\'s values: ' + skipped;
  const led = at('pfs19_fsync');
  assert.equal(led.kind, 'counters');
  assert.ok(led.line.endsWith(`; ${said}`), led.line);
  const none = at('pfs19_p1');
  assert.equal(none.kind, null);
  assert.ok(none.line.startsWith(`${said}; no other cause found: looked at `), none.line);
  assert.equal(none.line.split('seconds_per_row').length, 2, 'the why is said once');
  assert.deepEqual(none.not_looked_at.find((n) => n.what === 'defaults'), { what: 'defaults', why: skipped });
  assert.equal(none.details.defaults[0].count, 4);
  assert.equal(schemaProblem('explain', explainDoc([{ id: UI, base: side('pfs19_p1', 'update-index'), head: side('pfs19_p1', 'update-index'), defaults: unmeasured }])), null);
});

test('a row whose explanation failed, with every probe missing, says so and names no cause', () => {
  const none = { counters: null, waits: null, stacks: null, memory: null, unavailable: { stacks: 'perf is not installed (apt-get install linux-perf)' } };
  const doc = explainDoc([{ id: UI, status: 'error', error: { step: 'servers', message: 'the head did not start' }, base: none, head: none }]);
  assert.equal(causeOf(doc.rows[0], { ...row(captured(), UI), instructions_functions: null }).line,
    'no cause found: the explanation failed at servers (the head did not start); nothing could be looked at; not looked at: counters (no counter windows of both sides), waits (no performance_schema windows of both sides), stacks (perf is not installed (apt-get install linux-perf)), plans (no statement shapes captured), memory (no memory windows of both sides)');
});

test('the functions that grew are the cause only when nothing else is, and only where instructions grew', () => {
  const grown = { symbols: true, grown: [{ name: 'row_search_mvcc', self_growth: 1200, inclusive_growth: 3400 }] };
  assert.deepEqual(leadOf({ plans: [], defaults: [], counters: [], waits: [], stacks: [], memory: [], instructions: [] }), null);
  const doc = explainDoc([{ id: UI, base: side('pfs18_p1', 'update-index'), head: side('pfs18_p2', 'update-index') }]);
  const benchmark = { ...row(captured(), UI), instructions_functions: grown, instructions_per_query: { estimate: 1.05, low: 1.04, high: 1.06 } };
  assert.equal(causeOf(doc.rows[0], benchmark).line, 'more instructions in row_search_mvcc: +1.2k per query of its own, +3.4k with what it calls (instr/o 1.050)');
  assert.match(causeOf(doc.rows[0], { ...benchmark, instructions_per_query: { estimate: 0.98, low: 0.97, high: 0.99 } }).line, /^no cause found/);
});

test('withCauses: causes on explained rows and on flagged rows beyond the budget; every verdict and figure kept', () => {
  const verdict = verdictWith([UI, PQ, 'insert_range=100']);
  const before = JSON.parse(JSON.stringify(verdict));
  const doc = explainDoc([{ id: UI, base: side('pfs19_p1', 'update-index'), head: side('pfs19_fsync', 'update-index') }, { id: PQ, base: side('mem19_a', 'point-query'), head: side('mem19_leak', 'point-query') }], { budget: { rows: 2, seconds_per_row: 60 } });
  const out = withCauses(verdict, doc);
  assert.deepEqual(verdict, before, 'the verdict handed in is not changed');
  assert.equal(schemaProblem('verdict', out), null);
  for (const [i, b] of out.benchmarks.entries()) {
    const { cause, ...rest } = b;
    assert.deepEqual(rest, before.benchmarks[i], b.id);
  }
  assert.equal(['verdict', 'exit_code', 'headline', 'counts'].every((k) => JSON.stringify(out[k]) === JSON.stringify(before[k])), true);
  assert.match(row(out, UI).cause.line, /^an fsync of InnoDB files per query more/);
  assert.match(row(out, PQ).cause.line, /^memory grows 817 B per query more/);
  assert.equal(row(out, 'insert_range=100').cause.line, 'not explained: beyond the budget of 2 explained rows a run (the suite\'s explain.rows)');
  // A plain pass not asked for gets none; the warns the capture holds are flagged.
  assert.equal(row(out, 'delete_range=100').cause, undefined);
  assert.match(row(out, 'scan_range=100').cause.line, /^not explained: beyond the budget/);
  assert.equal(withCauses(verdict, null), verdict);
  const cancelled = withCauses(verdict, explainDoc([], { status: 'cancelled' }));
  assert.equal(row(cancelled, UI).cause.line, 'not explained: the explanation step was cancelled');
  const named = explainDoc([{ id: UI, asked: 'named', base: side('pfs18_p1', 'update-index'), head: side('pfs18_p2', 'update-index') }]);
  assert.match(row(withCauses(verdict, named), PQ).cause.line, /^not explained: not among the rows asked for/);
  const fewer = explainDoc([{ id: UI, base: side('pfs18_p1', 'update-index'), head: side('pfs18_p2', 'update-index') }]);
  assert.equal(row(withCauses(verdict, fewer), PQ).cause.line, 'not explained: it was not flagged when the explanation step chose its rows');
});
