"""perfgate killed outright in the middle of a round (SIGKILL: the OOM killer, a runner that
loses patience): it cannot stop anything itself, so its children must die with it. Checked with
the sandbox (bubblewrap: the servers run in a PID namespace that dies with it) and without
(PERFGATE_SANDBOX=off: parent-death signals alone)."""
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import REPO, processes_mentioning, wait_for_round

LEFT_AFTER_SECONDS = 5


def start_compare(basedirs, out, env):
    cmd = ["node", str(REPO / "cli" / "bin" / "perfgate.js"), "compare", "--explain", "none", "--base", basedirs["base"], "--head", basedirs["head"],
           "--out", str(out), "--suite", "quick", "--seconds", "60", "--warmup-seconds", "0", "--rounds", "2",
           "--tables", "1", "--rows", "1000", "--metric", "time"]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)


def status_field(pid, name):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{name}:"):
            return line.split()[1]
    return None


@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_sigkill_mid_round_leaves_no_harness_server_or_sysbench(basedirs, tmp_path, sandbox):
    out = tmp_path / "run"
    proc = start_compare(basedirs, out, {**os.environ, "PERFGATE_SANDBOX": sandbox})
    try:
        wait_for_round(proc)
        time.sleep(2)
        running = processes_mentioning(str(out))
        servers = [pid for pid, c in running.items() if "mariadbd" in c and "--defaults-file" in c]
        assert len(servers) == 2, running
        assert any("perfgate_harness" in c for c in running.values()), running
        assert any(c.startswith("sysbench ") for c in running.values()), running
        for pid in servers:
            in_sandbox = os.readlink(f"/proc/{pid}/ns/pid") != os.readlink("/proc/self/ns/pid")
            assert in_sandbox == (sandbox == "auto"), f"mariadbd {pid}: in a PID namespace of its own: {in_sandbox}"
            if sandbox == "auto":
                assert status_field(pid, "Uid") == "65534", f"mariadbd {pid} runs as uid {status_field(pid, 'Uid')}"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + LEFT_AFTER_SECONDS
    left = processes_mentioning(str(out))
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = processes_mentioning(str(out))
    for pid in left:  # a failed run must not leave them to the next test
        try:
            os.killpg(os.getpgid(pid), signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    assert left == {}, f"{LEFT_AFTER_SECONDS} s after perfgate was killed, still running: {left}"
