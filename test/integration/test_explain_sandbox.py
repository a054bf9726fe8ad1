"""The explanation step inside the sandbox: `perfgate compare` as root runs the harness there as
uid 65534, where the kernel keeps scheduler tracepoints from perf, so the stacks probe takes
eu-stack snapshots of mysqld's threads instead. One build against itself: both sides' stacks
come from snapshots, in the run folder, and no wait is named."""
import json
import os
import subprocess

from conftest import BASE, REPO
from test_compare import tiny_thresholds


def test_stacks_inside_the_sandbox_come_from_snapshots_and_name_no_wait_between_one_build(tmp_path):
    assert os.geteuid() == 0, "perfgate drops root to uid 65534 in the sandbox: this test runs as root"
    thresholds = tiny_thresholds(tmp_path, "{warn: 0.5, fail: 0.4}", "{extra_pairs: 0, minutes: 10}", benchmarks=("point-query",))
    suite = thresholds / "suites" / "tiny.yml"
    suite.write_text(suite.read_text() + "explain: {rows: 1, seconds_per_row: 30}\n")
    out = tmp_path / "run"
    r = subprocess.run(["node", str(REPO / "cli/bin/perfgate.js"), "compare", "--explain", "point-query", "--base", BASE, "--head", BASE,
                        "--out", str(out), "--suite", "tiny", "--thresholds", str(thresholds), "--tables", "1", "--rows", "1000",
                        "--metric", "time"], capture_output=True, text=True, timeout=600,
                       env={**os.environ, "PERFGATE_SANDBOX": "auto"})
    assert r.returncode in (0, 1, 3), r.stderr
    (row,) = json.loads((out / "explain.json").read_text())["rows"]
    assert row["status"] == "ok", row
    for side in ("base", "head"):
        stacks = row["sides"][side]["stacks"]
        assert stacks is not None, row["sides"][side]["unavailable"]
        # How many snapshots fit in the window depends on the machine's load (eu-stack takes ~0.1 s
        # each when idle; 7 in 2.1 s on a loaded 2-core machine): several, not a number.
        assert stacks["tool"] == "eu-stack" and stacks["snapshots"] >= 3 and stacks["queries"] > 0, stacks
        assert set(stacks["offcpu_snapshots"]) <= set(stacks["offcpu_us_per_query"])
        assert "dispatch_command" in (out / stacks["oncpu_file"]).read_text() + (out / stacks["offcpu_file"]).read_text()
    (bench,) = [b for b in json.loads((out / "verdict.json").read_text())["benchmarks"] if b["id"] == "point-query"]
    assert "stacks" in bench["cause"]["looked_at"] and bench["cause"]["details"]["stacks"] == [], bench["cause"]
