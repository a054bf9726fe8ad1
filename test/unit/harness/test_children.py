"""Children of the harness die with it (a parent-death signal), and only with it: a server started
from a worker thread must outlive that thread."""
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from perfgate_harness import children

REPO = Path(__file__).resolve().parents[3]


def gone_within(pid, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def test_a_child_started_from_a_worker_thread_outlives_the_thread():
    started = []
    worker = threading.Thread(target=lambda: started.append(children.popen(["sleep", "30"])))
    worker.start()
    worker.join()
    proc = started[0]
    try:
        time.sleep(0.5)
        assert proc.poll() is None, f"the child died with the thread that asked for it: {proc.returncode}"
    finally:
        proc.kill()
        proc.wait()


# A stand-in harness: starts a child from a worker thread (as servers are started), prints its
# pid and waits to be killed.
HARNESS = """
import sys, threading, time
from perfgate_harness import children
started = []
t = threading.Thread(target=lambda: started.append(children.popen(["sleep", "300"])))
t.start(); t.join()
print(started[0].pid, flush=True)
time.sleep(300)
"""


def test_children_die_when_the_harness_is_killed():
    harness = subprocess.Popen([sys.executable, "-c", HARNESS], stdout=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": str(REPO / "harness")})
    child = int(harness.stdout.readline())
    try:
        assert not gone_within(child, 0.3), "the child is running"
        harness.send_signal(signal.SIGKILL)
        harness.wait()
        assert gone_within(child, 5), f"sleep {child} outlived the killed harness"
    finally:
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_run_kills_a_child_past_its_timeout_and_passes_on_errors():
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        children.run(["sleep", "30"], timeout=0.5)
    assert time.monotonic() - started < 10
    with pytest.raises(FileNotFoundError):
        children.popen(["/nonexistent/mariadbd", "--version"])
    done = children.run(["sh", "-c", "echo out; echo err >&2; exit 3"], capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (3, "out\n", "err\n")
