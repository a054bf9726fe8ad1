import os
import time

import pytest

from perfgate_harness import procstat

# /proc/<pid>/stat of a mariadbd, with a command name holding a space and a parenthesis to show
# that fields are counted after the last ')'.
STAT = ("4242 (maria db) x) S 1 4242 4242 0 -1 4194560 52193 0 0 0 1234 567 0 0 20 0 38 0 "
        "9079433 2514669568 98765 18446744073709551615 1 1 0 0 0 0 528903 4096 1536 0 0 0 17 1 0 0 0 0 0")
STATUS = """Name:\tmariadbd
State:\tS (sleeping)
Threads:\t38
voluntary_ctxt_switches:\t150
nonvoluntary_ctxt_switches:\t7
"""


def test_cpu_ticks_are_utime_plus_stime():
    assert procstat.parse_cpu_ticks(STAT) == 1234 + 567


def test_bad_stat_line():
    with pytest.raises(ValueError, match="not a /proc/<pid>/stat line"):
        procstat.parse_cpu_ticks("garbage")


def test_context_switches_sum_both_kinds():
    assert procstat.parse_context_switches(STATUS) == 157


def test_status_without_switch_counts():
    with pytest.raises(ValueError, match="voluntary_ctxt_switches"):
        procstat.parse_context_switches("Name:\tx\n")


def test_sample_of_a_real_process_grows_with_work():
    before = procstat.sample(os.getpid())
    x = 0
    for i in range(3_000_000):
        x += i
    # Each sleep gives the CPU up: at least one voluntary context switch apiece.
    for _ in range(20):
        time.sleep(0.001)
    after = procstat.sample(os.getpid())
    assert after.cpu_seconds > before.cpu_seconds
    assert after.context_switches >= before.context_switches + 20


def test_per_query():
    cpu, cs = procstat.per_query(procstat.Sample(1.0, 100), procstat.Sample(1.5, 1100), 1000)
    assert cpu == pytest.approx(500.0) and cs == pytest.approx(1.0)
    assert procstat.per_query(procstat.Sample(1.0, 1), procstat.Sample(2.0, 2), 0) == (None, None)


def test_status_memory_in_bytes():
    text = "Name:\tmariadbd\nVmPeak:\t 999 kB\nVmHWM:\t  231428 kB\nVmRSS:\t  231400 kB\nThreads:\t9\n"
    assert procstat.parse_memory(text) == (231400 * 1024, 231428 * 1024)


def test_zombie_status_has_no_memory():
    # A process that exited and was not yet reaped keeps its status without any Vm lines.
    zombie = "Name:\tmariadbd\nState:\tZ (zombie)\nThreads:\t1\n"
    with pytest.raises(ValueError, match="VmRSS/VmHWM"):
        procstat.parse_memory(zombie)


def test_sample_reads_memory_of_a_real_process():
    before = procstat.sample(os.getpid())
    held = bytearray(64 * 1024 * 1024)  # touched page by page below, so resident
    for i in range(0, len(held), 4096):
        held[i] = 1
    after = procstat.sample(os.getpid())
    assert after.rss_bytes - before.rss_bytes > 32 * 1024 * 1024
    assert after.hwm_bytes >= after.rss_bytes
    del held


def test_sample_of_a_process_gone():
    # /proc/<pid> of a process that has exited and been reaped: no sample, no figure.
    import subprocess
    proc = subprocess.Popen(["true"])
    proc.wait()
    with pytest.raises(OSError):
        procstat.sample(proc.pid)


def test_memory_figures():
    before = procstat.Sample(1.0, 1, rss_bytes=100_000_000, hwm_bytes=110_000_000)
    after = procstat.Sample(2.0, 2, rss_bytes=100_000_000 + 1024 * 5000, hwm_bytes=120_000_000)
    assert procstat.memory_figures(before, after, 5000) == {
        "rss_before_bytes": 100_000_000, "rss_bytes": 100_000_000 + 1024 * 5000, "hwm_bytes": 120_000_000,
        "memory_growth_per_query": 1024.0}
    # Memory given back is a negative growth, kept as measured.
    assert procstat.memory_figures(after, before, 5000)["memory_growth_per_query"] == -1024.0
    assert procstat.memory_figures(before, after, 0)["memory_growth_per_query"] is None
