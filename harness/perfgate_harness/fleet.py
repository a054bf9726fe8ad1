"""The run's servers, one per side, as a service every phase uses: built from the plan, started
and stopped side by side, asked SQL, and marked dead when they fail.

A side whose server died is not restarted: crash recovery leaves it in a state (cold buffer
pool, recovered data) that no longer matches the other side, and the run is an error anyway, so
the phases record the remaining benchmarks as not measured instead.
"""
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pymysql

from . import progress, server
from .plan import Plan
from .records import BenchmarkFailed, Journal


class Fleet:
    def __init__(self, plan: Plan, out: Path, versions: dict, journal: Journal):
        self.plan = plan
        self.sides = tuple(plan.sides)  # base, head, then a chain's further heads, in order
        self.out = out
        self.versions = versions  # side -> (flavor, version), from each binary's --version
        self.journal = journal
        self.dead: dict[str, str] = {}  # side -> why it cannot be measured any more
        self.variables: dict[str, dict] = {}  # side -> SHOW GLOBAL VARIABLES of its last start
        # side -> the options of that start, recorded with the variables: the reports read each
        # side's paths and port in them as its own (in an instructions-only run the last start
        # is under valgrind, on a port of its own).
        self.variable_options: dict[str, dict] = {}
        self.servers: dict[str, server.Server] = {}
        for side in self.sides:
            spec = plan.sides[side]
            flavor, version = versions[side]
            self.servers[side] = server.Server(side, spec.basedir, spec.binary, flavor, version,
                                               server.layout_for(out, side), self.server_options(side), plan.pin_server)

    def server_options(self, side: str) -> dict:
        """The profile of the side's own flavour (MySQL and MariaDB differ: binary log, redo log
        option), then the side's own options."""
        flavor, _ = self.versions[side]
        return {**self.plan.profile_for(flavor).options, **self.plan.sides[side].options}

    def side_failed(self, side: str, failure: dict) -> None:
        """`side` cannot be measured any more: an error of the run, and the side is dead."""
        note = server.disk_full_note(failure.get("log_tail", ""), server.layout_for(self.out, side).dir)
        if note:
            failure = {**failure, "message": f"{failure['message']}; {note}"}
        self.journal.errors.append({"side": side, "benchmark": None, **failure})
        self.dead[side] = f"{side} server failed at {failure['step']}: {failure['message']}"

    @contextmanager
    def replaced(self, servers: dict):
        """The sides run on `servers` inside the block (the instruction phase's, under
        valgrind), on their usual servers again after it."""
        usual, self.servers = self.servers, servers
        try:
            yield
        finally:
            self.servers = usual

    def start_all(self, timeout: float = server.START_TIMEOUT) -> None:
        """Every living side's server started, side by side."""
        def start(side):
            if side in self.dead:
                return None
            srv = self.servers[side]
            try:
                progress.emit("phase", phase="start", side=side)
                srv.start(timeout=timeout)
                return None
            except server.ServerError as e:
                return {"step": e.step, "message": e.message, "log_tail": e.log_tail}
        with ThreadPoolExecutor(max_workers=2) as pool:
            failures = list(pool.map(start, self.sides))
        for side, failure in zip(self.sides, failures):
            if failure is not None:
                self.side_failed(side, failure)
            elif side not in self.dead:
                self._capture_variables(side)

    def shutdown(self, sides) -> None:
        """The servers of `sides` stopped; one that had to be killed is a warning."""
        for side in sides:
            srv = self.servers[side]
            if srv.proc is None:
                server.remove_private_socket_dir(srv.layout)
                continue
            progress.emit("phase", phase="shutdown", side=side)
            problem = srv.shutdown()
            if problem:
                self.journal.warn(problem)

    def shutdown_all(self) -> None:
        self.shutdown(list(self.servers))

    def _capture_variables(self, side: str) -> None:
        """SHOW GLOBAL VARIABLES of a side as it runs: with `profile: defaults` the build's own
        defaults, which the reports compare between the sides. The last start wins: the timed
        rounds' servers, not the ones under valgrind."""
        try:
            rows = self.sql(side, "variables", ["SHOW GLOBAL VARIABLES"])
        except BenchmarkFailed as e:
            self.journal.warn_once(f"{side}: SHOW GLOBAL VARIABLES failed, the server variables are not recorded: {e}")
            return
        self.variables[side] = {str(name): None if value is None else str(value) for name, value in rows}
        self.variable_options[side] = self.servers[side].options

    def check_alive(self, side: str, step: str) -> server.Server:
        """The side's server, or BenchmarkFailed (and the side dead) when it is gone."""
        srv = self.servers[side]
        if not srv.alive():
            why = f"{side} server {srv.exit_description()}"
            self.dead[side] = why
            raise BenchmarkFailed(side, step, why, srv.log_tail())
        return srv

    def sql(self, side: str, step: str, statements: list[str]) -> list:
        """`statements` run in order on one connection; the rows of the last."""
        srv = self.check_alive(side, step)
        try:
            conn = srv.connect()
            try:
                cur = conn.cursor()
                rows = []
                for statement in statements:
                    cur.execute(statement)
                    rows = cur.fetchall()
                return rows
            finally:
                conn.close()
        except pymysql.err.MySQLError as e:
            self.check_alive(side, step)
            raise BenchmarkFailed(side, step, f"{side}: {e}", srv.log_tail()) from None
