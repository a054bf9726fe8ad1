"""The sysbench workloads (workload.py's interface): every catalogue entry today is a sysbench
script, a built-in oltp_* or one of perfgate's Lua shapes, on the shared sbtestN tables that
`SysbenchTables` loads. Command lines and output parsing are sysbench.py's."""
import signal
from pathlib import Path

from . import sysbench
from .plan import Benchmark, Plan
from .server import EXIT_SETTLE_SECONDS, Server
from .workload import WorkloadFailed

PREPARE_SCRIPT = "oltp_point_select"  # any oltp_* script prepares the shared sbtestN tables
# A fixed number of events, or a load, has no length of its own to wait for; under valgrind a
# window is slow, and this only stops one that hangs.
LONG_RUN_TIMEOUT = 3600


def round_failure(side: str, outcome: sysbench.Outcome, parsed: dict | None, parse_error: str | None,
                  server_state: str, timeout: float) -> str | None:
    """Why a round cannot count as a measurement, or None when it can."""
    if server_state != "running":
        return f"{side} server {server_state} during the round"
    if outcome.timed_out:
        return f"sysbench did not finish within {timeout:.0f} s and was killed"
    if outcome.returncode < 0:
        name = signal.Signals(-outcome.returncode).name
        hint = (" (sysbench 1.0.20 built with libmariadb crashes this way when it reconnects after a lost "
                "connection)" if name == "SIGSEGV" else "")
        return f"sysbench was killed by {name}{hint}"
    if outcome.returncode != 0:
        reason = sysbench.failure_reason(outcome.output)
        return f"sysbench exited with code {outcome.returncode}" + (f": {reason}" if reason else "")
    if parse_error:
        return parse_error
    if parsed["reconnects"] > 0:
        return f"sysbench reconnected {parsed['reconnects']} times: connections were lost during the round"
    if parsed["queries"] == 0:
        return "sysbench completed no queries"
    return None


def run_events(inv: sysbench.Invocation, log_path: Path | None = None) -> dict:
    """`inv`'s fixed number of events run to the end: sysbench's report, or WorkloadFailed. A
    report with errors or reconnects is returned: what counts them decides (callgrind.py)."""
    outcome = sysbench.execute(sysbench.build_command(inv), timeout=LONG_RUN_TIMEOUT, log_path=log_path)
    tail = sysbench.output_tail(outcome.output)
    if outcome.returncode != 0 or outcome.timed_out:
        reason = sysbench.failure_reason(outcome.output)
        raise WorkloadFailed(f"sysbench exited with code {outcome.returncode}" + (f": {reason}" if reason else ""), tail)
    try:
        return sysbench.parse_run_output(outcome.output)
    except sysbench.SysbenchOutputError as e:
        raise WorkloadFailed(str(e), tail) from None


class SysbenchWorkload:
    """One catalogue entry's sysbench script with its options and threads."""

    def __init__(self, bench: Benchmark, plan: Plan, log_path: Path):
        self.bench = bench
        self.plan = plan
        self.log_path = log_path

    def invocation(self, srv: Server, seconds: float) -> sysbench.Invocation:
        return sysbench.Invocation(script_path=self.bench.script_path, socket=srv.layout.socket,
                                   tables=self.plan.tables, rows=self.plan.rows, threads=self.bench.threads,
                                   seconds=seconds, options=self.bench.options, pin_cpus=self.plan.pin_client)

    def command(self, srv: Server, seconds: float) -> str:
        return sysbench.command_text(sysbench.build_command(self.invocation(srv, seconds)))

    def before_run(self, srv: Server) -> None:
        """Rounds follow each other on the same tables: nothing to set up."""

    def timed(self, srv: Server, seconds: float, on_start=None) -> dict:
        cmd = sysbench.build_command(self.invocation(srv, seconds))
        timeout = seconds + sysbench.RUN_GRACE_SECONDS
        outcome = sysbench.execute(cmd, timeout=timeout, log_path=self.log_path, on_start=on_start)
        parsed, parse_error = None, None
        if outcome.returncode == 0 and not outcome.timed_out:
            try:
                parsed = sysbench.parse_run_output(outcome.output)
            except sysbench.SysbenchOutputError as e:
                parse_error = str(e)
        # A server that died during the round is the cause, whatever sysbench says about it; when
        # the round went wrong, the server is given a moment to be seen dead.
        went_wrong = parsed is None or parsed["reconnects"] > 0
        state = srv.exit_description(settle=EXIT_SETTLE_SECONDS if went_wrong else 0.0)
        failure = round_failure(srv.side, outcome, parsed, parse_error, state, timeout)
        if failure:
            raise WorkloadFailed(failure, sysbench.output_tail(outcome.output))
        return parsed

    def events(self, srv: Server, events: int, seed: int, threads: int = 1) -> dict:
        inv = sysbench.Invocation(script_path=self.bench.script_path, socket=srv.layout.socket,
                                  tables=self.plan.tables, rows=self.plan.rows, threads=threads,
                                  options=self.bench.options, events=events, rand_seed=seed)
        return run_events(inv, self.log_path)


class SysbenchTables:
    """The sbtestN tables (id, k, c, pad; index k_N) every sysbench script uses, analyzed."""

    def __init__(self, plan: Plan, log_path: Path):
        self.plan = plan
        self.log_path = log_path

    def load(self, srv: Server) -> None:
        conn = srv.connect()
        try:
            conn.cursor().execute(f"CREATE DATABASE IF NOT EXISTS {sysbench.DATABASE}")
        finally:
            conn.close()
        inv = sysbench.Invocation(script_path=sysbench.resolve_script(PREPARE_SCRIPT), socket=srv.layout.socket,
                                  tables=self.plan.tables, rows=self.plan.rows,
                                  threads=min(self.plan.tables, 4), command="prepare",
                                  pin_cpus=self.plan.pin_client)
        outcome = sysbench.execute(sysbench.build_command(inv), timeout=LONG_RUN_TIMEOUT, log_path=self.log_path)
        if outcome.returncode != 0 or not srv.alive():
            reason = sysbench.failure_reason(outcome.output)
            message = (f"{srv.side}: sysbench prepare failed (exit code {outcome.returncode})"
                       + (f": {reason}" if reason else ""))
            if not srv.alive():
                message = f"{srv.side}: server {srv.exit_description()} while loading data"
            raise WorkloadFailed(message, sysbench.output_tail(outcome.output) + "\n" + srv.log_tail())
        conn = srv.connect(database=sysbench.DATABASE)
        try:
            cur = conn.cursor()
            for t in range(1, self.plan.tables + 1):
                cur.execute(f"ANALYZE TABLE sbtest{t}")
                cur.fetchall()
        finally:
            conn.close()
