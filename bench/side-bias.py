#!/usr/bin/env python3
"""Whether one side of A/A runs comes out ahead: a bias by the side's place, not noise.

For run folders of unchanged builds (base and head the same server, or a chain of copies of
one prefix), the mean log ratio of QPS per run and row, for every side against each side
before it in the run's order (head/base; in a chain also head2/base, head2/head). Printed per
row and pair of sides: the runs, the geometric mean of the runs' means, how many runs were
below 1, and a one-sample t-test of the runs' means against 0 (each run one sample).
Noise alone puts about half the runs below 1; a side's place that costs speed puts nearly all.
(docs/archive/notebook-2026-11.md, "Where the write rows' spread comes from, and a bias by side order".)

Usage: python3 bench/side-bias.py runs/aa-1 runs/aa-2 ... [--rows update-index_range=100,insert_range=100]
"""
import argparse
import collections
import json
import math
import statistics
from pathlib import Path

from scipy import stats


def run_means(folder):
    """(row id, later side, earlier side) -> mean log QPS ratio of the run's pairs."""
    doc = json.loads((Path(folder) / "results.json").read_text())
    sides = list(doc["sides"])  # the run's own order: base, head, head2, ...
    means = {}
    for bench in doc.get("benchmarks") or []:
        by_index = collections.defaultdict(dict)
        for r in bench.get("rounds") or []:
            if r.get("qps"):
                by_index[r["index"]][r["side"]] = r["qps"]
        for i, later in enumerate(sides):
            for earlier in sides[:i]:
                logs = [math.log(p[later] / p[earlier]) for p in by_index.values() if later in p and earlier in p]
                if len(logs) >= 4:
                    means[(bench["id"], later, earlier)] = statistics.mean(logs)
    return means


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("runs", nargs="+", help="run folders of perfgate compare (results.json)")
    p.add_argument("--rows", default=None, help="only these rows, comma-separated")
    a = p.parse_args()
    wanted = set(a.rows.split(",")) if a.rows else None
    pooled = collections.defaultdict(list)
    for folder in a.runs:
        for key, mean in run_means(folder).items():
            if wanted is None or key[0] in wanted:
                pooled[key].append(mean)
    print(f"{'row':32} {'sides':14} {'runs':>4} {'ratio':>6} {'below 1':>8} {'p':>7}")
    for (row, later, earlier), means in sorted(pooled.items()):
        ratio = math.exp(statistics.mean(means))
        below = sum(m < 0 for m in means)
        pvalue = stats.ttest_1samp(means, 0).pvalue if len(means) >= 2 else float("nan")
        print(f"{row:32} {later + '/' + earlier:14} {len(means):4} {ratio:6.3f} {below:>4}/{len(means):<3} {pvalue:7.4f}")


if __name__ == "__main__":
    main()
