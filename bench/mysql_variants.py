"""Regression variants of the MySQL test fork (Debian's MySQL 9.7.2 source,
test/e2e/fetch-mysql-source.sh): the kinds of bench/variants.py, placed in MySQL's own code, so
that the explanation step is shown on MySQL's counters, performance_schema instruments and
stacks, which are named otherwise than MariaDB's. `python3 bench/mysql_variants.py <fork>`
tags them on `base` and prints each tag (docs/measurements.md, "Seeded regressions on MySQL 9.7").
"""
import sys

from variants import Variant, latched_sleep, variant, variant_commits, variant_tag

COMMIT = "storage/innobase/trx/trx0trx.cc"
SEARCH = "storage/innobase/row/row0sel.cc"
DISPATCH = "sql/sql_parse.cc"
SYS_VARS = "sql/sys_vars.cc"
COMMITS = ["update-index_range=100", "update-nonindex_range=100", "insert_range=100"]

MYSQL_VARIANTS: dict[str, Variant] = {
    # innodb_flush_log_at_trx_commit=2 (the profile's) then flushes like 1.
    "fsync-commit": variant(COMMIT, ("static void trx_flush_log_if_needed_low(lsn_t lsn)", "      flush = false;\n"),
                            "      /* regression variant: a flush on every commit */\n",
                            COMMITS, ["point-query", "scan_range=100"],
                            "every commit that wrote redo log waits for an fsync of it; reads commit nothing",
                            replaces=True),
    # MySQL's row search keeps its code in C++ style: the latched sleep indented by two spaces.
    "lock-sleep": variant(SEARCH, ("dberr_t row_search_mvcc(byte *buf, page_cur_mode_t mode,\n", "  trx_t *trx = prebuilt->trx;\n"),
                          latched_sleep(50, 10).replace("\t", "  "),
                          ["point-query", "scan_range=100"], ["insert_range=100"],
                          "a latch held through a sleep in the row search: time only, serialises the client threads"),
    "leak-statement": variant(DISPATCH, ("bool dispatch_command(THD *thd, const COM_DATA *com_data,\n", "  thd->set_command(command);\n"),
                              "  { /* regression variant: 1 KiB allocated per command and never freed */\n"
                              "    static void *volatile variant_last;\n"
                              "    if (void *variant_block = my_malloc(PSI_NOT_INSTRUMENTED, 1024, MYF(0)))\n"
                              "      variant_last = memset(variant_block, 0x5a, 1024);\n"
                              "  }\n",
                              ["mysqld's resident memory per statement (VmRSS), on every row"], ["scan_range=100"],
                              "every command allocates 1 KiB it never frees: memory grows with the statements run"),
    "default-sort-buffer": variant(SYS_VARS, ('    "sort_buffer_size",\n', "DEFAULT(DEFAULT_SORT_MEMORY),\n"),
                                   "DEFAULT(MIN_SORT_MEMORY), /* regression variant: the smallest default */\n",
                                   ["read-only_range=10000"], ["point-query", "update-index_range=100"],
                                   "a smaller default sort buffer: large sorts merge through temporary files",
                                   replaces=True),
}


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: mysql_variants.py <mysql fork> [variant ...]")
    names = argv[2:] or list(MYSQL_VARIANTS)
    variant_commits(argv[1], names, MYSQL_VARIANTS)
    for name in names:
        print(name, variant_tag(name, MYSQL_VARIANTS))


if __name__ == "__main__":
    main(sys.argv)
