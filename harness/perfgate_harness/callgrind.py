"""Instructions per query of a real server under Valgrind's callgrind.

The server runs under callgrind with instrumentation off. A measured window is one run of a
workload's fixed number of events with a fixed seed and one thread: instrumentation on, the run, a
dump `<window>.q`, then purge is let go and counted until it has caught up, instrumentation off
and a dump `<window>.p` (commands to callgrind's gdbserver, sent with `vgdb`). With
`--separate-threads=yes` each dump writes one file per thread,
`callgrind.out.<pid>.<part>-<thread>` (thread as two digits or more), part counting the dumps of
the process from 1; each file names its dump in `desc: Trigger: dump <description>`. At exit
callgrind writes `callgrind.out.<pid>-<thread>` ("Trigger: Program termination").

Threads that ran a connection's command loop (`do_command`) are the queries' own work; the
others (InnoDB's tpool workers: purge, page flushing, I/O completion; the timer and main
threads) are the work the queries leave behind, counted apart.

Command lines, server options, thread groups and records are pure functions; `Control`,
`drain_purge` and `measure_*` touch the process and the files.
"""
import re
import shutil
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

from . import children
from .callgrind_format import CallgrindFormatError, Profile, parse_profile
from .counted_malloc import CountedMalloc
from .workload import WorkloadFailed

OUT_FILE_PREFIX = "callgrind.out"
# The functions one connection's statements run under: MariaDB's one-thread-per-connection loop
# and the command loop MariaDB and MySQL share (exported, so they have names even when stripped).
CONNECTION_ENTRY_POINTS = frozenset({"do_command", "do_handle_one_connection", "handle_one_connection",
                                     "handle_connection"})
# MariaDB's own default when a profile leaves the pool size out.
DEFAULT_BUFFER_POOL_SIZE = "128M"
CONTROL_TIMEOUT = 120.0
# An idle server (between windows, every thread waits in a system call) answers vgdb only when
# vgdb interrupts it, which it does after this long; its default (100 ms) was most of a call
# (docs/measurements.md, "`make demo`").
INVOKE_AFTER_MS = 1
TOP_FUNCTIONS = {"connection": 300, "background": 50}
# Reading the client's next statement: whether a read finds it already sent or waits for it in
# poll() depends on timing, not on the server's code, and was all that two windows of one
# process differed by on point-query; left out of the counts (docs/usage.md#instructions-per-query).
CLIENT_READS = frozenset({"vio_read"})
_DUMP_FILE = re.compile(rf"^{re.escape(OUT_FILE_PREFIX)}\.(\d+)\.(\d+)-(\d+)$")


class CallgrindError(Exception):
    """A callgrind step failed; the message is one line naming the step."""


def unavailable_reason() -> str | None:
    """None when valgrind's callgrind and vgdb can run here, else what to install."""
    for tool in ("valgrind", "vgdb"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian: apt-get install valgrind)"
    return None


# ------------------------------------------------------------------------------ pure decisions

def valgrind_wrapper(out_dir: Path, malloc: CountedMalloc) -> tuple:
    """The command that runs the server under callgrind, counting nothing until told to, on the
    malloc that counts alike in every process (counted_malloc.py; for the server only: Valgrind
    itself does not use glibc). Valgrind lays out its client's address space itself, the same in
    every process, so address-space randomisation needs no switch."""
    return ("env", *malloc.environment(),
            "valgrind", "--tool=callgrind", "--instr-atstart=no", "--separate-threads=yes",
            f"--callgrind-out-file={Path(out_dir) / OUT_FILE_PREFIX}.%p")


def _normal(key: str) -> str:
    return key.strip().replace("-", "_").lower()


def server_options(profile_options: dict) -> dict:
    """The profile's options plus what InnoDB needs under Valgrind.

    Valgrind cannot reserve the 8 TB of address space InnoDB maps for a growable buffer pool by
    default ("Cannot map innodb_buffer_pool_size_max"), so the maximum is the pool size; `loose_`
    keeps servers without that option starting. Native AIO (io_uring/libaio) submits I/O that
    Valgrind does not follow, so InnoDB's simulated AIO is used.
    The rest makes the background work repeat: one purge thread removes history in one order
    (Valgrind runs one thread at a time anyway), and the buffer pool is not reloaded from its
    dump at startup by a background task that races the warm-up; the warm-up reads the pages.
    """
    owned = {"innodb_buffer_pool_size_max", "loose_innodb_buffer_pool_size_max", "innodb_use_native_aio",
             "innodb_purge_threads", "innodb_buffer_pool_load_at_startup"}
    options = {k: v for k, v in profile_options.items() if _normal(k) not in owned}
    pool = next((v for k, v in profile_options.items() if _normal(k) == "innodb_buffer_pool_size"),
                DEFAULT_BUFFER_POOL_SIZE)
    options["loose_innodb_buffer_pool_size_max"] = pool
    options["innodb_use_native_aio"] = False
    options["innodb_purge_threads"] = 1
    options["innodb_buffer_pool_load_at_startup"] = False
    return options


def base_name(function: str) -> str:
    """`do_command(THD*, bool)'2` -> `do_command`: the name without arguments or recursion level."""
    name = re.sub(r"'\d+$", "", function)
    return name.split("(", 1)[0].strip()


def is_connection_thread(profile: Profile) -> bool:
    return any(f.inclusive > 0 and base_name(f.name) in CONNECTION_ENTRY_POINTS
               for f in profile.functions.values())


def dump_file_parts(name: str) -> tuple[int, int, int] | None:
    """(pid, part, thread) from a dump file name, None for any other file."""
    m = _DUMP_FILE.match(name)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def files_of_dump(names: list[str], pid: int) -> dict[int, list[str]]:
    """Dump files of one process grouped by part number."""
    parts: dict[int, list[str]] = {}
    for name in names:
        parsed = dump_file_parts(name)
        if parsed and parsed[0] == pid:
            parts.setdefault(parsed[1], []).append(name)
    return parts


def _source(function) -> str | None:
    if not function.file or function.file == "???":
        return None
    return f"{function.file}:{function.line}" if function.line else function.file


def merge_functions(profiles: list[Profile]) -> dict:
    """Self and inclusive cost per (function, object) summed over threads."""
    merged = {}
    for profile in profiles:
        for f in profile.functions.values():
            key = (f.name, f.object)
            entry = merged.get(key)
            if entry is None:
                merged[key] = entry = {"name": f.name, "object": Path(f.object).name if f.object else "",
                                       "source": _source(f), "self": 0, "inclusive": 0}
            entry["self"] += f.self_cost
            entry["inclusive"] += f.inclusive
    return merged


def split_threads(profiles: list[Profile]) -> dict:
    groups = {"connection": [], "background": []}
    for p in profiles:
        groups["connection" if is_connection_thread(p) else "background"].append(p)
    return groups


def client_reads(profile: Profile) -> int:
    """What one thread ran reading from its client: CLIENT_READS and what they called (a
    recursion level `f'2` lies inside its first level and is not added again)."""
    return sum(f.inclusive for f in profile.functions.values() if f.name.split("(", 1)[0].strip() in CLIENT_READS)


def window_record(profiles: list[Profile], queries: int, events: int, seconds: float) -> dict:
    """One window as results carry it: exact totals per thread group, less their client reads
    (kept beside them), per query and per event."""
    groups = split_threads(profiles)
    record = {"events": events, "queries": queries, "seconds": round(seconds, 3)}
    for group, members in groups.items():
        reads = sum(client_reads(p) for p in members)
        total = sum(p.totals for p in members) - reads
        record[group] = {"instructions": total, "threads": sum(1 for p in members if p.totals),
                         "per_query": round(total / queries, 1) if queries else None, "client_reads": reads}
    return record


def top_functions(merged: dict, queries: int, limit: int) -> list[dict]:
    """The `limit` largest functions by inclusive cost, per query (one decimal)."""
    rows = sorted(merged.values(), key=lambda e: (-e["inclusive"], -e["self"], e["name"]))[:limit]
    return [{"name": e["name"], "object": e["object"], "source": e["source"],
             "self": round(e["self"] / queries, 1), "inclusive": round(e["inclusive"] / queries, 1)}
            for e in rows]


def side_record(windows: list[dict], profiles_per_window: list[list[Profile]],
                top: dict = TOP_FUNCTIONS) -> dict:
    """A benchmark's instruction counts on one side: every window, and the top functions of all
    windows together (per query) for each thread group."""
    queries = sum(w["queries"] for w in windows)
    functions = {}
    for group in ("connection", "background"):
        members = [p for profiles in profiles_per_window for p in split_threads(profiles)[group]]
        functions[group] = top_functions(merge_functions(members), queries, top[group]) if queries else []
    return {"windows": windows, "functions": functions}


def events_for(per_event_instructions: float, target: float, minimum: int = 2, maximum: int = 20000) -> int:
    """Events in a window so that the connection threads run about `target` instructions, as a
    round number (two significant digits) within [minimum, maximum]."""
    if per_event_instructions <= 0:
        raise ValueError(f"per-event instructions {per_event_instructions!r}; expected a positive number")
    raw = target / per_event_instructions
    magnitude = 10 ** max(0, len(str(int(raw))) - 2)
    rounded = max(1, round(raw / magnitude)) * magnitude
    return int(min(maximum, max(minimum, rounded)))


# ------------------------------------------------------------------------------ the process

def _tail(text: str) -> str:
    lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
    return lines[-1] if lines else "(no output)"


class Control:
    """Callgrind's gdbserver in one valgrind process, whose dumps go to `out_dir`.

    Commands go through `vgdb` itself, not callgrind_control: that Perl script lists every
    Valgrind process and then runs vgdb once per command, a slower call each
    (bench/instructions.md), and one vgdb call can carry two commands (instrumentation off,
    then the dump)."""

    def __init__(self, pid: int, out_dir: Path):
        self.pid = pid
        self.out_dir = Path(out_dir)
        self.seconds = 0.0  # spent in vgdb, for the report of where time goes

    def _send(self, *commands: str) -> None:
        cmd = ["vgdb", f"--pid={self.pid}", f"--max-invoke-ms={INVOKE_AFTER_MS}"]
        for i, command in enumerate(commands):
            cmd += (["-c"] if i else []) + command.split()
        started = time.monotonic()
        try:
            out = children.run(cmd, capture_output=True, text=True, timeout=CONTROL_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise CallgrindError(f"{' '.join(cmd)} did not answer within {CONTROL_TIMEOUT:.0f} s") from None
        finally:
            self.seconds += time.monotonic() - started
        # vgdb reports its own failures (no such process) by its exit code; callgrind answers
        # these commands with nothing when they work and with a line of text when they do not.
        if out.returncode != 0 or out.stdout.strip():
            raise CallgrindError(f"{' '.join(cmd)} failed (exit code {out.returncode}): "
                                 f"{_tail(out.stdout + out.stderr)}")

    def instrument(self, on: bool) -> None:
        self._send(f"instrumentation {'on' if on else 'off'}")

    def dump(self, description: str, instrument_off: bool = False) -> list[Path]:
        """Dumps every thread's costs (after switching instrumentation off, in the same call, when
        asked); returns the files of this dump, all checked to be complete."""
        if not re.match(r"^[A-Za-z0-9_.=-]+$", description):
            raise ValueError(f"dump description {description!r}; expected letters, digits and _ . = -")
        before = set(files_of_dump(self._names(), self.pid))
        self._send(*(["instrumentation off"] if instrument_off else []), f"dump {description}")
        parts = files_of_dump(self._names(), self.pid)
        new = sorted(set(parts) - before)
        if len(new) != 1:
            raise CallgrindError(f"vgdb dump {description} on pid {self.pid} wrote parts {new} "
                                 f"in {self.out_dir}; expected exactly one new part")
        return [self.out_dir / n for n in sorted(parts[new[0]])]

    def _names(self) -> list[str]:
        return [p.name for p in self.out_dir.iterdir()] if self.out_dir.is_dir() else []


def read_dump(files: list[Path], description: str) -> list[Profile]:
    """Parses a dump's files, checking that each belongs to that dump and was written whole."""
    profiles = []
    for path in files:
        profile = parse_profile(path.read_text(encoding="utf-8", errors="replace"), str(path))
        expected = f"dump {description}"
        if profile.trigger != expected:
            raise CallgrindFormatError(f"{path}: written by {profile.trigger!r}; expected {expected!r}")
        if profile.totals is None:
            raise CallgrindFormatError(f"{path}: no 'totals:' line; the dump was not written whole")
        if profile.totals != profile.self_sum():
            raise CallgrindFormatError(f"{path}: totals {profile.totals} but its cost lines add up to "
                                       f"{profile.self_sum()}")
        profiles.append(profile)
    return profiles


HOLD_PURGE_SQL = "START TRANSACTION WITH CONSISTENT SNAPSHOT"
# MariaDB 10.5.7+: returns once purge has emptied the history list.
DRAIN_PURGE_SQL = "SET GLOBAL innodb_max_purge_lag_wait = 0"
HISTORY_SQL = "SELECT `count` FROM information_schema.INNODB_METRICS WHERE name = 'trx_rseg_history_len'"
DRAIN_TIMEOUT = 600.0
# MySQL 9.7's purge goes idle with undo logs still listed (docs/measurements.md, "The
# explanation step on MySQL 9.7"): the history is drained once it is empty or has not moved
# for this long.
SETTLED_SECONDS = 3.0


def drained(history: list, interval: float) -> bool:
    """Whether polled history lengths say purge is done: empty, or unchanged over SETTLED_SECONDS (pure)."""
    if history and history[-1] == 0:
        return True
    polls = int(SETTLED_SECONDS / interval) + 1
    return len(history) >= polls and len(set(history[-polls:])) == 1


def drain_purge(connect) -> int:
    """Waits until purge is done: MariaDB's own wait; elsewhere, the history polled until
    settled. Returns how many times it polled (0 with MariaDB's wait): each poll reads
    INNODB_METRICS, which the explanation step's counters must take off."""
    conn = connect()
    try:
        cur = conn.cursor()
        try:
            cur.execute(DRAIN_PURGE_SQL)
            return 0
        except Exception as e:  # servers without the variable: MySQL, MariaDB before 10.5.7
            if "innodb_max_purge_lag_wait" not in str(e):
                raise
        deadline = time.monotonic() + DRAIN_TIMEOUT
        history, interval = [], 0.2
        while time.monotonic() < deadline:
            cur.execute(HISTORY_SQL)
            row = cur.fetchone()
            if row is None:
                return len(history) + 1
            history.append(int(row[0]))
            if drained(history, interval):
                return len(history)
            time.sleep(interval)
        raise CallgrindError(f"purge did not settle the history list within {DRAIN_TIMEOUT:.0f} s (last {history[-1:]})")
    finally:
        conn.close()


@contextmanager
def purge_held(connect):
    """Purge removes nothing while this read view is open."""
    hold = connect()
    try:
        hold.cursor().execute(HOLD_PURGE_SQL)
        yield
        hold.rollback()
    finally:
        hold.close()


def _read_and_remove(files: list[Path], description: str, keep_files: bool, keep_in: Path | None = None) -> list[Profile]:
    """The dump's profiles; its files are then removed, kept, or moved into `keep_in`."""
    try:
        return read_dump(files, description)
    finally:
        if keep_in is not None:
            keep_in.mkdir(parents=True, exist_ok=True)
            for f in files:
                if f.exists():
                    f.replace(keep_in / f.name)
        elif not keep_files:
            for f in files:
                f.unlink(missing_ok=True)


def window_problem(description: str, parsed: dict, record: dict) -> str | None:
    """Why a counted window is not a count of the benchmark, or None.

    A window whose statements failed or reconnected counted other work; one that completed no
    queries, or counted nothing on the connection threads, has no figure per query at all.
    Each makes the microbenchmark an error rather than a window left out of its interval.
    """
    if parsed["reconnects"] or parsed["errors"]:
        return (f"window {description}: sysbench had {parsed['errors']} errors and "
                f"{parsed['reconnects']} reconnects; the count is not of the benchmark alone")
    if not parsed["queries"]:
        return f"window {description}: sysbench completed no queries"
    if not record["connection"]["instructions"]:
        return (f"window {description}: no instructions counted on the connection threads "
                "(the server's threads were not profiled, or no query reached it)")
    return None


def measure_window(control: Control, run, events: int, description: str, connect,
                   keep_files: bool = False, keep_in: Path | None = None, prepare=None) -> tuple[dict, list[Profile]]:
    """One counted run of a workload: (window record, the threads' profiles). `run()` sends the
    window's `events` events and returns the workload's report, or raises WorkloadFailed
    (workload.py); `connect()` returns a DB-API connection to the measured server.

    Purge is held off during the run by an open read view, then released and counted while it
    catches up. Left free, purge runs whenever Valgrind's scheduler lets it, and what it has
    cleaned (or not) changes the work of the next statements: the writes' windows then spread
    far apart (bench/instructions.md, "Why purge is held"). Held, each window starts with an empty
    history and its background count includes the purge of exactly its own changes.

    Three vgdb calls per window: no `zero`, because instrumentation is off between windows
    (nothing is collected) and every dump zeroes the counters it wrote. A failed run is raised
    only once its counts are dumped, so that none of them is left for the next window.
    `prepare()`, where given, runs first, uncounted: what the events need made again before
    each window (a DDL statement's fresh table).
    """
    if not events:
        raise ValueError("a measured window needs a fixed number of events (events > 0)")
    _prepare(prepare)
    failure = None
    with purge_held(connect):
        control.instrument(True)
        try:
            started = time.monotonic()
            try:
                report = run()
            except WorkloadFailed as e:
                report, failure = None, e
            seconds = time.monotonic() - started
            window_files = control.dump(f"{description}.q")
        except BaseException:
            control.instrument(False)
            raise
    try:
        started = time.monotonic()
        drain_purge(connect)
        drain_seconds = time.monotonic() - started
    except BaseException:
        control.instrument(False)
        raise
    after_files = control.dump(f"{description}.p", instrument_off=True)
    profiles = _read_and_remove(window_files, f"{description}.q", keep_files, keep_in)
    after = _read_and_remove(after_files, f"{description}.p", keep_files, keep_in)
    if failure is not None:
        raise CallgrindError(f"window {description}: {failure}")
    # The drain's connection thread is our own wait, not the benchmark's: only the background
    # threads of the second dump count.
    purge = split_threads(after)["background"]
    record = window_record(profiles + purge, report["queries"], events, seconds)
    problem = window_problem(description, report, record)
    if problem:
        raise CallgrindError(problem)
    record["background"]["after_window"] = sum(p.totals for p in purge)
    record["drain_seconds"] = round(drain_seconds, 3)
    return record, profiles + purge


def _prepare(prepare) -> None:
    if prepare is None:
        return
    try:
        prepare()
    except WorkloadFailed as e:
        raise CallgrindError(f"before the window: {e}") from None


def warm_up(run, connect, prepare=None) -> float:
    """The window's own events once, uncounted, with purge held and drained as in a window, so
    that the first window finds the same pages cached and the same history as the next ones."""
    started = time.monotonic()
    _prepare(prepare)
    with purge_held(connect):
        try:
            run()
        except WorkloadFailed as e:
            raise CallgrindError(f"warm-up: {e}") from None
    drain_purge(connect)
    return time.monotonic() - started


def window_description(benchmark_id: str, window: int) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", f"{benchmark_id}.{window}")


def measure_benchmark(control: Control, run, events: int, connect, benchmark_id: str, windows: int,
                      top: dict = TOP_FUNCTIONS, keep_last_in: Path | None = None, prepare=None) -> dict:
    """A warm-up, then `windows` counted windows of one benchmark on one side, each `run()` of
    `events` events (measure_window). The callgrind files of the last window are moved into
    `keep_last_in` (to be opened with callgrind_annotate), the others removed."""
    warmup_seconds = warm_up(run, connect, prepare)
    records, profiles = [], []
    for i in range(windows):
        last = i == windows - 1
        record, window_profiles = measure_window(control, run, events, window_description(benchmark_id, i), connect,
                                                 keep_in=keep_last_in if last else None, prepare=prepare)
        records.append(record)
        profiles.append(window_profiles)
    return {"warmup_seconds": round(warmup_seconds, 2), **side_record(records, profiles, top)}


def final_dump_written(out_dir: Path, pid: int) -> bool:
    """Whether callgrind wrote its dump at process exit, which it does only on a clean exit: one
    file per thread, `callgrind.out.<pid>-<thread>` (no part in the name), each ending in totals."""
    pattern = re.compile(rf"^{re.escape(OUT_FILE_PREFIX)}\.{pid}-\d+$")
    files = [p for p in Path(out_dir).iterdir() if pattern.match(p.name)]
    if not files:
        return False
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        if "desc: Trigger: Program termination" not in text[:2000] or "\ntotals:" not in text:
            return False
    return True


def remove_files(out_dir: Path, pid: int) -> None:
    """Removes every callgrind file of one process (the windows were read already)."""
    pattern = re.compile(rf"^{re.escape(OUT_FILE_PREFIX)}\.{pid}([.-].*)?$")
    for path in Path(out_dir).iterdir():
        if pattern.match(path.name):
            path.unlink()
