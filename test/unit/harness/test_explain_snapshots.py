"""Stacks by eu-stack snapshots (explain_snapshots.py), where perf may not record switches."""
from collections import Counter

import pytest

from perfgate_harness import explain_snapshots as es
from perfgate_harness import procstat
from perfgate_harness.explain_stacks import StacksFailed

# eu-stack's output shape (elfutils 0.192), cut from a source build of MariaDB 10.11.
SNAPSHOT = """PID 4100 - process
TID 4100:
#0  0x00007f75b54b2503 __poll
#1  0x0000558c555365bf handle_connections_sockets()
#2  0x0000558c555379a0 mysqld_main(int, char**)
TID 4123:
#0  0x00007fc0df2a3f16 clock_nanosleep@GLIBC_2.2.5
#1  0x00007fc0df2a68bc my_sleep(unsigned long)
#2  0x0000558c55cf3a4d
#3  0x0000558c55cf3a4d row_search_mvcc(unsigned char*, page_cur_mode_t, row_prebuilt_t*, unsigned long, unsigned long)
#4  0x0000558c55cf3a4d dispatch_command(enum_server_command, THD*, char*, unsigned int, bool)
#5  0x0000558c55cf3a4d do_command(THD*, bool)
#6  0x00007fc0df2a71f5 start_thread
TID 4124:
#0  0x00007fc0df2a3f16 __futex_abstimed_wait_common
#1  0x00007fc0df2a71f5 start_thread
"""


def test_a_snapshot_is_read_per_thread_root_first_with_named_frames_only():
    threads = es.parse_snapshot(SNAPSHOT)
    assert sorted(threads) == [4100, 4123, 4124]
    assert threads[4123] == ["start_thread", "do_command", "dispatch_command", "row_search_mvcc", "my_sleep", "clock_nanosleep"]
    assert threads[4100] == ["mysqld_main", "handle_connections_sockets", "__poll"]
    assert es.parse_snapshot("garbage\n#0 nothing\nTID x:\n") == {}


@pytest.mark.parametrize("text,name", [
    ("std::vector<int>::push_back(int const&)", "std::vector<int>::push_back"),
    ("operator()(int) const", "operator()(int) const"),  # not a parameter list at the end: kept
    ("pthread_cond_wait@@GLIBC_2.3.2", "pthread_cond_wait"),
    ("a;b(x)", "a:b"),
    ("", None), (None, None),
])
def test_a_frame_is_its_function_without_parameters_or_version(text, name):
    assert es.symbol(text) == name


def test_a_threads_state_is_read_after_its_command_whatever_the_command_holds():
    assert procstat.parse_state("4123 (one_connection) S 1 2 3") == "S"
    assert procstat.parse_state("4123 (a) (b) R 1") == "R"
    assert procstat.parse_state("broken") is None


def test_only_connection_threads_inside_a_statement_count_running_on_cpu_and_waiting_off_cpu():
    stacks = es.parse_snapshot(SNAPSHOT)
    snapshots = [({4100: "S", 4123: "S", 4124: "S"}, stacks), ({4123: "R"}, stacks), ({4123: "D"}, stacks), ({4123: "t"}, stacks)]
    oncpu, offcpu, seen = es.fold_snapshots(snapshots, "mariadbd")
    path = "start_thread;do_command;dispatch_command;row_search_mvcc;my_sleep;clock_nanosleep"
    assert oncpu == Counter({f"mariadbd;{path}": 1})
    assert offcpu == Counter({f"mariadbd;state=S;{path}": 1, f"mariadbd;state=D;{path}": 1})
    assert seen == offcpu


def test_threads_waiting_in_one_stack_count_each_for_time_and_once_per_snapshot():
    stacks = es.parse_snapshot(SNAPSHOT)
    many = {tid: stacks[4123] for tid in range(5000, 5016)}  # 16 connections on one latch
    oncpu, offcpu, seen = es.fold_snapshots([({tid: "S" for tid in many}, many)] * 3, "m")
    (key,) = offcpu
    assert (offcpu[key], seen[key]) == (48, 3)
    us, saw = es.per_query(offcpu, seen, snapshots=3, seconds=0.3, queries=1000)
    # 48 thread-snapshots of 0.1 s over 1,000 queries: 4,800 µs a query; seen in 3 of 3
    assert (us[key], saw[key]) == (4800.0, 3)


def test_a_wait_seen_in_k_of_n_snapshots_is_its_share_of_the_windows_time_per_query():
    offcpu = Counter({"m;state=S;a;b": 10, "m;state=S;a;c": 5})
    us, seen = es.per_query(offcpu, offcpu, snapshots=50, seconds=2.0, queries=4000)
    # each snapshot stands for 2 s / 50 = 40,000 µs; 10 of them over 4,000 queries: 100 µs a query
    assert us == {"m;state=S;a;b": 100.0, "m;state=S;a;c": 50.0}
    assert seen == {"m;state=S;a;b": 10, "m;state=S;a;c": 5}
    assert es.per_query(offcpu, offcpu, 0, 2.0, 4000) == ({}, {})
    assert es.per_query(offcpu, offcpu, 50, 2.0, 0) == ({}, {})


def test_snapshots_need_eu_stack_and_say_how_to_get_it(monkeypatch):
    assert es.unavailable_reason("/usr/bin/eu-stack") is None
    assert es.unavailable_reason(None) == "eu-stack is not installed: install elfutils (Debian: apt-get install elfutils; scripts/install-deps.sh does)"
    monkeypatch.setattr(es.shutil, "which", lambda _: None)
    with pytest.raises(StacksFailed, match="eu-stack is not installed"):
        es.record(1, lambda n: {"queries": n}, 10)


def test_snapshots_of_a_real_process_see_its_threads_while_the_window_runs(tmp_path):
    import subprocess
    import sys
    import time
    child = subprocess.Popen([sys.executable, "-c", "import time\nwhile True: time.sleep(0.01)"])
    try:
        time.sleep(0.3)
        report, seconds, taken = es.record(child.pid, lambda n: (time.sleep(1.0), {"queries": n})[1], 7)
        assert report == {"queries": 7} and seconds >= 1.0
        assert len(taken) >= 2, "eu-stack snapshots over one second"
        # A short call of events is run again while the window may last, its queries summed.
        calls = []
        report, seconds, taken = es.record(child.pid, lambda n: (calls.append(n), time.sleep(0.05), {"queries": n})[2], 3, most_seconds=1.0)
        assert len(calls) > 3 and report["queries"] == 3 * len(calls) and 0.5 < seconds < 2.0
        states, stacks = taken[0]
        assert child.pid in stacks and states.get(child.pid) in ("S", "R")
        assert any("sleep" in f or "select" in f or "poll" in f for f in stacks[child.pid]), stacks[child.pid]
    finally:
        child.kill()
        child.wait()


def test_a_window_runs_its_events_again_only_while_one_more_call_fits():
    assert es.again(calls=1, taken=3, elapsed=1.0, most_seconds=10.0)
    assert not es.again(calls=1, taken=3, elapsed=6.0, most_seconds=10.0)  # a second call of 6 s would end at 12
    assert not es.again(calls=4, taken=es.LEAST_SNAPSHOTS, elapsed=1.0, most_seconds=10.0)
    assert not es.again(calls=1, taken=0, elapsed=0.1, most_seconds=0.0)


def test_a_failing_snapshot_is_said_with_how_many_were_taken(monkeypatch):
    monkeypatch.setattr(es.shutil, "which", lambda _: "/usr/bin/eu-stack")
    def broken(pid, eu_stack):
        raise RuntimeError("boom")
    monkeypatch.setattr(es, "snapshot", broken)
    with pytest.raises(StacksFailed, match=r"after 0 snapshots: boom"):
        es.record(1, lambda n: {"queries": n}, 10, most_seconds=0.0)
