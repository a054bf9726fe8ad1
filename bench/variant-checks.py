#!/usr/bin/env python3
"""Checks by hand that a regression variant of bench/variants.py does what it claims: a quick
measurement of the very effect (a counter, a plan, memory, a DDL statement's time, QPS), base
against the variant, not a perfgate verdict. Prints the figures; docs/measurements.md keeps them
("Regression variants of the end-to-end fork").

Builds base and the variant's tagged commit of the end-to-end fork on the build cache (perfgate
build; a built commit is reused), starts fresh servers of each with the profile's options
(thresholds/profiles/mariadb.cnf) under <out>, loads sysbench tables, measures, and stops them.
Timed checks hold /tmp/perfgate-measure.lock while they measure, and take turns between the
servers round by round (A B, B A, ...): QPS figures are ratios of one run.

Usage: python3 bench/variant-checks.py <variant> [--out runs/variant-checks] [--rounds N]
       python3 bench/variant-checks.py --list
"""
import argparse
import contextlib
import fcntl
import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "harness"))

from perfgate_harness import ddl_workload, procstat, server, sysbench  # noqa: E402
from variants import VARIANTS, variant_commits, variant_tag  # noqa: E402 (bench/ is the script's folder)

PERFGATE = ["node", str(REPO / "cli" / "bin" / "perfgate.js")]
PROFILE = REPO / "thresholds" / "profiles" / "mariadb.cnf"
MEASURE_LOCK = "/tmp/perfgate-measure.lock"


def say(text):
    print(text, flush=True)


def profile_options():
    """The profile's [mysqld] options, read by perfgate's own parser."""
    script = ("const fs = require('fs'); const { parseCnf } = require(process.argv[1]);"
              "process.stdout.write(JSON.stringify(parseCnf(fs.readFileSync(process.argv[2], 'utf8'), process.argv[2]).options))")
    r = subprocess.run(["node", "-e", script, str(REPO / "core" / "src" / "config" / "server-profile.js"), str(PROFILE)],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


@contextlib.contextmanager
def measure_lock():
    """The machine-wide lock of timed measurements (the same file `flock` takes)."""
    with open(MEASURE_LOCK, "a") as f:
        waited = time.monotonic()
        fcntl.flock(f, fcntl.LOCK_EX)
        say(f"  (measure lock held after {time.monotonic() - waited:.0f} s of waiting)")
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def ratio_summary(head, base):
    """The paired ratios head/base (round k of one side against round k of the other): their
    median, which one round disturbed by the rest of the machine does not move, their geometric
    mean, smallest and largest."""
    ratios = [h / b for h, b in zip(head, base)]
    return {"ratio": statistics.median(ratios), "geomean": math.exp(statistics.mean(math.log(r) for r in ratios)),
            "min": min(ratios), "max": max(ratios)}


class Lab:
    """The fork, its builds and the servers one check starts; stops every server it started."""

    def __init__(self, out):
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.fork = subprocess.run(["bash", str(REPO / "test" / "e2e" / "fetch-mariadb-source.sh")], check=True,
                                   capture_output=True, text=True).stdout.strip()
        self.options = profile_options()
        self.servers = []

    def build(self, ref):
        r = subprocess.run([*PERFGATE, "build", "--source", self.fork, "--ref", ref, "--json"], capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"variant-checks: perfgate build --ref {ref} exited {r.returncode}: {r.stderr[-2000:]}")
        prefix = Path(json.loads(r.stdout)["prefix"])
        # The build that made the cache entry, not this call (a cache hit takes no time).
        made = json.loads((prefix.parent / "build.json").read_text())
        say(f"  {ref}: {prefix} (built in {made['seconds']:.0f} s from a {made['tree']} tree)")
        return prefix

    def start(self, side, prefix, **extra):
        binary = server.find_server_binary(prefix)
        flavor, version = server.detect_version(binary)
        layout = server.layout_for(self.out, side)
        srv = server.Server(side, prefix, binary, flavor, version, layout, {**self.options, **extra})
        srv.initialize()
        srv.start()
        self.servers.append(srv)
        return srv

    def close(self):
        for srv in self.servers:
            problem = srv.shutdown()
            if problem:
                say(f"  {problem}")

    def load(self, srv, tables, rows):
        with contextlib.closing(srv.connect()) as conn:
            conn.cursor().execute(f"CREATE DATABASE IF NOT EXISTS {sysbench.DATABASE}")
        self.run(srv, "oltp_point_select", tables, rows, threads=min(tables, 4), command="prepare")
        with contextlib.closing(srv.connect(database=sysbench.DATABASE)) as conn:
            for t in range(1, tables + 1):
                cur = conn.cursor()
                cur.execute(f"ANALYZE TABLE sbtest{t}")
                cur.fetchall()

    def run(self, srv, script, tables, rows, threads=1, seconds=0, events=0, command="run", **options):
        inv = sysbench.Invocation(script_path=sysbench.resolve_script(script), socket=srv.layout.socket, tables=tables,
                                  rows=rows, threads=threads, seconds=seconds, events=events, command=command,
                                  options=options)
        outcome = sysbench.execute(sysbench.build_command(inv), timeout=3600, log_path=self.out / "sysbench.log")
        if outcome.returncode != 0:
            raise SystemExit(f"variant-checks: {srv.side}: sysbench {script} {command} failed: "
                             f"{sysbench.failure_reason(outcome.output)}")
        return sysbench.parse_run_output(outcome.output) if command == "run" else None

    @staticmethod
    def query(srv, sql, database=sysbench.DATABASE):
        with contextlib.closing(srv.connect(database=database)) as conn:
            cur = conn.cursor()
            cur.execute(sql)
            return cur.fetchall()

    def status(self, srv):
        return {k: int(v) for k, v in self.query(srv, "SHOW GLOBAL STATUS") if str(v).isdigit()}

    @staticmethod
    def rss_kib(srv):
        for line in Path(f"/proc/{srv.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise SystemExit(f"variant-checks: no VmRSS in /proc/{srv.pid}/status")

    def qps_rounds(self, sides, rounds, run):
        """QPS and mysqld CPU microseconds per query of `run(srv)` per side, the sides taking
        turns (the order reversed every round)."""
        qps = {srv.side: [] for srv in sides}
        cpu = {srv.side: [] for srv in sides}
        for k in range(rounds):
            for srv in sides if k % 2 == 0 else list(reversed(sides)):
                before = procstat.sample(srv.pid)
                result = run(srv)
                after = procstat.sample(srv.pid)
                qps[srv.side].append(result["qps"])
                cpu[srv.side].append(procstat.per_query(before, after, result["queries"])[0])
        return qps, cpu


def print_ratios(label, figures, what, base="base"):
    for side, values in figures.items():
        line = f"  {label} {side}: {what} median {statistics.median(values):.2f} over {len(values)} rounds"
        if side != base:
            s = ratio_summary(values, figures[base])
            line += (f"; {side}/{base} median of pairs {s['ratio']:.3f}, geometric mean {s['geomean']:.3f} "
                     f"(pairs {s['min']:.3f}-{s['max']:.3f})")
        say(line)


def print_qps(label, measured):
    qps, cpu = measured
    print_ratios(label, qps, "QPS")
    print_ratios(label, cpu, "mysqld CPU us/query")


def per(delta, count):
    return delta / count if count else float("nan")


def check_fsync_commit(lab, base, head, rounds):
    """Redo-log fsyncs per commit (Innodb_data_fsyncs counts the log's and the data files'),
    over autocommit updates and point selects, then update QPS."""
    sides = [lab.start("base", base), lab.start("variant", head)]
    for srv in sides:
        lab.load(srv, 1, 10000)
    for script, events in (("oltp_update_non_index", 2000), ("oltp_point_select", 2000)):
        for srv in sides:
            before = lab.status(srv)
            lab.run(srv, script, 1, 10000, events=events)
            after = lab.status(srv)
            d = {k: after.get(k, 0) - before.get(k, 0) for k in ("Innodb_data_fsyncs", "Handler_commit", "Questions")}
            say(f"  {script} {srv.side}: {events} statements, Innodb_data_fsyncs per statement "
                f"{per(d['Innodb_data_fsyncs'], events):.3f} (Handler_commit {d['Handler_commit']})")
    with measure_lock():
        qps = lab.qps_rounds(sides, rounds, lambda srv: lab.run(srv, "oltp_update_non_index", 1, 10000, seconds=5))
    print_qps("oltp_update_non_index 1 thread", qps)


def qps_by_threads(lab, base, head, rounds, tables, script, thread_counts, label, **options):
    """QPS of one script on both sides at each client thread count, in turns, lock held."""
    sides = [lab.start("base", base), lab.start("variant", head)]
    for srv in sides:
        lab.load(srv, tables, 10000)
    with measure_lock():
        for threads in thread_counts:
            qps = lab.qps_rounds(sides, rounds, lambda srv: lab.run(srv, script, tables, 10000,
                                                                         threads=threads, seconds=5, **options))
            print_qps(label(threads), qps)


def check_lock_sleep(lab, base, head, rounds):
    qps_by_threads(lab, base, head, rounds, 4, "oltp_point_select", (1, 8), lambda n: f"oltp_point_select {n} thread(s)")


RANGE_QUERY = "SELECT c FROM sbtest1 {hint}WHERE k BETWEEN 4000 AND 4100"


def first_table(node):
    """The first "table" object of an EXPLAIN FORMAT=JSON document (MariaDB nests it in
    nested_loop, or not, depending on the plan)."""
    if isinstance(node, dict):
        if "table" in node:
            return node["table"]
        children = node.values()
    elif isinstance(node, list):
        children = node
    else:
        return None
    return next((t for t in map(first_table, children) if t is not None), None)


def check_plan_fullscan(lab, base, head, rounds):
    sides = [lab.start("base", base), lab.start("variant", head)]
    for srv in sides:
        lab.load(srv, 1, 10000)
        for hint in ("", "FORCE INDEX (k_1) "):
            sql = RANGE_QUERY.format(hint=hint)
            plan = first_table(json.loads(lab.query(srv, f"EXPLAIN FORMAT=JSON {sql}")[0][0]))
            before = lab.status(srv)
            for _ in range(100):
                lab.query(srv, sql)
            after = lab.status(srv)
            read = {k: (after.get(k, 0) - before.get(k, 0)) / 100 for k in ("Handler_read_rnd_next", "Handler_read_next")}
            say(f"  {srv.side}: {sql}: access_type {plan['access_type']}, key {plan.get('key')}, rows {plan.get('rows')}; "
                f"per query Handler_read_rnd_next {read['Handler_read_rnd_next']:.0f}, Handler_read_next {read['Handler_read_next']:.0f}")


def check_leak_statement(lab, base, head, rounds):
    sides = [lab.start("base", base), lab.start("variant", head)]
    for srv in sides:
        lab.load(srv, 1, 10000)
        lab.run(srv, "oltp_point_select", 1, 10000, events=5000)  # warm: caches and buffers settle first
        samples = [lab.rss_kib(srv)]
        for _ in range(rounds):
            lab.run(srv, "oltp_point_select", 1, 10000, events=25000)
            samples.append(lab.rss_kib(srv))
        steps = [b - a for a, b in zip(samples, samples[1:])]
        say(f"  {srv.side}: VmRSS {' -> '.join(f'{s / 1024:.1f}' for s in samples)} MiB, per 25k point selects "
            f"+{', +'.join(f'{s / 1024:.1f}' for s in steps)} MiB: {per(samples[-1] - samples[1], 25000 * (rounds - 1)) * 1024:.0f} "
            f"bytes per statement after the first step")


def check_default_sort_buffer(lab, base, head, rounds):
    options = {"range_size": 10000}
    sides = [lab.start("base", base), lab.start("variant", head)]
    base_value = lab.query(sides[0], "SELECT @@GLOBAL.sort_buffer_size", database=None)[0][0]
    sides.append(lab.start("variant+base-value", head, sort_buffer_size=base_value))
    for srv in sides:
        lab.load(srv, 4, 10000)
        value = lab.query(srv, "SHOW GLOBAL VARIABLES LIKE 'sort_buffer_size'")[0][1]
        before = lab.status(srv)
        result = lab.run(srv, "oltp_read_only", 4, 10000, events=200, **options)
        after = lab.status(srv)
        sorts = {k: after.get(k, 0) - before.get(k, 0) for k in ("Sort_merge_passes", "Sort_range", "Sort_rows")}
        say(f"  {srv.side}: sort_buffer_size {value}; per query: Sort_merge_passes {per(sorts['Sort_merge_passes'], result['queries']):.3f}, "
            f"sorts {per(sorts['Sort_range'], result['queries']):.3f}, rows sorted {per(sorts['Sort_rows'], result['queries']):.0f}")
    with measure_lock():
        qps = lab.qps_rounds(sides, rounds, lambda srv: lab.run(srv, "oltp_read_only", 4, 10000, seconds=5, **options))
    print_qps("oltp_read_only --range_size=10000 1 thread", qps)


# The table of MySQL bug 116738 (DDL slower), its rows generated in one statement
# from fixed seeds with the report's distributions (its FROM_UNIXTIME of dates before 1970 is
# NULL in MariaDB: whole days from the same first dates instead), and the report's UPDATE.
EMPLOYEES = ddl_workload.TABLE_SQL
EMPLOYEE_ROWS = """INSERT INTO employees SELECT NULL,
    ROUND((RAND(1) * (100000-1000)) + 1000),
    '1949-10-01' + INTERVAL FLOOR(RAND(2) * DATEDIFF('1999-10-01', '1949-10-01')) DAY,
    LEFT(MD5(RAND(3)), 8), LEFT(MD5(RAND(4)), 7), 'M',
    '1998-10-01' + INTERVAL FLOOR(RAND(5) * DATEDIFF('2023-10-01', '1998-10-01')) DAY
    FROM seq_1_to_{rows}"""
ADD_INDEX = "ALTER TABLE employees ADD INDEX idx_name (last_name, first_name)"


def check_ddl_slow_index(lab, base, head, rounds, rows=200000):
    sides = [lab.start("base", base), lab.start("variant", head)]
    for srv in sides:
        lab.query(srv, "CREATE DATABASE ddl", database=None)
        for sql in (EMPLOYEES, EMPLOYEE_ROWS.format(rows=rows), "UPDATE employees SET gender='F' WHERE salary%2 = 0"):
            lab.query(srv, sql, database="ddl")
    wall = {srv.side: [] for srv in sides}
    cpu = {srv.side: [] for srv in sides}
    with measure_lock():
        for k in range(rounds):
            for srv in sides if k % 2 == 0 else list(reversed(sides)):
                before, start = procstat.sample(srv.pid), time.monotonic()
                lab.query(srv, ADD_INDEX, database="ddl")
                wall[srv.side].append(time.monotonic() - start)
                cpu[srv.side].append(procstat.sample(srv.pid).cpu_seconds - before.cpu_seconds)
                lab.query(srv, "ALTER TABLE employees DROP INDEX idx_name", database="ddl")
    for side in wall:
        say(f"  {ADD_INDEX} ({rows} rows) {side}: wall {', '.join(f'{s:.2f}' for s in wall[side])} s; "
            f"mysqld CPU {', '.join(f'{s:.2f}' for s in cpu[side])} s")
    for what, figures in (("wall", wall), ("mysqld CPU", cpu)):
        s = ratio_summary(figures["variant"], figures["base"])
        say(f"  {what} time variant/base: median of pairs {s['ratio']:.3f}, geometric mean {s['geomean']:.3f} "
            f"(pairs {s['min']:.3f}-{s['max']:.3f})")


def check_spin_longer(lab, base, head, rounds):
    """One hot row (perfgate_update_skewed --ids=one, one table): at 16 client threads the
    latches of that row's page are contended, at 1 thread they are not."""
    qps_by_threads(lab, base, head, rounds, 1, "perfgate_update_skewed", (16, 1),
                   lambda n: f"update of one hot row, {n} thread(s)", ids="one")


CHECKS = {
    "fsync-commit": check_fsync_commit,
    "lock-sleep": check_lock_sleep,
    "plan-fullscan": check_plan_fullscan,
    "leak-statement": check_leak_statement,
    "default-sort-buffer": check_default_sort_buffer,
    "ddl-slow-index": check_ddl_slow_index,
    "spin-longer": check_spin_longer,
}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("variant", nargs="?", help=f"one of: {', '.join(CHECKS)}")
    p.add_argument("--list", action="store_true", help="the variants with a check, and why each slows what it slows")
    p.add_argument("--out", default=str(REPO / "runs" / "variant-checks"))
    p.add_argument("--rounds", type=int, default=6, help="rounds per side of a timed check (default 6)")
    a = p.parse_args()
    if a.list:
        for name in CHECKS:
            say(f"{name}: {VARIANTS[name].why}")
        return
    if a.variant not in CHECKS:
        p.error(f"variant {a.variant!r}: expected one of {', '.join(CHECKS)} (instruction variants: "
                f"perfgate compare --metric instructions)")
    if a.rounds < 2:
        p.error(f"--rounds {a.rounds}: expected at least 2")
    lab = Lab(Path(a.out) / a.variant)
    try:
        variant_commits(lab.fork, [a.variant])
        tag = variant_tag(a.variant)
        say(f"{a.variant} ({tag}): {VARIANTS[a.variant].why}")
        base, head = lab.build("base"), lab.build(tag)
        CHECKS[a.variant](lab, base, head, a.rounds)
    finally:
        lab.close()


if __name__ == "__main__":
    main()
