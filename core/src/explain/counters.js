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

// The counters named in words: `group` io (storage, fsync, redo, work spilled to disk: the
// cause precedence's "I/O and fsync counters") or work; `one`/`many` what one of it is (with its article) and many;
// `note` said beside the figure; `perCommit` said per commit where the windows count commits; `same` the counter it repeats
// (one finding is enough for both). MariaDB 10.11 and MySQL 9.7 names side by side: MariaDB has
// no Innodb_os_log_fsyncs, its redo-log flushes count in Innodb_data_fsyncs.
const COUNTERS = Object.freeze([
  // I/O and fsync
  { name: 'Innodb_os_log_fsyncs', servers: 'mysql', class: 'exact', group: 'io', perCommit: true, one: 'a redo-log flush (fsync)', many: 'redo-log flushes (fsync)' },
  { name: 'os_log_fsyncs', servers: 'mysql', same: 'Innodb_os_log_fsyncs' },
  { name: 'Innodb_data_fsyncs', servers: 'both', class: 'exact', group: 'io', perCommit: true, one: 'an fsync of InnoDB files', many: 'fsyncs of InnoDB files', note: 'MariaDB counts its redo-log flushes here' },
  { name: 'os_data_fsyncs', servers: 'both', same: 'Innodb_data_fsyncs' },
  { name: 'Innodb_log_writes', servers: 'both', class: 'exact', group: 'io', perCommit: true, one: 'a redo-log write', many: 'redo-log writes' },
  { name: 'log_writes', servers: 'both', same: 'Innodb_log_writes' },
  { name: 'Innodb_os_log_written', servers: 'both', class: 'bytes', group: 'io', one: 'a byte of redo log written', many: 'bytes of redo log written' },
  { name: 'os_log_bytes_written', servers: 'both', same: 'Innodb_os_log_written' },
  { name: 'Innodb_lsn_current', servers: 'mariadb', same: 'Innodb_os_log_written' },
  { name: 'Innodb_buffer_pool_reads', servers: 'both', class: 'innodb', group: 'io', one: 'a buffer pool page read from disk', many: 'buffer pool page reads from disk' },
  { name: 'buffer_pool_reads', servers: 'both', same: 'Innodb_buffer_pool_reads' },
  { name: 'Innodb_data_reads', servers: 'both', class: 'innodb', group: 'io', one: 'an InnoDB file read', many: 'InnoDB file reads' },
  { name: 'Innodb_data_read', servers: 'both', class: 'bytes', group: 'io', one: 'a byte read from InnoDB files', many: 'bytes read from InnoDB files' },
  { name: 'Innodb_data_writes', servers: 'both', class: 'innodb', group: 'io', one: 'an InnoDB file write', many: 'InnoDB file writes' },
  { name: 'Innodb_data_written', servers: 'both', class: 'bytes', group: 'io', one: 'a byte written to InnoDB files', many: 'bytes written to InnoDB files' },
  { name: 'Created_tmp_disk_tables', servers: 'both', class: 'exact', group: 'io', one: 'a temporary table on disk', many: 'temporary tables on disk' },
  { name: 'Created_tmp_files', servers: 'both', class: 'exact', group: 'io', one: 'a temporary file', many: 'temporary files' },
  { name: 'Sort_merge_passes', servers: 'both', class: 'exact', group: 'io', one: 'a sort merge pass', many: 'sort merge passes' },
  { name: 'Binlog_bytes_written', servers: 'mariadb', class: 'bytes', group: 'io', one: 'a byte of binary log written', many: 'bytes of binary log written' },
  // Work
  { name: 'Handler_read_rnd_next', servers: 'both', class: 'exact', group: 'work', one: 'a row read by full scan', many: 'rows read by full scan' },
  { name: 'Handler_read_first', servers: 'both', class: 'exact', group: 'work', one: 'a full index scan', many: 'full index scans' },
  { name: 'Handler_read_key', servers: 'both', class: 'exact', group: 'work', one: 'an index lookup', many: 'index lookups' },
  { name: 'Handler_read_next', servers: 'both', class: 'exact', group: 'work', one: 'a row read in index order', many: 'rows read in index order' },
  { name: 'Handler_read_prev', servers: 'both', class: 'exact', group: 'work', one: 'a row read in reverse index order', many: 'rows read in reverse index order' },
  { name: 'Handler_read_rnd', servers: 'both', class: 'exact', group: 'work', one: 'a row read by position (after a sort)', many: 'rows read by position (after a sort)' },
  { name: 'Innodb_rows_read', servers: 'both', class: 'exact', group: 'work', one: 'a row InnoDB read', many: 'rows InnoDB read' },
  { name: 'Rows_read', servers: 'mariadb', class: 'exact', group: 'work', one: 'a row read', many: 'rows read' },
  { name: 'Created_tmp_tables', servers: 'both', class: 'exact', group: 'work', one: 'a temporary table', many: 'temporary tables' },
  { name: 'Handler_tmp_write', servers: 'mariadb', class: 'exact', group: 'work', one: 'a row written to a temporary table', many: 'rows written to temporary tables' },
  { name: 'Select_full_join', servers: 'both', class: 'exact', group: 'work', one: 'a join without an index', many: 'joins without an index' },
  { name: 'Select_scan', servers: 'both', class: 'exact', group: 'work', one: 'a full scan of a first table', many: 'full scans of a first table' },
  { name: 'Select_range', servers: 'both', class: 'exact', group: 'work', one: 'a range read of a first table', many: 'range reads of a first table' },
  { name: 'Sort_rows', servers: 'both', class: 'exact', group: 'work', one: 'a sorted row', many: 'sorted rows' },
  { name: 'Sort_scan', servers: 'both', class: 'exact', group: 'work', one: 'a sort of a scanned table', many: 'sorts of scanned tables' },
  { name: 'Innodb_row_lock_waits', servers: 'both', class: 'exact', group: 'work', one: 'a row lock wait', many: 'row lock waits' },
  { name: 'lock_row_lock_waits', servers: 'both', same: 'Innodb_row_lock_waits' },
  { name: 'Innodb_buffer_pool_read_requests', servers: 'both', class: 'innodb', group: 'work', one: 'a buffer pool page request', many: 'buffer pool page requests' },
  { name: 'buffer_pool_read_requests', servers: 'both', same: 'Innodb_buffer_pool_read_requests' },
  { name: 'Innodb_buffer_pool_write_requests', servers: 'both', class: 'innodb', group: 'work', one: 'a buffer pool page write', many: 'buffer pool page writes' },
  { name: 'buffer_pool_write_requests', servers: 'both', same: 'Innodb_buffer_pool_write_requests' },
  { name: 'Innodb_adaptive_hash_hash_searches', servers: 'mariadb', class: 'innodb', group: 'work', one: 'an adaptive hash index lookup', many: 'adaptive hash index lookups' },
  { name: 'adaptive_hash_searches', servers: 'both', same: 'Innodb_adaptive_hash_hash_searches' },
  { name: 'Innodb_adaptive_hash_non_hash_searches', servers: 'mariadb', class: 'innodb', group: 'work', one: 'a B-tree search the adaptive hash index did not answer', many: 'B-tree searches the adaptive hash index did not answer' },
  { name: 'adaptive_hash_searches_btree', servers: 'both', same: 'Innodb_adaptive_hash_non_hash_searches' },
  { name: 'lock_rec_lock_requests', servers: 'both', class: 'exact', group: 'work', one: 'a record lock request', many: 'record lock requests' },
  { name: 'index_page_splits', servers: 'both', class: 'innodb', group: 'work', one: 'an index page split', many: 'index page splits' },
  { name: 'Table_open_cache_misses', servers: 'both', class: 'exact', group: 'work', one: 'a table cache miss', many: 'table cache misses' },
  { name: 'Bytes_sent', servers: 'both', class: 'bytes', group: 'work', one: 'a byte sent to the client', many: 'bytes sent to the client' },
]);

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
