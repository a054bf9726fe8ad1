#!/usr/bin/env python3
"""Whether the confirming rounds run the builds in reversed places, measured on real servers.

An installed server compared with itself (A/A), time only, with a suite whose limits fail every
row (rQPS below 1.5 is a fail), so that every row gets its confirming rounds on fresh servers,
which `perfgate compare` runs in reversed places (core/src/places.js): the head build in the
base's place and the base build in the head's. A cost that goes with a place shows as head/base
below 1 on the first servers and above 1 on the confirming ones; a cost that went with the
build, or no cost, shows the same on both.

Prints per row: runs, and for the first servers, the confirming servers and all pairs pooled the
geometric mean of the runs' mean head/base and how many runs were below 1, with a paired t-test
of first against confirming per run. Figures and the date go to <out>/summary.json.

Usage: python3 bench/place-bias.py --prefix ~/.cache/perfgate/servers/mariadb-10.11.18/usr
       [--runs 8] [--rounds 12] [--rows update-index_range=100,update-nonindex_range=100]
       [--out runs/place-bias]   (hold /tmp/perfgate-measure.lock while recording figures)
A finished run is kept: run it again with the same --out and it goes on where it stopped.
"""
import argparse
import collections
import datetime
import json
import math
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import yaml
from scipy import stats

REPO = Path(__file__).resolve().parent.parent
PERFGATE = ["node", str(REPO / "cli" / "bin" / "perfgate.js")]


def forcing_thresholds(out: Path, rows: list[str], rounds: int) -> Path:
    """thresholds/ with a suite `placecheck`: `rows`, time only, every row a fail, as many
    confirming rounds as planned ones and no other extra rounds."""
    target = out / "thresholds"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(REPO / "thresholds", target)
    quick = yaml.safe_load((target / "suites" / "quick.yml").read_text())
    suite = {
        "suite": "placecheck",
        "scale": quick["scale"],
        "measure": {**quick["measure"], "rounds": rounds, "signals": ["time"]},
        "limits": {"default": {"warn": 1.5, "fail": 1.5}},
        "budget": {**quick["budget"], "extra_rounds": 0, "confirm_rounds": rounds},
        "benchmarks": rows,
    }
    suite["measure"].pop("instructions", None)
    (target / "suites" / "placecheck.yml").write_text(yaml.safe_dump(suite, sort_keys=False))
    return target


def run_once(prefix: str, thresholds: Path, run: Path) -> None:
    done = run.with_suffix(".done")
    if done.exists():
        return
    shutil.rmtree(run, ignore_errors=True)
    r = subprocess.run([*PERFGATE, "compare", "--base", prefix, "--head", prefix, "--suite", "placecheck",
                        "--thresholds", str(thresholds), "--out", str(run)], capture_output=True, text=True)
    (run.parent / f"{run.name}.stderr").write_text(r.stderr)
    if r.returncode not in (0, 1, 3):
        raise SystemExit(f"place-bias: perfgate compare for {run} exited {r.returncode}: {r.stderr[-2000:]}")
    done.write_text("")


def step_means(run: Path) -> dict:
    """row -> {"first": mean log head/base of the first servers' pairs, "confirm": of the
    confirming servers' pairs, "places": the confirming step's places}."""
    doc = json.loads((run / "results.json").read_text())
    confirm = next((e for e in doc.get("extensions") or [] if e["purpose"] == "confirm"), None)
    out = {}
    for bench in doc["benchmarks"]:
        by_index = collections.defaultdict(dict)
        for r in bench["rounds"]:
            by_index[r["index"]][r["side"]] = r["qps"]
        logs = {"first": [], "confirm": []}
        for index, sides in by_index.items():
            if "base" in sides and "head" in sides:
                part = "confirm" if confirm and index >= confirm["first_round"] and bench["id"] in confirm["benchmarks"] else "first"
                logs[part].append(math.log(sides["head"] / sides["base"]))
        if logs["first"] and logs["confirm"]:
            out[bench["id"]] = {"first": statistics.fmean(logs["first"]), "confirm": statistics.fmean(logs["confirm"]),
                                "pooled": statistics.fmean(logs["first"] + logs["confirm"]),
                                "pairs": [len(logs["first"]), len(logs["confirm"])],
                                "places": (confirm or {}).get("places")}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prefix", required=True, help="an installed server (its basedir)")
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=12, help="planned pairs, and as many confirming pairs")
    ap.add_argument("--rows", default="update-index_range=100,update-nonindex_range=100")
    ap.add_argument("--out", default=str(REPO / "runs" / "place-bias"))
    args = ap.parse_args()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    rows = [r for r in args.rows.split(",") if r]
    thresholds = forcing_thresholds(out, rows, args.rounds)
    per_row = collections.defaultdict(list)
    for k in range(1, args.runs + 1):
        run = out / f"aa-{k}"
        run_once(args.prefix, thresholds, run)
        for row, means in step_means(run).items():
            per_row[row].append(means)
        print(f"place-bias: run {k} of {args.runs} done", file=sys.stderr)
    gm = lambda xs: math.exp(statistics.fmean(xs))
    lines = [f"{'row':<28} {'runs':>4}  {'first servers':>15}  {'confirming, reversed':>21}  {'pooled':>6}  {'p (first = confirming)':>22}"]
    summary = {"date": datetime.date.today().isoformat(), "prefix": args.prefix, "rounds": args.rounds, "rows": {}}
    for row in rows:
        runs = per_row.get(row) or []
        if not runs:
            lines.append(f"{row:<28} {0:>4}  no run with both steps")
            continue
        first = [m["first"] for m in runs]
        confirm = [m["confirm"] for m in runs]
        pooled = [m["pooled"] for m in runs]
        p = stats.ttest_rel(first, confirm).pvalue if len(runs) > 1 else float("nan")
        below = sum(x < 0 for x in first)
        above = sum(x > 0 for x in confirm)
        lines.append(f"{row:<28} {len(runs):>4}  {gm(first):>6.3f} {below:>2}/{len(runs)} <1  {gm(confirm):>11.3f} {above:>2}/{len(runs)} >1  "
                     f"{gm(pooled):>6.3f}  {p:>22.4f}")
        summary["rows"][row] = {"runs": len(runs), "first": gm(first), "first_below_1": below, "confirm": gm(confirm),
                                "confirm_above_1": above, "pooled": gm(pooled), "p": p,
                                "places": sorted({json.dumps(m["places"], sort_keys=True) for m in runs})}
    print("\n".join(lines))
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
