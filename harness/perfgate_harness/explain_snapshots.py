"""Stacks of a server's threads by snapshots (eu-stack, elfutils), where perf may not record
scheduler switches: the harness is not root (the sandbox runs it as uid 65534) and the kernel
keeps tracepoints to root. Each snapshot reads every thread's state (/proc/<pid>/task/<tid>/stat)
and then its stack (eu-stack stops the threads while it reads them). A connection thread inside
a statement counts the snapshot on its stack: on-CPU when it was running (R), off-CPU when it
was waiting (S, D). A snapshot stands for window / snapshots of wall time, so a wait's µs per
query is its share of the snapshots times the window's time per query; how many snapshots saw
it is kept beside, so that core weighs a difference against what so few samples can tell apart
(docs/explain.md, "Stacks without perf")."""
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

from . import children, procstat
from .explain_stacks import STATEMENT_FRAMES, StacksFailed, fitting_key, folded_text

INSTALL_HINT = "install elfutils (Debian: apt-get install elfutils; scripts/install-deps.sh does)"
PAUSE_SECONDS = 0.02  # between snapshots: eu-stack's own reading takes ~0.1 s on mysqld
SNAPSHOT_TIMEOUT = 30.0
MOST_STACKS = 500
# Snapshots a window takes at least, while the row's time allows: a share of 40 snapshots
# tells a wait that holds a connection a quarter of the time from none (docs/explain.md).
LEAST_SNAPSHOTS = 40
_TID = re.compile(r"^TID (\d+):")
_FRAME = re.compile(r"^#\d+\s+0x[0-9a-f]+(?:\s+(?P<sym>.+))?$")


# ------------------------------------------------------------------------------ pure decisions

def symbol(text: str | None) -> str | None:
    """A frame's function without its parameter list or symbol version; None when unnamed."""
    if not text:
        return None
    name = text.strip()
    if name.endswith(")"):
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(name[i], 0)
            if depth == 0:
                name = name[:i] if i > 0 else name
                break
    name = re.sub(r"@@?[A-Z][A-Za-z0-9_.]*$", "", name).strip()
    return name.replace(";", ":") or None


def parse_snapshot(text: str) -> dict:
    """eu-stack's output -> {tid: frames from the thread's start to the leaf, named ones only}."""
    threads, current = {}, None
    for line in text.splitlines():
        tid = _TID.match(line)
        if tid:
            current = threads.setdefault(int(tid.group(1)), [])
            continue
        frame = _FRAME.match(line.strip())
        if frame and current is not None:
            name = symbol(frame.group("sym"))
            if name is not None:
                current.append(name)
    return {tid: list(reversed(frames)) for tid, frames in threads.items()}


def fold_snapshots(snapshots: list, program: str) -> tuple[Counter, Counter, Counter]:
    """Of connection threads inside a statement, per stack: on-CPU thread samples, off-CPU
    thread samples keyed with the thread's state, and the snapshots that saw any thread waiting
    in it (at most one each: what the share of snapshots is read from). `snapshots` =
    [({tid: state}, {tid: frames})]."""
    oncpu, offcpu, seen = Counter(), Counter(), Counter()
    for states, stacks in snapshots:
        waiting = set()
        for tid, frames in stacks.items():
            if not any(f in STATEMENT_FRAMES for f in frames):
                continue
            state = states.get(tid)
            if state == "R":
                oncpu[";".join([program, *frames])] += 1
            elif state in ("S", "D"):
                key = ";".join([program, f"state={state}", *frames])
                offcpu[key] += 1
                waiting.add(key)
        seen.update(waiting)
    return oncpu, offcpu, seen


def per_query(offcpu: Counter, seen: Counter, snapshots: int, seconds: float, queries: int) -> tuple[dict, dict]:
    """({stack: µs per query}, {stack: snapshots that saw it}) of the MOST_STACKS most seen
    stacks: a thread seen waiting stands for window / snapshots of its time."""
    if queries <= 0 or snapshots <= 0:
        return {}, {}
    each_us = seconds * 1e6 / snapshots
    us, saw = {}, {}
    for stack, count in offcpu.most_common(MOST_STACKS):
        key = fitting_key(stack)
        us[key] = round(us.get(key, 0.0) + count * each_us / queries, 3)
        saw[key] = min(snapshots, saw.get(key, 0) + seen[stack])
    return us, saw


# ------------------------------------------------------------------------------ the session

def unavailable_reason(eu_stack: str | None) -> str | None:
    return None if eu_stack else f"eu-stack is not installed: {INSTALL_HINT}"


def thread_states(pid: int) -> dict:
    out = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            out[int(task.name)] = procstat.parse_state((task / "stat").read_text(errors="replace"))
        except (OSError, ValueError):
            continue  # a thread that ended meanwhile
    return out


def again(calls: int, taken: int, elapsed: float, most_seconds: float) -> bool:
    """Whether a window runs its events once more: until LEAST_SNAPSHOTS were taken, while one
    more call of the same length still ends within `most_seconds` (pure)."""
    return taken < LEAST_SNAPSHOTS and calls > 0 and elapsed + elapsed / calls <= most_seconds


def snapshot(pid: int, eu_stack: str) -> tuple[dict, dict]:
    states = thread_states(pid)
    try:
        done = children.run([eu_stack, "-p", str(pid)], capture_output=True, timeout=SNAPSHOT_TIMEOUT)
    except subprocess.TimeoutExpired:
        # eu-stack killed while it held the threads stopped may leave them so: let them go.
        try:
            os.kill(pid, signal.SIGCONT)
        except OSError:
            pass
        raise StacksFailed(f"eu-stack read no stack within {SNAPSHOT_TIMEOUT:g} s") from None
    stacks = parse_snapshot(done.stdout.decode(errors="replace"))
    if not stacks:
        raise StacksFailed(f"eu-stack exited with code {done.returncode} and read no thread: "
                           f"{done.stderr.decode(errors='replace').strip()[-400:]}")
    return states, stacks


def record(pid: int, run_events, events: int, most_seconds: float = 0.0) -> tuple[dict, float, list]:
    """Snapshots of `pid` taken one after another while `run_events(events)` runs, again and
    again until LEAST_SNAPSHOTS were taken or `most_seconds` passed (the events of one call
    take a fraction of a second on a light row, a snapshot a tenth): (the workload's report
    with the queries of every call, the window's seconds, the snapshots)."""
    eu_stack = shutil.which("eu-stack")
    if not eu_stack:
        raise StacksFailed(unavailable_reason(None))
    taken, failure, stop = [], [], threading.Event()

    def take():
        while not stop.is_set():
            try:
                taken.append(snapshot(pid, eu_stack))
            except Exception as e:  # any failure ends the snapshots and is said, never swallowed
                failure.append(e)
                return
            stop.wait(PAUSE_SECONDS)

    sampler = threading.Thread(target=take, name="eu-stack snapshots", daemon=True)
    started = time.monotonic()
    sampler.start()
    queries = calls = 0
    try:
        while True:
            report = run_events(events)
            queries += int(report["queries"])
            calls += 1
            if failure or not again(calls, len(taken), time.monotonic() - started, most_seconds):
                break
    finally:
        seconds = time.monotonic() - started
        stop.set()
        sampler.join(SNAPSHOT_TIMEOUT + 5)
    if failure:
        raise StacksFailed(f"after {len(taken)} snapshots: {failure[0]}")
    if not taken:
        raise StacksFailed(f"no snapshot was taken in the window's {seconds:.2f} s")
    return {**report, "queries": queries}, seconds, taken


def snapshots_window(pid: int, run_events, events: int, out_dir: Path, out: Path, stem: str, program: str,
                     most_seconds: float = 0.0) -> dict:
    """The side's stacks over one window by snapshots: the same files and figures as perf's
    (explain_stacks.stacks_window), with the tool and how many snapshots saw each wait."""
    out_dir.mkdir(parents=True, exist_ok=True)
    report, seconds, taken = record(pid, run_events, events, most_seconds)
    oncpu, offcpu, saw = fold_snapshots(taken, program)
    queries = int(report["queries"])
    us, seen = per_query(offcpu, saw, len(taken), seconds, queries)
    files = {}
    each_us = seconds * 1e6 / max(len(taken), 1)
    for kind, stacks in (("oncpu", oncpu), ("offcpu", Counter({k: v * each_us for k, v in offcpu.items()}))):
        path = out_dir / f"{stem}.{kind}.folded"
        path.write_text(folded_text(stacks), encoding="utf-8")
        files[kind] = str(path.relative_to(out))
    return {"oncpu_file": files["oncpu"], "offcpu_file": files["offcpu"], "samples": sum(oncpu.values()),
            "seconds": round(seconds, 3), "queries": queries, "offcpu_us_per_query": us,
            "tool": "eu-stack", "snapshots": len(taken), "offcpu_snapshots": seen}
