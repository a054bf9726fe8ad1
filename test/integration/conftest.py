"""Integration tier: real mariadbd and real sysbench, at a tiny scale.

PERFGATE_BASE and PERFGATE_HEAD name the installed servers (the Makefile passes the two MariaDB
builds that `make setup` unpacks); the tests fail, not skip, when they are missing.
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "harness"))
CACHE = Path(os.environ.get("PERFGATE_CACHE", Path.home() / ".cache" / "perfgate"))
BASE = os.environ.get("PERFGATE_BASE", str(CACHE / "servers" / "mariadb-10.11.18" / "usr"))
HEAD = os.environ.get("PERFGATE_HEAD", str(CACHE / "servers" / "mariadb-10.11.19" / "usr"))


@pytest.fixture(scope="session")
def basedirs():
    for d in (BASE, HEAD):
        assert (Path(d) / "sbin" / "mariadbd").exists() or (Path(d) / "bin" / "mariadbd").exists(), \
            f"no server under {d}: run `make setup` or set PERFGATE_BASE/PERFGATE_HEAD"
    return {"base": BASE, "head": HEAD}


def load_plan(name: str, basedirs: dict, **measure) -> dict:
    plan = json.loads((REPO / "test" / "fixtures" / "plans" / name).read_text())
    for side in ("base", "head"):
        plan["sides"][side]["basedir"] = basedirs[side]
    plan["measure"].update(measure)
    return plan


class Harness:
    """Runs `python3 -m perfgate_harness run` as the gate does and collects what it printed."""

    def __init__(self, out: Path):
        self.out = out
        self.plan_path = out.parent / f"{out.name}-plan.json"

    def command(self, plan: dict, *extra) -> list[str]:
        self.plan_path.write_text(json.dumps(plan))
        return [sys.executable, "-m", "perfgate_harness", "run", "--plan", str(self.plan_path),
                "--out", str(self.out), *extra]

    def env(self):
        return {**os.environ, "PYTHONPATH": str(REPO / "harness")}

    def run(self, plan: dict, *extra, timeout=240) -> subprocess.CompletedProcess:
        return subprocess.run(self.command(plan, *extra), capture_output=True, text=True, timeout=timeout,
                              env=self.env())

    def start(self, plan: dict, *extra) -> subprocess.Popen:
        return subprocess.Popen(self.command(plan, *extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=self.env())

    def results(self) -> dict:
        return json.loads((self.out / "results.json").read_text())


@pytest.fixture
def harness(tmp_path):
    return Harness(tmp_path / "run")


def events(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def no_server_left(out: Path):
    """Every mysqld the run started has exited (its pid file is gone or names a dead process)."""
    for pid_file in out.glob("servers/*/mysqld.pid"):
        pid = int(pid_file.read_text().strip())
        assert not Path(f"/proc/{pid}").exists() or "mariadbd" not in Path(f"/proc/{pid}/cmdline").read_text()


def processes_mentioning(text):
    """pid -> command line of every live process whose command line contains `text`."""
    found = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if text in cmdline:
            found[int(proc.name)] = cmdline
    return found


def wait_for_round(proc, timeout=300) -> list[str]:
    """Reads `perfgate compare`'s stderr until the first round has started; returns the lines."""
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        seen.append(line)
        if "round 1/2" in line:
            return seen
        assert line or proc.poll() is None, "".join(seen)
    raise AssertionError(f"no round started within {timeout} s:\n" + "".join(seen))
