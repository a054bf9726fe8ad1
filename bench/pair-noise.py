#!/usr/bin/env python3
"""Where the spread of timed pairs comes from, on real run folders.

For every microbenchmark of the given run folders (results.json of `perfgate compare`), the
pairs' log ratios head/base of QPS, centred on each row's own median, and prints per
microbenchmark:
  - the spread (sd), its robust estimate (1.4826 x median absolute deviation) and the kurtosis
    of the pooled pairs (3 for a normal): heavy tails in the pool;
  - the median, over rows of at least 8 pairs, of the width of a Wilcoxon signed-rank
    interval (Hodges-Lehmann) and of a 20%-trimmed-mean (Yuen) interval, each against the
    Student-t interval perfgate uses: whether a robust interval would be narrower *within*
    a row (the pool's tails may come from rows of different noise instead);
  - the correlation, pair by pair, of the log ratio of QPS with that of the server's CPU time
    per query (cpu/o) and of context switches per query: whether the spread is the host's
    speed (more CPU for the same query) or waits;
  - the spread of cpu/s (the log ratio of QPS times CPU time per query), where the host's
    speed cancels, against rQPS's: how much a signal of waits built on it could gain
    (docs/archive/notebook-2026-11.md, "cpu/s, tried and left out").

Usage: python3 bench/pair-noise.py runs/pw-onreq/* runs/demo-onreq ...
"""
import collections
import json
import math
import sys
from pathlib import Path

import numpy as np
from scipy import stats


def pairs_of(bench):
    by = collections.defaultdict(dict)
    for r in bench.get("rounds") or []:
        by[r["index"]][r["side"]] = r
    return [p for _, p in sorted(by.items()) if "base" in p and "head" in p and p["base"]["qps"] > 0 and p["head"]["qps"] > 0]


def log_ratio(pair, key):
    h, b = pair["head"].get(key), pair["base"].get(key)
    return math.log(h / b) if h and b and h > 0 and b > 0 else float("nan")


def t_width(x):
    return 2 * stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))


def wilcoxon_width(x):
    # The interval between the k-th smallest and k-th largest Walsh averages, k from the exact
    # null distribution of the signed-rank statistic (95%, two-sided).
    n = len(x)
    walsh = np.sort([(x[i] + x[j]) / 2 for i in range(n) for j in range(i, n)])
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1
    for k in range(1, n + 1):
        counts[k:] = counts[k:] + counts[:-k].copy()
    k = int(np.sum(np.cumsum(counts) / 2 ** n <= 0.025))
    return walsh[len(walsh) - 1 - k] - walsh[k]


def yuen_width(x, trim=0.2):
    n = len(x)
    g = int(math.floor(trim * n))
    xs = np.sort(x)
    w = xs.copy()
    w[:g] = xs[g]
    w[n - g:] = xs[n - g - 1]
    h = n - 2 * g
    se = w.std(ddof=1) / ((1 - 2 * trim) * math.sqrt(n))
    return 2 * stats.t.ppf(0.975, h - 1) * se


def main(dirs):
    rows = collections.defaultdict(list)
    for d in dirs:
        f = Path(d) / "results.json"
        if not f.is_file():
            continue
        for bench in json.loads(f.read_text()).get("benchmarks", []):
            if bench.get("status") != "ok":
                continue
            pairs = pairs_of(bench)
            if len(pairs) >= 5:
                rows[bench["id"]].append(np.array([[log_ratio(p, k) for k in ("qps", "cpu_per_query_us", "cs_per_query")] for p in pairs]))
    print("microbenchmark                  rows pairs   sd   MAD-sd kurtosis | width vs t: Wilcoxon Yuen20 (rows>=8) | r(rQPS, cpu/o) r(rQPS, cs/o) | sd cpu/s")
    for bid in sorted(rows):
        centred = np.concatenate([m - np.nanmedian(m, axis=0) for m in rows[bid]])
        q = centred[:, 0]
        sd = q.std()
        kurt = float(np.mean(((q - q.mean()) / sd) ** 4)) if sd > 0 else float("nan")
        mad = 1.4826 * np.median(np.abs(q))
        long_rows = [m[:, 0] for m in rows[bid] if len(m) >= 8]
        wil = np.median([wilcoxon_width(x) / t_width(x) for x in long_rows]) if long_rows else float("nan")
        yu = np.median([yuen_width(x) / t_width(x) for x in long_rows]) if long_rows else float("nan")

        def corr(j):
            ok = ~np.isnan(centred[:, j]) & np.isfinite(centred[:, j])
            return np.corrcoef(q[ok], centred[ok, j])[0, 1] if ok.sum() > 2 and centred[ok, j].std() > 0 else float("nan")
        cpu_per_second = q + centred[:, 1]
        cpu_per_second_sd = np.nanstd(cpu_per_second[np.isfinite(cpu_per_second)])
        print(f"{bid[:30]:30s} {len(rows[bid]):4d} {len(q):5d} {100 * sd:5.1f}% {100 * mad:5.1f}% {kurt:7.1f}  |      {wil:5.2f}   {yu:5.2f} ({len(long_rows):2d})          | {corr(1):+.2f}          {corr(2):+.2f}         | {100 * cpu_per_second_sd:5.1f}%")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
