"""The explanation step's pure parts, on real captured output: counter and summary deltas, the
observer's cost, the general log's statements and shapes, perf's stacks folded, the budget, and
the `explain` command's refusals."""
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pymysql
import pytest

from perfgate_harness import explain_counters as ec
from perfgate_harness import explain_phase as ep
from perfgate_harness import explain_plans as pl
from perfgate_harness import explain_stacks as st

REPO = Path(__file__).resolve().parents[3]


# ------------------------------------------------------------------------------ counters

def test_counter_snapshot_keeps_numbers_of_status_and_metrics():
    snap = ec.counter_snapshot([("Handler_update", "300"), ("Uptime_since_flush_status", "1.5"), ("Ssl_version", ""),
                                ("wsrep_provider_name", None)], [("trx_rw_commits", 12)])
    assert snap == {"Handler_update": 300, "Uptime_since_flush_status": 1.5, "trx_rw_commits": 12}


def test_observer_cost_is_the_least_of_the_empty_windows_and_is_taken_off():
    empty = [{"Handler_tmp_write": 757, "Innodb_data_fsyncs": 1}, {"Handler_tmp_write": 757, "Innodb_data_fsyncs": 0}]
    cost = ec.least_cost(empty)
    assert cost == {"Handler_tmp_write": 757, "Innodb_data_fsyncs": 0}  # the idle fsync of one window is not the observer's
    window = ec.difference({"Handler_tmp_write": 1000, "Handler_update": 5}, {"Handler_tmp_write": 1757, "Handler_update": 305,
                                                                              "Innodb_data_fsyncs": 2})
    assert ec.take_off(window, cost) == {"Handler_tmp_write": 0, "Handler_update": 300, "Innodb_data_fsyncs": 2}
    assert ec.least_cost([]) == {}


def test_summaries_drop_idle_and_condition_waits_and_keep_what_changed():
    before = ec.summary_snapshot([("wait/io/table/sql/handler", 10, 1000), ("idle", 5, 9),
                                  ("wait/synch/cond/sql/COND_thread_cache", 1, 1), ("stage/sql/Commit", 2, 20)])
    after = ec.summary_snapshot([("wait/io/table/sql/handler", 610, 5000), ("idle", 9, 99), ("stage/sql/Commit", 2, 20),
                                 ("wait/synch/mutex/innodb/trx_mutex", 3, None)])
    assert ec.summary_difference(before, after) == {"wait/io/table/sql/handler": {"count": 600, "ps": 4000},
                                                    "wait/synch/mutex/innodb/trx_mutex": {"count": 3, "ps": 0}}


# ------------------------------------------------------------------------------ plans

def test_general_log_statements_become_one_example_per_shape(fixture_text):
    found = pl.shapes(pl.log_statements(fixture_text("explain-harness", "general.log")))
    assert [f["shape"] for f in found] == [
        "SELECT id, k, c, pad FROM sbtestN FORCE INDEX (k_N) WHERE k IN (?,...)",
        "SELECT c FROM sbtestN WHERE id=?",
        "SELECT c FROM sbtestN WHERE id BETWEEN ? AND ?",
        "SELECT SUM(k) FROM sbtestN WHERE id BETWEEN ? AND ?",
        "SELECT c FROM sbtestN WHERE id BETWEEN ? AND ? ORDER BY c",
        "SELECT DISTINCT c FROM sbtestN WHERE id BETWEEN ? AND ? ORDER BY c",
        "INSERT INTO sbtestN (id, k, c, pad) VALUES (?,...)",
    ]
    # The example is a statement the server ran, values filled in (Execute, not Prepare).
    assert found[1]["sql"].startswith("SELECT c FROM sbtest") and "?" not in found[1]["sql"]


def test_mysql_general_log_statements_become_shapes_too(fixture_text):
    # MySQL 9.7 stamps every entry with an ISO 8601 time (captured from a 9.7.2 server under sysbench)
    found = pl.shapes(pl.log_statements(fixture_text("explain-harness", "general-mysql.log")))
    assert [f["shape"] for f in found] == [
        "SELECT c FROM sbtestN WHERE id=?",
        "SELECT c FROM sbtestN WHERE id BETWEEN ? AND ?",
        "SELECT SUM(k) FROM sbtestN WHERE id BETWEEN ? AND ?",
        "SELECT c FROM sbtestN WHERE id BETWEEN ? AND ? ORDER BY c",
        "SELECT DISTINCT c FROM sbtestN WHERE id BETWEEN ? AND ? ORDER BY c",
        "UPDATE sbtestN SET k=k+? WHERE id=?",
        "UPDATE sbtestN SET c=? WHERE id=?",
        "DELETE FROM sbtestN WHERE id=?",
        "INSERT INTO sbtestN (id, k, c, pad) VALUES (?,...)",
        "SELECT c FROM sbtestN WHERE id = ?",
    ]
    assert found[0]["sql"] == "SELECT c FROM sbtest1 WHERE id=51"
    # an entry over several lines is one statement
    assert found[-1]["sql"] == "SELECT c\nFROM sbtest1\nWHERE id = 7"


def test_joins_and_order_by_limit_become_shapes_of_their_own():
    # Execute lines as the planned rows' statements leave them (bench/planned-shapes.py captured them on 10.11.18)
    log = ("\t\t     7 Execute\tSELECT sum(length(b.c)) FROM sbtest3 a JOIN sbtest4 b ON b.k = a.k WHERE a.id BETWEEN 17 AND 116\n"
           "\t\t     7 Execute\tSELECT sum(length(b.c)) FROM sbtest8 a JOIN sbtest1 b ON b.k = a.k WHERE a.id BETWEEN 900 AND 999\n"
           "\t\t     7 Execute\tSELECT id, c FROM sbtest6 WHERE k BETWEEN 5 AND 1004 ORDER BY k LIMIT 10\n")
    found = pl.shapes(pl.log_statements(log))
    assert [f["shape"] for f in found] == [
        "SELECT sum(length(b.c)) FROM sbtestN a JOIN sbtestN b ON b.k = a.k WHERE a.id BETWEEN ? AND ?",
        "SELECT id, c FROM sbtestN WHERE k BETWEEN ? AND ? ORDER BY k LIMIT ?",
    ]
    assert found[0]["sql"].startswith("SELECT sum(length(b.c)) FROM sbtest3 a JOIN sbtest4 b")


def test_shape_of_strings_numbers_and_lists():
    assert pl.shape_of("UPDATE sbtest3 SET c='a''b 12' WHERE id IN (1, 2,3) AND x > -4.5") == \
        "UPDATE sbtestN SET c=?? WHERE id IN (?,...) AND x > ?"
    assert pl.shape_of("SELECT t1.c FROM sbtest1 t1") == "SELECT t1.c FROM sbtestN t1"


def test_plans_record_keeps_each_sides_plan_and_says_what_failed():
    found = [{"shape": "SELECT c FROM sbtestN WHERE id=?", "sql": "SELECT c FROM sbtest1 WHERE id=5"}]
    record = pl.plans_record(found, {"base": [{"plan": {"query_block": {}}}], "head": [{"error": "(1146, 'no table')"}]})
    assert record == {"shapes": [{"shape": found[0]["shape"], "sql": found[0]["sql"], "base": {"query_block": {}},
                                  "head": None, "error": "head: (1146, 'no table')"}]}


# ------------------------------------------------------------------------------ stacks

def test_perf_script_folds_on_cpu_samples_and_in_statement_off_cpu_time(fixture_text):
    """A head that sleeps in its commit path (a real perf session): the sleep is off-CPU time
    per query in every frame of its stack; the wait for the client's next command is left out."""
    oncpu, offcpu = st.fold(fixture_text("explain-harness", "perf-script-sleep.txt").splitlines(), "mariadbd")
    assert sum(oncpu.values()) == 32  # the cpu-clock samples of the excerpt
    assert all(stack.startswith("mariadbd;") for stack in oncpu)
    assert offcpu and all("dispatch_command" in stack for stack in offcpu)
    assert not any("vio_read" in stack for stack in offcpu)
    sleeping = [stack for stack in offcpu if "clock_nanosleep" in stack]
    assert sleeping and all(";state=S;" in stack for stack in sleeping)
    per_query = st.offcpu_per_query(offcpu, 100)
    assert set(per_query) <= set(offcpu)
    heaviest = max(per_query, key=per_query.get)  # the sleep is what the statements waited on
    assert "clock_nanosleep" in heaviest and ";state=S;" in heaviest
    assert all(us >= 0.1 for us in per_query.values())


def test_off_cpu_time_per_query_by_whole_stack_with_its_state():
    offcpu = Counter({"mariadbd;state=R (preempted);dispatch_command;f": 500.0,
                      "mariadbd;state=S;dispatch_command;pthread_cond_wait": 300.0})
    assert st.offcpu_per_query(offcpu, 10) == {"mariadbd;state=R (preempted);dispatch_command;f": 50.0,
                                                "mariadbd;state=S;dispatch_command;pthread_cond_wait": 30.0}
    assert st.offcpu_per_query(offcpu, 0) == {}
    long = Counter({";".join(["mariadbd", "state=S"] + [f"frame{i}" for i in range(2000)]): 10.0})
    (key,) = st.offcpu_per_query(long, 1)
    assert len(key) <= 8192 and key.endswith(";frame1999") and key.split(";")[0].startswith("frame")
    assert st.folded_text(offcpu).splitlines() == ["mariadbd;state=R (preempted);dispatch_command;f 500",
                                                   "mariadbd;state=S;dispatch_command;pthread_cond_wait 300"]


def test_a_frame_with_a_semicolon_cannot_split_a_folded_line():
    lines = ["mariadbd  7  1.000000: cpu-clock: ", "\t  10 evil;frame+0x1 (/x/mariadbd)", "\t  20 [unknown] (/x/mariadbd)", ""]
    oncpu, _ = st.fold(lines, "mariadbd")
    assert oncpu == Counter({"mariadbd;evil:frame": 1})


def test_stack_file_names_stay_in_the_explain_folder():
    assert st.file_stem("update-index_range=100", "head") == "update-index_range=100.head"
    assert st.file_stem("../../etc/x", "base") == "_.._etc_x.base"
    assert "/" not in st.file_stem("a/b\\c\n", "base")


def test_perf_unavailable_says_what_to_install_or_allow():
    assert st.unavailable_reason(None, 0, "2") == \
        "perf is not installed: install perf (Debian: apt-get install linux-perf; scripts/install-deps.sh does)"
    assert st.unavailable_reason("/usr/bin/perf", 0, "2") is None
    assert st.unavailable_reason("/usr/bin/perf", 65534, "-1") is None
    assert st.unavailable_reason("/usr/bin/perf", 65534, "2") == (
        "perf may not record scheduler tracepoints as uid 65534 (kernel.perf_event_paranoid = 2): run the "
        "harness as root, or set kernel.perf_event_paranoid = -1 on the runner")


# ------------------------------------------------------------------------------ budget

def test_a_row_in_error_keeps_no_figure():
    figures = {"counters": {"windows": [{"events": 1, "queries": 1, "deltas": {"Handler_update": 1}}]}, "waits": None,
               "stacks": None, "memory": None, "unavailable": {}}
    row = {"id": "r", "seconds": 3.14159, "sides": {"base": figures, "head": ep.empty_side()}, "plans": {"shapes": []},
           "defaults": None, "error": {"step": "waits", "message": "head server killed by signal SIGKILL"}}
    assert ep.row_status(row) == {"id": "r", "seconds": 3.1, "status": "error", "plans": None, "defaults": None,
                                  "sides": {"base": ep.empty_side(), "head": ep.empty_side()},
                                  "error": {"step": "waits", "message": "head server killed by signal SIGKILL"}}
    ok = {"id": "r", "seconds": 1.0, "sides": {"base": figures, "head": figures}, "plans": None, "defaults": None}
    assert ep.row_status(ok)["status"] == "ok" and ok["sides"]["base"] is figures


def test_each_probe_gets_its_share_of_what_is_left():
    # 30 s left at 1000 events/s: counters take 3/10 of it, both sides, three windows each.
    assert ep.probe_events("counters", 2000, 3, 1000, 30) == 1500
    assert ep.probe_events("counters", 2000, 3, None, 30) == 2000  # no pace measured: as asked
    assert ep.probe_events("stacks", 5000, 1, 1000, 30) == 5000  # the last probe gets what is left
    assert ep.probe_events("memory", 20000, 2, 1000, 20) == 2500  # 2/4 of 20 s, four windows
    # Its share of 10 s (5,000 events) is fewer than 2000 a window; all 10 s hold its least.
    assert ep.probe_events("memory", 20000, 2, 1000, 10) == 2000
    assert ep.probe_events("memory", 20000, 2, 1000, 7) == 0  # not even 2000 a window: skipped
    assert ep.probe_events("waits", 2000, 3, 50, 20) == 0
    # A slow row: the counters' 3/10 of 40 s hold 1,200 events at 100 a second, fewer than their
    # least 6 × 200; all 40 s hold those, so the first probe runs its least, the later ones what is left.
    assert ep.probe_events("counters", 2000, 3, 100, 40) == 200
    assert ep.probe_events("waits", 2000, 3, 100, 40 - 1200 / 100) == 200
    assert ep.probe_events("counters", 2000, 3, 100, 11) == 0  # not even the least fit: skipped
    # Where settings differ, the counters' least may take the time kept for the re-measure; no later probe may.
    assert ep.probe_events("counters", 2000, 3, 100, 4, reserved=10) == 200
    assert ep.probe_events("waits", 2000, 3, 100, 4, reserved=10) == 0


def test_a_heavy_rows_least_window_is_what_five_seconds_of_it_hold():
    # 10 events a second (a sort of 10,000 rows each): 50 events a window, not 200.
    assert ep.least_events("counters", 10) == 50 and ep.least_events("stacks", 10) == 50
    assert ep.least_events("counters", 1000) == 200  # a light row: the least as it is
    assert ep.least_events("counters", 0.5) == 10  # never fewer than ten
    assert ep.least_events("counters", None) == 200  # no pace measured
    assert ep.least_events("memory", 10) == 2000  # memory growth is not scaled
    # 60 s a row at 10 events a second: the counters run 50 a window, three windows a side.
    assert ep.probe_events("counters", 2000, 3, 10, 60) == 50


def test_a_probe_skipped_says_why():
    assert ep.skipped(60.0) == "skipped: the row's 60 s (suite key explain.seconds_per_row) were spent before it"
    assert ep.skipped(7.5) == "skipped: the row's 7.5 s (suite key explain.seconds_per_row) were spent before it"


def test_events_that_fit_the_rows_time():
    assert ep.fitting_events(6000, 600, None, 1) == 6000  # no rate measured yet: all
    assert ep.fitting_events(6000, 600, 1000, 10) == 6000
    assert ep.fitting_events(6000, 600, 1000, 2) == 2000  # fewer, still enough
    assert ep.fitting_events(6000, 600, 100, 2) == 0  # not enough to say anything: skipped


# ------------------------------------------------------------------------------ the command

def _plan_with_fake_servers(tmp_path):
    plan = json.loads((REPO / "test" / "fixtures" / "plans" / "tiny-quick.json").read_text())
    for side in ("base", "head"):
        binary = tmp_path / side / "sbin" / "mariadbd"
        binary.parent.mkdir(parents=True)
        binary.write_text("#!/bin/sh\necho 'mariadbd  Ver 10.11.18-MariaDB for debian-linux-gnu'\n")
        binary.chmod(0o755)
        plan["sides"][side]["basedir"] = str(tmp_path / side)
    (tmp_path / "plan.json").write_text(json.dumps(plan))


def explain(tmp_path, *args):
    return subprocess.run([sys.executable, "-m", "perfgate_harness", "explain", "--plan", "plan.json", "--out", "out", *args],
                          capture_output=True, text=True, cwd=tmp_path,
                          env={"PYTHONPATH": str(REPO / "harness"), "PATH": "/usr/bin:/bin"})


def test_explain_refuses_a_row_the_plan_does_not_have(tmp_path):
    _plan_with_fake_servers(tmp_path)
    done = explain(tmp_path, "--rows", "point-query,nope;rm -rf", "--asked", "named")
    assert done.returncode == 2
    assert done.stderr.startswith("perfgate harness: --rows: nope;rm -rf is not a row of plan.json; expected a "
                                  "comma-separated list of: point-query, random-points_range=1000")
    assert not (tmp_path / "out").exists()


def test_explain_refuses_bad_budgets_and_file_names(tmp_path):
    _plan_with_fake_servers(tmp_path)
    done = explain(tmp_path, "--rows", "point-query", "--asked", "named", "--seconds-per-row", "0")
    assert done.returncode == 2 and "--seconds-per-row: invalid positive float value: '0'" in done.stderr
    done = explain(tmp_path, "--rows", "point-query", "--asked", "maybe")
    assert done.returncode == 2 and "--asked: invalid choice: 'maybe'" in done.stderr
    done = explain(tmp_path, "--rows", "point-query", "--asked", "all", "--explain", "../x.json")
    assert done.returncode == 2
    assert done.stderr == "perfgate harness: --explain: '../x.json' is not a file name; expected e.g. explain.json\n"
    assert not (tmp_path / "out").exists()


def test_a_re_measure_that_did_not_run_keeps_the_variables_that_differ():
    record = {"variables": [{"name": "sort_buffer_size", "base": "2097152", "head": "32768"}],
              "set": ["sort_buffer_size"], "refused": [], "still_differ": ["x"], "rounds": [{"index": 0}]}
    out = ep.ExplainPhase._not_measured(record, "the re-measure with the base's settings failed: " + "y" * 2000)
    assert out["variables"] == record["variables"]
    assert (out["set"], out["still_differ"], out["rounds"]) == ([], [], [])
    assert out["not_measured"].startswith("the re-measure with the base's settings failed: y") and len(out["not_measured"]) == 1024
    assert record["set"] == ["sort_buffer_size"]  # the record read is not changed


class _Cursor:
    """A server that knows explain_json_format_version (MySQL 8.3+) or not (MariaDB: error 1193)."""

    def __init__(self, knows):
        self.knows, self.sent, self.last = knows, [], None

    def execute(self, sql):
        self.sent.append(sql)
        if sql.startswith("SET SESSION explain_json_format_version") and not self.knows:
            raise pymysql.err.OperationalError(1193, "Unknown system variable 'explain_json_format_version'")
        self.last = sql

    def fetchone(self):
        return ['{"query_block": {"table": {"table_name": "sbtest1", "access_type": "range"}}}']


class _Conn:
    def __init__(self, cur):
        self.cur = cur

    def cursor(self):
        return self.cur

    def close(self):
        pass


@pytest.mark.parametrize("knows", [True, False])
def test_plans_are_asked_for_in_explain_jsons_first_form_where_the_server_has_two(knows):
    cur = _Cursor(knows)
    out = pl.explain_all(lambda: _Conn(cur), [{"shape": "SELECT c FROM sbtestN WHERE id=?", "sql": "SELECT c FROM sbtest1 WHERE id=1"}])
    assert cur.sent[0] == "SET SESSION explain_json_format_version = 1"
    assert cur.sent[1] == "EXPLAIN FORMAT=JSON SELECT c FROM sbtest1 WHERE id=1"
    assert out == [{"plan": {"query_block": {"table": {"table_name": "sbtest1", "access_type": "range"}}}}]


def test_another_error_setting_the_form_is_not_swallowed():
    class Refusing(_Cursor):
        def execute(self, sql):
            raise pymysql.err.OperationalError(2013, "Lost connection to server during query")
    with pytest.raises(pymysql.err.OperationalError):
        pl.explain_all(lambda: _Conn(Refusing(True)), [])
