"""Stacks of a server's threads over a window of events, from one `perf record` session: on-CPU
samples (cpu-clock) and the time each thread spent switched out (sched:sched_switch with its
stack, closed by that thread's next switch-in), folded one stack per line as flame-graph tools
read them. Off-CPU time counts only inside a statement (stacks through the connection's
command dispatch): the wait for the client's next command is not the server's."""
import re
import shutil
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

from . import children

INSTALL_HINT = "install perf (Debian: apt-get install linux-perf; scripts/install-deps.sh does)"
RECORD_EVENTS = ["-e", "cpu-clock", "-F", "999", "-e", "sched:sched_switch", "--switch-events", "--call-graph", "fp"]
SCRIPT_FIELDS = "comm,tid,time,event,ip,sym,dso,trace"
# Frames that mark a connection thread inside a statement (MariaDB and MySQL).
STATEMENT_FRAMES = ("dispatch_command",)
PARANOID = Path("/proc/sys/kernel/perf_event_paranoid")
MAX_STACK_KEY = 8192  # schema/explain.schema.json: offcpu_us_per_query's keys
START_SECONDS = 0.5  # perf attaches to every thread before the window's events begin
_SWITCH_IN = re.compile(r"PERF_RECORD_SWITCH(_CPU_WIDE)? IN\b")
_HEADER = re.compile(r"^(?P<comm>\S.*?)\s+(?P<tid>\d+)\s+(?P<time>\d+\.\d+):\s+(?P<rest>.*)$")


# ------------------------------------------------------------------------------ pure decisions

def unavailable_reason(perf: str | None, euid: int, paranoid: str | None) -> str | None:
    """Why perf cannot sample a server's scheduler switches here, or None when it can."""
    if perf is None:
        return f"perf is not installed: {INSTALL_HINT}"
    try:
        level = int(paranoid) if paranoid is not None else None
    except ValueError:
        level = None
    # Tracepoints need CAP_PERFMON (root) or kernel.perf_event_paranoid at -1 or below.
    if euid != 0 and (level is None or level > -1):
        return (f"perf may not record scheduler tracepoints as uid {euid} (kernel.perf_event_paranoid = "
                f"{paranoid if paranoid is not None else 'unknown'}): run the harness as root, or set "
                "kernel.perf_event_paranoid = -1 on the runner")
    return None


def _frame(line: str) -> str | None:
    """The symbol of one stack line of `perf script` ("\\t addr sym+off (dso)")."""
    parts = line.split(None, 1)
    if len(parts) < 2:
        return None
    rest = parts[1]
    if rest.endswith(")") and " (" in rest:
        rest = rest.rsplit(" (", 1)[0]
    symbol = re.sub(r"\+0x[0-9a-f]+$", "", rest.strip())
    if symbol in ("", "[unknown]"):
        return None  # hidden symbols (InnoDB in Debian's builds): a stack of them says nothing
    return symbol.replace(";", ":")  # ';' separates frames in a folded line


def _events(lines):
    """(comm, tid, seconds, description, frames root-first) per event of `perf script`."""
    current = None
    for line in lines:
        line = line.rstrip("\n")
        if line.startswith(("\t", " ")):
            if current is not None:
                frame = _frame(line)
                if frame is not None:
                    current[4].append(frame)
            continue
        match = _HEADER.match(line)
        if current is not None:
            current[4].reverse()
            yield tuple(current)
            current = None
        if match:
            current = [match["comm"], int(match["tid"]), float(match["time"]), match["rest"], []]
    if current is not None:
        current[4].reverse()
        yield tuple(current)


def fold(lines, program: str) -> tuple[Counter, Counter]:
    """(on-CPU samples per stack, off-CPU µs per stack) from `perf script --show-switch-events`
    output. Off-CPU stacks are keyed with the thread's state: S and D wait, R was preempted."""
    oncpu, offcpu = Counter(), Counter()
    pending = {}  # tid -> (switched out at, stack, state)
    for _comm, tid, seconds, rest, frames in _events(lines):
        if rest.startswith("cpu-clock"):
            oncpu[";".join([program, *frames])] += 1
        elif rest.startswith("sched:sched_switch"):
            state = re.search(r"prev_state=(\S+)", rest)
            pending[tid] = (seconds, frames, state.group(1) if state else "?")
        elif _SWITCH_IN.match(rest) and tid in pending:
            out_at, stack, state = pending.pop(tid)
            if not any(f in STATEMENT_FRAMES for f in stack):
                continue
            label = "state=R (preempted)" if state.startswith("R") else f"state={state}"
            offcpu[";".join([program, label, *stack])] += (seconds - out_at) * 1e6
    return oncpu, offcpu


def offcpu_per_query(offcpu: Counter, queries: int, least_us: float = 0.1, most: int = 500) -> dict:
    """Folded stack -> µs per query spent off-CPU in it (its state among its frames: core tells
    a wait from a preemption); the `most` heaviest stacks of at least `least_us`."""
    if queries <= 0:
        return {}
    out = {}
    for stack, us in offcpu.most_common(most):
        per_query = round(us / queries, 3)
        if per_query >= least_us:
            out[fitting_key(stack)] = per_query
    return out


def fitting_key(stack: str, limit: int = MAX_STACK_KEY) -> str:
    """A stack within the schema's length of a key: its leaf end kept, whole frames only."""
    if len(stack) <= limit:
        return stack
    return stack[-limit:].split(";", 1)[-1]


def file_stem(row: str, side: str) -> str:
    """`<row>.<side>`, safe as one file name in the run folder's explain/ whatever the row's id
    holds."""
    return re.sub(r"[^A-Za-z0-9_.=+-]", "_", f"{row}.{side}").lstrip(".") or "_"


def folded_text(stacks: Counter) -> str:
    return "".join(f"{stack} {round(value)}\n" for stack, value in stacks.most_common() if round(value) > 0)


# ------------------------------------------------------------------------------ the session

class StacksFailed(Exception):
    pass


def record(pid: int, run_events, events: int, data_file: Path) -> tuple[dict, float, str]:
    """One perf session attached to `pid` while `run_events(events)` runs: (the workload's
    report, the window's seconds, perf script's text)."""
    perf = shutil.which("perf")
    cmd = [perf, "record", "-q", *RECORD_EVENTS, "-p", str(pid), "-o", str(data_file)]
    log = data_file.with_suffix(".log")
    with open(log, "wb") as out:
        proc = children.popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        time.sleep(START_SECONDS)
        if proc.poll() is not None:
            raise StacksFailed(f"perf record exited with code {proc.returncode}: {log.read_text(errors='replace').strip()[-400:]}")
        started = time.monotonic()
        report = run_events(events)
        seconds = time.monotonic() - started
        proc.send_signal(signal.SIGINT)
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    log.unlink(missing_ok=True)
    script = children.run([perf, "script", "-i", str(data_file), "--show-switch-events", "-F", SCRIPT_FIELDS],
                          capture_output=True, timeout=300)
    if script.returncode != 0:
        raise StacksFailed(f"perf script exited with code {script.returncode}: "
                           f"{script.stderr.decode(errors='replace').strip()[-400:]}")
    return report, seconds, script.stdout.decode(errors="replace")


def stacks_window(pid: int, run_events, events: int, out_dir: Path, out: Path, stem: str, program: str) -> dict:
    """The side's stacks over one window: folded files `<stem>.oncpu.folded` and
    `<stem>.offcpu.folded` in `out_dir`, and the off-CPU µs per query by frame."""
    out_dir.mkdir(parents=True, exist_ok=True)
    data_file = out_dir / f"{stem}.perf.data"
    try:
        report, seconds, text = record(pid, run_events, events, data_file)
    finally:
        data_file.unlink(missing_ok=True)
        data_file.with_suffix(".data.old").unlink(missing_ok=True)
    oncpu, offcpu = fold(text.splitlines(), program)
    files = {}
    for kind, stacks in (("oncpu", oncpu), ("offcpu", offcpu)):
        path = out_dir / f"{stem}.{kind}.folded"
        path.write_text(folded_text(stacks), encoding="utf-8")
        files[kind] = str(path.relative_to(out))
    queries = int(report["queries"])
    return {"oncpu_file": files["oncpu"], "offcpu_file": files["offcpu"], "samples": sum(oncpu.values()),
            "seconds": round(seconds, 3), "queries": queries, "offcpu_us_per_query": offcpu_per_query(offcpu, queries)}
