#!/usr/bin/env python3
"""Where each instruction window's count went, per row and side: the queries' own (connection)
threads and the background threads, in millions, of a run folder of `perfgate compare` that
counted instructions, its recounts on fresh servers too (results.extra-K.json). Shows a
statement whose work moves between threads from one window to the next (docs/measurements.md,
"DDL statements on MySQL 9.7").

usage: bench/window-split.py RUN_FOLDER
"""
import json
import sys
from pathlib import Path


def lines(run: Path):
    main = run / "results.json"
    if not main.is_file():
        raise SystemExit(f"{run}: no results.json; expected a run folder of perfgate compare")
    for path in [main, *sorted(run.glob("results.extra-*.json"))]:
        for bench in json.loads(path.read_text())["benchmarks"]:
            counted = bench.get("instructions") or {}
            for side in ("base", "head"):
                windows = (counted.get(side) or {}).get("windows") or []
                if windows:
                    cells = [f"{w['connection']['instructions'] / 1e6:.1f}+{(w.get('background') or {}).get('instructions', 0) / 1e6:.1f}"
                             for w in windows]
                    yield f"  {path.name:<22} {bench['id']:<20} {side}: {' '.join(cells)}"


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: bench/window-split.py RUN_FOLDER")
    print("\n".join(lines(Path(sys.argv[1]))))
