#!/usr/bin/env python3
"""Adds the three pull-request commits of the end-to-end test on top of the fork's `base` tag,
one branch each, with fixed authors and dates so their SHAs (and build cache keys) are the same
on every run:

  pr-comment  changes only a comment                                  -> must pass
  pr-slow     makes every InnoDB secondary-index update spin ~1 ms  -> must fail on
              update-index and pass on point-query
  pr-broken   does not compile                                        -> must be an error

Usage: make-pr-commits.py <fork repository>. Existing branches are left as they are.
"""
import os
import subprocess
import sys

FILE = "storage/innobase/row/row0upd.cc"
FUNCTION = "row_upd_sec_index_entry(\n"
ANCHOR = "\tut_ad(trx->id != 0);\n"

ENV = dict(os.environ, GIT_AUTHOR_NAME="perfgate", GIT_AUTHOR_EMAIL="perfgate@localhost",
           GIT_COMMITTER_NAME="perfgate", GIT_COMMITTER_EMAIL="perfgate@localhost",
           GIT_AUTHOR_DATE="2025-01-02T00:00:00Z", GIT_COMMITTER_DATE="2025-01-02T00:00:00Z")


def git(repo, *args, check=True):
    return subprocess.run(["git", "-C", repo, *args], env=ENV, check=check, capture_output=True, text=True)


def insert_in_function(text, lines):
    """Inserts `lines` right after the first trx assertion of row_upd_sec_index_entry()."""
    start = text.index(FUNCTION)
    at = text.index(ANCHOR, start) + len(ANCHOR)
    return text[:at] + lines + text[at:]


EDITS = {
    "pr-comment": ("Explain the secondary index update path in a comment",
                   lambda t: t.replace("Updates a secondary index entry of a row.\n",
                                       "Updates a secondary index entry of a row.\n"
                                       "The clustered index record has already been updated.\n", 1)),
    "pr-slow": ("Spin before every secondary index update (deliberately slow)",
                lambda t: insert_in_function(t, "\t/* A deliberate slowdown: spin before every secondary index update. */\n"
                                                "\tfor (volatile ulint spin = 0; spin < 1000000; spin = spin + 1) {}\n")),
    "pr-broken": ("Refactor the secondary index update (does not compile)",
                  lambda t: insert_in_function(t, "\tthis_identifier_does_not_exist = 1;\n")),
}


def main():
    repo = sys.argv[1]
    for branch, (message, edit) in EDITS.items():
        if git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", check=False).returncode == 0:
            continue
        # Commit without touching the checkout: build the tree from the base blob.
        original = git(repo, "show", f"base:{FILE}").stdout
        changed = edit(original)
        assert changed != original, f"{branch}: the edit of {FILE} changed nothing"
        blob = subprocess.run(["git", "-C", repo, "hash-object", "-w", "--stdin"], input=changed, env=ENV,
                              check=True, capture_output=True, text=True).stdout.strip()
        index = os.path.join(git(repo, "rev-parse", "--absolute-git-dir").stdout.strip(), f"index.{branch}")
        env = dict(ENV, GIT_INDEX_FILE=index)
        subprocess.run(["git", "-C", repo, "read-tree", "base"], env=env, check=True)
        mode = git(repo, "ls-tree", "base", FILE).stdout.split()[0]
        subprocess.run(["git", "-C", repo, "update-index", "--cacheinfo", f"{mode},{blob},{FILE}"], env=env, check=True)
        tree = subprocess.run(["git", "-C", repo, "write-tree"], env=env, check=True, capture_output=True, text=True).stdout.strip()
        os.remove(index)
        commit = git(repo, "commit-tree", tree, "-p", "base", "-m", message).stdout.strip()
        git(repo, "branch", branch, commit)
        print(f"{branch} {commit}", file=sys.stderr)


if __name__ == "__main__":
    main()
