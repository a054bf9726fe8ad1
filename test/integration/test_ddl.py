"""The DDL suite end to end on the two real MariaDB builds, at a tiny scale: `perfgate compare
--suite ddl-quick` times every statement on fresh copies of the prepared employees table and
reports one row per statement, the bulk load's among them. Nothing is faked; the assertions hold whatever the timings."""
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import BASE, HEAD, REPO, no_server_left, processes_mentioning
from perfgate_harness import ddl_workload

pytestmark = pytest.mark.usefixtures("basedirs")

STATEMENTS = ["add-index", "drop-index", "add-column-instant", "add-column-rebuild", "optimize", "load-data"]
TINY = ["--rows", "300", "--rounds", "2"]


def ddl_thresholds(tmp_path, benchmarks=STATEMENTS, signals="[time]"):
    """A copy of the shipped thresholds/ whose ddl-quick suite lists `benchmarks`, measures
    `signals` and its planned pairs only."""
    folder = tmp_path / "thresholds"
    shutil.copytree(REPO / "thresholds", folder)
    suite = folder / "suites" / "ddl-quick.yml"
    text = re.sub(r"extra_pairs: \d+", "extra_pairs: 0", suite.read_text())
    text = re.sub(r"signals: \[[a-z, ]+\]", f"signals: {signals}", text)
    text = text[:text.index("benchmarks:\n")] + "benchmarks:\n" + "".join(f"  - {b}\n" for b in benchmarks)
    suite.write_text(text)
    return folder


def compare(tmp_path, thresholds, *args):
    out = tmp_path / "run"
    done = subprocess.run(["node", str(REPO / "cli/bin/perfgate.js"), "compare", "--base", BASE, "--head", HEAD,
                           "--suite", "ddl-quick", "--thresholds", str(thresholds), "--out", str(out), "--keep-data", *args],
                          capture_output=True, text=True, timeout=900, cwd=REPO)
    return done, out


def starts(error_log: Path) -> int:
    """How many times the server of that log became ready."""
    return error_log.read_text(errors="replace").count("ready for connections")


def test_every_statement_is_a_row_timed_on_fresh_copies_of_the_prepared_table(tmp_path):
    done, out = compare(tmp_path, ddl_thresholds(tmp_path), *TINY)
    assert done.returncode in (0, 1, 3), done.stderr  # a verdict, whatever it is: not an error
    results = json.loads((out / "results.json").read_text())
    assert results["status"] == "ok" and results["data"] == "shared"
    rows = results["benchmarks"]
    assert [b["id"] for b in rows] == STATEMENTS
    plan = json.loads((out / "plan.json").read_text())
    for row, planned in zip(rows[:-1], plan["benchmarks"]):
        assert row["status"] == "ok" and row["group"] == "ddl", row
        assert row["shape"] == planned["ddl"]["statement"]
        assert row["command"].endswith(f'perfgate_ddl -e "{planned["ddl"]["statement"]}"')
    # The bulk load: every row of the harness's file loaded without a warning (else its round
    # fails), from the file it wrote for the side, the same rows the table was loaded with.
    load = rows[-1]
    assert load["status"] == "ok" and load["shape"] == plan["benchmarks"][-1]["shape"], load
    rows_file = out / "servers/base/tmp/employees-sorted.csv"
    assert f"CREATE TABLE employees_load LIKE employees; LOAD DATA LOCAL INFILE '{rows_file}' INTO TABLE employees_load" \
        in load["command"]
    expected = tmp_path / "expected.csv"
    ddl_workload.write_rows_file(expected, 300)
    assert rows_file.read_bytes() == expected.read_bytes() == (out / "servers/head/tmp/employees-sorted.csv").read_bytes()
    for row in rows:
        # Two timings a side: the second of ADD INDEX idx_name or DROP INDEX idx_salary would
        # fail on the first one's table; each ran on a copy of the table as prepared.
        assert sorted(r["side"] for r in row["rounds"]) == ["base", "base", "head", "head"]
        for r in row["rounds"]:
            assert r["queries"] == 1 and r["qps"] > 0 and abs(r["qps"] * r["seconds"] - 1) < 1e-9
    # One start per timing on top of the timed phase's (and the base's load): a server
    # restarted on a fresh copy for each statement.
    timings = len(STATEMENTS) * 2
    assert starts(out / "servers/base/error.log") == 1 + 1 + timings
    assert starts(out / "servers/head/error.log") == 1 + timings
    verdict = json.loads((out / "verdict.json").read_text())
    assert [b["id"] for b in verdict["benchmarks"]] == STATEMENTS
    comment = (out / "comment.md").read_text()
    assert "DDL statements" in comment
    for name in STATEMENTS:
        assert re.search(rf"^\| \S+ \| {name} \| [0-9.]+ \|", comment, re.M), (name, comment)
    no_server_left(out)
    assert not processes_mentioning(str(out))


def test_a_parallel_index_build_on_mariadb_is_an_error_that_says_it_has_none(tmp_path):
    done, out = compare(tmp_path, ddl_thresholds(tmp_path, ["add-index-parallel"]), *TINY)
    assert done.returncode == 4, done.stderr
    results = json.loads((out / "results.json").read_text())
    [row] = results["benchmarks"]
    assert results["status"] == "error" and row["status"] == "error" and row["rounds"] == []
    assert row["error"]["message"] == (
        "base: Unknown system variable 'innodb_ddl_threads': this server has no such variable (MariaDB has no "
        "innodb_ddl_threads: its index builds are single-threaded); expected a MySQL 8.0.27 or later server, "
        "or a suite without this statement")
    no_server_left(out)


def test_a_rows_server_wide_setting_is_set_on_each_of_its_servers(tmp_path):
    # load-data-ahi: the bulk load with the adaptive hash index on, SET GLOBAL on each fresh server.
    done, out = compare(tmp_path, ddl_thresholds(tmp_path, ["load-data-ahi"]), *TINY)
    assert done.returncode in (0, 1, 3), done.stderr
    [row] = json.loads((out / "results.json").read_text())["benchmarks"]
    assert row["status"] == "ok", row
    assert row["shape"].startswith("SET GLOBAL innodb_adaptive_hash_index = ON; LOAD DATA LOCAL INFILE")
    assert 'perfgate_ddl -e "SET GLOBAL innodb_adaptive_hash_index = ON; CREATE TABLE employees_load LIKE employees; ' in row["command"]
    assert sorted(r["side"] for r in row["rounds"]) == ["base", "base", "head", "head"]


def test_a_statements_instructions_are_counted_once_a_window_on_a_copy_made_before_it(tmp_path):
    # A second ADD INDEX idx_name or DROP INDEX idx_salary on the same table would fail: every
    # window (and the warm-up) ran on a copy made again, uncounted, and the rows loaded were all
    # there; a renamed table left by one window would make the next rename fail.
    names = ["rename-table", "add-index", "drop-index", "load-data"]
    folder = ddl_thresholds(tmp_path, names, "[time, instructions]")
    catalogue = folder / "benchmarks.yml"
    catalogue.write_text(catalogue.read_text().replace(
        "  add-index:\n",
        '  rename-table:\n    group: ddl\n    kind: write\n    statement: "ALTER TABLE employees RENAME TO employees_renamed"\n'
        "  add-index:\n", 1))
    done, out = compare(tmp_path, folder, *TINY)
    assert done.returncode in (0, 1, 3), done.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["status"] == "ok", results
    assert [b["id"] for b in results["benchmarks"]] == names
    for row in results["benchmarks"]:
        assert row["status"] == "ok", row
        counted = row["instructions"]
        assert counted["events"] == 1
        for side in ("base", "head"):
            windows = counted[side]["windows"]
            assert len(windows) >= 3 and all(w["queries"] == 1 and w["connection"]["instructions"] > 0 for w in windows), windows
        # the timed rounds after the windows ran on the datadir as prepared (a confirmation on
        # fresh servers adds windows and rounds)
        assert {r["side"] for r in row["rounds"]} == {"base", "head"} and all(r["queries"] == 1 for r in row["rounds"])
    # the statement's own work is what was counted (Debian's builds name the SQL layer's
    # functions; InnoDB's static ones need the build's symbols)
    functions = [f["name"] for f in results["benchmarks"][1]["instructions"]["base"]["functions"]["connection"]]
    assert any(name.startswith("mysql_alter_table(") for name in functions), functions[:20]
    verdict = json.loads((out / "verdict.json").read_text())
    assert all(b.get("instructions_per_query") for b in verdict["benchmarks"]), verdict["benchmarks"]
    no_server_left(out)
    assert not processes_mentioning(str(out))

