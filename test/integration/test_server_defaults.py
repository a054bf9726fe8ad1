"""`profile: defaults` on real servers: a head whose build changed a default is measured with it,
and the reports name the server variable that differs.

The head is 10.11.19 as a build whose compiled-in default of innodb_adaptive_hash_index is ON
(MariaDB 10.6 turned it OFF, and some queries got 50% slower): its prefix holds a mariadbd that
runs the real one with that default put first in its option file, where anything the file
itself sets overrides it, as it overrides a compiled-in default. Every start gets the changed
default as a build would, without an hour of compiling.
"""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import BASE, HEAD, REPO

pytestmark = pytest.mark.usefixtures("basedirs")

TINY = ["--seconds", "1", "--warmup-seconds", "0", "--rounds", "2", "--tables", "2", "--rows", "1000"]


def copy_prefix(source: Path, target: Path) -> None:
    """A prefix of its own, hard-linked where the file system lets it: the sandbox shows a run
    only the prefixes it measures, so nothing in one may point outside it."""
    def link_or_copy(src, dst):
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)
    shutil.copytree(source, target, symlinks=True, copy_function=link_or_copy)


def ahi_on_build(tmp_path: Path) -> Path:
    prefix = tmp_path / "head-ahi-on" / "usr"
    copy_prefix(Path(HEAD), prefix)
    wrapper = prefix / "sbin" / "mariadbd"
    real = prefix / "sbin" / "mariadbd.compiled"
    wrapper.rename(real)
    wrapper.write_text(f"""#!/bin/sh
case "$1" in
  --defaults-file=*)
    file="${{1#--defaults-file=}}"
    shift
    {{ printf '[mysqld]\\ninnodb_adaptive_hash_index = ON\\n'; cat "$file"; }} > "$file.build-defaults"
    exec {real} --defaults-file="$file.build-defaults" "$@" ;;
esac
exec {real} "$@"
""")
    wrapper.chmod(0o755)
    return prefix


def thresholds_with_profile(tmp_path: Path, profile: str) -> Path:
    folder = tmp_path / f"thresholds-{profile}"
    (folder / "suites").mkdir(parents=True)
    (folder / "suites" / "tiny.yml").write_text("\n".join([
        "suite: tiny", f"profile: {profile}", "scale: {tables: 2, rows: 1000}",
        "measure: {threads: 1, seconds: 1, warmup_seconds: 0, rounds: 2}",
        "instructions: {windows: 2, seed: 1}",
        "limits: {default: {warn: 0.97, fail: 0.93, instructions: {warn: 1.02, fail: 1.04}}}",
        "budget: {extra_pairs: 0, minutes: 0}",
        "benchmarks:", "  - point-query"]) + "\n")
    return folder


def compare(tmp_path, head, profile, metric="time"):
    out = tmp_path / f"run-{profile}-{metric}"
    r = subprocess.run(["node", str(REPO / "cli/bin/perfgate.js"), "compare", "--explain", "none", "--base", BASE, "--head", str(head),
                        "--out", str(out), "--suite", "tiny", "--thresholds", str(thresholds_with_profile(tmp_path, profile)),
                        *TINY, "--metric", metric], capture_output=True, text=True, timeout=900, cwd=REPO)
    assert r.returncode in (0, 1, 3), r.stderr
    return out, r.stdout


PATH_VARIABLES = ("datadir", "socket", "port", "pid_file", "basedir", "tmpdir", "log_error", "lc_messages_dir",
                  "aria_log_dir_path", "character_sets_dir", "plugin_dir")


def differing_variables_table(comment: str) -> str:
    return comment.split("Server variables that differ")[1].split("</details>")[0]


def test_a_changed_default_is_measured_and_named_with_profile_defaults(tmp_path):
    head = ahi_on_build(tmp_path)
    out, stdout = compare(tmp_path, head, "defaults")
    results = json.loads((out / "results.json").read_text())
    base_vars, head_vars = (results["sides"][s]["variables"] for s in ("base", "head"))
    assert (base_vars["innodb_adaptive_hash_index"], head_vars["innodb_adaptive_hash_index"]) == ("OFF", "ON")
    # perfgate set nothing but the buffer pool (and each side's paths and port).
    assert "innodb_adaptive_hash_index" not in results["sides"]["head"]["options"]
    assert results["sides"]["head"]["options"]["innodb_buffer_pool_size"] == "1G"
    assert head_vars["innodb_buffer_pool_size"] == str(1 << 30)
    # The variables that differ: the changed default by name, the versions counted; the paths
    # and ports of the two sides are not differences.
    line = "innodb_adaptive_hash_index (OFF → ON); and "
    comment = (out / "comment.md").read_text()
    assert f"<summary>Server variables that differ (SHOW GLOBAL VARIABLES): {line}" in comment
    assert "| innodb_adaptive_hash_index | OFF | ON |" in comment
    assert f"server variables that differ: {line}" in stdout
    for name in PATH_VARIABLES:
        assert f"| {name} |" not in differing_variables_table(comment), name
    assert "<table data-table=\"variables\">" in (out / "report.html").read_text()


def test_a_profile_that_sets_the_option_hides_the_changed_default(tmp_path):
    # The shipped mariadb profile sets innodb_adaptive_hash_index = OFF on both sides: the head's
    # changed default never runs, and no variable tells it apart.
    out, _ = compare(tmp_path, ahi_on_build(tmp_path), "mariadb")
    results = json.loads((out / "results.json").read_text())
    assert results["sides"]["head"]["variables"]["innodb_adaptive_hash_index"] == "OFF"
    assert "innodb_adaptive_hash_index (" not in (out / "comment.md").read_text()


def test_instructions_only_each_sides_paths_are_its_own(tmp_path):
    # Counting instructions only, neither server runs outside valgrind and the head's datadir is
    # a copy of the base's: each side's paths in its variables are still read as its own. Between
    # 10.11.18 and 10.11.19 only the version variables differ.
    out, stdout = compare(tmp_path, Path(HEAD), "defaults", metric="instructions")
    results = json.loads((out / "results.json").read_text())
    assert results["sides"]["head"]["options"]["datadir"].endswith("/servers/head/data")
    comment = (out / "comment.md").read_text()
    table = differing_variables_table(comment)
    for name in PATH_VARIABLES:
        assert f"| {name} |" not in table, name
    assert "| version |" in table
    assert "server variables that differ: 2 version variables" in stdout, stdout
