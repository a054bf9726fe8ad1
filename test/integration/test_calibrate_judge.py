"""perfgate calibrate and perfgate judge on the real servers, at a tiny scale.

calibrate runs the base server against itself (A/A) and must leave a calibration.json valid by
its schema, a verdict and the reports; judge then re-judges that run folder with other limits.
"""
import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import yaml

from conftest import REPO

PERFGATE = ["node", str(REPO / "cli" / "bin" / "perfgate.js")]


def perfgate(*args, timeout=400):
    return subprocess.run([*PERFGATE, *args], capture_output=True, text=True, timeout=timeout)


def test_calibrate_then_judge_again(basedirs, tmp_path):
    out = tmp_path / "cal"
    r = perfgate("calibrate", "--base", basedirs["base"], "--out", str(out), "--suite", "quick",
                 "--benchmarks", "point-query,update-index_range=100", "--rounds", "3",
                 "--seconds", "1", "--warmup-seconds", "1", "--tables", "2", "--rows", "500")
    assert r.returncode == 0, r.stderr[-3000:]
    cal = json.loads((out / "calibration.json").read_text())
    schema = json.loads((REPO / "schema" / "calibration.schema.json").read_text())
    jsonschema.validate(cal, schema)
    assert [b["id"] for b in cal["benchmarks"]] == ["point-query", "update-index_range=100"]
    quick_rounds = yaml.safe_load((REPO / "thresholds" / "suites" / "quick.yml").read_text())["measure"]["rounds"]
    # noise from the 3 measured pairs, projected on the quick suite's own number of rounds
    assert cal["measured_pairs"] == 3 and cal["rounds"] == quick_rounds
    for b in cal["benchmarks"]:
        assert b["pairs"] == 3
        assert b["noise"]["rqps_sd"] > 0
        assert 0 < b["rqps_plan"]["suggested"]["fail"] <= b["rqps_plan"]["suggested"]["warn"] < 1
        # The quick suite counts instructions too: two processes of one build, paired windows.
        instr = b["instructions"]
        assert instr["windows"] == 3 and 0.97 < instr["estimate"] < 1.03, instr
        assert 1.01 <= instr["suggested"]["warn"] < instr["suggested"]["fail"] < 1.2, instr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("perfgate calibrate: 10.11.18-MariaDB")
    assert any(line.startswith("point-query ") for line in lines)
    assert any(line.startswith("Suggested suite limits: limits: {default: {warn: ") for line in lines)
    assert any(line.startswith("Suggested instr/o limits: instructions: {warn: ") for line in lines)
    for name in ("plan.json", "results.json", "verdict.json", "comment.md", "summary.md", "report.html"):
        assert (out / name).exists(), name

    # The same folder judged again with limits nothing can fail: pass, exit 0, reports rewritten.
    r = perfgate("judge", str(out), "--warn", "0.01", "--fail", "0.01")
    assert r.returncode == 0, r.stderr
    verdict = json.loads((out / "verdict.json").read_text())
    jsonschema.validate(verdict, json.loads((REPO / "schema" / "verdict.schema.json").read_text()))
    assert verdict["verdict"] == "pass"
    quick_limits = yaml.safe_load((REPO / "thresholds" / "suites" / "quick.yml").read_text())["limits"]["default"]
    assert verdict["limits"] == {"default": {"warn": 0.01, "fail": 0.01, "instructions": quick_limits["instructions"]}}
    assert "PASS: Nothing got slower than the warn limit: all 2 comparisons pass." in r.stdout
    # The datadirs take about a gigabyte; pytest keeps its last temporary folders.
    shutil.rmtree(out / "servers", ignore_errors=True)


def test_calibrate_bad_input_is_one_line(tmp_path):
    r = perfgate("calibrate", "--base", str(tmp_path), "--out", str(tmp_path / "x"))
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1
    assert r.stderr.startswith("perfgate calibrate: --base")
    r = perfgate("calibrate", "--base", str(tmp_path), "--out", str(tmp_path / "x"), "--benchmarks", "nope")
    assert r.returncode == 2
    assert "--benchmarks: 'nope' not in suite quick; expected some of: point-query" in r.stderr
    assert not (tmp_path / "x").exists()
