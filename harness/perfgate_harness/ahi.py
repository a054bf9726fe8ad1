"""The adaptive hash index cells: `innodb_adaptive_hash_index` and its partition count set on
the running servers before a cell's rounds, and the `adaptive_hash_%` counters of
information_schema.INNODB_METRICS read around them."""
from contextlib import contextmanager

from . import progress, schedule
from .fleet import Fleet
from .plan import Benchmark
from .records import BenchmarkFailed

AHI_PARTS = "innodb_adaptive_hash_index_parts"
AHI_COUNTERS_SQL = ("SELECT name, `count` FROM information_schema.INNODB_METRICS "
                    "WHERE name LIKE 'adaptive\\_hash\\_%' ORDER BY name")


def ahi_parts_problem(side: str, flavor: str, version: str, variables: dict) -> str | None:
    """Why `side` cannot run a cell at a chosen AHI partition count, or None. Decided from the
    server's own variables (SHOW GLOBAL VARIABLES of its start): MariaDB 10.2+ and MySQL 5.7+
    have the variable, older servers and builds without the AHI do not."""
    if AHI_PARTS in variables:
        return None
    return (f"{side}: {flavor} {version} has no {AHI_PARTS} (not in SHOW GLOBAL VARIABLES), so this cell's "
            f"AHI partition count cannot be set; expected a suite without ahi.parts for this server, e.g. ahi-quick")


def counter_delta(before: dict, after: dict) -> dict:
    return {name: after[name] - before.get(name, 0) for name in after}


class AhiCells:
    def __init__(self, fleet: Fleet):
        self.fleet = fleet
        self.monitor_enabled: set[str] = set()

    def set_up(self, bench: Benchmark, sides) -> None:
        """The servers of `sides` as the cell `bench` wants them (nothing for other benchmarks)."""
        if bench.ahi_parts is not None:
            self._use_parts(bench.ahi_parts)
        if bench.ahi:
            for side in sides:
                self._set(side, bench.ahi)

    @contextmanager
    def counted(self, bench: Benchmark, sides, totals: dict):
        """The AHI counters' change over the block added to `totals[side]` (AHI cells only)."""
        if not bench.ahi:
            yield
            return
        before = {side: self._counters(side) for side in sides}
        yield
        for side in sides:
            for name, value in counter_delta(before[side], self._counters(side)).items():
                totals[side][name] = totals[side].get(name, 0) + value

    def _set(self, side: str, state: str) -> None:
        value = "ON" if state == "on" else "OFF"
        statements = [f"SET GLOBAL innodb_adaptive_hash_index = {value}"]
        if side not in self.monitor_enabled:
            # Most adaptive_hash_% counters are off by default; enabling them once is enough.
            statements.append("SET GLOBAL innodb_monitor_enable = 'module_adaptive_hash'")
        statements.append("SELECT @@GLOBAL.innodb_adaptive_hash_index")
        rows = self.fleet.sql(side, "ahi", statements)
        self.monitor_enabled.add(side)
        if int(rows[0][0]) != (1 if state == "on" else 0):
            raise BenchmarkFailed(side, "ahi", f"{side}: innodb_adaptive_hash_index stayed {rows[0][0]} "
                                               f"after SET GLOBAL ... = {value}")

    def _use_parts(self, parts: int) -> None:
        """Both servers running with innodb_adaptive_hash_index_parts = `parts`. It is read at
        startup only: when it differs, both restart with it (the plan groups the cells of one
        count, so this happens once per count). A server without the variable refuses the cell."""
        fleet = self.fleet
        for side in schedule.SIDES:
            flavor, version = fleet.versions[side]
            problem = ahi_parts_problem(side, flavor, version, fleet.variables.get(side, {}))
            if problem:
                raise BenchmarkFailed(side, "ahi", problem)
        wanted = str(parts)
        if all(fleet.variables[side].get(AHI_PARTS) == wanted for side in schedule.SIDES):
            return
        for side in schedule.SIDES:
            srv = fleet.servers[side]
            srv.profile_options = {**srv.profile_options, AHI_PARTS: wanted}
            progress.emit("phase", phase="shutdown", side=side)
            problem = srv.shutdown()
            if problem:
                fleet.journal.warn(problem)
        fleet.start_all()
        # A restarted server has its AHI monitor counters off again.
        self.monitor_enabled.clear()
        for side in schedule.SIDES:
            if side in fleet.dead:
                raise BenchmarkFailed(side, "ahi", fleet.dead[side], fleet.servers[side].log_tail())
            now_parts = fleet.variables.get(side, {}).get(AHI_PARTS)
            if now_parts != wanted:
                raise BenchmarkFailed(side, "ahi", f"{side}: {AHI_PARTS} is {now_parts} after a restart with {wanted}")

    def _counters(self, side: str) -> dict:
        rows = self.fleet.sql(side, "ahi", [AHI_COUNTERS_SQL])
        if not rows:
            raise BenchmarkFailed(side, "ahi", f"{side}: information_schema.INNODB_METRICS has no adaptive_hash_% counters")
        return {name: int(count) for name, count in rows}
