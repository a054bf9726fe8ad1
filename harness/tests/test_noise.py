import json
import statistics

import pytest

from perfgate_harness import noise


def test_paired_ratios_follow_round_indexes():
    rounds = [{"index": 0, "side": "base", "qps": 100}, {"index": 0, "side": "head", "qps": 110},
              {"index": 1, "side": "head", "qps": 90}, {"index": 1, "side": "base", "qps": 100},
              {"index": 2, "side": "base", "qps": 100}]  # unpaired: left out
    assert noise.paired_ratios(rounds, "qps") == [1.1, 0.9]


def test_rows_of_a_real_run(fixture_text):
    results = json.loads(fixture_text("results", "tiny-quick.json"))
    rows = noise.noise_rows(results)
    assert [r["name"] for r in rows] == [b["id"] for b in results["benchmarks"]]
    first = rows[0]
    qps = [r["qps"] for r in results["benchmarks"][0]["rounds"]]
    assert first["qps"]["min"] == min(qps) and first["qps"]["max"] == max(qps)
    assert first["qps"]["cv"] == pytest.approx(statistics.stdev(qps) / statistics.fmean(qps))
    table = noise.render_markdown(rows)
    assert table.splitlines()[0].startswith("| microbenchmark | rounds | QPS min–max")
    assert len(table.splitlines()) == 2 + len(rows)


def test_error_benchmarks_are_left_out(fixture_text):
    results = json.loads(fixture_text("results", "tiny-quick.json"))
    results["benchmarks"][0]["status"] = "error"
    assert len(noise.noise_rows(results)) == len(results["benchmarks"]) - 1


def test_readme_table_is_the_one_the_checked_in_run_gives(fixture_text):
    from pathlib import Path
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    results = json.loads(fixture_text("results", "aa-quick-noise.json"))
    assert noise.render_markdown(noise.noise_rows(results)) in readme
