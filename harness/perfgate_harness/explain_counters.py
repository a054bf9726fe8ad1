"""The explanation step's windows over a fixed number of events: work counters (SHOW GLOBAL
STATUS and INNODB_METRICS), performance_schema summaries of the workload's user, and the
server's memory. Snapshots are taken by an observer that connects as a user of its own, so
that the performance_schema summaries of the workload's user hold the workload alone; the
global counters also count the observer, whose cost is measured in empty windows and taken
off (docs/measurements.md, "The explanation step on a regression build")."""
import time

import pymysql

from . import callgrind, procstat

OBSERVER_USER = "perfgate_observer"
WORKLOAD_USER = "root"  # sysbench.build_command connects as root
PAGE_BYTES = 16384
# performance_schema's summaries of one user, per kind of event.
SUMMARY_TABLES = {
    "waits": "events_waits_summary_by_user_by_event_name",
    "stages": "events_stages_summary_by_user_by_event_name",
    "statements": "events_statements_summary_by_user_by_event_name",
}
# Waiting for the client's next command and condition waits say nothing about the server's work.
IGNORED_WAITS = ("idle", "wait/synch/cond/")


# ------------------------------------------------------------------------------ pure decisions

def numeric(value) -> float | None:
    """A status value as a number, or None for text (versions, paths, ON/OFF)."""
    if value is None:
        return None
    try:
        text = str(value)
        return float(text) if "." in text else int(text)
    except ValueError:
        return None


def counter_snapshot(status_rows, metric_rows) -> dict:
    """name -> value from SHOW GLOBAL STATUS rows and INNODB_METRICS (name, count) rows; text
    values left out. INNODB_METRICS names are lowercase, status names capitalised: one map."""
    snap = {}
    for name, value in list(status_rows) + list(metric_rows):
        number = numeric(value)
        if number is not None:
            snap[str(name)] = number
    return snap


def difference(before: dict, after: dict) -> dict:
    return {name: after[name] - before.get(name, 0) for name in after}


def take_off(delta: dict, cost: dict) -> dict:
    """A window's deltas without the observer's own cost (an empty window's deltas)."""
    return {name: round(value - cost.get(name, 0), 6) for name, value in delta.items()}


def scaled(cost: dict, times: int) -> dict:
    return {name: value * times for name, value in cost.items()}


def least_cost(empty_windows: list[dict]) -> dict:
    """The observer's cost per counter: the smallest of the empty windows, so that background
    work that happened to fall into one of them is not taken off every window."""
    names = set().union(*empty_windows) if empty_windows else set()
    return {name: min(w.get(name, 0) for w in empty_windows) for name in names}


def summary_snapshot(rows) -> dict:
    """event name -> {count, ps} from (name, count, picoseconds) rows, ignored events left out."""
    out = {}
    for name, count, ps in rows:
        name = str(name)
        if name.startswith(IGNORED_WAITS):
            continue
        out[name] = {"count": int(count or 0), "ps": int(ps or 0)}
    return out


def summary_difference(before: dict, after: dict) -> dict:
    """The events that happened in the window: name -> {count, ps}, unchanged ones left out."""
    out = {}
    for name, now in after.items():
        was = before.get(name, {"count": 0, "ps": 0})
        count, ps = now["count"] - was["count"], now["ps"] - was["ps"]
        if count > 0 or ps > 0:
            out[name] = {"count": max(count, 0), "ps": max(ps, 0)}
    return out


# ------------------------------------------------------------------------------ the observer

class Observer:
    """Snapshots of one running server, taken as OBSERVER_USER."""

    def __init__(self, srv):
        self.srv = srv
        self._grant()

    def _grant(self) -> None:
        conn = self.srv.connect()
        try:
            cur = conn.cursor()
            cur.execute(f"CREATE USER IF NOT EXISTS '{OBSERVER_USER}'@'localhost'")
            cur.execute(f"GRANT ALL ON *.* TO '{OBSERVER_USER}'@'localhost'")
        finally:
            conn.close()

    def connect(self):
        return pymysql.connect(unix_socket=str(self.srv.layout.socket), user=OBSERVER_USER, password="",
                               connect_timeout=10, autocommit=True)

    def rows(self, statement: str) -> list:
        conn = self.connect()
        try:
            cur = conn.cursor()
            cur.execute(statement)
            return list(cur.fetchall())
        finally:
            conn.close()

    def counters(self) -> dict:
        conn = self.connect()
        try:
            cur = conn.cursor()
            cur.execute("SHOW GLOBAL STATUS")
            status = cur.fetchall()
            cur.execute("SELECT NAME, COUNT FROM information_schema.INNODB_METRICS")
            metrics = cur.fetchall()
        finally:
            conn.close()
        return counter_snapshot(status, metrics)

    def summaries(self) -> dict:
        conn = self.connect()
        try:
            cur = conn.cursor()
            out = {}
            for kind, table in SUMMARY_TABLES.items():
                cur.execute(f"SELECT EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT FROM performance_schema.{table} "
                            "WHERE USER = %s AND COUNT_STAR > 0", (WORKLOAD_USER,))
                out[kind] = summary_snapshot(cur.fetchall())
            return out
        finally:
            conn.close()

    def memory(self) -> dict:
        rss, hwm = procstat.memory(self.srv.pid)
        status = {"VmRSS": rss, "VmHWM": hwm}
        rows = self.rows("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_data'")
        status["bp_pages"] = int(rows[0][1]) if rows else 0
        return status

    def drain(self) -> int:
        """Purge caught up, so that each window counts its own rows' purge and no earlier one's;
        how many times the history list was polled for it."""
        return callgrind.drain_purge(self.connect)

    def poll_cost(self, polls: int = 10) -> dict:
        """What one poll of the history list adds to the counters (on a server without
        MariaDB's purge wait its number varies per drain): `polls` polls between two
        snapshots, less two snapshots alone, per poll."""
        plain = difference(self.counters(), self.counters())
        before = self.counters()
        for _ in range(polls):
            self.rows(callgrind.HISTORY_SQL)
        with_polls = difference(before, self.counters())
        return {name: (value - plain.get(name, 0)) / polls for name, value in with_polls.items()}


# ------------------------------------------------------------------------------ the windows

def counter_windows(observer: Observer, run_events, events: int, windows: int) -> dict:
    """`windows` windows of `events` events, purge drained before the first and after each, deltas with
    the observer's cost (two empty windows: snapshot, drain, snapshot) taken off."""
    empty, polled = [], []
    for _ in range(2):
        before = observer.counters()
        polled.append(observer.drain())
        empty.append(difference(before, observer.counters()))
    # Where the drain polls (MySQL), its polls are taken off by their number, measured.
    per_poll = observer.poll_cost() if any(polled) else {}
    cost = least_cost([take_off(e, scaled(per_poll, n)) for e, n in zip(empty, polled)])
    out = []
    # Each window's closing drain leaves purge caught up for the next: one drain before them
    # all (each is seconds on MySQL, where the history must hold still: callgrind.SETTLED_SECONDS).
    observer.drain()
    for _ in range(windows):
        before = observer.counters()
        report = run_events(events)
        polls = observer.drain()
        delta = take_off(difference(before, observer.counters()), scaled(per_poll, polls))
        out.append({"events": events, "queries": int(report["queries"]), "deltas": take_off(delta, cost)})
    return {"windows": out}


def wait_windows(observer: Observer, run_events, events: int, windows: int) -> dict:
    """performance_schema summaries of the workload's user over each window."""
    out = []
    for _ in range(windows):
        before = observer.summaries()
        report = run_events(events)
        after = observer.summaries()
        out.append({"queries": int(report["queries"]),
                    **{kind: summary_difference(before[kind], after[kind]) for kind in SUMMARY_TABLES}})
    return {"windows": out}


def memory_windows(observer: Observer, run_events, events: int, windows: int) -> dict:
    """The server's resident and peak memory and its buffer pool's pages before and after each
    window: what the buffer pool took is told apart from what the server kept elsewhere."""
    out = []
    for _ in range(windows):
        before = observer.memory()
        report = run_events(events)
        time.sleep(0.05)  # the kernel's RSS accounting trails the last allocations a little
        after = observer.memory()
        out.append({"queries": int(report["queries"]), "rss_before": before["VmRSS"], "rss_after": after["VmRSS"],
                    "hwm_before": before["VmHWM"], "hwm_after": after["VmHWM"],
                    "bp_pages_delta": after["bp_pages"] - before["bp_pages"]})
    return {"windows": out}
