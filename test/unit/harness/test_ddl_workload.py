"""DDL statements in the harness without servers: the plan's DDL entries, the generated rows of
the bug report's table, and what a statement's round and its failures say."""
import copy
from datetime import date
from pathlib import Path

import pymysql
import pytest

from perfgate_harness import ddl_workload
from perfgate_harness.phase import dataset_for
from perfgate_harness.plan import PlanError, parse_plan
from perfgate_harness.sysbench_workload import SysbenchTables

STATEMENT = "ALTER TABLE employees ADD INDEX idx_name (last_name, first_name), ALGORITHM=INPLACE, LOCK=NONE"


@pytest.fixture
def raw(time_plan):
    return time_plan(100, [{"id": "add-index", "name": "add-index", "group": "ddl", "kind": "write",
                            "script": "perfgate_ddl", "options": {}, "threads": 1, "shape": STATEMENT,
                            "ddl": {"statement": STATEMENT, "session": {"innodb_ddl_threads": 4}}}])


def edited(raw, edit):
    raw = copy.deepcopy(raw)
    edit(raw)
    return raw


def test_a_ddl_plan_needs_no_script_and_loads_the_employees_table(raw, tmp_path):
    plan = parse_plan(raw)
    [bench] = plan.benchmarks
    assert bench.script_path is None and bench.ddl == {"statement": STATEMENT, "session": {"innodb_ddl_threads": 4}}
    assert isinstance(dataset_for(plan, tmp_path / "client.log"), ddl_workload.EmployeesTable)
    sysbench_only = parse_plan(edited(raw, lambda p: p.update(benchmarks=[{
        "id": "point-query", "name": "point-query", "group": "point", "kind": "read", "script": "oltp_point_select",
        "options": {}, "threads": 1}])))
    assert isinstance(dataset_for(sysbench_only, tmp_path / "client.log"), SysbenchTables)


@pytest.mark.parametrize("edit, message", [
    (lambda p: p["benchmarks"][0]["ddl"].update(statement=STATEMENT + "; DROP TABLE employees"),
     "plan.json: benchmarks[0].ddl.statement: '" + STATEMENT + "; DROP TABLE employees' does not match"),
    (lambda p: p["benchmarks"][0]["ddl"]["session"].update(innodb_ddl_threads="4; DROP TABLE t"),
     "plan.json: benchmarks[0].ddl.session.innodb_ddl_threads: '4; DROP TABLE t' is not valid under any of the given schemas"),
    (lambda p: p["benchmarks"][0]["ddl"]["session"].update({"x=1,y": 1}),
     "plan.json: benchmarks[0].ddl.session.x=1,y: 'x=1,y' does not match"),
    (lambda p: p["benchmarks"][0].pop("ddl"), "plan.json: benchmarks[0]: 'ddl' is a required property"),
    (lambda p: p["benchmarks"][0].update(script="oltp_insert"), "plan.json: benchmarks[0].script: 'perfgate_ddl' was expected"),
    (lambda p: p["benchmarks"].append({"id": "point-query", "name": "point-query", "group": "point", "kind": "read",
                                       "script": "oltp_point_select", "options": {}, "threads": 1}),
     "plan.json: benchmarks: DDL statements and sysbench microbenchmarks load different tables; expected a plan of one kind only"),
    (lambda p: p["benchmarks"].append({"id": "x", "name": "x", "group": "point", "kind": "read", "script": "perfgate_ddl",
                                       "options": {}, "threads": 1}),
     "plan.json: benchmarks[1].script: 'perfgate_ddl' is not one of ['oltp_delete'"),
])
def test_hostile_ddl_entries_of_a_plan_are_refused_naming_the_key(raw, edit, message):
    with pytest.raises(PlanError) as e:
        parse_plan(edited(raw, edit))
    assert str(e.value).startswith(message), str(e.value)


def test_the_rows_are_the_bug_reports_and_the_same_on_every_side():
    rows = list(ddl_workload.employee_rows(2000))
    assert rows == list(ddl_workload.employee_rows(2000))
    assert rows != list(ddl_workload.employee_rows(2000, seed=1))
    for salary, birth, first, last, gender, hire in rows:
        assert 1000 <= salary <= 100000
        assert date(1949, 10, 1) <= birth < date(1999, 10, 1) and date(1998, 10, 1) <= hire < date(2023, 10, 1)
        assert len(first) == 8 and len(last) == 7 and int(first, 16) >= 0 and int(last, 16) >= 0
        assert gender == ("F" if salary % 2 == 0 else "M")
    assert {r[4] for r in rows} == {"F", "M"} and len({r[0] for r in rows}) > 1500


def test_a_round_is_one_statement_and_its_rate_is_statements_per_second():
    report = ddl_workload.round_report(0.25)
    assert report["queries"] == 1 and report["qps"] == 4.0 and report["seconds"] == 0.25
    assert report["latency_ms"] == {"avg": 250.0, "p95": 250.0, "max": 250.0}
    assert ddl_workload.session_sql({"innodb_ddl_threads": 4, "x": "ON"}) == [
        "SET SESSION innodb_ddl_threads = 4", "SET SESSION x = ON"]


def test_what_a_failed_statement_says():
    missing = pymysql.err.OperationalError(1193, "Unknown system variable 'innodb_ddl_threads'")
    assert ddl_workload.statement_failure(missing, STATEMENT) == (
        "Unknown system variable 'innodb_ddl_threads': this server has no such variable (MariaDB has no "
        "innodb_ddl_threads: its index builds are single-threaded); expected a MySQL 8.0.27 or later server, "
        "or a suite without this statement")
    other = pymysql.err.OperationalError(1845, "ALGORITHM=INSTANT is not supported for this operation. Try ALGORITHM=COPY")
    assert ddl_workload.statement_failure(other, "ALTER TABLE employees X") == (
        "ALTER TABLE employees X: (1845, 'ALGORITHM=INSTANT is not supported for this operation. Try ALGORITHM=COPY')")
    # OPTIMIZE TABLE reports its errors as rows, not as a failed statement.
    rows = (("perfgate_ddl.employees", "optimize", "note", "Table does not support optimize, doing recreate + analyze instead"),
            ("perfgate_ddl.employees", "optimize", "error", "Lock wait timeout exceeded"),
            ("perfgate_ddl.employees", "optimize", "status", "OK"))
    assert ddl_workload.result_errors(rows) == ["Lock wait timeout exceeded"]
    assert ddl_workload.result_errors(rows[:1] + rows[2:]) == [] and ddl_workload.result_errors(()) == []


def test_the_command_to_reproduce_a_round_names_the_session_and_the_statement(raw):
    class Srv:
        class layout:
            socket = Path("/run/x/mysqld.sock")
    workload = ddl_workload.DdlWorkload(parse_plan(raw).benchmarks[0], datadirs=None, rows=100)
    assert workload.command(Srv, 1) == (
        f'mysql --socket=/run/x/mysqld.sock --user=root perfgate_ddl -e "SET SESSION innodb_ddl_threads = 4; {STATEMENT}"')


LOAD = {"id": "load-data", "name": "load-data", "group": "ddl", "kind": "write", "script": "perfgate_ddl", "options": {},
        "threads": 1, "shape": "LOAD DATA LOCAL INFILE <employees' rows sorted by emp_no> INTO TABLE employees_load",
        "ddl": {"load": {"sorted": "primary"}, "session": {}}}


def test_a_bulk_load_sends_create_like_untimed_then_load_data_of_the_harness_file(raw):
    class Srv:
        class layout:
            socket = Path("/run/x/mysqld.sock")
            tmpdir = Path("/run/x/it's/tmp")
    plan = parse_plan(edited(raw, lambda p: p.update(benchmarks=[LOAD])))
    workload = ddl_workload.DdlWorkload(plan.benchmarks[0], datadirs=None, rows=100)
    load = ("LOAD DATA LOCAL INFILE '/run/x/it\\'s/tmp/employees-sorted.csv' INTO TABLE employees_load CHARACTER SET utf8mb4 "
            "FIELDS TERMINATED BY ',' (emp_no, salary, birth_date, first_name, last_name, gender, hire_date)")
    assert workload._sent(Srv) == ["CREATE TABLE employees_load LIKE employees", load]
    assert workload.command(Srv, 1) == (
        f'mysql --local-infile=1 --socket=/run/x/mysqld.sock --user=root perfgate_ddl -e "CREATE TABLE employees_load LIKE employees; {load}"')


class FakeCursor:
    def __init__(self, sent, refuse=None):
        self.sent, self.refuse = sent, refuse

    def execute(self, sql):
        if self.refuse and self.refuse in sql:
            raise pymysql.err.OperationalError(1193, f"Unknown system variable '{self.refuse}'")
        self.sent.append(sql)


class FakeServer:
    """What _set_globals uses of a server: a connection that records what it is sent."""
    def __init__(self, refuse=None):
        self.sent, self.refuse, self.closed = [], refuse, 0
        outer = self

        class Conn:
            def cursor(self):
                return FakeCursor(outer.sent, outer.refuse)

            def close(self):
                outer.closed += 1
        self.conn = Conn()

    def connect(self, **_):
        return self.conn

    def log_tail(self, n=5):
        return ""


def test_a_row_with_server_wide_settings_sets_them_on_its_own_server_and_says_so(raw):
    ahi = {**LOAD, "id": "load-data-ahi", "name": "load-data-ahi",
           "ddl": {"load": {"sorted": "primary"}, "session": {}, "global": {"innodb_adaptive_hash_index": "ON"}}}
    workload = ddl_workload.DdlWorkload(parse_plan(edited(raw, lambda p: p.update(benchmarks=[ahi]))).benchmarks[0],
                                        datadirs=None, rows=100)
    srv = FakeServer()
    workload._set_globals(srv)
    assert srv.sent == ["SET GLOBAL innodb_adaptive_hash_index = ON"] and srv.closed == 1

    class Srv:
        class layout:
            socket = Path("/run/x/mysqld.sock")
            tmpdir = Path("/run/x/tmp")
    assert workload.command(Srv, 1).startswith(
        'mysql --local-infile=1 --socket=/run/x/mysqld.sock --user=root perfgate_ddl -e "SET GLOBAL innodb_adaptive_hash_index = ON; '
        'CREATE TABLE employees_load LIKE employees; ')
    # A server without the variable: the round fails naming it, nothing is timed.
    refusing = FakeServer(refuse="innodb_adaptive_hash_index")
    with pytest.raises(ddl_workload.WorkloadFailed) as e:
        workload._set_globals(refusing)
    assert "Unknown system variable 'innodb_adaptive_hash_index'" in str(e.value) and refusing.closed == 1
    # A row without them sends nothing.
    plain = FakeServer()
    ddl_workload.DdlWorkload(parse_plan(raw).benchmarks[0], datadirs=None, rows=100)._set_globals(plain)
    assert plain.sent == []


def test_hostile_server_wide_settings_of_a_plan_are_refused_naming_the_key(raw):
    for value, message in [("ON; DROP TABLE t", "ddl.global.innodb_adaptive_hash_index: 'ON; DROP TABLE t' is not valid"),
                           (-1, "ddl.global.innodb_adaptive_hash_index: -1 is not valid")]:
        bad = edited(raw, lambda p: p["benchmarks"][0]["ddl"].update({"global": {"innodb_adaptive_hash_index": value}}))
        with pytest.raises(PlanError) as e:
            parse_plan(bad)
        assert message in str(e.value), str(e.value)
    with pytest.raises(PlanError) as e:
        parse_plan(edited(raw, lambda p: p["benchmarks"][0]["ddl"].update({"global": {"x=1,y": 1}})))
    assert "ddl.global.x=1,y: 'x=1,y' does not match" in str(e.value)


@pytest.mark.parametrize("edit, message", [
    (lambda p: p["benchmarks"][0]["ddl"].update(statement=STATEMENT),
     "plan.json: benchmarks[0].ddl: {'load': {'sorted': 'primary'}, 'session': {}, 'statement': "),
    (lambda p: p["benchmarks"][0]["ddl"].pop("load"), "plan.json: benchmarks[0].ddl: {'session': {}} is not valid under any"),
    (lambda p: p["benchmarks"][0]["ddl"]["load"].update(sorted="salary"), "plan.json: benchmarks[0].ddl.load.sorted: 'salary' is not one of ['primary']"),
    (lambda p: p["benchmarks"][0]["ddl"]["load"].update(file="/etc/passwd"),
     "plan.json: benchmarks[0].ddl.load: Additional properties are not allowed ('file' was unexpected)"),
])
def test_hostile_bulk_loads_of_a_plan_are_refused_naming_the_key(raw, edit, message):
    with pytest.raises(PlanError) as e:
        parse_plan(edited(raw, lambda p: (p.update(benchmarks=[copy.deepcopy(LOAD)]), edit(p))))
    assert str(e.value).startswith(message), str(e.value)


def test_the_rows_file_holds_the_tables_rows_sorted_by_emp_no_escaped_for_load_data(tmp_path):
    path = tmp_path / "rows.csv"
    ddl_workload.write_rows_file(path, 500)
    lines = path.read_bytes().decode("utf-8").split("\n")
    assert lines[-1] == "" and len(lines) == 501
    generated = list(ddl_workload.employee_rows(500))
    for number, (line, row) in enumerate(zip(lines, generated), start=1):
        salary, birth, first, last, gender, hire = row
        assert line == f"{number},{salary},{birth.isoformat()},{first},{last},{gender},{hire.isoformat()}"
    assert [int(line.split(",")[0]) for line in lines[:-1]] == list(range(1, 501))
    # What the generated rows never hold, escaped as LOAD DATA's default ESCAPED BY '\\' reads it.
    assert ddl_workload.csv_field("a,b\\c\nd\0e") == "a\\,b\\\\c\\nd\\0e"
    assert ddl_workload.csv_field(date(2001, 2, 3)) == "2001-02-03" and ddl_workload.csv_field(7) == "7"


def test_a_bulk_load_that_skipped_rows_or_warned_fails_its_round():
    assert ddl_workload.load_errors(100, (), 100) == []
    assert ddl_workload.load_errors(99, [("Warning", 1062, "Duplicate entry '7' for key 'PRIMARY'")], 100) == [
        "99 rows loaded, expected 100", "Warning 1062: Duplicate entry '7' for key 'PRIMARY'"]
    refused = pymysql.err.OperationalError(1148, "The used command is not allowed with this MariaDB version")
    assert ddl_workload.statement_failure(refused, "LOAD DATA x") == (
        "LOAD DATA x: (1148, 'The used command is not allowed with this MariaDB version'); expected local_infile = ON "
        "in the suite's server profile (profiles/ddl-*.cnf)")


class _ValueCursor:
    """A cursor of the one server that counts every row's instructions: globals read and set."""

    def __init__(self, values):
        self.values, self.sent, self.row = values, [], None

    def execute(self, sql, args=None):
        self.sent.append((sql, args))
        if sql.startswith("SELECT @@GLOBAL."):
            self.row = (self.values[sql.split(".", 1)[1]],)
        elif sql.startswith("SET GLOBAL "):
            self.values[sql.split()[2]] = args[0]

    def fetchone(self):
        return self.row


def test_a_rows_server_wide_settings_are_set_back_before_the_next_rows_windows(raw):
    # The instruction phase counts every row on one server under valgrind: load-data-ahi's
    # adaptive hash index must not stay on for the rows counted after it.
    ahi = {**LOAD, "id": "load-data-ahi", "name": "load-data-ahi",
           "ddl": {"load": {"sorted": "primary"}, "session": {}, "global": {"innodb_adaptive_hash_index": "ON"}}}
    with_ahi = ddl_workload.DdlWorkload(parse_plan(edited(raw, lambda p: p.update(benchmarks=[ahi]))).benchmarks[0],
                                        datadirs=None, rows=100)
    plain = ddl_workload.DdlWorkload(parse_plan(raw).benchmarks[0], datadirs=None, rows=100)

    class Srv:
        pass
    srv, cur = Srv(), _ValueCursor({"innodb_adaptive_hash_index": 0})
    with_ahi._reset_globals(srv, cur)
    assert srv.ddl_globals_before == {"innodb_adaptive_hash_index": 0}
    cur.values["innodb_adaptive_hash_index"] = "ON"  # what _set_globals then sets
    with_ahi._reset_globals(srv, cur)  # its next window: set back, read again
    assert srv.ddl_globals_before == {"innodb_adaptive_hash_index": 0}
    cur.values["innodb_adaptive_hash_index"] = "ON"
    plain._reset_globals(srv, cur)  # the next row's window
    assert cur.values["innodb_adaptive_hash_index"] == 0 and srv.ddl_globals_before == {}
    assert ("SET GLOBAL innodb_adaptive_hash_index = %s", (0,)) in cur.sent
