"""A pull request's server goes looking for the runner's token before it starts: in its
ancestors' environments (/proc/<ppid>/environ, walking up), in every process's environment and
in the runner's files (stand-ins made here). `perfgate compare --untrusted-head` runs it in the
sandbox with the harness and sysbench: it finds nothing, and the run still measures QPS and
mysqld's CPU time per query (cpu/o, read from /proc/<pid> inside the sandbox)."""
import json
import os
import shutil
import subprocess
from pathlib import Path

from conftest import BASE, HEAD, REPO
from test_compare import tiny_thresholds

TOKEN = f"ghs_sandboxServer{os.getpid()}"

PROBE = REPO / "test" / "fixtures" / "sandbox" / "token-probe.sh"

# mariadbd of the pull request: the probe first (into the side's folder of the run), then the
# real server.
WRAPPER = """#!/bin/sh
for a in "$@"; do case "$a" in --defaults-file=*) cnf="${a#--defaults-file=}";; esac; done
[ -n "$cnf" ] && sh "$(dirname "$0")/probe.sh" {files} >> "$(dirname "$cnf")/found.txt" 2>&1
exec "$(dirname "$0")/mariadbd.real" "$@"
"""


def runner_files(root: Path) -> list[Path]:
    runner = root / "actions-runner"
    commands = runner / "_work" / "_temp" / "_runner_file_commands"
    (runner / "_diag").mkdir(parents=True)
    commands.mkdir(parents=True)
    files = {
        runner / ".credentials": json.dumps({"scheme": "OAuthAccessToken", "data": {"token": TOKEN}}),
        runner / "_diag" / "Worker_20261125-000000-utc.log": f'{{"system.github.token": "{TOKEN}"}}\n',
        commands / "set_env_0f3c": f"LATER={TOKEN}\n",
        commands / "set_output_0f3c": f"token={TOKEN}\n",
    }
    for path, text in files.items():
        path.write_text(text)
    return list(files)


def hostile_head(root: Path, files: list[Path]) -> Path:
    usr = root / "head-usr"
    # Hard links where the file system allows: the server is about 100 MB.
    if subprocess.run(["cp", "-al", HEAD, str(usr)]).returncode != 0:
        shutil.copytree(HEAD, usr, symlinks=True)
    sbin = usr / "sbin"
    (sbin / "mariadbd").rename(sbin / "mariadbd.real")
    shutil.copyfile(PROBE, sbin / "probe.sh")
    (sbin / "mariadbd").write_text(WRAPPER.replace("{files}", " ".join(f"'{f}'" for f in files)))
    (sbin / "mariadbd").chmod(0o755)
    return usr


def compare(tmp_path, name, head, files, sandbox):
    out = tmp_path / name
    thresholds = tiny_thresholds(tmp_path / name, "{warn: 0.5, fail: 0.4}", "{extra_pairs: 0, minutes: 10}", benchmarks=("point-query",))
    env = {**os.environ, "PERFGATE_SANDBOX": sandbox, "INPUT_GITHUB-TOKEN": TOKEN, "ACTIONS_RUNTIME_TOKEN": TOKEN,
           "GITHUB_ENV": str(files[2]), "GITHUB_OUTPUT": str(files[3])}
    r = subprocess.run(["node", str(REPO / "cli/bin/perfgate.js"), "compare", "--explain", "none", "--base", BASE, "--head", str(head), "--out", str(out),
                        "--suite", "tiny", "--thresholds", str(thresholds), "--tables", "1", "--rows", "1000", "--metric", "time",
                        "--untrusted-head"], capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode in (0, 1, 3), r.stderr
    return out, r


def test_a_hostile_server_finds_no_token_and_is_still_measured(tmp_path):
    files = runner_files(tmp_path)
    head = hostile_head(tmp_path, files)

    # Without the sandbox (its owner's choice) the same server finds the token: the probe works.
    (tmp_path / "open").mkdir()
    out, r = compare(tmp_path, "open", head, files, "off")
    assert "perfgate compare: PERFGATE_SANDBOX=off: this runner's owner lets untrusted code run without the sandbox" in r.stderr
    found = (out / "servers" / "head" / "found.txt").read_text()
    assert f"INPUT_GITHUB-TOKEN={TOKEN}" in found
    for f in files:
        assert f"file {f}\n" in found and TOKEN in found.split(f"file {f}\n")[1].split("\nfile ")[0], f

    (tmp_path / "boxed").mkdir()
    out, r = compare(tmp_path, "boxed", head, files, "auto")
    found = (out / "servers" / "head" / "found.txt").read_text()
    assert "ancestor " in found and "environ /proc/1/environ" in found, found
    assert TOKEN not in found, found
    assert f"environ /proc/{os.getpid()}/environ" not in found, "the test's own process is in sight"
    results = json.loads((out / "results.json").read_text())
    assert results["status"] == "ok", results.get("errors")
    for rnd in results["benchmarks"][0]["rounds"]:
        assert rnd["qps"] > 0 and rnd["cpu_per_query_us"] > 0 and rnd["cs_per_query"] > 0, rnd
