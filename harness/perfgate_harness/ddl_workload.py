"""DDL statements (catalogue entries of group ddl), behind workload.py's interface:
`EmployeesTable` is their Dataset, the table of MySQL bug 116738 with generated rows, and
`DdlWorkload` times one statement a round, each on its side's server restarted on a fresh copy
of the prepared datadir (docs/suites.md, "The DDL suites"); a bulk load is LOAD DATA of the
table's own rows, from a file written here, into an empty copy of the table."""
import random
import time
from datetime import date, timedelta

import pymysql
from pymysql.converters import escape_string

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
# LOAD DATA LOCAL refused: 1148 where the server's local_infile is OFF (MariaDB), 3948 on MySQL 8.
LOCAL_INFILE_REFUSED = (1148, 3948)
# A bulk load's target, made untimed on each fresh copy: employees' definition, secondary index
# included, and no rows.
LOAD_TABLE = "employees_load"
LOAD_BEFORE = f"CREATE TABLE {LOAD_TABLE} LIKE employees"
ROWS_FILE = "employees-sorted.csv"  # in the side's server tmpdir, removed with its data
# An instruction window runs its statement on a copy of the loaded table made before it,
# uncounted; the loaded table itself waits under this name (docs/suites.md, "Instructions").
PREPARED_TABLE = "employees_prepared"

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


def sorted_rows(count: int):
    """The table's rows as it holds them, sorted by its primary key: emp_no is the AUTO_INCREMENT
    value the load gave each generated row, 1, 2, ... in the generator's order."""
    for emp_no, row in enumerate(employee_rows(count), start=1):
        yield (emp_no, *row)


def csv_field(value) -> str:
    """A value as LOAD DATA reads it with FIELDS TERMINATED BY ',' and the default ESCAPED BY
    '\\': the escape character, the separator, a line end and NUL escaped (as SELECT … INTO
    OUTFILE writes them)."""
    text = value.isoformat() if isinstance(value, date) else str(value)
    return text.replace("\\", "\\\\").replace(",", "\\,").replace("\n", "\\n").replace("\0", "\\0")


def write_rows_file(path, count: int) -> None:
    """The table's rows sorted by emp_no, one line each, in the form load_statement reads."""
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for row in sorted_rows(count):
            f.write(",".join(csv_field(v) for v in row) + "\n")


def load_statement(path) -> str:
    """LOAD DATA LOCAL INFILE of the rows file into the empty copy; the path is the harness's
    own, quoted as a string literal."""
    return (f"LOAD DATA LOCAL INFILE '{escape_string(str(path))}' INTO TABLE {LOAD_TABLE} CHARACTER SET utf8mb4 "
            "FIELDS TERMINATED BY ',' (emp_no, salary, birth_date, first_name, last_name, gender, hire_date)")


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


def restart_on_fresh_copy(srv: Server, datadirs) -> None:
    """The side's server stopped, its datadir replaced by a copy of the one prepared, and started
    again: what every timing of a prepared-copy workload (DDL, TPC-C) starts from. ServerError
    or OSError for the caller to say; WorkloadFailed when the server would not stop."""
    problem = srv.shutdown()
    if problem:
        raise WorkloadFailed(problem, srv.log_tail())
    datadirs.fresh_copy(srv.side)
    srv.start()


def read_indexes(srv: Server, database: str, table: str) -> None:
    """Every index of `table` read whole, so that what runs next finds the table cached."""
    conn = srv.connect(database=database, read_timeout=STATEMENT_TIMEOUT)
    try:
        cur = conn.cursor()
        cur.execute(f"SHOW INDEX FROM {table}")
        indexes = list(dict.fromkeys(row[2] for row in cur.fetchall()))
        for index in indexes:
            cur.execute(f"SELECT COUNT(*) FROM {table} FORCE INDEX (`{index}`)")
            cur.fetchall()
    finally:
        conn.close()


def session_sql(session: dict, scope: str = "SESSION") -> list[str]:
    """SET SESSION (or GLOBAL) of each variable (names and values checked by the plan's schema)."""
    return [f"SET {scope} {name} = {value}" for name, value in session.items()]


def statement_failure(error: pymysql.err.MySQLError, statement: str) -> str:
    """Why a statement could not be timed, in one line."""
    code = error.args[0] if error.args else None
    if code == UNKNOWN_VARIABLE:
        return (f"{error.args[1]}: this server has no such variable (MariaDB has no innodb_ddl_threads: its index "
                "builds are single-threaded); expected a MySQL 8.0.27 or later server, or a suite without this statement")
    if code in LOCAL_INFILE_REFUSED:
        return f"{statement}: {error}; expected local_infile = ON in the suite's server profile (profiles/ddl-*.cnf)"
    return f"{statement}: {error}"


def result_errors(rows) -> list[str]:
    """The error lines of a statement that reports them as rows (OPTIMIZE TABLE: Table, Op,
    Msg_type, Msg_text) instead of failing."""
    return [str(row[3]) for row in rows or () if len(row) == 4 and str(row[2]).lower() == "error"]


def load_errors(loaded: int, warnings, rows: int) -> list[str]:
    """What a bulk load that did not load every row as written says: LOCAL skips a duplicate
    or a bad value with a warning instead of failing."""
    errors = [] if loaded == rows else [f"{loaded} rows loaded, expected {rows}"]
    return errors + [f"{w[0]} {w[1]}: {w[2]}" for w in list(warnings)[:3]]


def round_report(seconds: float) -> dict:
    """One statement's round as a workload report: its rate is statements per second."""
    ms = seconds * 1000.0
    return {"queries": 1, "transactions": 1, "qps": 1.0 / seconds, "tps": 1.0 / seconds, "seconds": seconds,
            "latency_ms": {"avg": ms, "p95": ms, "max": ms}, "errors": 0, "reconnects": 0}


class DdlWorkload:
    """One DDL statement: before each run its side's server restarts on a fresh copy of the
    prepared datadir (untimed), then the statement alone is timed on one connection. A bulk
    load's rows file is written once per side and its empty table made before the timing."""

    def __init__(self, bench: Benchmark, datadirs, rows: int):
        self.bench = bench
        self.load = bench.ddl.get("load")
        self.statement = bench.ddl.get("statement")
        self.session = bench.ddl["session"]
        self.globals = bench.ddl.get("global") or {}
        self.datadirs = datadirs
        self.rows = rows

    def _sent(self, srv: Server) -> list[str]:
        """The statements of a round: the untimed ones, then the timed one, last."""
        if self.load is None:
            return [self.statement]
        return [LOAD_BEFORE, load_statement(srv.layout.tmpdir / ROWS_FILE)]

    def command(self, srv: Server, seconds: float) -> str:
        sql = "; ".join([*session_sql(self.globals, "GLOBAL"), *session_sql(self.session), *self._sent(srv)])
        local = " --local-infile=1" if self.load is not None else ""
        return f"mysql{local} --socket={srv.layout.socket} --user=root {DATABASE} -e \"{sql}\""

    def before_run(self, srv: Server) -> None:
        """The server stopped, its datadir replaced by a copy of the one prepared, started again
        and every index of the table read into the buffer pool: every timing starts from the
        same files and the same cached pages, on every side (the bug report's servers held
        the whole table in their buffer pools). A bulk load's empty table is made then."""
        try:
            restart_on_fresh_copy(srv, self.datadirs)
            read_indexes(srv, DATABASE, "employees")
            self._set_globals(srv)
            if self.load is not None:
                self._prepare_load(srv)
        except server.ServerError as e:
            raise WorkloadFailed(e.message, e.log_tail) from None
        except pymysql.err.MySQLError as e:
            raise WorkloadFailed(f"preparing the table failed: {e}", srv.log_tail(5)) from None
        except OSError as e:
            raise WorkloadFailed(f"a fresh copy of the prepared datadir or the rows file failed: {e}") from None

    def _set_globals(self, srv: Server) -> None:
        """The row's server-wide settings, on its own fresh server (gone with its restart)."""
        if not self.globals:
            return
        conn = srv.connect()
        try:
            cur = conn.cursor()
            for sql in session_sql(self.globals, "GLOBAL"):
                try:
                    cur.execute(sql)
                except pymysql.err.MySQLError as e:
                    raise WorkloadFailed(statement_failure(e, sql), srv.log_tail(5)) from None
        finally:
            conn.close()

    def _prepare_load(self, srv: Server) -> None:
        path = srv.layout.tmpdir / ROWS_FILE
        if not path.exists():
            write_rows_file(path.with_suffix(".part"), self.rows)
            path.with_suffix(".part").rename(path)
        conn = srv.connect(database=DATABASE)
        try:
            conn.cursor().execute(LOAD_BEFORE)
        finally:
            conn.close()

    def timed(self, srv: Server, seconds: float, on_start=None) -> dict:
        statement = self._sent(srv)[-1]
        try:
            conn = srv.connect(database=DATABASE, read_timeout=STATEMENT_TIMEOUT, local_infile=self.load is not None)
            try:
                cur = conn.cursor()
                for sql in session_sql(self.session):
                    cur.execute(sql)
                started = time.perf_counter()
                cur.execute(statement)
                rows = cur.fetchall()
                elapsed = time.perf_counter() - started
                loaded = cur.rowcount
                warnings = conn.show_warnings() if self.load is not None else ()
            finally:
                conn.close()
        except pymysql.err.MySQLError as e:
            raise WorkloadFailed(statement_failure(e, statement), srv.log_tail(5)) from None
        errors = result_errors(rows) + (load_errors(loaded, warnings, self.rows) if self.load is not None else [])
        if errors:
            raise WorkloadFailed(f"{statement}: {'; '.join(errors)}", srv.log_tail(5))
        return round_report(elapsed)

    def before_events(self, srv: Server) -> None:
        """Before an instruction window, on the server under valgrind that runs them all: the
        table the statement changes made again as a copy of the loaded one (a restart on a fresh
        datadir would take minutes under valgrind), read into the buffer pool, the row's
        server-wide settings set and a bulk load's empty table made."""
        try:
            conn = srv.connect(database=DATABASE, read_timeout=STATEMENT_TIMEOUT)
            try:
                cur = conn.cursor()
                cur.execute("SHOW TABLES")
                tables = [row[0] for row in cur.fetchall()]
                if PREPARED_TABLE not in tables:  # the first window: the loaded table set aside
                    cur.execute(f"RENAME TABLE employees TO {PREPARED_TABLE}")
                    tables = [t for t in tables if t != "employees"]
                # Whatever the last window left: its table altered or renamed, a bulk load's copy.
                for table in tables:
                    if table != PREPARED_TABLE:
                        cur.execute("DROP TABLE IF EXISTS `{}`".format(table.replace("`", "``")))
                self._reset_globals(srv, cur)
                for sql in (f"CREATE TABLE employees LIKE {PREPARED_TABLE}",
                            f"INSERT INTO employees SELECT * FROM {PREPARED_TABLE} ORDER BY emp_no",
                            "ANALYZE TABLE employees"):
                    cur.execute(sql)
                    cur.fetchall()
            finally:
                conn.close()
            read_indexes(srv, DATABASE, "employees")
            self._set_globals(srv)
            if self.load is not None:
                self._prepare_load(srv)
        except pymysql.err.MySQLError as e:
            raise WorkloadFailed(f"making the table's copy failed: {e}", srv.log_tail(5)) from None
        except OSError as e:
            raise WorkloadFailed(f"the rows file failed: {e}") from None

    def _reset_globals(self, srv: Server, cur) -> None:
        """The instruction phase counts every row on one server: what an earlier row set
        server-wide is set back, and this row's variables' values kept to be set back after it."""
        for name, value in getattr(srv, "ddl_globals_before", {}).items():
            cur.execute(f"SET GLOBAL {name} = %s", (value,))
        srv.ddl_globals_before = {}
        for name in self.globals:
            cur.execute(f"SELECT @@GLOBAL.{name}")
            srv.ddl_globals_before[name] = cur.fetchone()[0]

    def events(self, srv: Server, events: int, seed: int, threads: int = 1) -> dict:
        """One statement, on the copy before_events made: the seed has nothing to draw."""
        if events != 1:
            raise WorkloadFailed(f"{events} statements in one window; a DDL window runs its statement once "
                                 "(instructions.events 1)")
        return self.timed(srv, 0)
