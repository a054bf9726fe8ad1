import json
import os
import subprocess
import sys
from pathlib import Path

HARNESS = Path(__file__).resolve().parents[3] / "harness"


def run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "perfgate_harness", *args], capture_output=True, text=True,
                          cwd=cwd, env={"PYTHONPATH": str(HARNESS), "PATH": "/usr/bin:/bin"})


def test_bad_plan_is_one_line_exit_2_and_nothing_written(tmp_path):
    (tmp_path / "plan.json").write_text(json.dumps({"schema": "perfgate.plan/v1"}))
    done = run("run", "--plan", "plan.json", "--out", "out", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "perfgate harness: plan.json: (top level): 'suite' is a required property\n"
    assert done.stdout == "" and not (tmp_path / "out").exists()


def test_results_must_be_a_file_name(tmp_path):
    done = run("run", "--plan", "plan.json", "--out", "out", "--results", "../x.json", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "perfgate harness: --results: '../x.json' is not a file name; expected e.g. results.json\n"


def test_missing_argument_is_a_usage_error(tmp_path):
    done = run("run", "--plan", "plan.json", cwd=tmp_path)
    assert done.returncode == 2 and "--out" in done.stderr


def test_results_are_written_atomically_and_readable(tmp_path):
    from perfgate_harness.cli import write_json_atomically
    target = tmp_path / "results.json"
    old = os.umask(0o022)
    try:
        write_json_atomically(target, {"a": 1})
    finally:
        os.umask(old)
    assert json.loads(target.read_text()) == {"a": 1}
    assert target.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]  # no temp file left
