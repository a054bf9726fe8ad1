"""Integration tier: real servers and real sysbench, at a tiny scale.

PERFGATE_BASE and PERFGATE_HEAD name the installed servers (the Makefile passes the two MariaDB
builds that `make setup` unpacks, or for `make test-mysql` two MySQL 9.7 builds of the test
fork) and PERFGATE_FLAVOR what they are (mariadb unless said); the tests fail, not skip, when
they are missing.
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
FLAVOR = os.environ.get("PERFGATE_FLAVOR", "mariadb")
# The versions the servers of each flavour's tier report.
VERSIONS = {"mariadb": ("10.11.18", "10.11.19"), "mysql": ("9.7.2", "9.7.2")}
HOW_TO_GET = {"mariadb": "run `make setup`", "mysql": "run `make build-mysql`"}
# What a server process of the flavour is called on its command line.
SERVER_PROGRAM = {"mariadb": "mariadbd", "mysql": "mysqld"}


def pytest_configure(config):
    # `make test-slow`: the integration tests too slow for CI's budget, run on their own.
    config.addinivalue_line("markers", "slow: runs in make test-slow, not in make test (docs/measurements.md, \"Slow tier\")")


@pytest.fixture(scope="session")
def basedirs():
    from perfgate_harness import server
    assert FLAVOR in VERSIONS, f"PERFGATE_FLAVOR={FLAVOR!r}: expected one of {', '.join(VERSIONS)}"
    for d in (BASE, HEAD):
        assert server.find_server_binary(Path(d)) is not None, \
            f"no server under {d}: {HOW_TO_GET[FLAVOR]} or set PERFGATE_BASE/PERFGATE_HEAD"
    return {"base": BASE, "head": HEAD}


def is_server(cmdline: str) -> bool:
    """Whether a command line (as processes_mentioning gives it) is the server's own: its
    program, not any process that names it (sysbench's --mysql-socket=.../mysqld.sock does)."""
    words = cmdline.split()
    return bool(words) and Path(words[0]).name == SERVER_PROGRAM[FLAVOR]


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
                              env=self.env(), stdin=subprocess.DEVNULL)

    def start(self, plan: dict, *extra) -> subprocess.Popen:
        return subprocess.Popen(self.command(plan, *extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=self.env())

    def start_asked(self, plan: dict, *extra) -> subprocess.Popen:
        """Started with a pipe on stdin, for a test that answers the harness's questions."""
        return subprocess.Popen(self.command(plan, *extra), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=self.env())

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
        assert not Path(f"/proc/{pid}").exists() or not is_server(Path(f"/proc/{pid}/cmdline").read_text())


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
