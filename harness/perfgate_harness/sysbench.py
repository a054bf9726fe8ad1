"""sysbench 1.0.20: command lines from one parameters object, output parsed by pure functions."""
import os
import re
import shlex
import signal
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path

from . import children
from .paths import LUA_DIR, SYSBENCH_BUILTIN_DIR

DATABASE = "sbtest"
# sysbench's default "special" distribution puts 75% of the k values written by `prepare` in 1%
# of their range, so a "range=100" on k would read thousands of rows; uniform keeps the names of
# the microbenchmarks true (100 values of k are about 100 rows) for prepare and run alike.
RAND_TYPE = "uniform"
# Lua modules that other scripts require; not microbenchmarks themselves.
LIBRARY_SCRIPTS = frozenset({"perfgate_common", "perfgate_zipf", "oltp_common"})
PERCENTILE = 95
# sysbench stops itself after --time; this is how much longer we wait before killing it.
RUN_GRACE_SECONDS = 60


class SysbenchOutputError(ValueError):
    """sysbench's report lacks a field we need; the message quotes what was there instead."""


def resolve_script(script: str) -> Path | None:
    if not re.match(r"^[A-Za-z0-9_]+$", script) or script in LIBRARY_SCRIPTS:
        return None
    ours = LUA_DIR / f"{script}.lua"
    if ours.is_file():
        return ours
    builtin = SYSBENCH_BUILTIN_DIR / f"{script}.lua"
    if builtin.is_file():
        return builtin
    return None


def known_scripts() -> list[str]:
    """Every script installed here: perfgate's Lua scripts and sysbench's built-in tests."""
    names = {p.stem for p in LUA_DIR.glob("perfgate_*.lua")}
    names |= {p.stem for p in SYSBENCH_BUILTIN_DIR.glob("*.lua")}
    return sorted(names - LIBRARY_SCRIPTS - {"bulk_insert"})


def _option_value(value) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


def script_options(options: dict) -> list[str]:
    """`--key=value` arguments for a script's own options (plan benchmark.options). Which names
    and values are allowed is schema/plan.schema.json's $defs/scriptOptions, checked when the
    plan is read."""
    return [f"--{key}={_option_value(value)}" for key, value in options.items()]


@dataclass(frozen=True)
class Invocation:
    """Everything one sysbench command depends on."""
    script_path: Path
    socket: Path
    tables: int
    rows: int
    threads: int
    seconds: int = 0
    options: dict = field(default_factory=dict)
    pin_cpus: str | None = None
    command: str = "run"
    # A fixed number of events (instead of `seconds`) and a fixed seed make two runs send the
    # same statements: what instruction counting needs.
    events: int = 0
    rand_seed: int | None = None


def script_argument(script_path: Path) -> str:
    """Built-ins by name (as people type them), perfgate's scripts by path."""
    script_path = Path(script_path)
    if script_path.parent == SYSBENCH_BUILTIN_DIR:
        return script_path.stem
    return str(script_path)


def build_command(inv: Invocation) -> list[str]:
    cmd = ["taskset", "-c", inv.pin_cpus] if inv.pin_cpus else []
    cmd += ["sysbench", script_argument(inv.script_path),
            "--db-driver=mysql", f"--mysql-socket={inv.socket}", "--mysql-user=root", f"--mysql-db={DATABASE}",
            f"--tables={inv.tables}", f"--table-size={inv.rows}", f"--threads={inv.threads}",
            f"--rand-type={RAND_TYPE}"]
    if inv.rand_seed is not None:
        cmd.append(f"--rand-seed={inv.rand_seed}")
    if inv.command == "run":
        cmd += [f"--time={0 if inv.events else int(inv.seconds)}"]
        if inv.events:
            cmd.append(f"--events={inv.events}")
        cmd += ["--report-interval=0", f"--percentile={PERCENTILE}"]
    cmd += script_options(inv.options)
    cmd.append(inv.command)
    return cmd


def command_text(cmd: list[str]) -> str:
    return shlex.join(cmd)


_STAT = r"^\s*{label}:\s+(\d+)\s+\(([0-9.]+) per sec\.\)\s*$"


def _find(pattern: str, text: str, label: str):
    m = re.search(pattern, text, re.MULTILINE)
    if not m:
        raise SysbenchOutputError(f"sysbench output has no '{label}' line; {_quote_end(text)}")
    return m


def _quote_end(text: str) -> str:
    lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
    return f"its last line is {lines[-1]!r}" if lines else "it is empty"


def parse_run_output(text: str) -> dict:
    """The report of `sysbench ... run` as numbers. Raises SysbenchOutputError naming a missing field."""
    transactions = _find(_STAT.format(label="transactions"), text, "transactions:")
    queries = _find(_STAT.format(label="queries"), text, "queries:")
    ignored = _find(_STAT.format(label="ignored errors"), text, "ignored errors:")
    reconnects = _find(_STAT.format(label="reconnects"), text, "reconnects:")
    total_time = _find(r"^\s*total time:\s+([0-9.]+)s\s*$", text, "total time:")
    latency_at = text.find("Latency (ms):")
    if latency_at < 0:
        raise SysbenchOutputError(f"sysbench output has no 'Latency (ms):' section; {_quote_end(text)}")
    latency = text[latency_at:]
    lat = {}
    for key, label in (("min", "min"), ("avg", "avg"), ("max", "max"), ("p95", f"{PERCENTILE}th percentile")):
        lat[key] = float(_find(rf"^\s*{label}:\s+([0-9.]+)\s*$", latency, f"Latency {label}:").group(1))
    return {
        "transactions": int(transactions.group(1)),
        "tps": float(transactions.group(2)),
        "queries": int(queries.group(1)),
        "qps": float(queries.group(2)),
        "errors": int(ignored.group(1)),
        "reconnects": int(reconnects.group(1)),
        "seconds": float(total_time.group(1)),
        "latency_ms": {"avg": lat["avg"], "p95": lat["p95"], "max": lat["max"]},
    }


def failure_lines(text: str) -> list[str]:
    """The lines in which sysbench says why it stopped: FATAL/ALERT lines (Lua and SQL errors),
    else its last line (option errors are printed without a prefix)."""
    flagged = [l.strip() for l in text.splitlines() if l.lstrip().startswith(("FATAL", "ALERT"))]
    if flagged:
        return flagged
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[-1:]


def failure_reason(text: str) -> str | None:
    """The most telling of the failure lines: the server's error, then a Lua error, then the first."""
    lines = failure_lines(text)
    for marker in ("MySQL error", "function failed:"):
        for line in lines:
            if marker in line:
                return line
    return lines[0] if lines else None


def output_tail(text: str, lines: int = 20) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


@dataclass
class Outcome:
    returncode: int
    output: str
    timed_out: bool = False


# The sysbench processes running now (several when the sides are measured together, each
# waited for by a thread of its own), so that a cancel can stop them all at once.
_running: set = set()
_running_lock = threading.Lock()


def stop_all() -> None:
    """Kills every sysbench this process is running (they run in sessions of their own)."""
    with _running_lock:
        procs = list(_running)
    for proc in procs:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def execute(cmd: list[str], timeout: float, log_path: Path | None = None, on_start=None) -> Outcome:
    """Runs sysbench to the end (or kills it after `timeout` s) and returns its combined output.
    `on_start(proc)` is called once it runs (the alternating rounds freeze and thaw it)."""
    proc = children.popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    with _running_lock:
        _running.add(proc)
    if on_start is not None:
        on_start(proc)
    timed_out = False
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    except BaseException:
        # Interrupted (SIGTERM, Ctrl-C): sysbench runs in its own session, so stop it here.
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    finally:
        with _running_lock:
            _running.discard(proc)
    text = out.decode("utf-8", "replace")
    if log_path is not None:
        with open(log_path, "a", encoding="utf-8") as f:
            f.write(f"$ {command_text(cmd)}\n{text}\n")
    return Outcome(proc.returncode, text, timed_out)
