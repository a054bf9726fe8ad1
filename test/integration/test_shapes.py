"""Each microbenchmark sends the SQL shape its name promises: a 'range=100' reads about 100 rows,
an IN list of 1000 values looks up 1000 keys, a scan reads the whole table, an update touches
the rows it should. Measured with the server's own Handler_% counters around one short sysbench
run of each catalogue entry, per sysbench event (one transaction of oltp_read_only, one
statement of point-query). Which rows were touched (hot-points' hot set, update-one's single
row, update-zipf's skew) is read from the server's general query log, where every execution
of a prepared statement appears with its values.

The runs share one loaded table and go in the order listed: reads, writes, then delete and
insert, so that no write changes what a later check expects.
"""
import re
import shutil
from contextlib import contextmanager

import numpy as np
import pytest
import yaml

from perfgate_harness import server, sysbench
from perfgate_harness.plan import parse_plan
from perfgate_harness.runner import Run

from conftest import REPO, load_plan

ROWS = 2000
THRESHOLDS = REPO / "thresholds"
CATALOGUE = yaml.safe_load((THRESHOLDS / "benchmarks.yml").read_text())["benchmarks"]
FULL = yaml.safe_load((THRESHOLDS / "suites" / "full.yml").read_text())["benchmarks"]
ZIPF_EXPONENT = 0.8


def distinct(values: int) -> float:
    """Mean number of distinct ids among `values` drawn uniformly from 1..ROWS: the server looks
    up each value of an IN list once, so repeated draws cost nothing."""
    return ROWS * (1 - (1 - 1 / ROWS) ** values)


def range_rows(size: int) -> float:
    """Mean rows of `BETWEEN s AND s + size - 1` for s uniform in 1..ROWS: ranges that start
    near the end of the table are cut short."""
    return float(np.mean(np.minimum(size, ROWS - np.arange(1, ROWS + 1) + 1)))


# name -> (threads, {Handler counter: expected per event}). 1 thread unless concurrency is what
# the shape is about: 2 threads must not make perfgate_delete's re-inserts collide.
CHECKS = {
    "point-query_range=100": (1, {"Handler_read_key": 1}),
    "random-points_range=10": (1, {"Handler_read_key": distinct(10)}),       # one lookup per IN value on k_N
    "random-points_range=100": (1, {"Handler_read_key": distinct(100)}),
    "random-points_range=1000": (1, {"Handler_read_key": distinct(1000)}),
    "hot-points_range=100": (1, {"Handler_read_key": 100}),         # on PRIMARY; the hot set: below
    "points-covered-pk_range=100": (1, {"Handler_read_key": distinct(100)}),  # one lookup per IN value on PRIMARY
    "points-notcovered-pk_range=100": (1, {"Handler_read_key": distinct(100)}),
    "points-covered-si_range=100": (1, {"Handler_read_key": distinct(100)}),
    "points-notcovered-si_range=100": (1, {"Handler_read_key": distinct(100)}),
    "range-covered-pk_range=100": (1, {"Handler_read_next": range_rows(100)}),  # id BETWEEN ? AND ? + 99
    "range-notcovered-pk_range=100": (1, {"Handler_read_next": range_rows(100)}),
    "range-covered-si_range=100": (1, {"Handler_read_next": range_rows(100)}),  # ~100 rows with uniform k
    "range-notcovered-si_range=100": (1, {"Handler_read_next": range_rows(100)}),
    # The optimizer's own plans (no hint): still the index, never a scan (Handler_read_rnd_next: below)
    "range-notcovered-si-planned_range=100": (1, {"Handler_read_next": range_rows(100)}),
    "points-notcovered-si-planned_range=100": (1, {"Handler_read_key": distinct(100)}),
    "range-order-limit-si-planned_range=1000": (1, {"Handler_read_key": 1, "Handler_read_next": 9}),  # k order, stops at 10 rows
    "join-si-planned_range=100": (1, {"Handler_read_key": 1 + range_rows(100)}),  # a's range, one ref on b.k_N per row
    # oltp_read_only: 10 point selects, then 4 ranges (plain, SUM, ORDER BY, DISTINCT) of range_size
    "read-only_range=10": (1, {"Handler_read_key": 14, "Handler_read_next": 4 * range_rows(10)}),
    "read-only_range=100": (1, {"Handler_read_key": 14, "Handler_read_next": 4 * range_rows(100)}),
    "read-only_range=10000": (1, {"Handler_read_key": 14, "Handler_read_next": 4 * range_rows(10000)}),
    "scan_range=100": (1, {"Handler_read_rnd_next": ROWS}),           # every row of the table
    "update-inlist_range=100": (1, {"Handler_update": distinct(100)}),
    "update-index_range=100": (1, {"Handler_update": 1, "Handler_read_key": 1}),
    "update-nonindex_range=100": (1, {"Handler_update": 1, "Handler_read_key": 1}),
    "update-one_range=100": (2, {"Handler_update": 1, "Handler_read_key": 1}),  # the one row: below
    "update-zipf_range=100": (1, {"Handler_update": 1, "Handler_read_key": 1}),  # the skew: below
    # oltp_write_only: an index update, a non-index update, a delete and an insert of the same id
    "write-only_range=10000": (1, {"Handler_update": 2, "Handler_delete": 1, "rows_inserted": 1}),
    "read-write_range=10": (1, {"Handler_read_next": 4 * range_rows(10), "Handler_update": 2,
                                "Handler_delete": 1, "rows_inserted": 1}),
    "read-write_range=100": (1, {"Handler_read_next": 4 * range_rows(100), "Handler_update": 2,
                                 "Handler_delete": 1, "rows_inserted": 1}),
    "delete_range=100": (2, {"Handler_delete": 1, "rows_inserted": 1}),  # and the table keeps its rows: below
    "insert_range=100": (1, {"rows_inserted": 1}),
}
# Averages over thousands of events: within 15% unless the shape is wrong.
TOLERANCE = 0.15
# A counter the shape must leave alone reads below this per event (the server's own work, such
# as the statistics of our SHOW STATUS, adds a little).
ABSENT = 0.05


@pytest.fixture(scope="module")
def loaded(tmp_path_factory, basedirs):
    raw = load_plan("tiny-quick.json", basedirs)
    raw["scale"] = {"tables": 1, "rows": ROWS}
    raw["benchmarks"] = [{"id": n, "name": n, "group": CATALOGUE[n]["group"], "kind": CATALOGUE[n]["kind"],
                          "script": CATALOGUE[n]["script"], "options": CATALOGUE[n].get("options", {}),
                          "threads": threads} for n, (threads, _) in CHECKS.items()]
    plan = parse_plan(raw)
    out = tmp_path_factory.mktemp("shapes")
    run = Run(plan, out, {side: server.detect_version(plan.sides[side].binary) for side in ("base", "head")})
    run.out.mkdir(parents=True, exist_ok=True)
    run.datadirs.prepare()
    run.fleet.start_all()
    assert not run.journal.errors, run.journal.errors
    yield plan, run, out
    run.fleet.shutdown_all()
    # The datadirs take about a gigabyte; pytest keeps its last temporary folders.
    shutil.rmtree(out / "servers", ignore_errors=True)


def query(srv, sql):
    conn = srv.connect()
    try:
        cur = conn.cursor()
        cur.execute(sql)
        return cur.fetchall()
    finally:
        conn.close()


def handler_counts(srv):
    """Handler_% counters, and `rows_inserted`: rows written into tables. MySQL's Handler_write
    also counts the rows of the internal temporary tables a DISTINCT or ORDER BY fills, which
    would read as inserts into the benchmark's tables: there InnoDB's own Innodb_rows_inserted
    counts them. MariaDB keeps the temporary tables' rows apart (Handler_tmp_write) and has no
    Innodb_rows_inserted."""
    counts = {name: int(value) for name, value in query(srv, "SHOW GLOBAL STATUS LIKE 'Handler\\_%'")}
    innodb = query(srv, "SHOW GLOBAL STATUS LIKE 'Innodb\\_rows\\_inserted'")
    counts["rows_inserted"] = int(innodb[0][1]) if innodb else counts["Handler_write"]
    return counts


def table_rows(srv):
    return query(srv, f"SELECT count(*) FROM {sysbench.DATABASE}.sbtest1")[0][0]


@contextmanager
def general_log(srv, path):
    """The server logs every statement to `path` inside the block."""
    query(srv, f"SET GLOBAL general_log_file = '{path}'")
    query(srv, "SET GLOBAL log_output = 'FILE'")
    query(srv, "SET GLOBAL general_log = ON")
    try:
        yield path
    finally:
        query(srv, "SET GLOBAL general_log = OFF")


def measure(loaded, name):
    """Handler_% counts per sysbench event of one 1-second run of `name`, and the ids its
    executed statements named (from the general log)."""
    plan, run, out = loaded
    bench = next(b for b in plan.benchmarks if b.name == name)
    srv = run.fleet.servers["base"]
    log_path = out / "general.log"
    with general_log(srv, log_path):
        before = handler_counts(srv)
        outcome = sysbench.execute(sysbench.build_command(run.services.workload(bench).invocation(srv, 1)), timeout=60)
        after = handler_counts(srv)
    assert outcome.returncode == 0, outcome.output
    report = sysbench.parse_run_output(outcome.output)
    assert report["errors"] == 0, f"{name}: {report['errors']} ignored errors"
    per_event = {k: (after[k] - before[k]) / report["transactions"] for k in after}
    ids = executed_ids(log_path.read_text(errors="replace"))
    log_path.unlink()
    return per_event, ids


EXECUTED_ID = re.compile(r"\bExecute\b.*?\bWHERE id\s*(?:=\s*(\d+)|IN \(([^)]*)\))")


def executed_ids(log: str) -> list[int]:
    """Ids named by `WHERE id = n` or `WHERE id IN (...)` in the prepared statements executed."""
    ids = []
    for m in EXECUTED_ID.finditer(log):
        if m.group(1):
            ids.append(int(m.group(1)))
        else:
            ids.extend(int(v) for v in m.group(2).split(","))
    return ids


@pytest.mark.parametrize("name", CHECKS)
def test_each_microbenchmark_reads_and_writes_what_its_name_says(loaded, name):
    _, expected = CHECKS[name]
    rows_before = table_rows(loaded[1].fleet.servers["base"])
    counts, ids = measure(loaded, name)
    rows_after = table_rows(loaded[1].fleet.servers["base"])
    for counter, value in expected.items():
        assert abs(counts[counter] / value - 1) <= TOLERANCE, \
            f"{name}: {counter} {counts[counter]:.2f} per event, expected {value:.2f}; all: {counts}"
    for counter in ("Handler_update", "Handler_delete", "rows_inserted"):
        if counter not in expected:
            assert counts[counter] < ABSENT, (name, counter, "should not happen", counts)

    if "-planned" in name:
        # a scan reads ROWS per event; the server's own statements around the run, a fraction
        assert counts["Handler_read_rnd_next"] < 1, f"{name}: a full scan, {counts['Handler_read_rnd_next']:.1f} rows per event"

    if name == "hot-points_range=100":
        hot = set(range(ROWS // 2 + 1, ROWS // 2 + 101))
        assert ids and set(ids) == hot, f"{name}: ids sent {sorted(set(ids))[:20]}…, expected {min(hot)}..{max(hot)}"
    if name == "update-one_range=100":
        assert ids and set(ids) == {1}, f"{name}: updated ids {sorted(set(ids))[:20]}, expected only 1"
    if name == "update-zipf_range=100":
        weights = np.arange(1, ROWS + 1, dtype=float) ** -ZIPF_EXPONENT
        exact = weights[:10].sum() / weights.sum()
        drawn = np.mean(np.array(ids) <= 10)
        # a few thousand updates: the share's standard error is under 0.01; uniform ids give 0.005
        assert len(ids) > 1000 and abs(drawn - exact) < 0.03, \
            f"{name}: ids 1..10 took {drawn:.3f} of {len(ids)} updates, Zipf(s={ZIPF_EXPONENT}) gives {exact:.3f}"
    if name in ("delete_range=100", "write-only_range=10000", "read-write_range=10", "read-write_range=100"):
        assert rows_after == rows_before, f"{name}: the table went from {rows_before} to {rows_after} rows"


def test_every_shape_of_the_full_suite_is_checked():
    """A new shape in full.yml (script and options) needs an entry in CHECKS."""
    checked = [(CATALOGUE[n]["script"], CATALOGUE[n].get("options", {})) for n in CHECKS]
    missing = [n for n in FULL if (CATALOGUE[n]["script"], CATALOGUE[n].get("options", {})) not in checked]
    assert not missing, f"shapes of full.yml with no Handler_% check: {missing}"
