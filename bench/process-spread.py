#!/usr/bin/env python3
"""How far apart fresh server processes of one build count, per row: A/A run folders of
`perfgate compare --metric instructions` (base = head = one prefix) in, a table out.

Every side of every step is a fresh process: the planned windows (results.json) and each
recount (results.extra-K.json). A process's figure is the geometric mean of its windows'
connection instructions per query, the figure the gate judges. Per row: head/base - 1 of each
step's pair (two processes on the same rows at the same time) and the largest of them, and the
spread over all processes (max/min - 1), which also holds what differs between steps: each run
loads its own rows, and a recount starts from the tables the windows before it left.

usage: bench/process-spread.py RUN_FOLDER... [--label TEXT]
"""
import argparse
import json
from pathlib import Path
from statistics import geometric_mean


def process_figure(side: dict) -> float:
    return geometric_mean([w["connection"]["instructions"] / w["queries"] for w in side["windows"]])


def steps(run: Path):
    """The results files of one run folder, each one pair of fresh processes."""
    main = run / "results.json"
    if not main.is_file():
        raise SystemExit(f"{run}: no results.json; expected a run folder of perfgate compare")
    return [main, *sorted(run.glob("results.extra-*.json"))]


def collect(runs: list[Path]) -> dict:
    """row -> list of (base figure, head figure), one per step."""
    rows: dict = {}
    for run in runs:
        for path in steps(run):
            for bench in json.loads(path.read_text())["benchmarks"]:
                counted = bench.get("instructions") or {}
                if "base" in counted and "head" in counted:
                    rows.setdefault(bench["id"], []).append(
                        (process_figure(counted["base"]), process_figure(counted["head"])))
    return rows


def table(rows: dict) -> list[str]:
    lines = ["| row | instr/o | processes | head/base-1 of each pair | largest pair | spread max/min-1 |",
             "|---|---:|---:|---|---:|---:|"]
    worst_pair = worst_spread = 0.0
    for row, pairs in rows.items():
        figures = sorted(f for pair in pairs for f in pair)
        ratios = [h / b - 1 for b, h in pairs]
        pair = max(abs(r) for r in ratios)
        spread = figures[-1] / figures[0] - 1
        worst_pair, worst_spread = max(worst_pair, pair), max(worst_spread, spread)
        lines.append(f"| {row} | {figures[len(figures) // 2]:,.0f} | {len(figures)} | "
                     + " ".join(f"{100 * r:+.3f}%" for r in ratios)
                     + f" | {100 * pair:.3f}% | {100 * spread:.3f}% |")
    lines.append(f"\nlargest over rows: pair {100 * worst_pair:.3f}%, spread {100 * worst_spread:.3f}%")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    if args.label:
        print(f"## {args.label}\n")
    print("\n".join(table(collect(args.runs))))


if __name__ == "__main__":
    main()
