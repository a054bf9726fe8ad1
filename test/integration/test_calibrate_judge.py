"""perfgate calibrate and perfgate judge on the real servers, at a tiny scale.

calibrate runs the base server against itself (A/A) on two pairs of servers and must leave a
calibration.json valid by its schema, a verdict and the reports per pair, and a suite file with
the suggested limits that perfgate loads; judge then re-judges a pair's folder with those limits
and with others.
"""
import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml

from conftest import REPO

PERFGATE = ["node", str(REPO / "cli" / "bin" / "perfgate.js")]


def perfgate(*args, timeout=400):
    return subprocess.run([*PERFGATE, *args], capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
def test_calibrate_then_judge_again(basedirs, tmp_path):
    out = tmp_path / "cal"
    r = perfgate("calibrate", "--base", basedirs["base"], "--out", str(out), "--suite", "quick", "--pairs", "2",
                 "--benchmarks", "point-query,update-index_range=100", "--rounds", "3",
                 "--seconds", "1", "--warmup-seconds", "1", "--tables", "2", "--rows", "500", timeout=1200)
    assert r.returncode == 0, r.stderr[-3000:]
    assert f"perfgate calibrate: pair 2 of 2 (freshly started servers), run folder {out / 'pair-2'}" in r.stderr.splitlines()
    assert r.stderr.rstrip().endswith(f"perfgate calibrate: wrote calibration.json and thresholds/suites/quick.yml in {out}")
    cal = json.loads((out / "calibration.json").read_text())
    schema = json.loads((REPO / "schema" / "calibration.schema.json").read_text())
    jsonschema.validate(cal, schema)
    assert [b["id"] for b in cal["benchmarks"]] == ["point-query", "update-index_range=100"]
    quick = yaml.safe_load((REPO / "thresholds" / "suites" / "quick.yml").read_text())
    # two pairs of servers, 3 measured pairs of rounds each; limits for the quick suite's own sizes
    assert cal["pairs"] == 2
    assert cal["at"] == {"rounds": quick["measure"]["rounds"], "windows": quick["instructions"]["windows"]}
    for b in cal["benchmarks"]:
        time = b["time"]
        assert time["pairs"] == 2 and time["measured"] == [3, 3], time
        assert 0.70 <= time["suggested"]["fail"] < time["suggested"]["warn"] <= 0.99, time
        # Two processes of one build, paired windows: estimates near 1, limits above their spread.
        instr = b["instructions"]
        assert instr["measured"] == [3, 3] and all(0.97 < e < 1.03 for e in instr["estimates"]), instr
        assert 1.003 <= instr["suggested"]["warn"] < instr["suggested"]["fail"] <= 1.10, instr
        assert cal["suggested"][b["id"]] == {**time["suggested"], "instructions": instr["suggested"]}
    lines = r.stdout.splitlines()
    assert lines[0].startswith("perfgate calibrate: 10.11.18-MariaDB")
    assert any(line.startswith("point-query ") for line in lines)
    assert "Suggested limits per microbenchmark (suite file format):" in lines
    suite_file = out / "thresholds" / "suites" / "quick.yml"
    assert f"The suite file with these limits: {suite_file} (loads with --thresholds {out / 'thresholds'})." in lines
    written = yaml.safe_load(suite_file.read_text())
    assert written["limits"]["default"] == quick["limits"]["default"]
    assert written["limits"]["point-query"] == cal["suggested"]["point-query"]
    # The pairs ran 1-s rounds: the calibrated suite runs its rounds so, as its limits assume.
    assert written["measure"] == {**quick["measure"], "seconds": 1}
    for pair in ("pair-1", "pair-2"):
        for name in ("plan.json", "results.json", "verdict.json", "comment.md", "summary.md", "report.html"):
            assert (out / pair / name).exists(), f"{pair}/{name}"

    # A pair judged with the calibrated suite: its limits are the ones written.
    r = perfgate("judge", str(out / "pair-1"), "--thresholds", str(out / "thresholds"))
    assert r.returncode in (0, 1, 3), r.stderr
    verdict = json.loads((out / "pair-1" / "verdict.json").read_text())
    assert verdict["limits"]["point-query"]["instructions"] == cal["suggested"]["point-query"]["instructions"]

    # The same folder judged again with rQPS limits nothing can fail: reports rewritten, no fail.
    r = perfgate("judge", str(out / "pair-1"), "--warn", "0.01", "--fail", "0.01")
    verdict = json.loads((out / "pair-1" / "verdict.json").read_text())
    jsonschema.validate(verdict, json.loads((REPO / "schema" / "verdict.schema.json").read_text()))
    assert verdict["limits"] == {"default": {"warn": 0.01, "fail": 0.01, "instructions": quick["limits"]["default"]["instructions"]}}
    # The instruction limits stay the suite's (instr/o 1.003 / 1.007), and a judge counts no more
    # windows: a pair's three windows may leave instr/o open at the fail limit (undecided, exit 3),
    # never a fail, and never open on time.
    assert (r.returncode, verdict["verdict"]) in ((0, "pass"), (3, "undecided")), r.stderr
    for b in verdict["benchmarks"]:
        assert b["verdict"] in ("pass", "undecided") and (b["verdict"] == "pass" or b["decided_by"] == ["instructions"]), b
    if verdict["verdict"] == "undecided":
        assert "more instruction windows than the budget allows would decide" in r.stdout
    # An instr/o interval reaching its warn limit is a pass that could still be a warn, whose
    # headline must say so rather than claim that every comparison is within its limits.
    elif any(b.get("could_be") for b in verdict["benchmarks"]):
        assert "Pass: all 2 comparisons within their fail limits; " in r.stdout
    else:
        assert "Pass: all 2 comparisons within their limits." in r.stdout
    # The datadirs take about a gigabyte; pytest keeps its last temporary folders.
    for pair in ("pair-1", "pair-2"):
        shutil.rmtree(out / pair / "servers", ignore_errors=True)


def test_calibrate_bad_input_is_one_line(tmp_path):
    r = perfgate("calibrate", "--base", str(tmp_path), "--out", str(tmp_path / "x"))
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1
    assert r.stderr.startswith("perfgate calibrate: --base")
    r = perfgate("calibrate", "--base", str(tmp_path), "--out", str(tmp_path / "x"), "--benchmarks", "nope")
    assert r.returncode == 2
    assert "--benchmarks: 'nope' not in suite quick; expected some of: point-query" in r.stderr
    assert not (tmp_path / "x").exists()
