import json

import pytest

from perfgate_harness import ahi, datadirs, sysbench, sysbench_workload
from perfgate_harness.sysbench import Outcome


def parsed(fixture_text, name="run-oltp_point_select.txt"):
    return sysbench.parse_run_output(fixture_text("sysbench", name))


def test_a_clean_round_counts(fixture_text):
    out = fixture_text("sysbench", "run-oltp_point_select.txt")
    assert sysbench_workload.round_failure("base", Outcome(0, out), parsed(fixture_text), None, "running", 61) is None


def test_a_dead_server_wins_over_everything(fixture_text):
    msg = sysbench_workload.round_failure("head", Outcome(1, "FATAL: lost connection"), None, None, "killed by signal SIGKILL", 61)
    assert msg == "head server killed by signal SIGKILL during the round"


def test_timeout():
    assert sysbench_workload.round_failure("base", Outcome(-9, "", timed_out=True), None, None, "running", 61) == \
        "sysbench did not finish within 61 s and was killed"


def test_sysbench_error_quotes_its_first_fatal_line(fixture_text):
    out = fixture_text("sysbench", "fail-sql-error.txt")
    assert sysbench_workload.round_failure("base", Outcome(1, out), None, None, "running", 61) == \
        "sysbench exited with code 1: FATAL: MySQL error: 1054 \"Unknown column 'nosuchcolumn' in 'SELECT'\""


def test_sysbench_crash_names_the_signal(fixture_text):
    out = fixture_text("sysbench", "fail-segfault-on-reconnect.txt")
    msg = sysbench_workload.round_failure("base", Outcome(-11, out), None, None, "running", 61)
    assert msg.startswith("sysbench was killed by SIGSEGV (sysbench 1.0.20 built with libmariadb")


def test_unparsable_report():
    assert sysbench_workload.round_failure("base", Outcome(0, "x"), None, "no 'queries:' line", "running", 61) == "no 'queries:' line"


def test_reconnects_make_a_round_an_error(fixture_text):
    # sysbench 1.0.20 with libmariadb cannot survive a reconnect on this machine, so the report of
    # one is derived from a real report with its reconnects line changed.
    text = fixture_text("sysbench", "run-oltp_point_select.txt")
    text = text.replace("reconnects:                          0      (0.00 per sec.)",
                        "reconnects:                          3      (1.50 per sec.)")
    report = sysbench.parse_run_output(text)
    assert report["reconnects"] == 3
    assert sysbench_workload.round_failure("base", Outcome(0, text), report, None, "running", 61) == \
        "sysbench reconnected 3 times: connections were lost during the round"


def test_no_queries(fixture_text):
    report = dict(parsed(fixture_text), queries=0)
    assert sysbench_workload.round_failure("base", Outcome(0, ""), report, None, "running", 61) == "sysbench completed no queries"


def test_reuse_only_with_the_same_scale_basedir_and_version():
    expected = datadirs.reuse_marker("/srv/base", "10.11.18-MariaDB", 8, 10000)
    assert datadirs.can_reuse(json.dumps(expected), expected)
    assert not datadirs.can_reuse(json.dumps({**expected, "rows": 1000}), expected)
    assert not datadirs.can_reuse(json.dumps({**expected, "basedir": "/srv/other"}), expected)
    assert not datadirs.can_reuse(None, expected)
    assert not datadirs.can_reuse("{half", expected)


def test_counter_delta():
    assert ahi.counter_delta({"a": 5, "b": 1}, {"a": 9, "b": 1, "c": 2}) == {"a": 4, "b": 0, "c": 2}


def test_head_starts_from_a_copy_of_the_base_data_only_within_one_server_series():
    from perfgate_harness.datadirs import shares_data
    assert shares_data({"base": ("mariadb", "10.11.18-MariaDB-0+deb12u1"), "head": ("mariadb", "10.11.19-MariaDB-0+deb12u1")})
    assert shares_data({"base": ("mysql", "8.0.36"), "head": ("mysql", "8.0.40")})
    assert not shares_data({"base": ("mariadb", "10.11.18-MariaDB"), "head": ("mariadb", "11.4.2-MariaDB")})
    assert not shares_data({"base": ("mysql", "8.0.36"), "head": ("percona", "8.0.36-28")})
    # A chain shares the base's tables only when every head is of the base's series.
    assert shares_data({"base": ("mariadb", "10.11.18-MariaDB"), "head": ("mariadb", "10.11.19-MariaDB"),
                        "head2": ("mariadb", "10.11.19-MariaDB")})
    assert not shares_data({"base": ("mariadb", "10.11.18-MariaDB"), "head": ("mariadb", "10.11.19-MariaDB"),
                            "head2": ("mariadb", "11.8.9-MariaDB")})


def test_an_ahi_partition_count_needs_the_servers_variable():
    # MariaDB 10.11's SHOW GLOBAL VARIABLES has it (default 8); MariaDB 10.1 and MySQL 5.6 do not.
    assert ahi.ahi_parts_problem("base", "mariadb", "10.11.19-MariaDB", {"innodb_adaptive_hash_index_parts": "8"}) is None
    assert ahi.ahi_parts_problem("head", "mysql", "5.6.51", {"innodb_adaptive_hash_index": "ON"}) == (
        "head: mysql 5.6.51 has no innodb_adaptive_hash_index_parts (not in SHOW GLOBAL VARIABLES), so this cell's "
        "AHI partition count cannot be set; expected a suite without ahi.parts for this server, e.g. ahi-quick")


def test_the_loaded_base_is_rewritten_as_a_copy_of_itself(tmp_path):
    # The base's files grew piece by piece while its tables were loaded; the head's copy is
    # written in one go. The base's datadir is copied too, so both start alike.
    from perfgate_harness.datadirs import rewrite_as_copy
    datadir = tmp_path / "data"
    (datadir / "sbtest").mkdir(parents=True)
    (datadir / "ibdata1").write_bytes(b"\x01" * 4096)
    (datadir / "sbtest" / "sbtest1.ibd").write_bytes(b"\x02" * 8192)
    (datadir / "ib_logfile0").symlink_to("ibdata1")
    before = (datadir / "sbtest" / "sbtest1.ibd").stat().st_ino
    # A scratch copy that a run cut short left behind is replaced, not merged.
    scratch = tmp_path / "data.copy"
    scratch.mkdir()
    (scratch / "stale").write_text("left by a killed run")
    rewrite_as_copy(datadir, scratch)
    assert not scratch.exists()
    assert (datadir / "ibdata1").read_bytes() == b"\x01" * 4096
    assert (datadir / "sbtest" / "sbtest1.ibd").read_bytes() == b"\x02" * 8192
    assert (datadir / "ib_logfile0").is_symlink()
    assert not (datadir / "stale").exists()
    assert (datadir / "sbtest" / "sbtest1.ibd").stat().st_ino != before, "a new file, written in one go"
