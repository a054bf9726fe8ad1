"""The custom Lua scripts send the SQL shapes their names promise: a 'range=100' reads about 100
rows, an IN list of 1000 values looks up 1000 keys, a scan reads the whole table. Measured with
the server's own Handler_% counters around one short sysbench run of each script."""
import json

import pytest

from perfgate_harness import server, sysbench
from perfgate_harness.plan import parse_plan
from perfgate_harness.runner import Run

from conftest import REPO, load_plan

ROWS = 2000
CATALOGUE = ["random-points_range=1000", "points-covered-pk_range=100", "points-notcovered-si_range=100",
             "range-covered-pk_range=100", "range-notcovered-si_range=100", "scan_range=100",
             "update-inlist_range=100"]


@pytest.fixture(scope="module")
def loaded(tmp_path_factory, basedirs):
    import yaml
    catalogue = yaml.safe_load((REPO / "thresholds" / "benchmarks.yml").read_text())["benchmarks"]
    raw = load_plan("tiny-quick.json", basedirs)
    raw["scale"] = {"tables": 1, "rows": ROWS}
    raw["benchmarks"] = [{"id": n, "name": n, "group": catalogue[n]["group"], "kind": catalogue[n]["kind"],
                          "script": catalogue[n]["script"], "options": catalogue[n].get("options", {}),
                          "threads": 1} for n in CATALOGUE]
    plan = parse_plan(raw)
    run = Run(plan, tmp_path_factory.mktemp("shapes"))
    run.versions = {side: server.detect_version(plan.sides[side].binary) for side in ("base", "head")}
    run.out.mkdir(parents=True, exist_ok=True)
    run._setup_servers()
    assert not run.errors, run.errors
    yield plan, run
    run._shutdown_all()


def handler_counts(srv):
    conn = srv.connect()
    try:
        cur = conn.cursor()
        cur.execute("SHOW GLOBAL STATUS LIKE 'Handler\\_%'")
        return {name: int(value) for name, value in cur.fetchall()}
    finally:
        conn.close()


def per_query(loaded, name):
    plan, run = loaded
    bench = next(b for b in plan.benchmarks if b.name == name)
    srv = run.servers["base"]
    before = handler_counts(srv)
    outcome = sysbench.execute(sysbench.build_command(run._invocation(bench, "base", 1)), timeout=60)
    assert outcome.returncode == 0, outcome.output
    queries = sysbench.parse_run_output(outcome.output)["queries"]
    after = handler_counts(srv)
    return {k: (after[k] - before[k]) / queries for k in after}


@pytest.mark.parametrize("name, counter, expected", [
    ("random-points_range=1000", "Handler_read_key", 1000),      # one lookup per IN value on k_N
    ("points-covered-pk_range=100", "Handler_read_key", 100),    # one lookup per IN value on PRIMARY
    ("points-notcovered-si_range=100", "Handler_read_key", 100),
    ("range-covered-pk_range=100", "Handler_read_next", 100),    # id BETWEEN ? AND ? + 99
    ("range-notcovered-si_range=100", "Handler_read_next", 100),  # k BETWEEN: ~100 rows with uniform k
    ("scan_range=100", "Handler_read_rnd_next", ROWS),            # every row of the table
    ("update-inlist_range=100", "Handler_update", 100),
])
def test_each_script_reads_what_its_name_says(loaded, name, counter, expected):
    counts = per_query(loaded, name)
    assert 0.6 * expected <= counts[counter] <= 1.5 * expected, (name, counter, counts)
