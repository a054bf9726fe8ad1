"""TPC-C driven by go-tpc (catalogue entries of group tpcc), behind workload.py's interface:
`TpccWarehouses` is their Dataset (`go-tpc tpcc prepare`, once, into the base's datadir or each
side's), and `TpccWorkload` runs `go-tpc tpcc run` on its side's server restarted on a fresh copy
of the prepared datadir before every run (docs/suites.md, "TPC-C"). go-tpc speaks the MySQL
protocol over TCP only: it connects to the port every server listens on, on 127.0.0.1."""
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pymysql

from . import server, sysbench
from .ddl_workload import read_indexes, restart_on_fresh_copy
from .plan import Benchmark, Plan
from .server import EXIT_SETTLE_SECONDS, Server
from .workload import WorkloadFailed

VERSION = "v1.0.7"  # the go-tpc scripts/install-ci-tools.sh installs
PROGRAM = "go-tpc"
# Where the lookup goes after PATH: the tools scripts/install-ci-tools.sh builds.
TOOLS_BIN = Path(os.environ.get("PERFGATE_CACHE", Path.home() / ".cache" / "perfgate")) / "tools" / "bin"
DATABASE = "perfgate_tpcc"
# go-tpc's own user, made on the prepared datadir: MySQL's --initialize-insecure makes
# root@localhost only, which a TCP client from 127.0.0.1 is not (skip_name_resolve).
USER = "perfgate_tpcc"
HOST = "127.0.0.1"
TABLES = ("warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "stock", "item")
# The five transactions of TPC-C as go-tpc names them; NEW_ORDER is the one tpmC counts.
KINDS = ("NEW_ORDER", "PAYMENT", "ORDER_STATUS", "DELIVERY", "STOCK_LEVEL")
RATE_KIND = "NEW_ORDER"
PREPARE_THREADS = 2
LONG_RUN_TIMEOUT = 3600  # a prepare or a fixed count has no length of its own: this only stops a hang


class GoTpcOutputError(ValueError):
    """go-tpc's report lacks a figure perfgate needs; the message quotes what was there instead."""


def find_program(path_env: str | None = None, tools_bin: Path | None = None) -> Path | None:
    """go-tpc on PATH, else in perfgate's tools folder; None when neither has it."""
    found = shutil.which(PROGRAM, path=path_env)
    if found:
        return Path(found)
    candidate = (tools_bin or TOOLS_BIN) / PROGRAM
    return candidate if candidate.is_file() and os.access(candidate, os.X_OK) else None


def require_program() -> Path:
    program = find_program()
    if program is None:
        raise WorkloadFailed(f"{PROGRAM} is not installed: not on PATH nor in {TOOLS_BIN}; expected go-tpc {VERSION} "
                             "(scripts/install-ci-tools.sh installs it)")
    return program


@dataclass(frozen=True)
class Invocation:
    """Everything one go-tpc command depends on."""
    port: int
    warehouses: int
    threads: int
    command: str = "run"  # or prepare
    seconds: float = 0  # a timed run
    count: int = 0  # instead of seconds: exactly this many transactions (with one thread)
    pin_cpus: str | None = None


def build_command(inv: Invocation, program: Path | str = PROGRAM) -> list[str]:
    """No --ignore-error: a client thread that meets an error prints it and stops, and the run
    fails on that line; with it, a dead server makes go-tpc print a line per refused connect."""
    cmd = ["taskset", "-c", inv.pin_cpus] if inv.pin_cpus else []
    cmd += [str(program), "tpcc", inv.command, "-H", HOST, "-P", str(inv.port), "-U", USER, "-D", DATABASE,
            "--warehouses", str(inv.warehouses), "-T", str(inv.threads)]
    if inv.command == "prepare":
        return cmd + ["--no-check"]
    if inv.count:
        return cmd + ["--count", str(inv.count)]
    return cmd + ["--time", f"{int(inv.seconds)}s", "--interval", f"{int(inv.seconds) + 60}s"]


# [Summary] NEW_ORDER - Takes(s): 10.0, Count: 2987, TPM: 17901.5, Sum(ms): 10046.5, Avg(ms): 3.4, ..., 95th(ms): 6.8, ..., Max(ms): 92.3
_SUMMARY = re.compile(r"^\[Summary\] (?P<kind>[A-Z_]+) - (?P<fields>.*)$", re.MULTILINE)
_FIELD = re.compile(r"([A-Za-z0-9.]+(?:\(\w+\))?): ([0-9.]+)")
_TPMC = re.compile(r"^tpmC: ([0-9.]+)", re.MULTILINE)
# How go-tpc says a client thread stopped on an error (cmd/go-tpc/misc.go).
_FAILED = re.compile(r"^(?:\[[0-9: -]+\] )?execute \w+ failed, err (.*)$", re.MULTILINE)


def _quote_end(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return f"its last line is {lines[-1]!r}" if lines else "it is empty"


def summaries(text: str) -> dict:
    """Each [Summary] line's figures by transaction kind; a kind's _ERR line counts the
    transactions that ended in an error, among them those the deadline cut short."""
    out = {}
    for m in _SUMMARY.finditer(text):
        out[m.group("kind")] = {key: float(value) for key, value in _FIELD.findall(m.group("fields"))}
    return out


def parse_run_output(text: str) -> dict:
    """`go-tpc tpcc run`'s summary as a workload report: its queries are NewOrder transactions,
    the ones tpmC counts, so the row's rate is tpmC / 60 and its cpu/o and instr/o are per
    NewOrder; transactions are those of all five kinds. Latencies are NewOrder's. Raises
    GoTpcOutputError naming what is missing."""
    kinds = summaries(text)
    new_order = kinds.get(RATE_KIND)
    if new_order is None:
        raise GoTpcOutputError(f"go-tpc output has no '[Summary] {RATE_KIND}' line; {_quote_end(text)}")
    missing = [key for key in ("Count", "Avg(ms)", "95th(ms)", "Max(ms)") if key not in new_order]
    if missing:
        raise GoTpcOutputError(f"go-tpc's '[Summary] {RATE_KIND}' line has no {missing[0]!r}; expected go-tpc {VERSION}'s summary")
    tpmc = _TPMC.search(text)
    if tpmc is None:
        raise GoTpcOutputError(f"go-tpc output has no 'tpmC:' line; {_quote_end(text)}")
    count, per_minute = int(new_order["Count"]), float(tpmc.group(1))
    if count == 0 or per_minute <= 0:
        raise GoTpcOutputError(f"go-tpc completed no NewOrder transaction (Count {count}, tpmC {per_minute})")
    qps = per_minute / 60.0
    seconds = count / qps  # the run's length as go-tpc timed it, to tpmC's precision
    transactions = sum(int(kinds[k]["Count"]) for k in KINDS if k in kinds and "Count" in kinds[k])
    return {"queries": count, "transactions": transactions, "qps": qps, "tps": transactions / seconds,
            "seconds": seconds, "latency_ms": {"avg": new_order["Avg(ms)"], "p95": new_order["95th(ms)"],
                                               "max": new_order["Max(ms)"]},
            "errors": 0, "reconnects": 0}


def failure_reason(text: str) -> str | None:
    """Why go-tpc stopped, in one line: the first error a client thread stopped on, else a
    panic's message, else its last line."""
    failed = _FAILED.search(text)
    if failed:
        return failed.group(1).strip()
    panic = re.search(r"^panic: (.*)$", text, re.MULTILINE)
    if panic:
        return panic.group(1).strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else None


def run_failure(side: str, outcome: sysbench.Outcome, server_state: str, timeout: float) -> str | None:
    """Why a go-tpc run cannot count as a measurement, or None when it can: a dead server, a
    killed or failed client, or a client thread that stopped on an error (a deadlock among
    them: the run went on with fewer threads, which would read as a slowdown)."""
    if server_state != "running":
        return f"{side} server {server_state} during the round"
    if outcome.timed_out:
        return f"go-tpc did not finish within {timeout:.0f} s and was killed"
    reason = failure_reason(outcome.output)
    if outcome.returncode != 0:
        return f"go-tpc exited with code {outcome.returncode}" + (f": {reason}" if reason else "")
    failed = _FAILED.search(outcome.output)
    if failed:
        return f"a go-tpc client thread stopped on an error: {failed.group(1).strip()}"
    return None


def run(inv: Invocation, srv: Server, timeout: float, log_path: Path | None, on_start=None) -> dict:
    """One go-tpc run against `srv`: its report, or WorkloadFailed."""
    cmd = build_command(inv, require_program())
    outcome = sysbench.execute(cmd, timeout=timeout, log_path=log_path, on_start=on_start)
    tail = sysbench.output_tail(outcome.output)
    went_wrong = outcome.returncode != 0 or outcome.timed_out or _FAILED.search(outcome.output) is not None
    # A server that died during the run is the cause, whatever go-tpc says about it.
    state = srv.exit_description(settle=EXIT_SETTLE_SECONDS if went_wrong else 0.0)
    failure = run_failure(srv.side, outcome, state, timeout)
    if failure:
        raise WorkloadFailed(failure, tail)
    try:
        return parse_run_output(outcome.output)
    except GoTpcOutputError as e:
        raise WorkloadFailed(str(e), tail) from None


def warehouses_of(plan: Plan) -> int:
    """A TPC-C suite's scale: `tables` is its number of warehouses (TPC-C fixes the rows of each)."""
    return plan.tables


class TpccWarehouses:
    """go-tpc's nine tables with the plan's warehouses, and the user go-tpc connects as."""

    def __init__(self, plan: Plan, log_path: Path):
        self.plan = plan
        self.log_path = log_path

    def load(self, srv: Server) -> None:
        program = require_program()
        conn = srv.connect()
        try:
            cur = conn.cursor()
            cur.execute(f"CREATE DATABASE IF NOT EXISTS {DATABASE}")
            cur.execute(f"CREATE USER IF NOT EXISTS '{USER}'@'{HOST}'")
            cur.execute(f"GRANT ALL ON {DATABASE}.* TO '{USER}'@'{HOST}'")
        finally:
            conn.close()
        inv = Invocation(port=srv.port, warehouses=warehouses_of(self.plan), threads=PREPARE_THREADS,
                         command="prepare", pin_cpus=self.plan.pin_client)
        outcome = sysbench.execute(build_command(inv, program), timeout=LONG_RUN_TIMEOUT, log_path=self.log_path)
        failed = outcome.returncode != 0 or outcome.timed_out or _FAILED.search(outcome.output) is not None
        if failed or not srv.alive():
            reason = failure_reason(outcome.output)
            message = f"{srv.side}: go-tpc tpcc prepare failed (exit code {outcome.returncode})" + (f": {reason}" if reason else "")
            if not srv.alive():
                message = f"{srv.side}: server {srv.exit_description()} while loading data"
            raise WorkloadFailed(message, sysbench.output_tail(outcome.output) + "\n" + srv.log_tail())
        conn = srv.connect(database=DATABASE)
        try:
            cur = conn.cursor()
            for table in TABLES:
                cur.execute(f"ANALYZE TABLE {table}")
                cur.fetchall()
        finally:
            conn.close()


class TpccWorkload:
    """go-tpc's TPC-C mix with the benchmark's client threads. Before each run its side's server
    restarts on a fresh copy of the prepared datadir and every index is read into the buffer
    pool (untimed): each round starts from the same rows, whatever earlier rounds wrote."""

    def __init__(self, bench: Benchmark, plan: Plan, datadirs, log_path: Path):
        self.bench = bench
        self.plan = plan
        self.datadirs = datadirs
        self.log_path = log_path

    def _invocation(self, srv: Server, seconds: float = 0, count: int = 0, threads: int | None = None) -> Invocation:
        return Invocation(port=srv.port or 0, warehouses=warehouses_of(self.plan), threads=threads or self.bench.threads,
                          seconds=seconds, count=count, pin_cpus=self.plan.pin_client)

    def command(self, srv: Server, seconds: float) -> str:
        return sysbench.command_text(build_command(self._invocation(srv, seconds), find_program() or PROGRAM))

    def before_run(self, srv: Server) -> None:
        try:
            restart_on_fresh_copy(srv, self.datadirs)
            for table in TABLES:
                read_indexes(srv, DATABASE, table)
        except server.ServerError as e:
            raise WorkloadFailed(e.message, e.log_tail) from None
        except OSError as e:
            raise WorkloadFailed(f"a fresh copy of the prepared datadir failed: {e}") from None
        except pymysql.err.MySQLError as e:
            raise WorkloadFailed(f"reading the prepared tables failed: {e}", srv.log_tail(5)) from None

    def timed(self, srv: Server, seconds: float, on_start=None) -> dict:
        return run(self._invocation(srv, seconds), srv, seconds + sysbench.RUN_GRACE_SECONDS, self.log_path, on_start)

    def events(self, srv: Server, events: int, seed: int, threads: int = 1) -> dict:
        """`events` transactions of the mix from one client thread. go-tpc draws its keys and its
        mix from a generator it seeds itself: `seed` cannot be passed, so the sides' windows
        are not the same statements, and instructions per NewOrder carry that spread in their
        interval (docs/suites.md, "TPC-C")."""
        # One thread whatever is asked: go-tpc shares --count among its threads and a thread
        # given none runs until stopped.
        return run(self._invocation(srv, count=events, threads=1), srv, LONG_RUN_TIMEOUT, self.log_path)
