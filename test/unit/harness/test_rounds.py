"""A timed round's memory fields, sampled from /proc around the run, and a server gone during
the round: an error, never a figure."""
import os
import subprocess
import time
from types import SimpleNamespace

import pytest

from perfgate_harness import procstat
from perfgate_harness.fleet import Fleet
from perfgate_harness.records import BenchmarkFailed, Journal
from perfgate_harness.rounds import Rounds

REPORT = {"queries": 1000, "transactions": 100, "qps": 1000.0, "tps": 100.0, "seconds": 1.0,
          "latency_ms": {"avg": 1.0, "p95": 1.5, "max": 3.0}, "errors": 0, "reconnects": 0}


class FakeServer:
    def __init__(self, proc):
        self.proc, self.side, self.pid = proc, "base", proc.pid

    def alive(self):
        return self.proc.poll() is None

    def exit_description(self):
        return "running" if self.alive() else f"exited with code {self.proc.returncode}"

    def log_tail(self, lines=5):
        return ""


class FakeFleet:
    check_alive = Fleet.check_alive

    def __init__(self, srv):
        self.servers, self.dead = {"base": srv}, {}
        self.plan = SimpleNamespace(side_schedule="in-turn", seconds=1)
        self.journal = Journal()


class Workload:
    """A workload whose timed run does `during(srv)` instead of running sysbench."""

    def __init__(self, during):
        self.during = during

    def before_run(self, srv):
        pass

    def timed(self, srv, seconds, on_start=None):
        self.during(srv)
        return dict(REPORT)


@pytest.fixture
def server():
    proc = subprocess.Popen(["sleep", "30"])
    # Until `sleep` has loaded itself its resident size still grows: wait for it to hold still.
    last = None
    for _ in range(100):
        now = procstat.memory(proc.pid)
        if now == last:
            break
        last = now
        time.sleep(0.05)
    yield FakeServer(proc)
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def rounds_of(srv):
    rounds = Rounds(FakeFleet(srv))
    rounds.io_devices["base"] = None  # no device: the fake server has no datadir
    return rounds


def test_round_record_carries_memory_of_the_server(server):
    record = rounds_of(server)._round(Workload(lambda srv: None), "base", 1)
    rss, hwm = procstat.memory(server.pid)
    # `sleep` allocates nothing during the round: its resident size stays put.
    assert record["rss_bytes"] == rss and record["hwm_bytes"] == hwm
    assert record["rss_before_bytes"] == rss
    assert record["memory_growth_per_query"] == 0.0


def test_growth_per_query_is_the_difference_over_the_queries(monkeypatch, server):
    samples = iter([procstat.Sample(1.0, 1, 0, 0, 50_000_000, 60_000_000),
                    procstat.Sample(1.5, 2, 0, 0, 50_000_000 + 1000 * 1024, 61_000_000)])
    monkeypatch.setattr(procstat, "sample", lambda pid: next(samples))
    record = rounds_of(server)._round(Workload(lambda srv: None), "base", 1)
    assert record["memory_growth_per_query"] == pytest.approx(1024.0)
    assert record["rss_bytes"] == 50_000_000 + 1000 * 1024 and record["hwm_bytes"] == 61_000_000


def test_server_gone_during_the_round_is_an_error_not_a_figure(server):
    def die(srv):
        srv.proc.kill()
        srv.proc.wait()
    rounds = rounds_of(server)
    with pytest.raises(BenchmarkFailed) as e:
        rounds._round(Workload(die), "base", 1)
    assert e.value.error["side"] == "base" and e.value.error["step"] == "round"
    assert "base" in rounds.fleet.dead


def test_unreadable_memory_of_a_live_server_is_an_error(monkeypatch, server):
    # A status without Vm lines (what a zombie shows) while the server still counts as alive.
    real = procstat.sample
    calls = []

    def second_fails(pid):
        calls.append(pid)
        if len(calls) == 2:
            raise ValueError("/proc/<pid>/status has no VmRSS/VmHWM lines")
        return real(pid)
    monkeypatch.setattr(procstat, "sample", second_fails)
    with pytest.raises(BenchmarkFailed, match="cannot be sampled: .*VmRSS"):
        rounds_of(server)._round(Workload(lambda srv: None), "base", 1)
