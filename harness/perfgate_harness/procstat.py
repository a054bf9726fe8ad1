"""Per-round cost of mysqld from /proc: CPU time (all threads), context switches (per thread),
the bytes it read from and wrote to storage (/proc/<pid>/io) and its resident memory
(/proc/<pid>/status VmRSS, and VmHWM, its peak)."""
import os
from dataclasses import dataclass
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Sample:
    cpu_seconds: float
    context_switches: int
    # None when /proc/<pid>/io cannot be read (another user's process without ptrace rights).
    read_bytes: int | None = None
    write_bytes: int | None = None
    # VmRSS and VmHWM in bytes; None only in samples built by hand (sample() always reads them).
    rss_bytes: int | None = None
    hwm_bytes: int | None = None


def _after_command(stat_text: str) -> list[str]:
    """The fields of a /proc/<pid>/stat line from field 3 (state) on. The command name (field 2)
    is in parentheses and may hold spaces, so fields are counted after the last ')'."""
    close = stat_text.rfind(")")
    if close < 0:
        raise ValueError(f"not a /proc/<pid>/stat line: {stat_text[:80]!r}")
    return stat_text[close + 1:].split()


def parse_state(stat_text: str) -> str | None:
    """The state letter of a /proc/<pid>/stat (or task/<tid>/stat) line (R, S, D, …), or None."""
    try:
        rest = _after_command(stat_text)
    except ValueError:
        return None
    return rest[0] if rest else None


def parse_cpu_ticks(stat_text: str) -> int:
    """utime + stime of /proc/<pid>/stat (fields 14 and 15), in clock ticks."""
    rest = _after_command(stat_text)
    # rest[0] is field 3 (state); utime is field 14, stime field 15.
    if len(rest) < 13:
        raise ValueError(f"/proc/<pid>/stat has {len(rest) + 2} fields; expected at least 15")
    return int(rest[11]) + int(rest[12])


def _counters(text: str, keys: tuple[str, ...], what: str) -> tuple[int, ...]:
    """The integer values of `keys` in a "key: value" /proc file, in that order; a ValueError
    naming the file (`what`) when one is missing. A unit after the number (status's "kB") is
    left to the caller."""
    found = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key in keys:
            found[key] = int(value.split()[0])
    if len(found) != len(keys):
        raise ValueError(f"{what} has no {'/'.join(keys)} lines")
    return tuple(found[k] for k in keys)


def parse_context_switches(status_text: str) -> int:
    """voluntary + nonvoluntary context switches of one /proc/<pid>/task/<tid>/status."""
    return sum(_counters(status_text, ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"), "status"))


def parse_memory(status_text: str) -> tuple[int, int]:
    """(VmRSS, VmHWM) of /proc/<pid>/status in bytes (the kernel says kB). A zombie's status has
    neither line: a ValueError, never a figure of a process that is gone."""
    rss_kib, hwm_kib = _counters(status_text, ("VmRSS", "VmHWM"), "/proc/<pid>/status")
    return rss_kib * 1024, hwm_kib * 1024


def memory(pid: int, proc: Path = Path("/proc")) -> tuple[int, int]:
    """(VmRSS, VmHWM) of a running process, in bytes."""
    return parse_memory((proc / str(pid) / "status").read_text())


def parse_io(io_text: str) -> tuple[int, int]:
    """(read_bytes, write_bytes) of /proc/<pid>/io: what the process made the block layer read
    and what it wrote (dirtied in the page cache or sent direct), summed over all its threads,
    exited ones included. Reads served from the page cache are not in read_bytes (they are in
    rchar, like every socket read, which is why rchar and syscr say nothing about the disk)."""
    return _counters(io_text, ("read_bytes", "write_bytes"), "/proc/<pid>/io")


def sample(pid: int, proc: Path = Path("/proc")) -> Sample:
    """CPU time of the whole process and context switches summed over its live threads.

    The kernel folds the CPU time of exited threads into the process, but not their context
    switches; mysqld keeps connection threads in its thread cache, so the sum stays stable.
    """
    ticks = parse_cpu_ticks((proc / str(pid) / "stat").read_text())
    rss, hwm = memory(pid, proc)
    switches = 0
    for task in (proc / str(pid) / "task").iterdir():
        try:
            switches += parse_context_switches((task / "status").read_text())
        except (FileNotFoundError, ProcessLookupError):
            continue  # the thread exited while we listed the others
    try:
        read_bytes, write_bytes = parse_io((proc / str(pid) / "io").read_text())
    except PermissionError:
        read_bytes = write_bytes = None
    return Sample(ticks / CLOCK_TICKS, switches, read_bytes, write_bytes, rss, hwm)


def per_query(before: Sample, after: Sample, queries: int) -> tuple[float | None, float | None]:
    """(CPU microseconds per query, context switches per query); None when nothing was queried."""
    if queries <= 0:
        return None, None
    cpu_us = (after.cpu_seconds - before.cpu_seconds) * 1e6 / queries
    cs = (after.context_switches - before.context_switches) / queries
    return cpu_us, cs


def memory_figures(before: Sample, after: Sample, queries: int) -> dict:
    """The round's memory fields: resident bytes before and after it, the peak after it, and the
    resident growth per query (None when nothing was queried). The kernel's RSS count may trail
    the last allocations by a few pages per thread: over a round's thousands of queries that is
    a few bytes per query (docs/measurements.md, "Memory growth per query")."""
    growth = (after.rss_bytes - before.rss_bytes) / queries if queries > 0 else None
    return {"rss_before_bytes": before.rss_bytes, "rss_bytes": after.rss_bytes, "hwm_bytes": after.hwm_bytes,
            "memory_growth_per_query": growth}
