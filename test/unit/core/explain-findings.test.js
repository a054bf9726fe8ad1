'use strict';
// The evidence of the explanation step, kind by kind, on real windows of MariaDB 10.11.18 and
// 10.11.19 (test/fixtures/explain): every A/A pair and 10.11.18 → 10.11.19 must give no
// finding, and each built regression its own.
const test = require('node:test');
const assert = require('node:assert/strict');
const { counterFindings, excluded, classOf } = require('../../../core/src/explain/counters');
const { waitFindings } = require('../../../core/src/explain/waits');
const { stackFindings, waitName } = require('../../../core/src/explain/stacks');
const { memoryFindings } = require('../../../core/src/explain/memory');
const { findingLine } = require('../../../core/src/explain-words');
const { windows, stacks, ROWS } = require('../../fixtures/explain/documents');

const rowsOf = (run) => Object.keys(windows[run]);
// Every row two runs share, as [row, base windows, head windows] of one kind.
const shared = (a, b, kind) => rowsOf(a).filter((r) => windows[b][r] && windows[a][r][kind]).map((r) => [r, windows[a][r][kind], windows[b][r][kind]]);

// A/A: two processes of one build; 18 → 19: a patch release that changed no default.
const SAME_WORK = [['e18_p1', 'e18_p2'], ['e19_p1', 'e19_p2'], ['e18_p1', 'e19_p1'], ['e19_p2', 'e18_p2'], ['c18_p1', 'c18_p2'], ['c19_p1', 'c19_p2'],
  ['c18_p1', 'c19_p1'], ['pfs18_p1', 'pfs18_p2'], ['pfs18_p1', 'pfs19_p1'], ['pfs19_p1', 'pfs18_p2']];

test('counters: no finding in any A/A pair or 10.11.18 → 10.11.19, either way round', () => {
  for (const [a, b] of SAME_WORK) {
    for (const [x, y] of [[a, b], [b, a]]) {
      for (const [row, base, head] of shared(x, y, 'counters')) {
        const { findings, problem } = counterFindings(base, head);
        assert.equal(problem, null);
        assert.deepEqual(findings.map((f) => f.name), [], `${x} → ${y} ${row}`);
      }
    }
  }
});

test('counters: an fsync per commit on the head is named first, on every writing row and only there', () => {
  for (const [row, base, head] of shared('e19_p1', 'e19_fsync', 'counters')) {
    const { findings } = counterFindings(base, head);
    if (row === ROWS['update-index'] || row === ROWS.insert) {
      assert.equal(findings[0].name, 'Innodb_data_fsyncs', row);
      assert.equal(findings[0].group, 'io');
      assert.equal(findingLine(findings[0]), 'an fsync of InnoDB files per query more: Innodb_data_fsyncs/o 0.00 → 1.00 (MariaDB counts its redo-log flushes here)');
    } else {
      assert.deepEqual(findings, [], row);
    }
  }
  // Under performance_schema too.
  const [first] = counterFindings(windows.pfs19_p1[ROWS['update-index']].counters, windows.pfs19_fsync[ROWS['update-index']].counters).findings;
  assert.equal(first.name, 'Innodb_data_fsyncs');
});

test('counters: the adaptive hash index switched on shows as its own searches, and nothing else', () => {
  const { findings } = counterFindings(windows.e19_p1[ROWS['point-query']].counters, windows.e19_ahi[ROWS['point-query']].counters);
  assert.deepEqual(findings.map(findingLine), [
    'more adaptive hash index lookups: Innodb_adaptive_hash_hash_searches/o 0.00 → 0.55',
    'more B-tree searches the adaptive hash index did not answer: Innodb_adaptive_hash_non_hash_searches/o 0.00 → 0.45',
  ]);
  assert.deepEqual(counterFindings(windows.e19_p1[ROWS.scan].counters, windows.e19_ahi[ROWS.scan].counters).findings, []);
});

// Three windows a side of one counter, per query (queries 1000).
const wins = (name, ...perQuery) => perQuery.map((x) => ({ events: 1000, queries: 1000, deltas: { [name]: x * 1000 } }));

test('counters: the floors by class, the ranges that must not overlap, what is never compared', () => {
  const cases = [
    // [counter, base per query ×3, head per query ×3, found?]
    ['Handler_read_rnd_next', [100, 100, 100], [100.5, 100.5, 100.5], false], // exact: within 1%
    ['Handler_read_rnd_next', [100, 100, 100], [102, 102, 102], true], // exact: beyond 1%
    ['Handler_read_key', [0, 0, 0], [0.005, 0.005, 0.005], false], // exact: below 0.01 a query
    ['Innodb_buffer_pool_read_requests', [24, 24.4, 24.2], [26, 26, 26], false], // InnoDB work: within 10%
    ['Innodb_buffer_pool_read_requests', [24, 24.4, 24.2], [32, 32, 32], true],
    ['Innodb_buffer_pool_read_requests', [24, 30, 24], [33, 29, 33], false], // ranges overlap
    ['Bytes_sent', [150, 150, 150], [151, 151, 151], false], // bytes: 2 B floor
    ['Bytes_sent', [150, 150, 150], [170, 170, 170], true],
    ['Innodb_background_log_sync', [0, 0, 0], [5, 5, 5], false], // time-driven
    ['Uptime', [0, 0, 0], [1, 1, 1], false],
    ['Innodb_buffer_pool_pages_dirty', [0, 0, 0], [9, 9, 9], false], // a gauge
  ];
  for (const [name, b, h, found] of cases) {
    const { findings } = counterFindings(wins(name, ...b), wins(name, ...h));
    assert.equal(findings.length, found ? 1 : 0, `${name} ${b} → ${h}`);
  }
  assert.equal(classOf('Innodb_os_log_written'), 'bytes');
  assert.equal(classOf('buffer_pool_read_requests'), 'innodb');
  assert.equal(classOf('Com_select'), 'exact');
  assert.match(excluded('Innodb_checkpoint_age'), /driven by time/);
  assert.equal(excluded('Innodb_data_fsyncs'), null);
});

test('counters: fewer than three windows a side are not compared, and say so', () => {
  const r = counterFindings(wins('Handler_read_key', 1, 1), wins('Handler_read_key', 9, 9, 9));
  assert.deepEqual(r, { findings: [], problem: '2 counter windows a side, 3 needed' });
  // A counter only one build has is compared nowhere.
  const only = counterFindings(wins('Handler_read_key', 1, 1, 1), wins('Handler_read_next', 9, 9, 9));
  assert.deepEqual(only.findings, []);
});

test('counters: a repeated counter (INNODB_METRICS beside SHOW STATUS) is one finding, said per commit where commits are counted', () => {
  const both = (fsync, log) => [0, 1, 2].map(() => ({ events: 100, queries: 100, deltas: { Innodb_data_fsyncs: fsync * 100, os_data_fsyncs: fsync * 100, trx_rw_commits: 50, Innodb_os_log_written: log * 100 } }));
  const { findings } = counterFindings(both(0, 700), both(0.5, 700));
  assert.deepEqual(findings.map((f) => f.name), ['Innodb_data_fsyncs']);
  assert.equal(findingLine(findings[0]), 'an fsync of InnoDB files per commit more: Innodb_data_fsyncs/o 0.00 → 0.50 (MariaDB counts its redo-log flushes here)');
});

test('waits: no finding in A/A or 10.11.18 → 10.11.19, though times spread two- to fourfold', () => {
  for (const [a, b] of SAME_WORK.filter(([x]) => x.startsWith('pfs'))) {
    for (const [x, y] of [[a, b], [b, a]]) {
      for (const [row, base, head] of shared(x, y, 'waits')) assert.deepEqual(waitFindings(base, head).findings, [], `${x} → ${y} ${row}`);
    }
  }
});

test('waits: the sleeping commit path shows as time in the Commit stage, the fsync as Commit time and latch waits', () => {
  const sleep = waitFindings(windows.pfs19_p1[ROWS['update-index']].waits, windows.pfs19_sleep[ROWS['update-index']].waits).findings;
  assert.deepEqual(sleep.map(findingLine), [
    'time in stage/sql/Commit: +116 µs/query (5.50 → 122)',
    'time in statement/com/Execute: +131 µs/query (65.84 → 197)',
  ]);
  assert.deepEqual(sleep.map((f) => f.cause), [true, false]);
  assert.deepEqual(waitFindings(windows.pfs19_p1[ROWS['point-query']].waits, windows.pfs19_sleep[ROWS['point-query']].waits).findings, []);
  const fsync = waitFindings(windows.pfs19_p1[ROWS['update-index']].waits, windows.pfs19_fsync[ROWS['update-index']].waits).findings;
  const commit = fsync.find((f) => f.name === 'stage/sql/Commit' && f.measure === 'time');
  assert.ok(commit && commit.head > 1000 && commit.base < 10, JSON.stringify(commit));
});

test('waits: a time needs its ranges apart and a gap beyond half the larger mean, 5 µs and 5% of the statement time', () => {
  const w = (commitUs, stmtUs) => ({ queries: 1000, waits: {}, stages: { 'stage/sql/Commit': { count: 1000, ps: commitUs * 1e9 } }, statements: { 'statement/sql/update': { count: 1000, ps: stmtUs * 1e9 } } });
  const at = (b, h, stmt = 60) => waitFindings(b.map((x) => w(x, stmt)), h.map((x) => w(x, stmt))).findings.filter((f) => f.summary === 'stages');
  assert.equal(at([5, 6], [9, 10]).length, 0); // below 50% of the larger mean
  assert.equal(at([5, 6], [20, 22]).length, 1);
  assert.equal(at([1, 1], [4, 4]).length, 0); // below 5 µs
  assert.equal(at([10, 10], [30, 31], 1000).length, 0); // below 5% of a 1000 µs statement
  assert.equal(at([5, 30], [20, 22]).length, 0); // ranges overlap
  assert.deepEqual(waitFindings([w(1, 1)], [w(1, 1), w(1, 1)]), { findings: [], problem: '1 performance_schema windows a side, 2 needed' });
});


test('stacks: no off-CPU finding between two A/A sessions, either way round, on the µs floor alone', () => {
  for (const [a, b] of [['aa1', 'aa2'], ['pq_aa1_20k', 'pq_aa2_20k'], ['ui_aa1_20k', 'ui_aa2_20k']]) {
    for (const [x, y] of [[a, b], [b, a]]) assert.deepEqual(stackFindings(stacks[x], stacks[y]).findings, [], `${x} → ${y}`);
  }
});

test('stacks: the sleep in the commit path is named by the frames it waited under', () => {
  const { findings } = stackFindings(stacks.aa1, stacks.sleep, { headLatencyUs: 197 });
  assert.equal(findings.length, 1);
  assert.equal(findingLine(findings[0]), 'waits in trans_commit_stmt → ha_commit_trans → … → clock_nanosleep: +27.29 µs/query off-CPU (0.00 → 27.29)');
  // Below 5% of the head's latency the same wait is not a finding.
  assert.deepEqual(stackFindings(stacks.aa1, stacks.sleep, { headLatencyUs: 600 }).findings, []);
});

test('stacks: a preempted stack (state R) is CPU contention, not a wait; a version suffix is dropped', () => {
  const side = (us) => ({ offcpu_us_per_query: us });
  assert.deepEqual(stackFindings(side({}), side({ 'start_thread;dispatch_command;state=R;schedule': 50 })).findings, []);
  assert.deepEqual(waitName('start_thread;do_command;pthread_cond_wait@@GLIBC_2.3.2;entry_SYSCALL_64;do_syscall_64'), ['start_thread', 'do_command', 'pthread_cond_wait']);
  assert.deepEqual(stackFindings(null, side({})), { findings: [], problem: 'no off-CPU stacks of both sides' });
});

test('stacks by eu-stack snapshots: a wait counts only where the head saw it in more snapshots beyond chance', () => {
  const wait = 'start_thread;do_command;dispatch_command;row_search_mvcc;my_sleep;clock_nanosleep';
  const side = (seen, n, usEach = 4) => ({ tool: 'eu-stack', snapshots: n, offcpu_us_per_query: seen ? { [`mariadbd;state=S;${wait}`]: seen * usEach } : {}, offcpu_snapshots: seen ? { [`mariadbd;state=S;${wait}`]: seen } : {} });
  const [f] = stackFindings(side(2, 40), side(30, 41), { headLatencyUs: 197 }).findings;
  assert.deepEqual(f.snapshots, { base: [2, 40], head: [30, 41] });
  assert.equal(findingLine(f), 'waits in row_search_mvcc → my_sleep → clock_nanosleep: +112 µs/query off-CPU (8.00 → 120; seen in 2 of 40 snapshots → 30 of 41)');
  // The same µs per query from few snapshots, or shares chance explains, are no finding.
  assert.deepEqual(stackFindings(side(0, 40), side(4, 40, 30)).findings, [], 'seen in 4 snapshots only');
  assert.deepEqual(stackFindings(side(10, 40, 4), side(14, 40, 4)).findings, [], 'within chance');
  assert.deepEqual(stackFindings(side(2, 40), { ...side(30, 41), offcpu_snapshots: undefined }).findings, [], 'no snapshot counts, no finding');
  assert.deepEqual(stackFindings(side(2, 40), { ...side(30, 41), snapshots: 0 }).findings, []);
  assert.deepEqual(stackFindings(side(2, 40), { ...side(30, 41), snapshots: 20 }).findings, [], 'seen in more snapshots than taken');
  assert.deepEqual(stackFindings({ offcpu_us_per_query: {} }, side(30, 41)), { findings: [], problem: "the sides' stacks were taken by perf and eu-stack; expected one tool" });
  // One wait over several stacks: the head counts the most any one saw, the base all of them.
  const spread = (n, counts) => ({ tool: 'eu-stack', snapshots: n, offcpu_us_per_query: Object.fromEntries(counts.map((k, i) => [`m;state=S;caller${i};${wait}`, k * 10])), offcpu_snapshots: Object.fromEntries(counts.map((k, i) => [`m;state=S;caller${i};${wait}`, k])) });
  assert.deepEqual(stackFindings(side(0, 40), spread(40, [4, 4, 4])).findings, [], 'three stacks of four snapshots may be the same four');
  assert.deepEqual(stackFindings(spread(40, [30, 30]), side(40, 40, 100)).findings, [], 'the base saw it in up to all 40: the head\'s 40 is no more');
});

test('memory: A/A windows give no finding, the leaking head one on every row', () => {
  for (const [a, b] of [['mem19_a', 'mem19_b'], ['mem19_b', 'mem19_a']]) {
    for (const [row, base, head] of shared(a, b, 'memory')) assert.deepEqual(memoryFindings({ windows: base }, { windows: head }).findings, [], `${a} → ${b} ${row}`);
  }
  for (const [row, base, head] of shared('mem19_a', 'mem19_leak', 'memory')) {
    const [f] = memoryFindings({ windows: base }, { windows: head }).findings;
    assert.ok(f && f.head - f.base > 800 && f.head - f.base < 840, `${row}: ${JSON.stringify(f)}`);
  }
  const [pq] = memoryFindings({ windows: windows.mem19_a[ROWS['point-query']].memory }, { windows: windows.mem19_leak[ROWS['point-query']].memory }).findings;
  assert.equal(findingLine(pq), 'memory grows 817 B per query more (a leak?): 0.00 → 817 B/query resident, the buffer pool\'s new pages aside');
});

test('memory: the first window warms up and is not judged; the floor is 64 B or three times the base', () => {
  const win = (perQuery, pages = 0) => ({ queries: 1000, rss_before: 1e8, rss_after: 1e8 + perQuery * 1000 + pages * 16384, hwm_before: 1e8, hwm_after: 1e8 + perQuery * 1000, bp_pages_delta: pages });
  const found = (b, h) => memoryFindings({ windows: b }, { windows: h }).findings.length;
  assert.equal(found([win(0), win(0)], [win(5000), win(0)]), 0); // only the first window grew
  assert.equal(found([win(0), win(0)], [win(0), win(60)]), 0); // below 64 B
  assert.equal(found([win(0), win(0)], [win(0), win(70)]), 1);
  assert.equal(found([win(0), win(40)], [win(0), win(150)]), 0); // below three times the base's 40
  assert.equal(found([win(0), win(0)], [win(0), win(0, 100)]), 0); // the buffer pool's own pages
  assert.deepEqual(memoryFindings({ windows: [win(0)] }, { windows: [win(0), win(0)] }), { findings: [], problem: 'fewer than 2 memory windows a side' });
});
