"""The defaults probe on real servers: one build on both sides, the head given another
innodb_flush_log_at_trx_commit (1, an fsync per commit, where the profile sets 2) as a build
whose default changed would start. The explanation step finds that variable (and the one the
server derives from it), restarts
the head with the base's value, re-measures the row in alternating pairs, and core says what the
pairs show; with no option apart, nothing differs and the cause line says nothing of defaults;
optimizer_switch differs, is set and is said flag by flag."""
import json
import subprocess

import pytest

from conftest import BASE, REPO, no_server_left

from perfgate_harness import schema

pytestmark = pytest.mark.usefixtures("basedirs")

ROW = "update-index_range=100"
VARIABLE = "innodb_flush_log_at_trx_commit"
DERIVED = "innodb_log_file_buffering"


def thresholds(tmp_path):
    folder = tmp_path / "thresholds"
    (folder / "suites").mkdir(parents=True)
    (folder / "suites" / "tiny.yml").write_text("\n".join([
        "suite: tiny", "profile: mariadb", "scale: {tables: 1, rows: 500}",
        "measure: {threads: 1, seconds: 1, warmup_seconds: 0, rounds: 2, side_schedule: alternating}",
        "limits: {default: {warn: 0.97, fail: 0.93}}",
        "budget: {extra_pairs: 0, minutes: 0}",
        "explain: {rows: 1, seconds_per_row: 45}",
        "benchmarks:", f"  - {ROW}"]) + "\n")
    return folder


def compare(tmp_path, name, *head_options):
    out = tmp_path / name
    done = subprocess.run(["node", str(REPO / "cli/bin/perfgate.js"), "compare", "--base", BASE, "--head", BASE,
                           *head_options, "--out", str(out), "--suite", "tiny", "--thresholds", str(thresholds(tmp_path)),
                           "--explain", ROW, "--metric", "time"],
                          capture_output=True, text=True, timeout=900, cwd=REPO)
    assert done.returncode in (0, 1, 3), done.stderr
    doc = json.loads((out / "explain.json").read_text())
    assert schema.schema_errors("explain", doc) == []
    (row,) = doc["rows"]
    assert row["status"] == "ok", row.get("error")
    verdict = json.loads((out / "verdict.json").read_text())
    (bench,) = [b for b in verdict["benchmarks"] if b["id"] == ROW]
    no_server_left(out)
    return row, bench


def test_a_changed_default_is_found_set_and_measured_again(tmp_path):
    row, bench = compare(tmp_path, "run-fsync", "--head-option", f"{VARIABLE}=1")
    defaults = row["defaults"]
    # The server derives one more from it (read here: 10.11 turns the redo log's file
    # buffering off where every commit is flushed); nothing else differs, paths and port aside.
    assert defaults["variables"] == [{"name": VARIABLE, "base": "2", "head": "1"},
                                     {"name": DERIVED, "base": "ON", "head": "OFF"}]
    assert (defaults["set"], defaults["refused"], defaults["still_differ"]) == ([VARIABLE, DERIVED], [], [])
    rounds = defaults["rounds"]
    pairs = len(rounds) // 2
    assert pairs >= 2 and [r["side"] for r in rounds] == ["base", "head"] * pairs, rounds
    assert [r["index"] for r in rounds] == [i for i in range(pairs) for _ in (0, 1)]
    # The head with the base's setting is measured again: no longer the verdict's head, each of
    # whose commits waited for an fsync (rQPS 0.04 here, the re-measure near 1).
    (finding,) = bench["cause"]["details"]["defaults"]
    assert finding["interval"]["estimate"] > 2 * bench["rqps"]["estimate"], (finding, bench["rqps"])
    low, high, warn = finding["interval"]["low"], finding["interval"]["high"], finding["limits"]["warn"]
    said = {"explains": "the changed defaults explain it", "code": "the code is slower with the same settings",
            "open": "too few pairs to say whether the changed defaults explain it"}
    # What core names follows the re-measure's interval against the warn limit, and only it.
    expected = "explains" if low >= warn else "code" if high < warn else "open"
    assert finding["outcome"] == expected, finding
    assert said[expected] in bench["cause"]["line"]
    assert f"{VARIABLE} 2" in bench["cause"]["line"]
    assert "defaults" in bench["cause"]["looked_at"]


def test_one_build_on_both_sides_differs_in_nothing(tmp_path):
    row, bench = compare(tmp_path, "run-same")
    assert row["defaults"] is None
    assert all("defaults" not in row["sides"][s]["unavailable"] for s in ("base", "head"))
    assert "default" not in bench["cause"]["line"]
    assert not any(n["what"] == "defaults" for n in bench["cause"]["not_looked_at"])


def test_optimizer_switch_is_set_flag_by_flag(tmp_path):
    # The head started with two flags of optimizer_switch apart from the build's own: those two
    # differ, by name, and the head gets the base's values of them (its other flags as they were).
    row, bench = compare(tmp_path, "run-switch", "--head-option", "optimizer_switch=mrr=on,rowid_filter=off")
    defaults = row["defaults"]
    assert defaults["variables"] == [{"name": "optimizer_switch.mrr", "base": "off", "head": "on"},
                                     {"name": "optimizer_switch.rowid_filter", "base": "on", "head": "off"}]
    assert (defaults["set"], defaults["refused"], defaults["still_differ"]) == (
        ["optimizer_switch.mrr", "optimizer_switch.rowid_filter"], [], [])
    assert len(defaults["rounds"]) >= 4
    assert "optimizer_switch.mrr off" in bench["cause"]["line"]
