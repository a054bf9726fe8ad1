"""A cancelled CI job: SIGTERM to `perfgate compare` in the middle of a round on the real
servers. Nothing may stay running, nothing may stay on disk but the run folder, and the run
folder must say "cancelled"."""
import json
import signal
import subprocess
import time
from pathlib import Path

import jsonschema
import pytest

from conftest import REPO, is_server, processes_mentioning, wait_for_round


# Together (and alternating), both sides' sysbench run at once, each waited for by a thread: a cancel must stop
# both at once, not wait out a round (300 s here, so waiting would miss the 180 s bound).
@pytest.mark.parametrize("sides,seconds", [("in-turn", "60"), ("together", "300"), ("alternating", "300")])
def test_sigterm_mid_round_stops_everything_and_leaves_a_cancelled_run_folder(basedirs, tmp_path, sides, seconds):
    out = tmp_path / "run"
    cmd = ["node", str(REPO / "cli" / "bin" / "perfgate.js"), "compare", "--explain", "none", "--base", basedirs["base"], "--head", basedirs["head"],
           "--out", str(out), "--suite", "quick", "--seconds", seconds, "--warmup-seconds", "0", "--rounds", "2",
           "--tables", "2", "--rows", "1000", "--metric", "time", "--sides", sides]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The first round runs for minutes: wait until it has started and sysbench is running.
    seen = wait_for_round(proc)
    time.sleep(3)
    assert any("sysbench" in c for c in processes_mentioning(str(out)).values()) \
        or processes_mentioning("perfgate_harness"), "a round is running"
    servers = {pid: c for pid, c in processes_mentioning(str(out)).items() if is_server(c)}
    assert len(servers) == 2, servers

    proc.send_signal(signal.SIGTERM)
    stdout, rest = proc.communicate(timeout=180)
    stderr = "".join(seen) + rest
    assert proc.returncode == 143, stderr
    assert "cancelled by SIGTERM" in stderr

    left = processes_mentioning(str(out))
    assert left == {}, f"still running after the cancel: {left}"
    for pid in servers:
        assert not Path(f"/proc/{pid}").exists(), f"mysqld {pid} still exists"
    for side in ("base", "head"):
        assert not (out / "servers" / side / "data").exists(), f"{side} datadir left behind"
        socket_link = list((out / "servers" / side).glob("my.cnf"))
        for cnf in socket_link:
            socket = next(l.split("=", 1)[1].strip() for l in cnf.read_text().splitlines() if l.startswith("socket"))
            if socket.startswith("/tmp/perfgate-"):
                assert not Path(socket).parent.exists(), f"{Path(socket).parent} left behind"
    results = json.loads((out / "results.json").read_text())
    jsonschema.validate(results, json.loads((REPO / "schema" / "results.schema.json").read_text()))
    assert results["status"] == "cancelled"
    assert results["benchmarks"] == []
    assert results["errors"][0]["message"].startswith("cancelled by SIGTERM")
    assert not (out / "verdict.json").exists() and not (out / "comment.md").exists()
