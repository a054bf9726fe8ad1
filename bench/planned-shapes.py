#!/usr/bin/env python3
"""The plans of the catalogue's planned rows (names with `-planned`) on one server: each row's
statements captured through the general log as the explanation step captures them
(harness/perfgate_harness/explain_plans.py), EXPLAIN FORMAT=JSON of each, and the time of the
captured statement as sent against the same statement with its k index ignored (the full scan
or join without an index a plan change would bring), the two taking turns. Prints the figures;
docs/measurements.md keeps them ("Statements the optimizer plans").

Starts a fresh server of <prefix> with the profile's options (thresholds/profiles/mariadb.cnf),
loads the quick suite's scale (8 tables of 10,000 rows), and holds /tmp/perfgate-measure.lock
while it times.

Usage: python3 bench/planned-shapes.py --prefix <server prefix> [--out runs/planned-shapes] [--runs N]
"""
import argparse
import contextlib
import importlib.util
import json
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "harness"))

from perfgate_harness import explain_plans, sysbench  # noqa: E402

# bench/variant-checks.py's server lab and measure lock: one way to start, load and lock
_spec = importlib.util.spec_from_file_location("variant_checks", REPO / "bench" / "variant-checks.py")
vc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(vc)

TABLES, ROWS = 8, 10000


class ServerLab(vc.Lab):
    """variant-checks' lab without the fork: servers of installed prefixes."""

    def __init__(self, out):
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.options = vc.profile_options()
        self.servers = []


def planned_rows():
    """The catalogue entries of the planned rows, as the config loader reads them."""
    script = ("const { loadThresholds } = require(process.argv[1]); const c = loadThresholds();"
              "process.stdout.write(JSON.stringify(Object.values(c.catalogue).filter((e) => e.name.includes('-planned'))))")
    r = subprocess.run(["node", "-e", script, str(REPO / "core" / "src" / "config" / "thresholds.js")],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def without_k(sql):
    """The statement with every table's k index ignored."""
    return re.sub(r"\bsbtest(\d+)( [ab])?(?= )", lambda m: f"sbtest{m.group(1)}{m.group(2) or ''} IGNORE INDEX (k_{m.group(1)})", sql)


def read_plan(doc):
    """core/src/explain/plans.js's reading of one plan, the explanation step's own: its table
    accesses and operations."""
    script = ("const { readPlan } = require(process.argv[1]); let s = ''; process.stdin.on('data', (d) => { s += d; });"
              "process.stdin.on('end', () => process.stdout.write(JSON.stringify(readPlan(JSON.parse(s)))))")
    r = subprocess.run(["node", "-e", script, str(REPO / "core" / "src" / "explain" / "plans.js")], input=doc,
                       capture_output=True, text=True, check=True)
    plan = json.loads(r.stdout)
    tables = ", ".join(f"{t['table']} {t['access_type']} {t['key'] or '-'} rows {t['rows']}" for t in plan["tables"])
    return f"{tables}{'; ' + ', '.join(plan['operations']) if plan['operations'] else ''}"


def seconds_per_statement(srv, sql, runs):
    with contextlib.closing(srv.connect(database=sysbench.DATABASE)) as conn:
        cur = conn.cursor()
        start = time.perf_counter()
        for _ in range(runs):
            cur.execute(sql)
            cur.fetchall()
        return (time.perf_counter() - start) / runs


def turns(srv, sqls, rounds, runs):
    """Seconds per statement of each of `sqls`, the best of `rounds` turns (order reversed every turn)."""
    best = [float("inf")] * len(sqls)
    for k in range(rounds):
        order = range(len(sqls)) if k % 2 == 0 else reversed(range(len(sqls)))
        for i in order:
            best[i] = min(best[i], seconds_per_statement(srv, sqls[i], runs))
    return best


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--prefix", required=True, help="installed server prefix (bin/ or sbin/ and share/)")
    p.add_argument("--out", default=str(REPO / "runs" / "planned-shapes"))
    p.add_argument("--runs", type=int, default=200, help="executions of each statement per turn (default 200)")
    a = p.parse_args()
    if a.runs < 1:
        p.error(f"--runs {a.runs}: expected at least 1")
    lab = ServerLab(a.out)
    try:
        srv = lab.start("base", Path(a.prefix))
        vc.say(f"server: {srv.flavor} {srv.version}, {TABLES} tables x {ROWS} rows, {a.runs} statements per turn, best of 3 turns")
        lab.load(srv, TABLES, ROWS)
        for row in planned_rows():
            def run_events(events, row=row):
                lab.run(srv, row["script"], TABLES, ROWS, events=events, **row["options"])
            found = explain_plans.capture(lambda: srv.connect(database=sysbench.DATABASE), run_events, 20,
                                          (lab.out / "general.log").resolve())
            vc.say(f"{row['name']}: {len(found)} shape(s) captured")
            for shape in found:
                ignored = without_k(shape["sql"])
                vc.say(f"  shape: {shape['shape']}")
                vc.say(f"  plan as sent: {read_plan(lab.query(srv, 'EXPLAIN FORMAT=JSON ' + shape['sql'])[0][0])}")
                vc.say(f"  plan with k ignored: {read_plan(lab.query(srv, 'EXPLAIN FORMAT=JSON ' + ignored)[0][0])}")
                with vc.measure_lock():
                    sent, slow = turns(srv, [shape["sql"], ignored], 3, a.runs)
                vc.say(f"  us per statement as sent {sent * 1e6:.0f}, k ignored {slow * 1e6:.0f}: "
                       f"rQPS of the slower plan {sent / slow:.3f}")
    finally:
        lab.close()


if __name__ == "__main__":
    main()
