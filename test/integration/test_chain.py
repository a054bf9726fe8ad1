"""A chain of versions against one base on real servers: 10.11.18 → 10.11.19 → a third head
(a prefix of its own, hard-linked from 10.11.19), measured in one run with every side's rounds
interleaved, one verdict per head, and the chain table in the reports and in chain.csv/tsv."""
import csv
import json
import subprocess
from pathlib import Path

import pytest

from conftest import BASE, HEAD, REPO, VERSIONS, FLAVOR
from test_server_defaults import copy_prefix

pytestmark = pytest.mark.usefixtures("basedirs")

TINY = ["--seconds", "1", "--warmup-seconds", "0", "--rounds", "2", "--tables", "2", "--rows", "1000", "--metric", "time"]
TESTS = "point-query,update-index_range=100"


def test_a_chain_of_three_versions_in_one_interleaved_run(tmp_path):
    third = tmp_path / "third" / "usr"
    copy_prefix(Path(HEAD), third)
    out = tmp_path / "run"
    r = subprocess.run(["node", str(REPO / "cli/bin/perfgate.js"), "compare", "--base", BASE, "--head", HEAD,
                        "--head", str(third), "--out", str(out), "--suite", "quick", "--tests", TESTS, "--sides", "in-turn", *TINY],
                       capture_output=True, text=True, timeout=900, cwd=REPO)
    assert r.returncode in (0, 1, 3), r.stderr

    chain = json.loads((out / "chain.json").read_text())
    assert chain["schema"] == "perfgate.chain/v2"
    assert [h["side"] for h in chain["heads"]] == ["head", "head2"]
    # One verdict per head; the run's exit code is the worst head's.
    order = ["pass", "warn", "undecided", "fail", "error"]
    verdicts = [h["verdict"]["verdict"] for h in chain["heads"]]
    assert chain["verdict"] == max(verdicts, key=order.index)
    assert r.returncode == chain["exit_code"] == {"pass": 0, "warn": 0, "fail": 1, "undecided": 3}[chain["verdict"]]
    for h in chain["heads"]:
        on_disk = json.loads((out / "heads" / h["side"] / "verdict.json").read_text())
        assert on_disk == h["verdict"]
        assert [b["id"] for b in on_disk["benchmarks"]] == TESTS.split(",")
        assert all(b["rounds"]["pairs"] >= 2 for b in on_disk["benchmarks"])
        assert (out / "heads" / h["side"] / "report.html").is_file()

    # Every side ran every round, interleaved A B C / C B A, in one run.
    results = json.loads((out / "results.json").read_text())
    _, head_version = VERSIONS[FLAVOR]
    assert [results["sides"][s]["version"].startswith(v) for s, v in
            (("base", VERSIONS[FLAVOR][0]), ("head", head_version), ("head2", head_version))] == [True] * 3
    assert results["sides"]["head2"]["basedir"] == str(third)
    for b in results["benchmarks"]:
        first = [(x["index"], x["side"]) for x in b["rounds"]][:6]
        assert first == [(0, "base"), (0, "head"), (0, "head2"), (1, "head2"), (1, "head"), (1, "base")]
        per_side = {s: sorted(x["index"] for x in b["rounds"] if x["side"] == s) for s in ("base", "head", "head2")}
        assert per_side["base"] == per_side["head"] == per_side["head2"]

    # The chain table: one row per microbenchmark, one column group per version.
    rows = list(csv.reader((out / "chain.csv").open()))
    header, body = rows[0], rows[1:]
    assert [row[0] for row in body] == TESTS.split(",")
    for k in (1, 2):
        named = [c for c in header if c.startswith(f"col-{k} 10.11.19")]
        assert len(named) == 8, named
        for suffix in (" rQPS", " rQPS low", " rQPS high", " verdict", " r/o", " rKB/o", " wKB/o", " p95 ms"):
            assert any(c.endswith(suffix) for c in named), (suffix, named)
    assert header[:3] == ["microbenchmark", "threads", "base p95 ms"]
    verdict_columns = [i for i, c in enumerate(header) if c.endswith(" verdict")]
    assert [[row[i] for i in verdict_columns] for row in body] == [
        [next(b for b in h["verdict"]["benchmarks"] if b["id"] == row[0])["verdict"] for h in chain["heads"]] for row in body]
    tsv = list(csv.reader((out / "chain.tsv").open(), delimiter="\t"))
    assert tsv == rows

    comment = (out / "comment.md").read_text()
    assert "Throughput relative to: base 10\\.11.18" in comment
    assert "\n- col-1: 10\\.11.19" in comment and "\n- col-2: 10\\.11.19" in comment
    assert "| microbenchmark | col-1 | col-2 |" in comment
    assert "**p95 latency (ms)**" in comment and "**wKB/o, relative to the base**" in comment
    html = (out / "report.html").read_text()
    assert html.count('data-chart="rqps"') == 2  # a chart per group: point queries, writes
    assert "col-1:" in r.stdout and "col-2:" in r.stdout
    # Every side's loaded tables are removed when the run is over.
    assert not any((out / "servers" / s / "data").exists() for s in ("base", "head", "head2"))
