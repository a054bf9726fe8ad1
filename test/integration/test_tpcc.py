"""The TPC-C suite end to end on the two real MariaDB builds, kept small (one warehouse, 3 s
rounds, two a side): `perfgate compare --suite tpcc` prepares go-tpc's warehouse once, restarts
each side on a fresh copy of it for every round and reports one row whose rate is tpmC / 60.
Nothing is faked; the assertions hold whatever the timings."""
import json
import re
import shutil
import subprocess

import pytest

from conftest import BASE, HEAD, REPO, no_server_left

pytestmark = pytest.mark.usefixtures("basedirs")

ROUNDS = 2


def tiny_thresholds(tmp_path):
    """A copy of the shipped thresholds/ whose tpcc suite measures its planned pairs only."""
    folder = tmp_path / "thresholds"
    shutil.copytree(REPO / "thresholds", folder)
    suite = folder / "suites" / "tpcc.yml"
    suite.write_text(re.sub(r"extra_pairs: \d+", "extra_pairs: 0", suite.read_text()))
    return folder


def test_tpcc_rounds_each_run_on_a_fresh_copy_of_the_prepared_warehouse(tmp_path):
    out = tmp_path / "run"
    done = subprocess.run(["node", str(REPO / "cli/bin/perfgate.js"), "compare", "--base", BASE, "--head", HEAD,
                           "--suite", "tpcc", "--thresholds", str(tiny_thresholds(tmp_path)), "--out", str(out),
                           "--seconds", "3", "--rounds", str(ROUNDS), "--explain", "none"],
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert done.returncode in (0, 1, 3), done.stderr  # a verdict, whatever it is: not an error
    results = json.loads((out / "results.json").read_text())
    assert results["status"] == "ok" and results["data"] == "shared"
    [row] = results["benchmarks"]
    assert row["status"] == "ok" and row["group"] == "tpcc", row
    assert re.search(r"go-tpc tpcc run -H 127\.0\.0\.1 -P \d+ -U perfgate_tpcc -D perfgate_tpcc --warehouses 1 -T 2 --time 3s",
                     row["command"]), row["command"]
    assert sorted(r["side"] for r in row["rounds"]) == ["base"] * ROUNDS + ["head"] * ROUNDS
    client_log = (out / "sysbench.log").read_text()
    tpmc = [float(v) for v in re.findall(r"^tpmC: ([0-9.]+)", client_log, re.MULTILINE)]
    assert len(tpmc) == 2 * ROUNDS
    for r in row["rounds"]:
        # NewOrders per second: one of the tpmC lines go-tpc printed, per second.
        assert r["queries"] > 0 and r["errors"] == 0 and r["latency_ms"]["p95"] > 0
        assert any(abs(r["qps"] * 60 - t) < 0.01 for t in tpmc), (r["qps"], tpmc)
        assert r["tps"] > r["qps"]  # the other four kinds count as transactions, not as the rate
    # One start per round on top of the timed phase's (and the base's prepare): each round ran
    # on a server restarted on a fresh copy of the warehouse as prepared.
    starts = {side: (out / f"servers/{side}/error.log").read_text(errors="replace").count("ready for connections")
              for side in ("base", "head")}
    assert starts == {"base": 1 + 1 + ROUNDS, "head": 1 + ROUNDS}
    assert client_log.count("go-tpc tpcc prepare") == 1  # prepared once, copied to the head
    verdict = json.loads((out / "verdict.json").read_text())
    assert [b["id"] for b in verdict["benchmarks"]] == ["tpcc"]
    assert verdict["benchmarks"][0]["verdict"] in ("pass", "warn", "fail", "undecided")
    no_server_left(out)
