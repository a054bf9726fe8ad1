'use strict';
// Work counters per query (SHOW GLOBAL STATUS and INNODB_METRICS deltas over windows of the
// same events on both sides): a counter whose per-query figure differs between base and head
// is a finding, since two builds running the same events must count the same work. Pure.
//
// The rule (docs/explain.md#the-rules): at least
// MIN_WINDOWS windows a side; the sides' min–max ranges do not overlap, and the gap exceeds
// max(share × the larger mean, least) of the counter's class. What background threads add
// (purge, the page cleaner) is what the InnoDB class's wider floor allows for; counters that
// time drives rather than queries, and gauges, are not compared at all (EXCLUDED).
const { perQuery, differs } = require('./windows');

const MIN_WINDOWS = 3;

// The floors by class: why each is what it is.
const CLASSES = Object.freeze({
  // Counted per event by the server's own code: A/A windows agree to four digits.
  exact: { share: 0.01, least: 0.01 },
  // InnoDB work: purge and the page cleaner still move it a little even with purge drained
  // (update-index's buffer pool requests spread a few percent across A/A windows).
  innodb: { share: 0.10, least: 0.05 },
  // Bytes: a counter snapshot's own result set varies by a few bytes.
  bytes: { share: 0.05, least: 2 },
});

// The counters named in words, one a line: name | servers | class | group (io: storage, fsync,
// redo, work spilled to disk, the cause precedence's "I/O and fsync counters"; else work) |
// "per commit" where said per commit when the windows count commits | one of it (with its
// article) | many | a note said beside the figure. "name | servers | = other" repeats another
// counter (one finding is enough for both). MariaDB 10.11 and MySQL 9.7 names side by side:
// MariaDB has no Innodb_os_log_fsyncs, its redo-log flushes count in Innodb_data_fsyncs.
const COUNTER_TABLE = `
# I/O and fsync
Innodb_os_log_fsyncs                   | mysql | exact | io | per commit | a redo-log flush (fsync) | redo-log flushes (fsync)
os_log_fsyncs                          | mysql | = Innodb_os_log_fsyncs
Innodb_data_fsyncs                     | both | exact | io | per commit | an fsync of InnoDB files | fsyncs of InnoDB files | MariaDB counts its redo-log flushes here
os_data_fsyncs                         | both | = Innodb_data_fsyncs
Innodb_log_writes                      | both | exact | io | per commit | a redo-log write | redo-log writes
log_writes                             | both | = Innodb_log_writes
Innodb_os_log_written                  | both | bytes | io | - | a byte of redo log written | bytes of redo log written
os_log_bytes_written                   | both | = Innodb_os_log_written
Innodb_lsn_current                     | mariadb | = Innodb_os_log_written
Innodb_buffer_pool_reads               | both | innodb | io | - | a buffer pool page read from disk | buffer pool page reads from disk
buffer_pool_reads                      | both | = Innodb_buffer_pool_reads
Innodb_data_reads                      | both | innodb | io | - | an InnoDB file read | InnoDB file reads
Innodb_data_read                       | both | bytes | io | - | a byte read from InnoDB files | bytes read from InnoDB files
Innodb_data_writes                     | both | innodb | io | - | an InnoDB file write | InnoDB file writes
Innodb_data_written                    | both | bytes | io | - | a byte written to InnoDB files | bytes written to InnoDB files
Created_tmp_disk_tables                | both | exact | io | - | a temporary table on disk | temporary tables on disk
Created_tmp_files                      | both | exact | io | - | a temporary file | temporary files
Sort_merge_passes                      | both | exact | io | - | a sort merge pass | sort merge passes
Binlog_bytes_written                   | mariadb | bytes | io | - | a byte of binary log written | bytes of binary log written
# Work
Handler_read_rnd_next                  | both | exact | work | - | a row read by full scan | rows read by full scan
Handler_read_first                     | both | exact | work | - | a full index scan | full index scans
Handler_read_key                       | both | exact | work | - | an index lookup | index lookups
Handler_read_next                      | both | exact | work | - | a row read in index order | rows read in index order
Handler_read_prev                      | both | exact | work | - | a row read in reverse index order | rows read in reverse index order
Handler_read_rnd                       | both | exact | work | - | a row read by position (after a sort) | rows read by position (after a sort)
Innodb_rows_read                       | both | exact | work | - | a row InnoDB read | rows InnoDB read
Rows_read                              | mariadb | exact | work | - | a row read | rows read
Created_tmp_tables                     | both | exact | work | - | a temporary table | temporary tables
Handler_tmp_write                      | mariadb | exact | work | - | a row written to a temporary table | rows written to temporary tables
Select_full_join                       | both | exact | work | - | a join without an index | joins without an index
Select_scan                            | both | exact | work | - | a full scan of a first table | full scans of a first table
Select_range                           | both | exact | work | - | a range read of a first table | range reads of a first table
Sort_rows                              | both | exact | work | - | a sorted row | sorted rows
Sort_scan                              | both | exact | work | - | a sort of a scanned table | sorts of scanned tables
Innodb_row_lock_waits                  | both | exact | work | - | a row lock wait | row lock waits
lock_row_lock_waits                    | both | = Innodb_row_lock_waits
Innodb_buffer_pool_read_requests       | both | innodb | work | - | a buffer pool page request | buffer pool page requests
buffer_pool_read_requests              | both | = Innodb_buffer_pool_read_requests
Innodb_buffer_pool_write_requests      | both | innodb | work | - | a buffer pool page write | buffer pool page writes
buffer_pool_write_requests             | both | = Innodb_buffer_pool_write_requests
Innodb_adaptive_hash_hash_searches     | mariadb | innodb | work | - | an adaptive hash index lookup | adaptive hash index lookups
adaptive_hash_searches                 | both | = Innodb_adaptive_hash_hash_searches
Innodb_adaptive_hash_non_hash_searches | mariadb | innodb | work | - | a B-tree search the adaptive hash index did not answer | B-tree searches the adaptive hash index did not answer
adaptive_hash_searches_btree           | both | = Innodb_adaptive_hash_non_hash_searches
lock_rec_lock_requests                 | both | exact | work | - | a record lock request | record lock requests
index_page_splits                      | both | innodb | work | - | an index page split | index page splits
Table_open_cache_misses                | both | exact | work | - | a table cache miss | table cache misses
Bytes_sent                             | both | bytes | work | - | a byte sent to the client | bytes sent to the client
`;

function readTable(text) {
  const rows = text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#')).map((l) => l.split(' | ').map((c) => c.trim()));
  return rows.map(([name, servers, third, group, perCommit, one, many, note = null]) => (third.startsWith('= ')
    ? { name, servers, same: third.slice(2) }
    : { name, servers, class: third, group, perCommit: perCommit === 'per commit', one, many, note }));
}

const COUNTERS = Object.freeze(readTable(COUNTER_TABLE));

// Not compared: each a gauge (a level, not work done), a figure time drives rather than the
// queries (the page cleaner, the master thread, checkpoints: they count per second whatever
// the window runs), a duration, or noise the A/A windows showed. A regular expression and why.
const EXCLUDED = Object.freeze([
  [/^(Uptime|Uptime_since_flush_status|Busy_time|Cpu_time|Query_time|Last_query_cost)$/, 'clock time or a per-statement figure, not a count'],
  [/^(Threads_|Open_|Opened_|Max_used_|Memory_used|Global_connection_memory|Connections$|Max_statement_time)/, 'a gauge, or the table cache warming up in the first windows of a process'],
  [/^Innodb_(buffer_pool_(pages|bytes)_|buffer_pool_(load|dump|resize)|page_size|mem_|history_list_length|num_open_files|data_pending|os_log_pending|row_lock_current_waits|row_lock_time|available_undo_logs|undo_truncations|redo_log_)/, 'an InnoDB gauge or state'],
  [/^Innodb_(background_log_sync|master_thread_|lsn_(flushed|last_checkpoint)|checkpoint_|pages_written|buffer_pool_pages_flushed|dblwr_|log_write_requests|log_waits)/, 'driven by time (background flushing and checkpoints) or noisy across A/A windows'],
  [/^(buffer_pool_(pages|bytes)_|buffer_pool_size|innodb_page_size|trx_rseg_history_len|file_num_open_files|os_pending|lock_row_lock_current_waits|lock_row_lock_time|trx_undo_slots_cached|log_write_requests|innodb_activity_count|log_lsn_|log_max_modified_age|log_checkpoint|log_flush|buffer_flush_|buffer_LRU_|innodb_master_|innodb_background_)/, 'an InnoDB metric of state, time or background work'],
  [/(_current|_avg|_max|_time_estimate|_usec|_time)$/, 'a level or a duration, not a count'],
  [/^(Ssl_|Tls_|Mysqlx_|Performance_schema_|Error_log_|Resource_group_|Rsa_public_key|Caching_sha2_password|Current_tls_|Aria_|Key_blocks_|Qcache_free|Qcache_total|Innodb_encryption_|Innodb_defragment_|wsrep_)/, 'irrelevant to the queries measured, or a gauge'],
]);

const NAMED = new Map(COUNTERS.map((c) => [c.name, c]));

/** Why a counter is not compared, or null. */
function excluded(name) {
  const hit = EXCLUDED.find(([re]) => re.test(name));
  return hit ? hit[1] : null;
}

// A counter no table row names: bytes by its name, InnoDB's (status Innodb_* and every
// lowercase INNODB_METRICS name) as InnoDB work, the rest exact.
function classOf(name) {
  const own = NAMED.get(name);
  const entry = own && own.same ? NAMED.get(own.same) : own;
  if (entry && entry.class) return entry.class;
  if (/(^|_)bytes?(_|$)|^Bytes_|_(read|written)$/i.test(name)) return 'bytes';
  if (/^Innodb_|^[a-z]/.test(name)) return 'innodb';
  return 'exact';
}

const counterNames = (windows) => [...new Set(windows.flatMap((w) => Object.keys((w && w.deltas) || {})))].sort();

// Commits per query where the windows count them (INNODB_METRICS trx_rw_commits, with
// innodb_monitor_enable=all on both sides), the same on both: a figure said per commit.
function commitsPerQuery(base, head) {
  const pick = (w) => w.deltas.trx_rw_commits;
  const b = perQuery(base, pick);
  const h = perQuery(head, pick);
  if (!b || !h) return null;
  const all = [...b, ...h];
  const low = Math.min(...all);
  return low > 0 && Math.max(...all) - low <= 0.01 * low ? low : null;
}

/**
 * @param base, head  counter windows of each side: [{queries, deltas: {name: delta}}], the
 *                    counting's own cost already subtracted
 * @returns {findings: [{kind: 'counters', group, name, class, base, head, gap, floor, one,
 *          many, per_commit}], problem: null | why the counters were not compared}
 */
function counterFindings(base, head) {
  const usable = (ws) => (ws || []).filter((w) => w && w.queries > 0 && w.deltas);
  const b = usable(base);
  const h = usable(head);
  if (b.length < MIN_WINDOWS || h.length < MIN_WINDOWS) {
    return { findings: [], problem: `${Math.min(b.length, h.length)} counter windows a side, ${MIN_WINDOWS} needed` };
  }
  const commits = commitsPerQuery(b, h);
  const found = [];
  for (const name of counterNames([...b, ...h])) {
    if (excluded(name)) continue;
    const pick = (w) => w.deltas[name];
    const cls = CLASSES[classOf(name)];
    const figure = differs(perQuery(b, pick), perQuery(h, pick), cls);
    if (!figure) continue;
    const own = NAMED.get(name) || {};
    const entry = own.same ? { ...NAMED.get(own.same), same: own.same } : own;
    found.push({
      kind: 'counters',
      group: entry.group || 'work',
      name,
      same: entry.same || null,
      class: classOf(name),
      ...figure,
      one: entry.one || null,
      many: entry.many || null,
      note: entry.note || null,
      per_commit: entry.perCommit && commits ? { base: figure.base / commits, head: figure.head / commits } : null,
    });
  }
  // One finding per thing counted: a counter that repeats another found is left out.
  const names = new Set(found.map((f) => f.name));
  const rank = (f) => {
    const at = COUNTERS.findIndex((c) => c.name === f.name);
    return at < 0 ? COUNTERS.length : at;
  };
  const findings = found.filter((f) => !(f.same && names.has(f.same)))
    .sort((x, y) => (x.group === y.group ? 0 : x.group === 'io' ? -1 : 1) || rank(x) - rank(y) || Math.abs(y.gap / (y.floor || 1)) - Math.abs(x.gap / (x.floor || 1)))
    .map(({ same, ...f }) => f);
  return { findings, problem: null };
}

module.exports = { counterFindings, COUNTERS, CLASSES, EXCLUDED, MIN_WINDOWS, excluded, classOf };
