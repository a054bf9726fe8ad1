import subprocess
import time

from perfgate_harness import perfstat


def test_not_supported_counter_gives_a_reason(fixture_text):
    count, reason = perfstat.parse_perf_csv(fixture_text("perf", "instructions-not-supported.csv"))
    assert count is None
    assert reason == "perf stat reports instructions as <not supported>: no hardware counters on this machine"


def test_counted_instructions():
    assert perfstat.parse_perf_csv("123456789,,instructions:u,1000,100.00,,\n") == (123456789, None)


def test_no_line_for_the_event():
    count, reason = perfstat.parse_perf_csv("Error:\nNo permission to enable instructions event.\n")
    assert count is None and reason.endswith("No permission to enable instructions event.")


def test_availability_is_a_reason_or_none():
    reason = perfstat.unavailable_reason()
    assert reason is None or isinstance(reason, str) and reason


def test_counter_attaches_to_a_running_process():
    # task-clock is a software event, so this exercises attach/stop on any machine with perf.
    busy = subprocess.Popen(["python3", "-c", "while True: pass"])
    try:
        counter = perfstat.Counter(busy.pid, event="task-clock")
        time.sleep(0.5)
        count, reason = counter.stop()
    finally:
        busy.kill()
        busy.wait()
    assert reason is None and count > 0  # milliseconds of CPU the spinning process got (a shared machine gives few)
