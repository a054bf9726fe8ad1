"""Thread counts as a dimension, on real servers: a tiny suite at 1 and 2 client threads.

`perfgate compare` measures every microbenchmark at both thread counts (rounds of 1 s, small
tables); the reports show rQPS per thread count side by side, each cell with its verdict, and
each side's QPS against threads. The figures of such short rounds mean nothing; what is checked
is that both thread counts were measured and reach every report.
"""
import json
import re
import subprocess

from conftest import BASE, HEAD, REPO, no_server_left

import pytest

pytestmark = pytest.mark.usefixtures("basedirs")

TINY = ["--seconds", "1", "--warmup-seconds", "0", "--rounds", "2", "--tables", "2", "--rows", "1000", "--metric", "time"]
NAMES = ["point-query", "update-index_range=100"]
MARKS = "(✅|✅❔|⚠️|❔|❌|💥)"


def thresholds(tmp_path):
    folder = tmp_path / "thresholds"
    (folder / "suites").mkdir(parents=True)
    (folder / "suites" / "threads.yml").write_text("\n".join([
        "suite: threads", "scale: {tables: 2, rows: 1000}",
        "measure: {threads: [1, 2], seconds: 1, warmup_seconds: 0, rounds: 2}",
        "limits: {default: {warn: 0.97, fail: 0.93}}", "budget: {extra_pairs: 0, minutes: 10}",
        "benchmarks:", *[f"  - {n}" for n in NAMES]]) + "\n")
    return folder


def test_two_thread_counts_side_by_side_and_scaling(tmp_path):
    out = tmp_path / "run"
    r = subprocess.run(["node", str(REPO / "cli/bin/perfgate.js"), "compare", "--explain", "none", "--base", BASE, "--head", HEAD,
                        "--out", str(out), "--suite", "threads", "--thresholds", str(thresholds(tmp_path)), *TINY],
                       capture_output=True, text=True, timeout=900, cwd=REPO)
    assert r.returncode in (0, 1, 3), r.stderr[-3000:]
    no_server_left(out)

    results = json.loads((out / "results.json").read_text())
    measured = {(b["name"], b["threads"]): b for b in results["benchmarks"]}
    assert sorted(measured) == sorted((n, t) for n in NAMES for t in (1, 2))
    for b in measured.values():
        assert b["status"] == "ok", b
        assert sorted((x["side"], x["index"]) for x in b["rounds"]) == [("base", 0), ("base", 1), ("head", 0), ("head", 1)]
        assert all(x["qps"] > 0 for x in b["rounds"])
    verdict = json.loads((out / "verdict.json").read_text())
    word = {b["id"]: b["verdict"] for b in verdict["benchmarks"]}

    mark = {"pass": "✅", "warn": "⚠️", "undecided": "❔", "fail": "❌", "error": "💥"}
    for report in ("comment.md", "summary.md"):
        text = (out / report).read_text()
        assert "**rQPS per thread count (1, 2 client threads)**" in text, report
        assert "| microbenchmark | 1 thread | 95% interval | 2 threads | 95% interval |" in text, report
        assert "| microbenchmark | base QPS @1 | head QPS @1 | base QPS @2 | head QPS @2 | base 1→2 | head 1→2 |" in text, report
        for name in NAMES:
            side_by_side = re.search(rf"^\| {re.escape(name)} \| {MARKS} (\d\.\d\d) \| \S+ \| {MARKS} (\d\.\d\d) \| \S+ \|$", text, re.M)
            assert side_by_side, f"{report}: no side-by-side row of {name}"
            for k, threads in ((1, 1), (3, 2)):
                assert side_by_side.group(k).startswith(mark[word[f"{name} threads={threads}"]]), (report, name, threads)
            scaling = re.search(rf"^\| {re.escape(name)} \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| ×(\d+\.\d\d) \| ×(\d+\.\d\d) \|$", text, re.M)
            assert scaling, f"{report}: no scaling row of {name}"
            base1, head1, base2, head2 = (int(scaling.group(k)) for k in range(1, 5))
            assert all(q > 0 for q in (base1, head1, base2, head2))
            assert abs(float(scaling.group(5)) - base2 / base1) < 0.01 + 1 / base1

    html = (out / "report.html").read_text()
    assert '<th colspan="3" data-threads="1">1 thread</th><th colspan="3" data-threads="2">2 threads</th>' in html
    for name in NAMES:
        assert f'<tr data-row="{name}">' in html
        start = html.index(f'<svg class="chart" data-chart="scaling" data-benchmark="{name}"')
        svg = html[start:html.index("</svg>", start)]
        for side in ("base", "head"):
            assert f'<polyline data-side="{side}"' in svg
            for threads in (1, 2):
                assert f'data-side="{side}" data-threads="{threads}"' in svg
