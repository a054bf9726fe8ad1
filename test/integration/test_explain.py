"""The explanation step on the two real servers, at a tiny scale: after a measured run, one write
row explained on fresh servers of both sides; explain.json matches its schema and holds counters,
waits, memory, plans and stacks (or why not) for both sides. A server killed in the middle makes
that row an error, never a finding, and leaves nothing running."""
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from conftest import REPO, events, load_plan, no_server_left

from perfgate_harness import explain_stacks, schema

ROW = "update-index_range=100"
TINY = ["--events", "200", "--windows", "3", "--memory-events", "400", "--stack-events", "300", "--warmup-seconds", "1"]


def measured_run(harness, basedirs):
    plan = load_plan("tiny-quick.json", basedirs, rounds=1, warmup_seconds=0)
    plan["scale"] = {"tables": 1, "rows": 500}
    plan["benchmarks"] = [b for b in plan["benchmarks"] if b["id"] in ("point-query", ROW)]
    done = harness.run(plan)
    assert done.returncode == 0, done.stderr
    return plan


def explain_command(harness, *extra):
    return [sys.executable, "-m", "perfgate_harness", "explain", "--plan", str(harness.plan_path), "--out",
            str(harness.out), "--rows", ROW, "--asked", "named", *TINY, *extra]


def test_one_row_explained_on_both_sides(harness, basedirs):
    measured_run(harness, basedirs)
    done = subprocess.run(explain_command(harness), capture_output=True, text=True, timeout=300, env=harness.env(),
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    doc = json.loads((harness.out / "explain.json").read_text())
    assert schema.schema_errors("explain", doc) == []
    assert doc["status"] == "ok" and doc["budget"] == {"rows": 3, "seconds_per_row": 60.0}
    (row,) = doc["rows"]
    assert (row["id"], row["asked"], row["status"]) == (ROW, "named", "ok")
    perf_reason = explain_stacks.unavailable_reason(shutil.which("perf"), os.geteuid(),
                                                    explain_stacks.PARANOID.read_text().strip())
    for side in ("base", "head"):
        got = row["sides"][side]
        windows = got["counters"]["windows"]
        assert len(windows) == 3
        for w in windows:
            # Every event is one UPDATE; the observer's own statements are taken off.
            assert w["queries"] == 200 and w["deltas"]["Handler_update"] == 200 and w["deltas"]["Com_update"] == 200
            assert w["deltas"]["trx_rw_commits"] == 200  # innodb_monitor_enable=all on this step's servers
            assert abs(w["deltas"]["Com_show_status"]) < 1 and abs(w["deltas"]["Handler_tmp_write"]) < 1
        waits = got["waits"]["windows"]
        assert len(waits) == 3 and all(w["waits"]["wait/io/table/sql/handler"]["count"] == 400 for w in waits)
        assert all("stage/sql/Updating" in w["stages"] or "stage/sql/updating" in w["stages"] for w in waits)
        assert all(w["statements"] for w in waits)
        memory = got["memory"]["windows"]
        assert len(memory) == 2 and all(m["rss_after"] > 0 and m["hwm_after"] >= m["rss_after"] for m in memory)
        if perf_reason is None:
            stacks = got["stacks"]
            assert stacks["samples"] > 0 and stacks["queries"] == 300
            oncpu = harness.out / stacks["oncpu_file"]
            assert oncpu.parent == harness.out / "explain" and "dispatch_command" in oncpu.read_text()
        else:  # not root: snapshots (test_explain_sandbox.py)
            assert got["stacks"]["tool"] == "eu-stack" and got["stacks"]["snapshots"] > 0
    (shape,) = row["plans"]["shapes"]
    assert shape["shape"] == "UPDATE sbtestN SET k=k+? WHERE id=?"
    for side in ("base", "head"):
        assert shape[side]["query_block"]["table"]["access_type"] == "range"
        assert shape[side]["query_block"]["table"]["key"] == "PRIMARY"
    assert not list(harness.out.glob("servers/*/general.log"))
    # 10.11.18 and 10.11.19 differ in their versions only: no setting to measure again.
    assert row["defaults"] is None and "defaults" not in row["sides"]["head"]["unavailable"]
    no_server_left(harness.out)


def test_a_server_killed_during_the_step_makes_the_row_an_error(harness, basedirs):
    measured_run(harness, basedirs)
    proc = subprocess.Popen(explain_command(harness), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=harness.env(), stdin=subprocess.DEVNULL)
    seen = []
    for line in proc.stdout:
        seen.append(line)
        event = json.loads(line) if line.startswith("{") else {}
        if event.get("phase") == "explain waits" and event.get("side") == "base":
            pid = int((harness.out / "servers" / "head" / "mysqld.pid").read_text())
            os.kill(pid, signal.SIGKILL)
    stderr = proc.stderr.read()
    assert proc.wait(300) == 0, stderr
    assert any(e.get("phase") == "explain waits" for e in events("".join(seen)))
    doc = json.loads((harness.out / "explain.json").read_text())
    assert schema.schema_errors("explain", doc) == []
    (row,) = doc["rows"]
    assert row["status"] == "error"
    assert row["error"]["message"].startswith("head server killed by signal SIGKILL"), row["error"]
    assert row["error"]["step"] == "waits"
    # Nothing measured before the kill is kept as a figure: not a comparison any more.
    assert all(row["sides"][side]["counters"] is None for side in ("base", "head")) and row["plans"] is None
    assert f"explain: {ROW}: " in stderr
    no_server_left(harness.out)


def test_perfgate_compare_explains_the_rows_asked_after_judging(tmp_path, basedirs):
    """`perfgate compare --explain <row>`: the step runs after the last judging, on the run's
    loaded datadirs, and leaves explain.json beside the verdict; the datadirs are removed after."""
    out = tmp_path / "run"
    done = subprocess.run(["node", str(REPO / "cli/bin/perfgate.js"), "compare", "--base", basedirs["base"], "--head",
                           basedirs["head"], "--out", str(out), "--tests", ROW, "--explain", ROW, "--seconds", "1",
                           "--warmup-seconds", "0", "--rounds", "2", "--tables", "1", "--rows", "500", "--metric", "time"],
                          capture_output=True, text=True, timeout=900, cwd=REPO)
    assert done.returncode in (0, 1, 3), done.stderr
    assert f"perfgate compare: explaining {ROW} on fresh servers\n" in done.stderr
    doc = json.loads((out / "explain.json").read_text())
    assert schema.schema_errors("explain", doc) == []
    (row,) = doc["rows"]
    assert (row["id"], row["asked"], row["status"]) == (ROW, "named", "ok")
    assert row["sides"]["base"]["counters"]["windows"] and row["sides"]["head"]["waits"]["windows"]
    assert (out / "verdict.json").exists() and not (out / "servers" / "base" / "data").exists()
    no_server_left(out)
