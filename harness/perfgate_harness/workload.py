"""What a microbenchmark sends to a server, behind the one interface the phases use: they run a
workload without knowing which tool drives it (docs/architecture.md, "Measuring: the harness").

A workload's report is a dict: `queries`, `transactions`, `qps`, `tps`, `seconds`,
`latency_ms` ({avg, p95, max}), `errors` and `reconnects`.
"""
from typing import Callable, Protocol

from .server import Server


class WorkloadFailed(Exception):
    """A run that cannot count as a measurement: the message says why in one line, `log_tail`
    holds the client's last words."""

    def __init__(self, message: str, log_tail: str = ""):
        super().__init__(message)
        self.log_tail = log_tail


class Workload(Protocol):
    def command(self, srv: Server, seconds: float) -> str:
        """The command line that runs one timed round against `srv`, as a person would retype it."""

    def before_run(self, srv: Server) -> None:
        """Called before each timed run (a warm-up, a round), outside its timing: what the
        workload needs set up first (a DDL statement's fresh copy); WorkloadFailed when it
        cannot be."""

    def timed(self, srv: Server, seconds: float, on_start: Callable | None = None) -> dict:
        """As many events as `seconds` allow against one side (a warm-up, a round): the report, or
        WorkloadFailed. `on_start(process)` is called once the client runs (the alternating
        rounds freeze and thaw it)."""

    def events(self, srv: Server, events: int, seed: int, threads: int = 1) -> dict:
        """Exactly `events` events from `threads` connections, drawn with `seed`: from one (the
        instruction windows) every side is sent the same statements; from several, each
        connection's are drawn alike but how the events fall to them varies. The report, or
        WorkloadFailed.

        A workload whose events change what they run on (a DDL statement) also has
        `before_events(srv)`: called before each instruction window and its warm-up, uncounted,
        to make it again (instruction_phase.py looks it up); WorkloadFailed when it cannot."""


class Dataset(Protocol):
    """The tables the workloads run on, loaded into each side's fresh datadir (or into the
    base's, then copied)."""

    def load(self, srv: Server) -> None:
        """Fills the running server `srv`; WorkloadFailed when it cannot."""
