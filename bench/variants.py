"""The regression variants of the end-to-end fork (Debian's MariaDB 10.11.18 source,
test/e2e/fetch-mariadb-source.sh): each one edit of one source file, committed on `base` and
tagged, and the rows of thresholds/benchmarks.yml it must slow and must leave alone.
bench/regression-variants.py measures them with perfgate; the catalogue is here so that other
benchmarks and tests read the same variants.
"""
import hashlib
import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

SELECT = "storage/innobase/row/row0sel.cc"
SELECT_AT = ("static bool row_sel_store_mysql_rec(\n", "\tut_ad(!rec_clust || dict_index_is_clust(index));\n")
UPDATE = "storage/innobase/row/row0upd.cc"
UPDATE_AT = ("row_upd_sec_index_entry(\n", "\tut_ad(trx->id != 0);\n")
PURGE = "storage/innobase/row/row0purge.cc"
# After the early return for an entry the index lacks fields of: once per entry removed.
PURGE_AT = ("row_purge_remove_sec_if_poss(\n", "    return;\n")

READS = ["point-query", "scan_range=100"]
# An UPDATE reads its row through the same row fetch first, so the read variants touch the
# updates too (update-nonindex measured +2.8% instructions under read-4): inserts read no rows.
WRITES = ["update-index_range=100"]


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


# name -> (file, (function, anchor), inserted code, rows it slows, rows it must leave alone)
VARIANTS = {
    "read-1": (SELECT, SELECT_AT, busy_loop(70), READS, ["insert_range=100"]),
    "read-2": (SELECT, SELECT_AT, busy_loop(140), READS, ["insert_range=100"]),
    "read-4": (SELECT, SELECT_AT, busy_loop(280), READS, ["insert_range=100"]),
    # 640 iterations measured +1.5% instructions per update-index query (about 200k of them):
    # the sizes below are scaled from that.
    "write-1": (UPDATE, UPDATE_AT, busy_loop(420), WRITES, ["point-query", "update-nonindex_range=100"]),
    "write-2": (UPDATE, UPDATE_AT, busy_loop(830), WRITES, ["point-query", "update-nonindex_range=100"]),
    "write-4": (UPDATE, UPDATE_AT, busy_loop(1660), WRITES, ["point-query", "update-nonindex_range=100"]),
    # The purge an update-index_range=100 query leaves costs about as many instructions as the
    # query itself (background 96% of connection at the quick scale): the write variants'
    # iterations twice over are about 2% and 4% of the two together.
    "purge-2": (PURGE, PURGE_AT, busy_loop(1660), WRITES, ["point-query"]),
    "purge-4": (PURGE, PURGE_AT, busy_loop(3320), WRITES, ["point-query"]),
    # A short sleep costs more than it asks for (the timer's slack and the wake-up): with the
    # quick suite as shipped one 50 us pwrite sleep cost about 145 us, at about 113-150 us an
    # update-index query, so one call in 28 for about 5% and one in 8 for about 15%. (With 2
    # threads free to move the same sleeps cost several times that: 50 us on one call in 8
    # measured 24% there.)
    "sleep-5": (UPDATE, UPDATE_AT, short_sleep(50, 28), WRITES, ["point-query"]),
    "sleep-15": (UPDATE, UPDATE_AT, short_sleep(50, 8), WRITES, ["point-query"]),
    # A point query runs in about 90 us here (11k QPS at 1 thread pinned) and fetches one row.
    "read-sleep-5": (SELECT, SELECT_AT, short_sleep(50, 32), READS, ["insert_range=100"]),
    "read-sleep-15": (SELECT, SELECT_AT, short_sleep(50, 10), READS, ["insert_range=100"]),
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
def insert_after(function, anchor, code):
    def edit(text):
        start = text.index(function)
        at = text.index(anchor, start) + len(anchor)
        return text[:at] + code + text[at:]
    return edit


def variant_tag(name):
    """The variant's tag names its code too: a resized variant is a commit of its own."""
    return f"variant-{name}-{hashlib.sha256(VARIANTS[name][2].encode()).hexdigest()[:8]}"


def variant_commits(fork):
    """One tagged commit on `base` per variant (fixed dates: the same SHA on every machine)."""
    spec = importlib.util.spec_from_file_location("make_pr_commits", REPO / "test" / "e2e" / "make-pr-commits.py")
    pr = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pr)
    for name, (path, (function, anchor), code, _, _) in VARIANTS.items():
        tag = variant_tag(name)
        if pr.exists(fork, tag):
            continue
        sha = pr.commit_edit(fork, "base", path, insert_after(function, anchor, code), f"Regression variant {name}",
                             "2025-01-03T00:00:00Z")
        pr.git(fork, "tag", tag, sha)
