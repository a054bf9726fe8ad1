#!/usr/bin/env python3
"""Adds the commits of the end-to-end tests on top of a fork's `base` tag, with fixed authors
and dates so their SHAs (and build cache keys) are the same on every run.

Pull requests, one branch each, each one commit on `base`:

  pr-comment  changes only a comment                                  -> must pass
  pr-slow     makes every InnoDB secondary-index update spin          -> must fail on
              update-index and pass on point-query
  pr-broken   does not compile (MariaDB only)                         -> must be an error

A linear history for `perfgate bisect`, branch `bisect-tip`: commits on `base`, each a small
real change to a different part of the server (comments, a refactor), one of which adds a
little work to every secondary-index update. That commit is also tagged `bisect-slow`, for the
test to check the culprit against; perfgate is given only `base` and `bisect-tip`.

Usage: make-pr-commits.py [mariadb|mysql] <fork repository> (default mariadb: Debian's MariaDB
10.11.18; mysql: Debian's MySQL 9.7.2). Existing branches and tags are left as they are.
"""
import os
import subprocess
import sys

UPDATE = "storage/innobase/row/row0upd.cc"

IDENTITY = dict(GIT_AUTHOR_NAME="perfgate", GIT_AUTHOR_EMAIL="perfgate@localhost",
                GIT_COMMITTER_NAME="perfgate", GIT_COMMITTER_EMAIL="perfgate@localhost")
ENV = dict(os.environ, **IDENTITY, GIT_AUTHOR_DATE="2025-01-02T00:00:00Z", GIT_COMMITTER_DATE="2025-01-02T00:00:00Z")


def git(repo, *args, check=True, env=ENV):
    return subprocess.run(["git", "-C", repo, *args], env=env, check=check, capture_output=True, text=True)


def exists(repo, ref):
    return git(repo, "rev-parse", "--verify", "--quiet", ref, check=False).returncode == 0


def in_sec_index_update(function, anchor):
    """An edit that inserts lines right after `anchor` (the trx assertion) in `function`, the
    InnoDB function that updates one secondary index entry (its name differs by server)."""
    def insert(lines):
        def edit(text):
            start = text.index(function)
            at = text.index(anchor, start) + len(anchor)
            return text[:at] + lines + text[at:]
        return edit
    return insert


# MariaDB 10.11 indents with tabs; MySQL 9.7 with two spaces (clang-format).
insert_mariadb = in_sec_index_update("row_upd_sec_index_entry(\n", "\tut_ad(trx->id != 0);\n")
insert_mysql = in_sec_index_update("row_upd_sec_index_entry_low(upd_node_t *node,\n", "  ut_ad(trx->id != 0);\n")


def replace_once(old, new):
    def edit(text):
        assert text.count(old) == 1, f"expected exactly one {old!r}"
        return text.replace(old, new, 1)
    return edit


def commit_edit(repo, parent, path, edit, message, date):
    """A commit on `parent` that changes one file, made without touching the checkout."""
    original = git(repo, "show", f"{parent}:{path}").stdout
    changed = edit(original)
    assert changed != original, f"{message}: the edit of {path} changed nothing"
    env = dict(ENV, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    blob = subprocess.run(["git", "-C", repo, "hash-object", "-w", "--stdin"], input=changed, env=env,
                          check=True, capture_output=True, text=True).stdout.strip()
    index = os.path.join(git(repo, "rev-parse", "--absolute-git-dir").stdout.strip(), "index.perfgate-e2e")
    index_env = dict(env, GIT_INDEX_FILE=index)
    try:
        subprocess.run(["git", "-C", repo, "read-tree", parent], env=index_env, check=True)
        mode = git(repo, "ls-tree", parent, path).stdout.split()[0]
        subprocess.run(["git", "-C", repo, "update-index", "--cacheinfo", f"{mode},{blob},{path}"], env=index_env, check=True)
        tree = subprocess.run(["git", "-C", repo, "write-tree"], env=index_env, check=True, capture_output=True, text=True).stdout.strip()
    finally:
        if os.path.exists(index):
            os.remove(index)
    return git(repo, "commit-tree", tree, "-p", parent, "-m", message, env=env).stdout.strip()


MARIADB_PULL_REQUESTS = {
    "pr-comment": ("Explain the secondary index update path in a comment",
                   replace_once("Updates a secondary index entry of a row.\n",
                                "Updates a secondary index entry of a row.\n"
                                "The clustered index record has already been updated.\n")),
    "pr-slow": ("Spin before every secondary index update (deliberately slow)",
                insert_mariadb("\t/* A deliberate slowdown: spin before every secondary index update. */\n"
                               "\tfor (volatile ulint spin = 0; spin < 1000000; spin = spin + 1) {}\n")),
    "pr-broken": ("Refactor the secondary index update (does not compile)",
                  insert_mariadb("\tthis_identifier_does_not_exist = 1;\n")),
}

# The bisect history, oldest first: (file, edit, message, slow). One commit is slow.
MARIADB_BISECT_HISTORY = [
    ("storage/innobase/rem/rem0cmp.cc",
     replace_once("\t\tif (check_charsets) {\n"
                  "\t\t\treturn(dtype_get_charset_coll(col1->prtype)\n"
                  "\t\t\t       == dtype_get_charset_coll(col2->prtype));\n"
                  "\t\t} else {\n"
                  "\t\t\treturn(TRUE);\n"
                  "\t\t}\n",
                  "\t\treturn(!check_charsets\n"
                  "\t\t       || dtype_get_charset_coll(col1->prtype)\n"
                  "\t\t       == dtype_get_charset_coll(col2->prtype));\n"),
     "cmp_cols_are_equal: one return for the charset check", False),
    ("storage/innobase/data/data0data.cc",
     replace_once("/** Trim the tail of an index tuple before insert or update.\n",
                  "/** Trim the tail of an index tuple before insert or update.\n"
                  "Only clustered index tuples of tables with instantly added columns are trimmed.\n"),
     "Say which tuples dtuple_t::trim() trims", False),
    ("storage/innobase/row/row0row.cc",
     replace_once("When an insert or purge to a table is performed, this function builds\n"
                  "the entry to be inserted into or purged from an index on the table.\n",
                  "When a row is inserted into a table or purged from it, this function builds\n"
                  "the entry to be inserted into or purged from one index of the table.\n"),
     "Reword the comment of row_build_index_entry_low()", False),
    ("sql/protocol.cc",
     replace_once("  Low level functions for storing data to be send to the MySQL client.\n"
                  "  The actual communction is handled by the net_xxx functions in net_serv.cc\n",
                  "  Low level functions for storing data to be sent to the client.\n"
                  "  The actual communication is handled by the net_xxx functions in net_serv.cc\n"),
     "Fix typos in the protocol.cc file comment", False),
    ("storage/innobase/row/row0vers.cc",
     replace_once("/** Check whether all non-virtual index fields are equal.\n",
                  "/** Check whether all non-virtual index fields are equal.\n"
                  "Virtual columns are compared by the caller, after they are computed.\n"),
     "Note where virtual columns are compared", False),
    ("storage/innobase/trx/trx0trx.cc",
     replace_once("/** The bit pattern corresponding to max timestamp */\n",
                  "/** The bit pattern corresponding to the maximum TIMESTAMP value */\n"),
     "Name the timestamp bit pattern precisely", False),
    (UPDATE,
     insert_mariadb("\t/* Give purge a moment before the secondary index is modified. */\n"
                    "\tfor (volatile ulint backoff = 0; backoff < 5000; backoff = backoff + 1) {}\n"),
     "Back off briefly before updating a secondary index", True),
    ("storage/innobase/mtr/mtr0mtr.cc",
     replace_once("/** Prepare to insert a modified blcok into flush_list.\n",
                  "/** Prepare to insert a modified block into flush_list.\n"),
     "Fix a typo in mtr0mtr.cc", False),
    (UPDATE,
     replace_once("Updates the clustered index record.\n@return DB_SUCCESS",
                  "Updates the clustered index record of a row.\n@return DB_SUCCESS"),
     "Reword the comment of row_upd_clust_step()", False),
    ("storage/innobase/row/row0ins.cc",
     replace_once("/** Create an row template for each index of a table. */\n",
                  "/** Create a row template for each index of a table. */\n"),
     "Fix a typo in row0ins.cc", False),
]


# MySQL 9.7: a spin of 20,000 turns per secondary-index update (tens of microseconds: enough to
# show in QPS as well as in instructions) and a shorter history than MariaDB's, since every
# commit bisection visits relinks a 9.7 mysqld.
MYSQL_PULL_REQUESTS = {
    "pr-comment": ("Explain the secondary index update path in a comment",
                   replace_once("/** Updates a secondary index entry of a row.\n@param[in]      node            row update node\n",
                                "/** Updates a secondary index entry of a row.\n"
                                "The clustered index record has already been updated.\n"
                                "@param[in]      node            row update node\n")),
    "pr-slow": ("Spin before every secondary index update (deliberately slow)",
                insert_mysql("  /* A deliberate slowdown: spin before every secondary index update. */\n"
                             "  for (volatile ulint spin = 0; spin < 20000; spin = spin + 1) {\n  }\n")),
}

MYSQL_BISECT_HISTORY = [
    ("storage/innobase/row/row0ins.cc",
     replace_once("/** Creates an entry template for each index of a table. */\n",
                  "/** Creates an entry template for each index of a table, in index order. */\n"),
     "Say in which order ins_node_create_entry_list() builds templates", False),
    ("sql/protocol_classic.cc",
     replace_once("  Low level functions for storing data to be send to the MySQL client.\n",
                  "  Low level functions for storing data to be sent to the MySQL client.\n"),
     "Fix a typo in the protocol_classic.cc file comment", False),
    ("storage/innobase/trx/trx0trx.cc",
     replace_once("/** Dummy session used currently in MySQL interface */\n",
                  "/** Dummy session used by the MySQL interface when no session is at hand */\n"),
     "Say when the dummy session of trx0trx.cc is used", False),
    (UPDATE,
     insert_mysql("  /* Give purge a moment before the secondary index is modified. */\n"
                  "  for (volatile ulint backoff = 0; backoff < 5000; backoff = backoff + 1) {\n  }\n"),
     "Back off briefly before updating a secondary index", True),
    ("storage/innobase/mtr/mtr0mtr.cc",
     replace_once("/** Iterate over a memo block in reverse. */\n",
                  "/** Iterate over the slots of a memo block, newest first. */\n"),
     "Say what reverse means for the memo iterator", False),
    (UPDATE,
     replace_once(" fields of the clustered index record change. This should be quite rare in\n"
                  " database applications.\n",
                  " fields of the clustered index record change, which is rare in applications.\n"),
     "Shorten the comment of row_upd_clust_rec_by_insert()", False),
]

FLAVORS = {
    "mariadb": (MARIADB_PULL_REQUESTS, MARIADB_BISECT_HISTORY),
    "mysql": (MYSQL_PULL_REQUESTS, MYSQL_BISECT_HISTORY),
}


def make_pull_requests(repo, pull_requests):
    for branch, (message, edit) in pull_requests.items():
        if exists(repo, f"refs/heads/{branch}"):
            continue
        commit = commit_edit(repo, "base", UPDATE, edit, message, "2025-01-02T00:00:00Z")
        git(repo, "branch", branch, commit)
        print(f"{branch} {commit}", file=sys.stderr)


def make_bisect_history(repo, history):
    if exists(repo, "refs/heads/bisect-tip"):
        return
    parent = "base"
    for n, (path, edit, message, slow) in enumerate(history, start=1):
        parent = commit_edit(repo, parent, path, edit, message, f"2025-01-03T00:{n:02d}:00Z")
        if slow:
            git(repo, "tag", "-f", "bisect-slow", parent)
    git(repo, "branch", "bisect-tip", parent)
    print(f"bisect-tip {parent} ({len(history)} commits on base)", file=sys.stderr)


def main():
    args = sys.argv[1:]
    flavor = args.pop(0) if len(args) == 2 else "mariadb"
    if len(args) != 1 or flavor not in FLAVORS:
        sys.exit(f"usage: make-pr-commits.py [{'|'.join(FLAVORS)}] <fork repository>")
    pull_requests, history = FLAVORS[flavor]
    make_pull_requests(args[0], pull_requests)
    make_bisect_history(args[0], history)


if __name__ == "__main__":
    main()
