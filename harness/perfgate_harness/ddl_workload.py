"""DDL statements (catalogue entries of group ddl), behind workload.py's interface:
`EmployeesTable` is their Dataset, the table of MySQL bug 116738 with generated rows, and
`DdlWorkload` times one statement a round, each on its side's server restarted on a fresh copy
of the prepared datadir (docs/suites.md, "The DDL suites")."""
import random
import time
from datetime import date, timedelta

import pymysql

from . import server
from .plan import Benchmark, Plan
from .server import Server
from .workload import WorkloadFailed

DATABASE = "perfgate_ddl"
# The bug report's table as it gives it; every DDL statement of the catalogue runs on it.
TABLE_SQL = """CREATE TABLE employees (
    emp_no      INT             AUTO_INCREMENT NOT NULL,
    salary      INT             NOT NULL,
    birth_date  DATE            NOT NULL,
    first_name  VARCHAR(14)     CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci NOT NULL,
    last_name   VARCHAR(16)     CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci NOT NULL,
    gender      ENUM ('M','F')  NOT NULL,
    hire_date   DATE            NOT NULL,
    PRIMARY KEY (emp_no),
    KEY idx_salary (salary)
) ENGINE=InnoDB"""
INSERT_SQL = ("INSERT INTO employees (salary, birth_date, first_name, last_name, gender, hire_date) "
              "VALUES (%s, %s, %s, %s, %s, %s)")
SEED = 116738
BATCH = 2000  # rows per multi-row INSERT
STATEMENT_TIMEOUT = 3600  # seconds a statement may take before its round fails (a hang, not a slow build)
# MySQL's "Unknown system variable": a session variable this server does not have.
UNKNOWN_VARIABLE = 1193

_BIRTH = (date(1949, 10, 1), date(1999, 10, 1))
_HIRE = (date(1998, 10, 1), date(2023, 10, 1))


def _day(rng: random.Random, span: tuple) -> date:
    return span[0] + timedelta(days=rng.randrange((span[1] - span[0]).days))


def employee_rows(count: int, seed: int = SEED):
    """The rows of the bug report's procedure (salaries 1000..100000, dates in its ranges, names
    of 8 and 7 hex digits, gender F where the salary is even, as its UPDATE leaves it), drawn
    from a seeded generator: sides that load their own datadirs load the same rows."""
    rng = random.Random(seed)
    for _ in range(count):
        salary = rng.randint(1000, 100000)
        yield (salary, _day(rng, _BIRTH), f"{rng.getrandbits(32):08x}", f"{rng.getrandbits(28):07x}",
               "F" if salary % 2 == 0 else "M", _day(rng, _HIRE))


class EmployeesTable:
    """`employees` with the plan's rows, analyzed."""

    def __init__(self, plan: Plan):
        self.rows = plan.rows

    def load(self, srv: Server) -> None:
        conn = srv.connect()
        try:
            cur = conn.cursor()
            cur.execute(f"CREATE DATABASE IF NOT EXISTS {DATABASE}")
            cur.execute(f"USE {DATABASE}")
            cur.execute(TABLE_SQL)
            batch = []
            for row in employee_rows(self.rows):
                batch.append(row)
                if len(batch) == BATCH:
                    cur.executemany(INSERT_SQL, batch)
                    batch = []
            if batch:
                cur.executemany(INSERT_SQL, batch)
            cur.execute("ANALYZE TABLE employees")
            cur.fetchall()
        finally:
            conn.close()


def warm_up(srv: Server) -> None:
    """Every index of employees read whole, so that the statement finds the table cached."""
    conn = srv.connect(database=DATABASE, read_timeout=STATEMENT_TIMEOUT)
    try:
        cur = conn.cursor()
        cur.execute("SHOW INDEX FROM employees")
        indexes = list(dict.fromkeys(row[2] for row in cur.fetchall()))
        for index in indexes:
            cur.execute(f"SELECT COUNT(*) FROM employees FORCE INDEX (`{index}`)")
            cur.fetchall()
    finally:
        conn.close()


def session_sql(session: dict) -> list[str]:
    """SET SESSION of each variable (names and values checked by the plan's schema)."""
    return [f"SET SESSION {name} = {value}" for name, value in session.items()]


def statement_failure(error: pymysql.err.MySQLError, statement: str) -> str:
    """Why a statement could not be timed, in one line."""
    code = error.args[0] if error.args else None
    if code == UNKNOWN_VARIABLE:
        return (f"{error.args[1]}: this server has no such variable (MariaDB has no innodb_ddl_threads: its index "
                "builds are single-threaded); expected a MySQL 8.0.27 or later server, or a suite without this statement")
    return f"{statement}: {error}"


def result_errors(rows) -> list[str]:
    """The error lines of a statement that reports them as rows (OPTIMIZE TABLE: Table, Op,
    Msg_type, Msg_text) instead of failing."""
    return [str(row[3]) for row in rows or () if len(row) == 4 and str(row[2]).lower() == "error"]


def round_report(seconds: float) -> dict:
    """One statement's round as a workload report: its rate is statements per second."""
    ms = seconds * 1000.0
    return {"queries": 1, "transactions": 1, "qps": 1.0 / seconds, "tps": 1.0 / seconds, "seconds": seconds,
            "latency_ms": {"avg": ms, "p95": ms, "max": ms}, "errors": 0, "reconnects": 0}


class DdlWorkload:
    """One DDL statement: before each run its side's server restarts on a fresh copy of the
    prepared datadir (untimed), then the statement alone is timed on one connection."""

    def __init__(self, bench: Benchmark, datadirs):
        self.bench = bench
        self.statement = bench.ddl["statement"]
        self.session = bench.ddl["session"]
        self.datadirs = datadirs

    def command(self, srv: Server, seconds: float) -> str:
        sql = "; ".join([*session_sql(self.session), self.statement])
        return f"mysql --socket={srv.layout.socket} --user=root {DATABASE} -e \"{sql}\""

    def before_run(self, srv: Server) -> None:
        """The server stopped, its datadir replaced by a copy of the one prepared, started again
        and every index of the table read into the buffer pool: every timing starts from the
        same files and the same cached pages, on every side (the bug report's servers held
        the whole table in their buffer pools)."""
        problem = srv.shutdown()
        if problem:
            raise WorkloadFailed(problem, srv.log_tail())
        try:
            self.datadirs.fresh_copy(srv.side)
            srv.start()
            warm_up(srv)
        except server.ServerError as e:
            raise WorkloadFailed(e.message, e.log_tail) from None
        except pymysql.err.MySQLError as e:
            raise WorkloadFailed(f"reading employees into the buffer pool failed: {e}", srv.log_tail(5)) from None
        except OSError as e:
            raise WorkloadFailed(f"a fresh copy of the prepared datadir failed: {e}") from None

    def timed(self, srv: Server, seconds: float, on_start=None) -> dict:
        try:
            conn = srv.connect(database=DATABASE, read_timeout=STATEMENT_TIMEOUT)
            try:
                cur = conn.cursor()
                for sql in session_sql(self.session):
                    cur.execute(sql)
                started = time.perf_counter()
                cur.execute(self.statement)
                rows = cur.fetchall()
                elapsed = time.perf_counter() - started
            finally:
                conn.close()
        except pymysql.err.MySQLError as e:
            raise WorkloadFailed(statement_failure(e, self.statement), srv.log_tail(5)) from None
        errors = result_errors(rows)
        if errors:
            raise WorkloadFailed(f"{self.statement}: {'; '.join(errors)}", srv.log_tail(5))
        return round_report(elapsed)

    def events(self, srv: Server, events: int, seed: int) -> dict:
        raise WorkloadFailed("instructions of DDL statements are not counted")
