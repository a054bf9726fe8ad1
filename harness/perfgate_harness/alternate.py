"""Rounds with the sides alternating: every side's server and sysbench are up at once, and all
but one side are frozen (SIGSTOP) at any moment; the running side changes every slice of a few
tens of milliseconds. Each side's QPS is its queries counted by its own server over the slices
it ran.

Why: the VM's CPU changes speed from one half-second to the next (the same loop took 0.20-0.40 s
of CPU time), so two rounds of 2 s in turn see different machines, and a pair of them spread by
an sd of 0.12-0.15 in log QPS here. Slices of 20-50 ms put both sides on the same stretch of the
machine's speed; measured on 28 Nov 2026, A/A, 10.11.18, 20 pairs of 2 s per side each way:
point-query sd 0.115 in turn against 0.060 alternating, update-index 0.137 against 0.062.
Unlike both sides at once (`together`), only one side runs at a time, with both vCPUs, so a
CPU-bound row is not split between two servers by the scheduler, and a frozen side's background
threads (purge, page cleaner) take nothing from the running one.

What a freeze does not stop: the wall clock. A query or I/O in flight when its side is frozen
finishes its wait (a sleep, a disk write) during another side's slice, so up to one wait per
client thread and slice goes uncounted: with 2 threads and 50 ms slices, a wait of 1 ms in
flight half the time hides 1% of the slice; sleeps of tens of microseconds hide nothing that
shows. sysbench's own latency figures include the freezes of the queries they caught.
"""
import os
import signal
import time
from dataclasses import dataclass, field

SLICE_SECONDS = 0.05


@dataclass
class Tally:
    """What one side ran in its slices: the server's query counter and the seconds between the
    two readings of each counted slice."""
    queries: int = 0
    seconds: float = 0.0
    slices: int = 0

    @property
    def qps(self) -> float | None:
        return self.queries / self.seconds if self.seconds > 0 else None


@dataclass
class Side:
    """One side's processes and its query counter. `client_pid` is the sysbench process
    (the leader of a session of its own), None until it has started."""
    server_pid: int
    count: object  # () -> int: the server's Questions counter
    client_pid: int | None = None
    own: int = 0  # what one reading adds to the counter (own_statements)
    frozen: bool = field(default=False, init=False)


def _signal(side: Side, sig: int) -> None:
    # The server first when freezing (nothing it answers then reaches the client), last when
    # thawing; a process that has already exited is no error: its end is seen by its runner.
    order = [("server", side.server_pid), ("client", side.client_pid)]
    if sig == signal.SIGCONT:
        order.reverse()
    for kind, pid in order:
        if pid is None:
            continue
        try:
            if kind == "client":
                os.killpg(pid, sig)
            else:
                os.kill(pid, sig)
        except ProcessLookupError:
            pass


def freeze(side: Side) -> None:
    _signal(side, signal.SIGSTOP)
    side.frozen = True


def thaw(side: Side) -> None:
    _signal(side, signal.SIGCONT)
    side.frozen = False


# All sides run at once, uncounted, this long after their clients started: sysbench connects
# and prepares its statements, which the servers' counters would count as queries.
SETTLE_SECONDS = 0.2


class CounterError(Exception):
    pass


def own_statements(count, readings: int = 3) -> int:
    """How much one reading of the counter adds to it (the reading is a statement too), from
    consecutive readings on an idle server: subtracted from every slice."""
    values = [count() for _ in range(readings)]
    steps = {b - a for a, b in zip(values, values[1:])}
    if len(steps) != 1:
        raise CounterError(f"the query counter moved by {sorted(steps)} between readings of an idle server; "
                           "expected the same step each time")
    return steps.pop()


def run_slices(sides: dict, ready, finished, slice_seconds: float = SLICE_SECONDS, settle_seconds: float = SETTLE_SECONDS,
               clock=time.monotonic, sleep=time.sleep, freeze=freeze, thaw=thaw, stop=lambda: False) -> dict:
    """Alternates `sides` (name -> Side) slice by slice until every client has finished (or
    `stop()` says so); returns name -> Tally. `ready()` is true once every client has started:
    until then, and `settle_seconds` after, all run at once, uncounted. `finished(name)` is true
    once that side's client has ended: it is skipped from then on, and a slice in which it
    ended is not counted (its queries stopped partway). A side's `own` readings are taken off
    each slice. Every side is thawed on the way out, however it is left: a frozen server would
    never answer its shutdown."""
    names = list(sides)
    tallies = {name: Tally() for name in names}
    try:
        while not ready():
            if stop() or all(finished(name) for name in names):
                return tallies
            sleep(0.001)
        sleep(settle_seconds)
        for name in names[1:]:
            freeze(sides[name])
        k = 0
        while not stop():
            live = [name for name in names if not finished(name)]
            if not live:
                break
            name = names[k % len(names)]
            k += 1
            if name not in live:
                continue
            side = sides[name]
            thaw(side)
            before, started = side.count(), clock()
            sleep(slice_seconds)
            after, ended = side.count(), clock()
            if len(live) > 1:
                freeze(side)
            if finished(name):
                continue
            tally = tallies[name]
            tally.queries += after - before - side.own
            tally.seconds += ended - started
            tally.slices += 1
        return tallies
    finally:
        for side in sides.values():
            if side.frozen:
                thaw(side)
