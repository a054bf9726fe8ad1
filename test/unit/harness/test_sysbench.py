from pathlib import Path

import pytest

from perfgate_harness import schema, sysbench
from perfgate_harness.paths import LUA_DIR, SYSBENCH_BUILTIN_DIR


def test_parses_a_real_point_select_report(fixture_text):
    report = sysbench.parse_run_output(fixture_text("sysbench", "run-oltp_point_select.txt"))
    assert set(report) == {"transactions", "tps", "queries", "qps", "errors", "reconnects", "seconds", "latency_ms"}
    assert report["queries"] > 0 and report["qps"] > 0
    assert report["queries"] == report["transactions"]  # one query per event
    assert report["errors"] == 0 and report["reconnects"] == 0
    lat = report["latency_ms"]
    assert 0 < lat["avg"] <= lat["p95"] <= lat["max"]


def test_parses_exact_numbers_of_a_perfgate_script_report(fixture_text):
    report = sysbench.parse_run_output(fixture_text("sysbench", "run-perfgate_points.txt"))
    assert report == {"transactions": 499, "tps": 494.59, "queries": 499, "qps": 494.59, "errors": 0,
                      "reconnects": 0, "seconds": 1.0083,
                      "latency_ms": {"avg": 4.02, "p95": 7.84, "max": 21.66}}


@pytest.mark.parametrize("name", ["run-oltp_read_only.txt", "run-oltp_insert.txt", "run-perfgate_ahi_mix.txt",
                                  "run-perfgate_update_inlist.txt"])
def test_parses_every_captured_report(fixture_text, name):
    report = sysbench.parse_run_output(fixture_text("sysbench", name))
    assert report["qps"] > 0 and report["seconds"] > 0


def test_read_only_counts_many_queries_per_transaction(fixture_text):
    report = sysbench.parse_run_output(fixture_text("sysbench", "run-oltp_read_only.txt"))
    assert report["queries"] == 16 * report["transactions"]  # 10 points, 4 ranges, BEGIN, COMMIT


def test_missing_field_names_the_field_and_quotes_the_last_line(fixture_text):
    text = fixture_text("sysbench", "run-oltp_point_select.txt").replace("    reconnects:", "    reconnectz:")
    with pytest.raises(sysbench.SysbenchOutputError, match=r"no 'reconnects:' line; its last line is 'execution time"):
        sysbench.parse_run_output(text)


def test_failed_run_has_no_report_and_says_why(fixture_text):
    text = fixture_text("sysbench", "fail-bad-option.txt")
    with pytest.raises(sysbench.SysbenchOutputError, match="its last line is \"Invalid value for the 'time' option"):
        sysbench.parse_run_output(text)
    assert sysbench.failure_lines(text) == ["Invalid value for the 'time' option: '0.5'"]


def test_failure_lines_prefer_fatal_lines(fixture_text):
    text = fixture_text("sysbench", "fail-lua-error.txt")
    lines = sysbench.failure_lines(text)
    assert lines and all(l.startswith("FATAL") for l in lines)


def test_failure_reason_prefers_the_server_error_then_the_lua_error(fixture_text):
    assert sysbench.failure_reason(fixture_text("sysbench", "fail-sql-error.txt")) == \
        "FATAL: MySQL error: 1054 \"Unknown column 'nosuchcolumn' in 'SELECT'\""
    assert sysbench.failure_reason(fixture_text("sysbench", "fail-lua-error.txt")).endswith(
        "perfgate_common.lua:54: --points-on=x: expected one of id, k")
    assert sysbench.failure_reason("") is None


def test_empty_output():
    with pytest.raises(sysbench.SysbenchOutputError, match="it is empty"):
        sysbench.parse_run_output("")


def test_script_options_from_plan_options():
    assert sysbench.script_options({"points_on": "k", "points_columns": "id, k, c, pad", "points": 1000,
                                    "update_percent": 0.5, "whole": 5.0, "skip_trx": True, "auto_inc": False}) == [
        "--points_on=k", "--points_columns=id, k, c, pad", "--points=1000", "--update_percent=0.5",
        "--whole=5", "--skip_trx=on", "--auto_inc=off"]
    assert sysbench.script_options({}) == []


def test_every_script_the_plan_schema_allows_is_installed_and_nothing_else_is():
    """The plan schema's list of scripts is the one source of which scripts a plan may name."""
    allowed = set(schema.load_schema("plan")["$defs"]["script"]["enum"])
    assert allowed == set(sysbench.known_scripts())
    for name in allowed:
        assert sysbench.resolve_script(name) is not None, name


def test_resolve_script():
    assert sysbench.resolve_script("perfgate_points") == LUA_DIR / "perfgate_points.lua"
    assert sysbench.resolve_script("oltp_point_select") == SYSBENCH_BUILTIN_DIR / "oltp_point_select.lua"
    assert sysbench.resolve_script("perfgate_common") is None  # a library, not a benchmark
    assert sysbench.resolve_script("../etc/passwd") is None
    assert sysbench.resolve_script("nope") is None
    known = sysbench.known_scripts()
    assert {"perfgate_points", "perfgate_range", "perfgate_join", "perfgate_scan", "perfgate_update_inlist", "perfgate_ahi_mix",
            "oltp_point_select", "oltp_insert"} <= set(known)
    assert "perfgate_common" not in known and "oltp_common" not in known


def test_run_command_of_a_builtin():
    inv = sysbench.Invocation(script_path=SYSBENCH_BUILTIN_DIR / "oltp_read_only.lua", socket=Path("/r/s.sock"),
                              tables=8, rows=10000, threads=2, seconds=7, options={"range_size": 10000})
    assert sysbench.build_command(inv) == [
        "sysbench", "oltp_read_only", "--db-driver=mysql", "--mysql-socket=/r/s.sock", "--mysql-user=root",
        "--mysql-db=sbtest", "--tables=8", "--table-size=10000", "--threads=2", "--rand-type=uniform", "--time=7",
        "--report-interval=0", "--percentile=95", "--range_size=10000", "run"]


def test_run_command_of_a_perfgate_script_pinned_and_quoted():
    inv = sysbench.Invocation(script_path=LUA_DIR / "perfgate_points.lua", socket=Path("/r/s.sock"), tables=1,
                              rows=10, threads=1, seconds=1, options={"points_columns": "id, k"}, pin_cpus="1")
    cmd = sysbench.build_command(inv)
    assert cmd[:5] == ["taskset", "-c", "1", "sysbench", str(LUA_DIR / "perfgate_points.lua")]
    assert sysbench.command_text(cmd).endswith("'--points_columns=id, k' run")


def test_a_counted_window_runs_a_fixed_number_of_events_with_a_fixed_seed():
    inv = sysbench.Invocation(script_path=SYSBENCH_BUILTIN_DIR / "oltp_update_index.lua", socket=Path("/s"),
                              tables=8, rows=10000, threads=1, events=140, rand_seed=1)
    cmd = sysbench.build_command(inv)
    assert cmd[cmd.index("--rand-type=uniform") + 1:cmd.index("--report-interval=0")] == [
        "--rand-seed=1", "--time=0", "--events=140"]


def test_the_seed_belongs_to_the_harness():
    """The plan schema refuses a seed (or an event count) among a script's own options."""
    for key in ("rand_seed", "rand-seed", "events"):
        problems = [p for p in schema.schema_errors("plan", {"benchmarks": [{"options": {key: 3}}]}) if "options" in p]
        assert problems == [f"benchmarks[0].options.{key}: set by perfgate from the plan's scale, threads and seconds, "
                            "or by the harness (connection, random numbers); remove it from the options"], problems


def test_prepare_command_has_no_duration():
    inv = sysbench.Invocation(script_path=SYSBENCH_BUILTIN_DIR / "oltp_point_select.lua", socket=Path("/s"),
                              tables=2, rows=1000, threads=2, command="prepare")
    cmd = sysbench.build_command(inv)
    assert cmd[-1] == "prepare" and not any(a.startswith("--time") for a in cmd)
    assert "--rand-type=uniform" in cmd  # the k values written match the ranges read later


def test_execute_kills_a_run_that_overstays(tmp_path):
    outcome = sysbench.execute(["sh", "-c", "echo started; sleep 30"], timeout=0.5, log_path=tmp_path / "log")
    assert outcome.timed_out and outcome.returncode != 0
    assert "started" in outcome.output
    assert (tmp_path / "log").read_text().startswith("$ sh -c")
