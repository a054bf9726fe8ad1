#!/usr/bin/env python3
"""Instructions per query of every microbenchmark of a plan, base and head, under callgrind.

Each side: a fresh datadir loaded with a fixed seed by a normal server, then the server again
under callgrind; per microbenchmark one uninstrumented warm-up of the window's own events, then
`--windows` counted windows (fixed events, fixed seed, one sysbench thread). Both sides run at
the same time (Valgrind runs one thread of a process at a time, so one side fills one core).

  node bench/instructions-plan.js <base> <head> plan.json
  python3 bench/instructions.py --plan plan.json --out /tmp/instr [--windows 3] [--json out.json]
  python3 bench/instructions.py --plan plan.json --out /tmp/instr --calibrate   # first events

Prints one row per microbenchmark and side (connection and background instructions per query,
spread over windows) and the wall time of each phase; --json writes the raw windows.
"""
import argparse
import dataclasses
import json
import math
import re
import shutil
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "harness"))

from perfgate_harness import callgrind, counted_malloc, server, sysbench  # noqa: E402
from perfgate_harness.plan import load_plan  # noqa: E402
from perfgate_harness.sysbench_workload import run_events  # noqa: E402

EVENTS_FILE = REPO / "bench" / "instructions-events.json"
SEED = 1
CALIBRATION_EVENTS = (5, 15)


def load_data(srv: server.Server, plan, seed: int, log: Path) -> None:
    conn = srv.connect()
    try:
        conn.cursor().execute(f"CREATE DATABASE IF NOT EXISTS {sysbench.DATABASE}")
    finally:
        conn.close()
    inv = sysbench.Invocation(script_path=sysbench.resolve_script("oltp_point_select"), socket=srv.layout.socket,
                              tables=plan.tables, rows=plan.rows, threads=min(plan.tables, 4), command="prepare",
                              rand_seed=seed)
    outcome = sysbench.execute(sysbench.build_command(inv), timeout=3600, log_path=log)
    if outcome.returncode != 0:
        raise RuntimeError(f"{srv.side}: sysbench prepare failed: {sysbench.failure_reason(outcome.output)}")
    conn = srv.connect(database=sysbench.DATABASE)
    try:
        cur = conn.cursor()
        for t in range(1, plan.tables + 1):
            cur.execute(f"ANALYZE TABLE sbtest{t}")
            cur.fetchall()
    finally:
        conn.close()


def invocation(plan, bench, srv, events: int, seed: int) -> sysbench.Invocation:
    return sysbench.Invocation(script_path=bench.script_path, socket=srv.layout.socket, tables=plan.tables,
                               rows=plan.rows, threads=1, options=bench.options, events=events, rand_seed=seed)


def load_side(plan, side: str, out: Path) -> float:
    """A fresh datadir of `side`, loaded by its own server (normal, not under Valgrind)."""
    spec = plan.sides[side]
    flavor, version = server.detect_version(spec.binary)
    layout = server.layout_for(out, side)
    started = time.monotonic()
    srv = server.Server(side, spec.basedir, spec.binary, flavor, version, layout, plan.profile_options)
    server.clean_stale_files(layout)
    srv.initialize()
    srv.start()
    try:
        load_data(srv, plan, SEED, layout.dir / "sysbench.log")
    finally:
        problem = srv.shutdown()
    if problem:
        raise RuntimeError(problem)
    return time.monotonic() - started


def copy_datadir(plan, source: str, target: str, out: Path) -> float:
    """sysbench 1.0.20's prepare ignores --rand-seed, so two loads differ (k values, strings) and
    so do their instruction counts (0.8% on range-notcovered-si, 6% on update-index, measured):
    both sides start from one load."""
    started = time.monotonic()
    src, dst = server.layout_for(out, source), server.layout_for(out, target)
    if dst.datadir.exists():
        shutil.rmtree(dst.datadir)
    dst.dir.mkdir(parents=True, exist_ok=True)
    shutil.copytree(src.datadir, dst.datadir, symlinks=True)
    return time.monotonic() - started


def run_side(plan, side: str, out: Path, events: dict, windows: int, calibrate: bool, top: int,
             timings: dict) -> dict:
    spec = plan.sides[side]
    flavor, version = server.detect_version(spec.binary)
    layout = server.layout_for(out, side)
    log = layout.dir / "sysbench.log"
    started = time.monotonic()
    cg_dir = layout.dir / "callgrind"
    cg_dir.mkdir(parents=True, exist_ok=True)
    vsrv = server.Server(side, spec.basedir, spec.binary, flavor, version, layout,
                         callgrind.server_options(plan.profile_options),
                         wrapper=callgrind.valgrind_wrapper(cg_dir, counted_malloc.locate()))
    t = time.monotonic()
    vsrv.start(timeout=600)
    timings["start_under_valgrind"] = time.monotonic() - t
    control = callgrind.Control(vsrv.pid, cg_dir)
    results = {}
    timings["warmups"] = timings["windows"] = 0.0
    try:
        for bench in plan.benchmarks:
            if calibrate:
                results[bench.id] = calibrate_one(plan, bench, vsrv, control, log)
                print(f"{side} {bench.id}: {results[bench.id]}", flush=True)
                continue
            inv = invocation(plan, bench, vsrv, events[bench.id], SEED)
            t = time.monotonic()
            top_n = {"connection": top, "background": top // 6}
            record = callgrind.measure_benchmark(control, lambda: run_events(inv, log), inv.events, vsrv.connect, bench.id,
                                                 windows, top_n)
            results[bench.id] = record
            timings["warmups"] += record["warmup_seconds"]
            timings["windows"] += time.monotonic() - t - record["warmup_seconds"]
            records = record["windows"]
            print(f"{side} {bench.id}: " + " ".join(
                f"{w['connection']['per_query']:.0f}/{w['background']['per_query']:.0f}" for w in records)
                + f"  ({record['warmup_seconds']:.1f}s warm-up, {sum(w['seconds'] for w in records):.1f}s "
                f"windows, {sum(w['drain_seconds'] for w in records):.1f}s purge)", flush=True)
    finally:
        t = time.monotonic()
        problem = vsrv.shutdown(timeout=300)
        timings["shutdown"] = time.monotonic() - t
        timings["vgdb"] = control.seconds
        clean = callgrind.final_dump_written(cg_dir, vsrv.pid)
        callgrind.remove_files(cg_dir, vsrv.pid)
    if problem or not clean:
        raise RuntimeError(problem or f"{side}: callgrind wrote no final dump: valgrind did not exit cleanly")
    timings["measure"] = time.monotonic() - started
    return {"version": version, "basedir": str(spec.basedir),
            "timings": {k: round(v, 1) for k, v in timings.items()}, "benchmarks": results}


def calibrate_one(plan, bench, srv, control, log) -> dict:
    """Per-event connection instructions from two windows of different lengths (the difference
    cancels what every window pays once: connecting, preparing statements)."""
    small, large = CALIBRATION_EVENTS
    warmup = invocation(plan, bench, srv, large, SEED)
    callgrind.warm_up(lambda: run_events(warmup, log), srv.connect)
    counts = {}
    for n in (small, large):
        inv = invocation(plan, bench, srv, n, SEED)
        record, _ = callgrind.measure_window(control, lambda: run_events(inv, log), n,
                                             callgrind.window_description(bench.id, f"cal{n}"), srv.connect)
        counts[n] = record
    per_event = (counts[large]["connection"]["instructions"] - counts[small]["connection"]["instructions"]) / (large - small)
    fixed = counts[small]["connection"]["instructions"] - small * per_event
    queries_per_event = counts[large]["queries"] / large
    return {"per_event": round(per_event), "per_window": round(fixed), "queries_per_event": queries_per_event,
            "background_per_event": round((counts[large]["background"]["instructions"]
                                           - counts[small]["background"]["instructions"]) / (large - small)),
            "seconds_per_event": round(counts[large]["seconds"] / large, 4)}


def proposed_events(benchmarks: dict, target: float) -> dict:
    """Events per window for `target` connection instructions, from the windows of a measured
    side. Short calibration windows on fresh data overstate writes (a freshly built index splits
    pages: update-index costs 650k instructions an event in 5-15 events, 305-330k in 300), so the
    sizes come from full windows."""
    proposal = {}
    for bid, record in benchmarks.items():
        windows = record["windows"]
        per_event = sum(w["connection"]["instructions"] for w in windows) / sum(w["events"] for w in windows)
        proposal[bid] = callgrind.events_for(per_event, target)
    return proposal


def spread(values: list[float]) -> dict:
    logs = [math.log(v) for v in values if v > 0]
    return {"min": min(values), "max": max(values), "range_pct": round(100 * (max(values) / min(values) - 1), 2),
            "sd_log": round(statistics.stdev(logs), 5) if len(logs) > 1 else None}


def summary(report: dict) -> list[str]:
    lines = [f"{'benchmark':32} {'side':5} {'conn instr/o (windows)':44} {'range':>7} {'sd(log)':>8} "
             f"{'bg instr/o range':>22}"]
    bench_ids = list(report["sides"]["base"]["benchmarks"])
    for bid in bench_ids:
        means = {}
        for side in ("base", "head"):
            windows = report["sides"][side]["benchmarks"][bid]["windows"]
            conn = [w["connection"]["per_query"] for w in windows]
            bg = [w["background"]["per_query"] for w in windows]
            s = spread(conn)
            means[side] = math.exp(statistics.mean(math.log(v) for v in conn))
            lines.append(f"{bid:32} {side:5} {' '.join(f'{v:.0f}' for v in conn):44} {s['range_pct']:6.2f}% "
                         f"{s['sd_log'] if s['sd_log'] is not None else '-':>8} {min(bg):>10.0f}-{max(bg):<10.0f}")
        paired = [h["connection"]["per_query"] / b["connection"]["per_query"] for b, h in
                  zip(report["sides"]["base"]["benchmarks"][bid]["windows"],
                      report["sides"]["head"]["benchmarks"][bid]["windows"])]
        lines.append(f"{'':32} head/base {means['head'] / means['base']:.4f} (paired windows "
                     f"{min(paired):.4f}-{max(paired):.4f})")
    for side in ("base", "head"):
        lines.append(f"{side} timings (s): {report['sides'][side]['timings']}")
    lines.append(f"wall time of the whole run: {report['seconds']:.0f} s")
    return lines


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--plan", required=True, help="plan.json (bench/instructions-plan.js writes one)")
    p.add_argument("--out", required=True, help="folder for datadirs and logs")
    p.add_argument("--windows", type=int, default=3, help="counted windows per microbenchmark and side")
    p.add_argument("--events", default=str(EVENTS_FILE), help="JSON: events per window per microbenchmark")
    p.add_argument("--scale", help="TABLESxROWS instead of the plan's scale, e.g. 2x5000")
    p.add_argument("--only", help="comma-separated microbenchmark ids to measure")
    p.add_argument("--top", type=int, default=300, help="functions kept per side (connection threads)")
    p.add_argument("--calibrate", action="store_true", help="measure per-event costs on base and propose events")
    p.add_argument("--target", type=float, default=100e6,
                   help="connection instructions per window, for the proposed events")
    p.add_argument("--load", choices=("shared", "per-side"), default="shared",
                   help="load the data once and copy it to head (default), or load each side itself")
    p.add_argument("--json", help="write the raw report here")
    args = p.parse_args(argv)

    reason = callgrind.unavailable_reason()
    if reason:
        print(reason, file=sys.stderr)
        return 2
    plan = load_plan(args.plan)
    if args.scale:
        m = re.match(r"^(\d+)x(\d+)$", args.scale)
        if not m:
            print(f"--scale: {args.scale!r}; expected TABLESxROWS such as 8x10000", file=sys.stderr)
            return 2
        plan = dataclasses.replace(plan, tables=int(m.group(1)), rows=int(m.group(2)))
    if args.only:
        wanted = args.only.split(",")
        unknown = [w for w in wanted if w not in {b.id for b in plan.benchmarks}]
        if unknown:
            print(f"--only: {unknown[0]!r} is not in the plan", file=sys.stderr)
            return 2
        plan = dataclasses.replace(plan, benchmarks=[b for b in plan.benchmarks if b.id in wanted])
    events = {}
    if not args.calibrate:
        events = json.loads(Path(args.events).read_text())["events"]
        missing = [b.id for b in plan.benchmarks if b.id not in events]
        if missing:
            print(f"{args.events}: no events for {missing[0]!r}", file=sys.stderr)
            return 2
    out = Path(args.out).resolve()
    started = time.monotonic()
    sides = ("base",) if args.calibrate else ("base", "head")
    timings = {side: {} for side in sides}
    if args.load == "shared":
        timings["base"]["load"] = load_side(plan, "base", out)
        for side in sides[1:]:
            timings[side]["copy"] = copy_datadir(plan, "base", side, out)
    else:
        with ThreadPoolExecutor(max_workers=2) as pool:
            for side, seconds in zip(sides, pool.map(lambda s: load_side(plan, s, out), sides)):
                timings[side]["load"] = seconds
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {side: pool.submit(run_side, plan, side, out, events, args.windows, args.calibrate, args.top,
                                     timings[side]) for side in sides}
        results = {side: f.result() for side, f in futures.items()}
    report = {"scale": {"tables": plan.tables, "rows": plan.rows}, "windows": args.windows, "seed": SEED,
              "load": args.load,
              "events": events, "sides": results, "seconds": round(time.monotonic() - started, 1)}
    if args.calibrate:
        proposed = {bid: callgrind.events_for(c["per_event"], args.target)
                    for bid, c in results["base"]["benchmarks"].items()}
        report["proposed_events"] = proposed
        print(json.dumps(report, indent=1))
    else:
        report["proposed_events"] = proposed_events(results["base"]["benchmarks"], args.target)
        print("\n".join(summary(report)))
        print(f"events per window for {args.target:.0f} connection instructions: {report['proposed_events']}")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
