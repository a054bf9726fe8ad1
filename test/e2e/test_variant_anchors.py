"""Every regression variant of bench/variants.py lands in the end-to-end fork as it says: its
marker and anchor are in the file at `base`, and its tagged commit changes that one file by
exactly its code. Needs the fork (test/e2e/fetch-mariadb-source.sh); test/e2e/run.sh runs this
after preparing it. With PERFGATE_E2E_FAMILY=mysql the same for bench/mysql_variants.py on the
MySQL test fork (test/e2e/run-mysql.sh). The tags are made in a scratch clone, never in the
fork itself."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import mysql_variants  # noqa: E402
import variants  # noqa: E402

FAMILY = os.environ.get("PERFGATE_E2E_FAMILY", "mariadb")
VARIANTS = mysql_variants.MYSQL_VARIANTS if FAMILY == "mysql" else variants.VARIANTS
FORK = Path(os.environ.get("PERFGATE_E2E_FORK",
                           Path(os.environ.get("PERFGATE_CACHE", Path.home() / ".cache" / "perfgate")) / "e2e" / f"{FAMILY}-fork"))


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    if not (FORK / ".git").exists() and not (FORK / "HEAD").exists():
        pytest.fail(f"the end-to-end fork is missing at {FORK}: prepare it with "
                    f"`bash test/e2e/fetch-mariadb-source.sh` (or set PERFGATE_E2E_FORK)")
    target = tmp_path_factory.mktemp("fork") / "clone"
    subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(FORK), str(target)], check=True)
    git(target, "fetch", "-q", "origin", "refs/tags/base:refs/tags/base")
    for name in VARIANTS:
        try:
            variants.variant_commits(str(target), [name], VARIANTS)
        except ValueError:
            pass  # that variant's test says which anchor is missing
    return target


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_variants_commit_changes_its_file_by_its_code(clone, name):
    v = VARIANTS[name]
    before = git(clone, "show", f"base:{v.path}")
    edited = v.edit(before)  # a ValueError naming the file and the missing marker or anchor
    tag = variants.variant_tag(name, VARIANTS)
    assert git(clone, "diff", "--name-only", "base", tag).split() == [v.path]
    after = git(clone, "show", f"{tag}:{v.path}")
    for marker, anchor in [v.at] + [site[:2] for site in v.more]:
        at = before.index(marker)
        lines_between = before[at:before.index(anchor, at)].count("\n")
        # The anchor is near its marker: in the function the marker names, not further down.
        assert lines_between < 100, f"{name}: {anchor!r} {lines_between} lines after its marker"
    assert after == edited
    assert len(after) == len(before) - (len(v.at[1]) if v.replaces else 0) + len(v.all_code)
