"""Timed runs of a workload on the running servers, each with its server's cost sampled around
it (CPU time, context switches and resident memory from /proc, the datadir device's I/O),
outside the timed window: one side at a time,
every side at once, or every side's round of one index with the sides alternating."""
from concurrent.futures import ThreadPoolExecutor

import pymysql

from . import alternate, iostat, procstat, schedule, sysbench
from .fleet import Fleet
from .records import BenchmarkFailed, now
from .workload import Workload, WorkloadFailed


def at_once(runs: list, together: bool, while_running=None) -> list:
    """Calls each of `runs` (a timed run of one side each), all at the same time when
    `together`, else one after the other; the results in the order given. A failure of one
    stops the others and is raised once they have ended: no client is left running.
    `while_running(futures)`, for runs together, is called in this thread once all have
    been started (the alternating rounds' slices); what it raises stops the runs alike."""
    if not together or len(runs) == 1:
        assert while_running is None, "while_running needs runs at the same time"
        return [run() for run in runs]
    pool = ThreadPoolExecutor(max_workers=len(runs))
    futures = [pool.submit(run) for run in runs]
    try:
        if while_running is not None:
            while_running(futures)
        results = [future.result() for future in futures]
    except BaseException:
        # A cancel (SIGTERM arrives here, in the main thread) or one side's failure: the
        # other sides' clients stop now instead of running out their rounds.
        sysbench.stop_all()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return results


def _questions(conn):
    """The server's count of statements it was sent (SHOW GLOBAL STATUS 'Questions')."""
    def count() -> int:
        cur = conn.cursor()
        cur.execute("SHOW GLOBAL STATUS LIKE 'Questions'")
        row = cur.fetchone()
        if row is None:
            # Without the counter the sides cannot be told apart in alternating rounds.
            raise alternate.CounterError("SHOW GLOBAL STATUS has no 'Questions' row; --sides alternating needs it "
                                         "(expected a MySQL or MariaDB server that counts statements, or --sides in-turn)")
        return int(row[1])
    return count


def round_record(index: int, side: str, started: str, timed, counted: alternate.Tally | None = None) -> dict:
    """One round's record. `counted`: the slices an alternating round counted, whose QPS
    stands for the round (the client's own includes the time its side was frozen)."""
    report, (before, device_before), (after, device_after) = timed
    cpu_us, cs = procstat.per_query(before, after, report["queries"])
    qps, tps, seconds = report["qps"], report["tps"], report["seconds"]
    if counted is not None:
        qps, seconds = counted.qps, counted.seconds
        tps = qps * report["transactions"] / report["queries"] if report["queries"] else 0.0
    return {
        "index": index, "side": side, "started": started, "seconds": seconds,
        "qps": qps, "tps": tps, "queries": report["queries"],
        "latency_ms": report["latency_ms"], "errors": report["errors"], "reconnects": report["reconnects"],
        "cpu_per_query_us": cpu_us, "cs_per_query": cs,
        **iostat.per_query(before, after, device_before, device_after, report["queries"]),
        **procstat.memory_figures(before, after, report["queries"]),
    }


class Rounds:
    def __init__(self, fleet: Fleet):
        self.fleet = fleet
        self.plan = fleet.plan
        self.journal = fleet.journal
        self.io_devices: dict[str, iostat.Device | None] = {}  # side -> the device holding its datadir

    def timed_run(self, workload: Workload, side: str, seconds: float, step: str, on_start=None):
        """Runs the workload once against one side; returns its report and, before and after it,
        (the server's /proc sample, its datadir device's /proc/diskstats sample or None)."""
        srv = self.fleet.check_alive(side, step)
        device = self.io_device(side)
        try:
            workload.before_run(srv)
        except WorkloadFailed as e:
            self._raise_failed(srv, step, e)
        before = self._sample(srv, step)
        device_before = iostat.sample(device)
        try:
            report = workload.timed(srv, seconds, on_start)
        except WorkloadFailed as e:
            self._raise_failed(srv, step, e)
        device_after = iostat.sample(device)
        after = self._sample(srv, step)
        if after.read_bytes is None:
            self.journal.warn_once(f"{side}: /proc/{srv.pid}/io cannot be read: the server's own I/O (rKB/o, wKB/o) is not recorded")
        return report, (before, device_before), (after, device_after)

    def _sample(self, srv, step: str) -> procstat.Sample:
        """The server's /proc sample; a server gone (or a zombie, whose status has no memory)
        fails the round as dead, never with a figure of a process that is no more."""
        try:
            return procstat.sample(srv.pid)
        except (OSError, ValueError) as e:
            self.fleet.check_alive(srv.side, step)
            raise BenchmarkFailed(srv.side, step, f"{srv.side}: /proc/{srv.pid} cannot be sampled: {e}",
                                  srv.log_tail()) from None

    def _raise_failed(self, srv, step: str, e: WorkloadFailed):
        """A run of `srv`'s side that cannot count: BenchmarkFailed, the side dead if its server is."""
        side = srv.side
        state = srv.exit_description()
        if state != "running":
            self.fleet.dead[side] = f"{side} server {state}"
        log_tail = e.log_tail
        # The server's last words explain a crash; when it is alive they are only context.
        server_tail = srv.log_tail(30 if state != "running" else 5)
        if server_tail:
            log_tail += f"\n--- {srv.layout.error_log.name} ({side}) ---\n{server_tail}"
        raise BenchmarkFailed(side, step, f"{side}: {e}", log_tail) from None

    def io_device(self, side: str) -> iostat.Device | None:
        if side not in self.io_devices:
            layout = self.fleet.servers[side].layout
            self.io_devices[side] = iostat.device_of(layout.datadir)
            if self.io_devices[side] is None:
                self.journal.warn_once(f"{side}: no block device in /proc/diskstats holds {layout.datadir}: the device's I/O (r/o) is not recorded")
            elif self.plan.side_schedule != "in-turn" and any(
                    iostat.device_of(self.fleet.servers[other].layout.datadir) == self.io_devices[side]
                    for other in self.fleet.sides if other != side):
                # Both sides' reads land on one device at the same time: its counters cannot be
                # split between them. The servers' own I/O (rKB/o, wKB/o) is still per side.
                self.io_devices[side] = None
                self.journal.warn_once(f"the sides are measured {self.plan.side_schedule} on one block device: the device's I/O per query (r/o) is not recorded")
        return self.io_devices[side]

    def warm_up(self, workload: Workload, sides) -> None:
        """A discarded run on each side: it brings each server back to the benchmark's state."""
        seconds = self.plan.warmup_seconds
        at_once([lambda side=side: self.timed_run(workload, side, seconds, step="warmup") for side in sides],
                schedule.warmups_together(self.plan.side_schedule))

    def group(self, workload: Workload, group: list) -> list[dict]:
        """The rounds of one group ((index, side) pairs): one side's, or every side's of one
        index at once (together or alternating)."""
        if self.plan.side_schedule == "alternating" and len(group) > 1:
            return self._alternating(workload, group)
        return at_once([lambda i=i, side=side: self._round(workload, side, i) for i, side in group], True)

    def _round(self, workload: Workload, side: str, index: int) -> dict:
        started = now()
        return round_record(index, side, started, self.timed_run(workload, side, self.plan.seconds, "round"))

    def alternating_pair(self, workload: Workload, index: int, seconds: float) -> list[dict]:
        """The base's and the head's round of `index`, alternating, of `seconds` each, whatever
        the plan's schedule (the explanation step's re-measure with the base's settings)."""
        return self._alternating(workload, [(index, "base"), (index, "head")], seconds)

    def _alternating(self, workload: Workload, group: list, seconds: float | None = None) -> list[dict]:
        """Every side's round of one index with the sides alternating (alternate.py): each side's
        client runs for the round's length (`seconds`, else the plan's) times the number of
        sides, in turns of a slice, and its QPS is the queries its own server counted over the
        slices it ran."""
        started = now()
        names = [side for _, side in group]
        servers = self.fleet.servers
        conns, sides = {}, {}
        try:
            for side in names:
                self.fleet.check_alive(side, "round")
                conns[side] = servers[side].connect()
                count = _questions(conns[side])
                sides[side] = alternate.Side(servers[side].pid, count=count, own=alternate.own_statements(count))
        except BaseException as e:
            for conn in conns.values():
                conn.close()
            if not isinstance(e, (pymysql.err.MySQLError, alternate.CounterError)):
                raise
            self.fleet.check_alive(side, "round")
            raise BenchmarkFailed(side, "round", f"{side}: {e}", servers[side].log_tail()) from None
        clients = {}

        def on_start(side):
            def record(proc):
                clients[side] = proc
                sides[side].client_pid = proc.pid
            return record

        wall = schedule.group_wall_seconds("alternating", seconds or self.plan.seconds, len(names))
        tallies = {}

        def count_slices(futures):
            by_side = dict(zip(names, futures))

            def finished(side):
                return by_side[side].done() or (side in clients and clients[side].poll() is not None)

            try:
                tallies.update(alternate.run_slices(
                    sides, ready=lambda: all(side in clients or by_side[side].done() for side in names), finished=finished))
            except (pymysql.err.MySQLError, alternate.CounterError) as e:
                # A server stopped answering its counter: its round fails like any other.
                side = next((s for s in names if not servers[s].alive()), names[0])
                raise BenchmarkFailed(side, "round", f"{side}: counting its queries failed: {e}", servers[side].log_tail()) from None

        try:
            runs = [lambda side=side: self.timed_run(workload, side, wall, "round", on_start(side)) for side in names]
            timed = dict(zip(names, at_once(runs, True, while_running=count_slices)))
        finally:
            for conn in conns.values():
                conn.close()
        records = []
        for index, side in group:
            tally = tallies[side]
            if tally.qps is None:
                raise BenchmarkFailed(side, "round", f"{side}: no slice of the alternating round was counted "
                                      f"(its sysbench ran {timed[side][0]['seconds']:.2f} s of its {wall} s)")
            records.append(round_record(index, side, started, timed[side], counted=tally))
        return records
