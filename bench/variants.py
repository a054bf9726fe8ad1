"""The regression variants of the end-to-end fork (Debian's MariaDB 10.11.18 source,
test/e2e/fetch-mariadb-source.sh): each one edit of one source file, committed on `base` and
tagged, with the rows it must slow, the rows it must leave alone and why it slows them.
bench/regression-variants.py measures the ones the quick suite can judge with perfgate;
bench/variant-checks.py checks by hand that each does what it claims (docs/measurements.md,
"Regression variants of the end-to-end fork").
"""
import hashlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

SELECT = "storage/innobase/row/row0sel.cc"
SELECT_AT = ("static bool row_sel_store_mysql_rec(\n", "\tut_ad(!rec_clust || dict_index_is_clust(index));\n")
SEARCH_AT = ("row_search_mvcc(\n", "\tpcur->btr_cur.page_cur.index = index;\n")
UPDATE = "storage/innobase/row/row0upd.cc"
UPDATE_AT = ("row_upd_sec_index_entry(\n", "\tut_ad(trx->id != 0);\n")
PURGE = "storage/innobase/row/row0purge.cc"
# After the early return for an entry the index lacks fields of: once per entry removed.
PURGE_AT = ("row_purge_remove_sec_if_poss(\n", "    return;\n")
COMMIT = "storage/innobase/trx/trx0trx.cc"
COMMIT_AT = ("static void trx_flush_log_if_needed(lsn_t lsn, trx_t *trx)\n", "     (srv_flush_log_at_trx_commit & 1));\n")
RANGE = "sql/opt_range.cc"
RANGE_AT = ('  DBUG_ENTER("get_key_scans_params");\n', "                                        &buf_size, &cost, &is_ror_scan);\n")
DISPATCH = "sql/sql_parse.cc"
DISPATCH_AT = ("dispatch_command_return dispatch_command(enum enum_server_command command, THD *thd,\n",
               "  thd->set_command(command);\n")
SYS_VARS = "sql/sys_vars.cc"
SORT_BUFFER_AT = ('       "sort_buffer_size",\n', "DEFAULT(MAX_SORT_MEMORY),\n")
MERGE = "storage/innobase/row/row0merge.cc"
MERGE_AT = ('\tDBUG_ENTER("row_merge_insert_index_tuples");\n', "\t\tut_ad(!dtuple_get_n_ext(dtuple) || index->is_primary());\n")
SPIN = "storage/innobase/sync/srw_lock.cc"
SPIN_AT = ("static inline unsigned srw_pause_delay() noexcept\n", "  return my_cpu_relax_multiplier / 4 * srv_spin_wait_delay;\n")

QUICK = ("point-query", "random-points_range=1000", "points-covered-pk_range=100", "range-notcovered-si_range=100",
         "read-only_range=10000", "scan_range=100", "range-notcovered-si-planned_range=100",
         "points-notcovered-si-planned_range=100", "range-order-limit-si-planned_range=1000", "join-si-planned_range=100",
         "update-index_range=100", "update-inlist_range=100", "update-nonindex_range=100", "insert_range=100")
READS = ["point-query", "scan_range=100"]
# An UPDATE reads its row through the same row fetch first, so the read variants touch the
# updates too (update-nonindex measured +2.8% instructions under read-4): inserts read no rows.
WRITES = ["update-index_range=100"]
COMMITS = ["update-index_range=100", "update-nonindex_range=100", "insert_range=100"]


def busy_loop(iterations):
    # A volatile counter costs about six instructions an iteration at -O2 (load, add, store,
    # load, compare, branch) and is never optimised away.
    return (f"\t{{ /* regression variant: {iterations} iterations of extra work */\n"
            f"\t\tfor (volatile ulint variant_i = 0; variant_i < {iterations}; variant_i++) {{}}\n\t}}\n")


def short_sleep(micros, one_in):
    # usleep() runs a handful of instructions: a change that only waits.
    return (f"\t{{ /* regression variant: sleep {micros} us on one call in {one_in} */\n"
            f"\t\tstatic unsigned variant_calls;\n"
            f"\t\tif (++variant_calls % {one_in} == 0) usleep({micros});\n\t}}\n")


def latched_sleep(micros, one_in):
    # Every call takes the latch; one in K sleeps holding it, so the other threads queue.
    return (f"\t{{ /* regression variant: a latch held through a {micros} us sleep on one call in {one_in} */\n"
            f"\t\tstatic pthread_mutex_t variant_latch = PTHREAD_MUTEX_INITIALIZER;\n"
            f"\t\tstatic unsigned variant_calls;\n"
            f"\t\tpthread_mutex_lock(&variant_latch);\n"
            f"\t\tif (++variant_calls % {one_in} == 0) usleep({micros});\n"
            f"\t\tpthread_mutex_unlock(&variant_latch);\n\t}}\n")


def handler_loop(iterations, primary=None):
    # The same loop in the SQL layer (no ulint there), indented as it is; `primary` iterations
    # instead when the handler reads the primary key.
    count = f"(active_index == table->s->primary_key ? {primary} : {iterations})" if primary is not None else iterations
    words = f"{iterations} iterations ({primary} on the primary key)" if primary is not None else f"{iterations} iterations"
    return (f"  {{ /* regression variant: {words} of extra work */\n"
            f"    for (volatile ulong variant_i= 0; variant_i < {count}; variant_i++) {{}}\n  }}\n")


HANDLER = "sql/handler.cc"
# Per statement and per row, at the handler interface every engine call passes: iterations per
# site fitted to base's calls per query of each quick row so that each gets about the same share
# (docs/measurements.md, "Regression variants of the end-to-end fork").
HANDLER_SITES = (
    ("int handler::ha_reset()\n", '  DBUG_ENTER("ha_reset");\n', 16),
    ("int handler::ha_rnd_next(uchar *buf)\n", "    increment_statistics(&SSV::ha_read_rnd_next_count);\n", 1),
    ("int handler::ha_index_next(uchar * buf)\n", "  increment_statistics(&SSV::ha_read_next_count);\n", (12, 4)),
    ("int handler::ha_index_next_same(uchar *buf, const uchar *key, uint keylen)\n",
     "  increment_statistics(&SSV::ha_read_next_count);\n", 81),
    ("int handler::ha_index_read_map(uchar *buf, const uchar *key,\n", "  increment_statistics(&SSV::ha_read_key_count);\n", 19),
    ("int handler::ha_index_read_idx_map(uchar *buf, uint index, const uchar *key,\n",
     "  increment_statistics(&SSV::ha_read_key_count);\n", 90),
    ("int handler::ha_write_row(const uchar *buf)\n", "  DBUG_ASSERT(table_share->tmp_table || m_lock_type == F_WRLCK);\n", 287),
    ("int handler::ha_update_row(const uchar *old_data, const uchar *new_data)\n",
     "  increment_statistics(&SSV::ha_update_count);\n", 139),
)


# The same sites sized for about 0.4% of each quick row (scan_range=100 a touch of a counter per
# row: one loop iteration there is already 0.65%): fitted to the calls per query of each site in
# the Debian package's windows, at about six instructions an iteration (docs/measurements.md,
# "The suite as a whole on a change spread thin").
HANDLER_SITES_THIN = (21, "touch", 3, 4, 11, 9, 64, 23)


def handler_touch():
    # Two increments of a volatile counter: a few instructions a call, less than one loop iteration.
    return ("  { /* regression variant: a counter touched twice */\n"
            "    static volatile ulong variant_calls; variant_calls++; variant_calls++;\n  }\n")


def handler_code(n):
    return handler_touch() if n == "touch" else handler_loop(*n) if isinstance(n, tuple) else handler_loop(n)


@dataclass(frozen=True)
class Variant:
    """One edit of one source file of the fork. `at` is (marker, anchor): the marker names the
    place and occurs once in the file; the edit lands at the anchor's first occurrence after it.
    `slows` and `leaves` are benchmark ids of thresholds/benchmarks.yml, or, for what no row
    measures yet, words saying what to measure."""
    path: str
    at: tuple
    code: str
    slows: tuple
    leaves: tuple
    why: str
    replaces: bool = False  # the code takes the anchor's place instead of following it
    more: tuple = ()  # further (marker, anchor, code) of the same file, each code after its anchor

    def edit(self, text):
        text = self._place(text, *self.at, self.code, self.replaces)
        for marker, anchor, code in self.more:
            text = self._place(text, marker, anchor, code, False)
        return text

    def _place(self, text, marker, anchor, code, replaces):
        if text.count(marker) != 1:
            raise ValueError(f"{self.path}: expected {marker!r} once, found it {text.count(marker)} times")
        found = text.find(anchor, text.index(marker))
        if found < 0:
            raise ValueError(f"{self.path}: no {anchor!r} after {marker!r}")
        end = found + len(anchor)
        return text[:found] + code + text[end:] if replaces else text[:end] + code + text[end:]

    @property
    def all_code(self):
        """Every piece of code the variant adds, in order: what its tag hashes."""
        return self.code + "".join(code for _, _, code in self.more)

    @property
    def quick(self):
        """Whether every row it names is a quick row, so that perfgate's quick suite can judge it."""
        return bool(self.slows) and all(r in QUICK for r in self.slows + self.leaves)


def variant(path, at, code, slows, leaves, why, replaces=False, more=()):
    return Variant(path, at, code, tuple(slows), tuple(leaves), why, replaces, tuple(more))


VARIANTS = {
    "read-1": variant(SELECT, SELECT_AT, busy_loop(70), READS, ["insert_range=100"],
                      "more instructions in the row fetch, once per row a read returns"),
    "read-2": variant(SELECT, SELECT_AT, busy_loop(140), READS, ["insert_range=100"],
                      "more instructions in the row fetch, once per row a read returns"),
    "read-4": variant(SELECT, SELECT_AT, busy_loop(280), READS, ["insert_range=100"],
                      "more instructions in the row fetch, once per row a read returns"),
    # 640 iterations measured +1.5% instructions per update-index query (about 200k of them):
    # the sizes below are scaled from that.
    "write-1": variant(UPDATE, UPDATE_AT, busy_loop(420), WRITES, ["point-query", "update-nonindex_range=100"],
                       "more instructions per secondary-index entry an update changes"),
    "write-2": variant(UPDATE, UPDATE_AT, busy_loop(830), WRITES, ["point-query", "update-nonindex_range=100"],
                       "more instructions per secondary-index entry an update changes"),
    "write-4": variant(UPDATE, UPDATE_AT, busy_loop(1660), WRITES, ["point-query", "update-nonindex_range=100"],
                       "more instructions per secondary-index entry an update changes"),
    # The purge an update-index_range=100 query leaves costs about as many instructions as the
    # query itself (background 96% of connection at the quick scale): the write variants'
    # iterations twice over are about 2% and 4% of the two together.
    "purge-2": variant(PURGE, PURGE_AT, busy_loop(1660), WRITES, ["point-query"],
                       "more instructions in purge, on background threads only"),
    "purge-4": variant(PURGE, PURGE_AT, busy_loop(3320), WRITES, ["point-query"],
                       "more instructions in purge, on background threads only"),
    # A short sleep costs more than it asks for (the timer's slack and the wake-up): with the
    # quick suite as shipped one 50 us pwrite sleep cost about 145 us, at about 113-150 us an
    # update-index query, so one call in 28 for about 5% and one in 8 for about 15%. (With 2
    # threads free to move the same sleeps cost several times that: 50 us on one call in 8
    # measured 24% there.)
    "sleep-5": variant(UPDATE, UPDATE_AT, short_sleep(50, 28), WRITES, ["point-query"],
                       "a wait in the secondary-index update: time only"),
    "sleep-15": variant(UPDATE, UPDATE_AT, short_sleep(50, 8), WRITES, ["point-query"],
                        "a wait in the secondary-index update: time only"),
    # A point query runs in about 90 us here (11k QPS at 1 thread pinned) and fetches one row.
    "read-sleep-5": variant(SELECT, SELECT_AT, short_sleep(50, 32), READS, ["insert_range=100"],
                            "a wait in the row fetch: time only"),
    "read-sleep-15": variant(SELECT, SELECT_AT, short_sleep(50, 10), READS, ["insert_range=100"],
                             "a wait in the row fetch: time only"),
    "read-0.5": variant(SELECT, SELECT_AT, busy_loop(35), READS, ["insert_range=100"],
                        "half of read-1's loop in the row fetch: the smallest change a finer gate must see"),
    # Scaled from what write-1's 420 iterations measured on jemalloc (docs/measurements.md, "Finer instruction limits").
    "write-0.5": variant(UPDATE, UPDATE_AT, busy_loop(160), WRITES, ["point-query", "update-nonindex_range=100"],
                         "more instructions per secondary-index entry an update changes: the smallest change a finer gate must see"),
    # `|` for `&`: innodb_flush_log_at_trx_commit=2 (the profile's) then flushes like 1.
    "fsync-commit": variant(COMMIT, COMMIT_AT, "     (srv_flush_log_at_trx_commit | 1)); /* regression variant: a flush on every commit */\n",
                            COMMITS, ["point-query", "scan_range=100"],
                            "every commit that wrote redo log waits for an fsync of it; reads commit nothing",
                            replaces=True),
    # Same wait as read-sleep-15 (a point query calls row_search_mvcc about once), but under a
    # latch every call takes: at more client threads than one they queue behind the sleeper.
    "lock-sleep": variant(SELECT, SEARCH_AT, latched_sleep(50, 10),
                          ["point-query", "scan_range=100", "point-query at 8 client threads, more than at 1"],
                          ["insert_range=100"],
                          "a latch held through a sleep in the row search: time only, serialises the client threads"),
    # A forced index makes the full scan cost DBL_MAX, so FORCE INDEX still picks the range.
    "plan-fullscan": variant(RANGE, RANGE_AT,
                             "      /* regression variant: a range over a secondary index that does not cover the query costs a thousand times its estimate */\n"
                             "      if (!read_index_only && keynr != param->table->s->primary_key)\n"
                             "        cost.multiply(1000);\n",
                             ["SELECT c FROM sbtest1 WHERE k BETWEEN ? AND ? without an index hint: range becomes ALL"],
                             ["range-notcovered-si_range=100", "point-query"],
                             "the range optimizer overprices a non-covering secondary-index range, so the plan reads the whole table"),
    "leak-statement": variant(DISPATCH, DISPATCH_AT,
                              "  { /* regression variant: 1 KiB allocated per command and never freed */\n"
                              "    static void *volatile variant_last;\n"
                              "    if (void *variant_block= my_malloc(PSI_NOT_INSTRUMENTED, 1024, MYF(0)))\n"
                              "      variant_last= memset(variant_block, 0x5a, 1024);\n"
                              "  }\n",
                              ["mysqld's resident memory per statement (VmRSS), on every row"], ["scan_range=100"],
                              "every command allocates 1 KiB it never frees: memory grows with the statements run"),
    # The profile leaves sort_buffer_size at its default; read-only_range=10000's ORDER BY and
    # DISTINCT ranges sort 10000 rows.
    "default-sort-buffer": variant(SYS_VARS, SORT_BUFFER_AT,
                                   "DEFAULT(MAX_SORT_MEMORY / 64), /* regression variant: a 32 KiB default */\n",
                                   ["read-only_range=10000"], ["point-query", "update-index_range=100"],
                                   "a smaller default sort buffer: large sorts merge through temporary files",
                                   replaces=True),
    "ddl-slow-index": variant(MERGE, MERGE_AT, busy_loop(200),
                              ["ALTER TABLE employees ADD INDEX (the DDL bug report's table, 200k rows)"], QUICK,
                              "more work per entry an index build inserts; no sysbench statement builds an index"),
    # The spin of every InnoDB srw latch (index trees, pages, the log) before it sleeps.
    "spin-longer": variant(SPIN, SPIN_AT,
                           "  return my_cpu_relax_multiplier / 4 * srv_spin_wait_delay * 5; /* regression variant: a spin 5 times longer */\n",
                           ["updates of one hot row at 16 client threads on one table"], ["point-query", "update-index_range=100"],
                           "a latch waiter spins 5 times longer before it sleeps: costs only when latches are contended",
                           replaces=True),
    # What a secondary-index update costs inside InnoDB is not seen at the handler: update-index
    # gets about a third of the others' share.
    "all-1.5": variant(HANDLER, HANDLER_SITES[0][:2], handler_loop(HANDLER_SITES[0][2]), QUICK, [],
                       "more instructions at every handler call, sized for the same share of every quick row: a "
                       "change spread over the whole suite that no row alone decides",
                       more=[(marker, anchor, handler_code(n)) for marker, anchor, n in HANDLER_SITES[1:]]),
    "all-0.4": variant(HANDLER, HANDLER_SITES[0][:2], handler_code(HANDLER_SITES_THIN[0]), QUICK, [],
                       "a little more work at every handler call, about 0.4% of each quick row: a change "
                       "spread thinner than a row's warn limit decides, which the suite as a whole decides",
                       more=[(marker, anchor, handler_code(n))
                             for (marker, anchor, _), n in zip(HANDLER_SITES[1:], HANDLER_SITES_THIN[1:])]),
}
# name -> (sleep on one pwrite() in K, microseconds, rows it slows, rows it must leave alone):
# variants of an installed prefix (--prefix), made by bench/sleep-variant.sh. One commit of
# update-index_range=100 writes its redo log with one pwrite (innodb_flush_log_at_trx_commit
# = 2); page writes in the background take their turns of the count too. Sized for the quick
# suite as shipped (1 client thread, sysbench and mysqld on CPUs of their own): one in 28
# measured update-index 4.6% slower, one in 20 7%, one in 7 16% (29 Nov 2026, 5 runs each).
# What a sleep costs depends on how the machine wakes a waiting thread: on the 2-vCPU VM with
# 2 threads left free to move, one in 100 cost 20% and one in 20 29%.
PREFIX_VARIANTS = {
    "pwrite-5": (28, 50, WRITES, ["point-query"]),
    "pwrite-15": (7, 50, WRITES, ["point-query"]),
}


def variant_tag(name, variants=None):
    """The variant's tag names its code too: a resized variant is a commit of its own."""
    return f"variant-{name}-{hashlib.sha256((variants or VARIANTS)[name].all_code.encode()).hexdigest()[:8]}"


def _pr_commits():
    spec = importlib.util.spec_from_file_location("make_pr_commits", REPO / "test" / "e2e" / "make-pr-commits.py")
    pr = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pr)
    return pr


def variant_commits(fork, names=None, variants=None):
    """One tagged commit on `base` per variant (fixed dates: the same SHA on every machine);
    `variants` the MySQL fork's (mysql_variants.py) instead of the MariaDB fork's."""
    pr = _pr_commits()
    variants = variants or VARIANTS
    for name in names or variants:
        tag = variant_tag(name, variants)
        if pr.exists(fork, tag):
            continue
        sha = pr.commit_edit(fork, "base", variants[name].path, variants[name].edit, f"Regression variant {name}",
                             "2025-01-03T00:00:00Z")
        pr.git(fork, "tag", tag, sha)
