"""Faults on real servers: each one ends as an error record with the log tail, never as a
measurement, and every server the run started is stopped."""
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pymysql

from perfgate_harness import schema

from conftest import FLAVOR, events, is_server, load_plan, no_server_left


def small_plan(basedirs, benchmarks=("point-query", "update-index_range=100"), **measure):
    plan = load_plan("tiny-quick.json", basedirs, rounds=1, warmup_seconds=0, **measure)
    plan["scale"] = {"tables": 1, "rows": 500}
    plan["benchmarks"] = [b for b in plan["benchmarks"] if b["name"] in benchmarks]
    return plan


def error_results(harness, done):
    assert done.returncode == 4, done.stderr
    results = harness.results()
    assert schema.schema_errors("results", results) == []
    assert results["status"] == "error" and results["errors"]
    for bench in results["benchmarks"]:
        if bench["status"] == "error":
            assert bench["rounds"] == [] and bench["error"]["message"]
    assert events(done.stdout)[-1] == {"event": "done", "status": "error"}
    return results


def test_basedir_without_a_server_binary_is_a_usage_error(harness, basedirs, tmp_path):
    empty = tmp_path / "not-a-server"
    (empty / "bin").mkdir(parents=True)
    plan = small_plan({"base": basedirs["base"], "head": str(empty)})
    done = harness.run(plan)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"perfgate harness: {harness.plan_path}: sides.head.basedir: no server binary in '{empty}'; "
        "expected one of sbin/mariadbd, sbin/mysqld, bin/mariadbd, bin/mysqld, libexec/mysqld"]
    assert done.stdout == ""
    assert not harness.out.exists()  # nothing started, nothing written


def test_server_that_does_not_start(harness, basedirs):
    plan = small_plan(basedirs)
    for profile in plan["profiles"].values():
        profile["options"]["innodb_no_such_option"] = 1
    done = harness.run(plan)
    results = error_results(harness, done)
    side_errors = [e for e in results["errors"] if e["benchmark"] is None]
    assert {e["side"] for e in side_errors} == {"base", "head"}
    for e in side_errors:
        assert e["step"] in ("init", "start")
        assert "innodb_no_such_option" in e["log_tail"] or "innodb-no-such-option" in e["log_tail"]
    for bench in results["benchmarks"]:
        assert bench["status"] == "error" and bench["error"]["step"] == "skipped"
        assert bench["error"]["message"].startswith("not measured: base server failed at ")
    no_server_left(harness.out)


def pid_of(out: Path, side: str) -> int:
    return int((out / "servers" / side / "mysqld.pid").read_text().strip())


def test_server_killed_during_a_round(harness, basedirs):
    plan = small_plan(basedirs, seconds=3, pin_cpus={"server": "0", "client": "1"})
    proc = harness.start(plan)
    killed = None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        event = json.loads(line)
        if event["event"] == "round" and event["side"] == "head" and killed is None:
            pid = pid_of(harness.out, "head")
            status = Path(f"/proc/{pid}/status").read_text()
            assert "Cpus_allowed_list:\t0\n" in status  # pin_cpus.server reached mysqld
            time.sleep(1.0)
            os.kill(pid, signal.SIGKILL)
            killed = pid
    proc.wait(120)
    done = subprocess.CompletedProcess(proc.args, proc.returncode, "".join(lines), proc.stderr.read())
    results = error_results(harness, done)
    first, second = results["benchmarks"]
    assert first["status"] == "error"
    assert first["error"]["side"] == "head" and first["error"]["step"] == "round"
    assert first["error"]["message"] == "head: head server killed by signal SIGKILL during the round"
    assert "error.log (head)" in first["error"]["log_tail"]
    assert second["status"] == "error" and second["error"]["step"] == "skipped"
    assert second["error"]["message"] == "not measured: head server killed by signal SIGKILL"
    assert results["warnings"] == []  # base was shut down cleanly
    no_server_left(harness.out)


def test_sysbench_that_fails(harness, basedirs):
    plan = small_plan(basedirs, benchmarks=("points-covered-pk_range=100", "point-query"))
    plan["benchmarks"].reverse()  # the failing one first, the servers stay fine
    plan["benchmarks"][0]["options"]["points_columns"] = "no_such_column"
    done = harness.run(plan)
    results = error_results(harness, done)
    failed, fine = results["benchmarks"]
    assert failed["status"] == "error" and failed["error"]["step"] == "round"
    # MariaDB names the clause the column is in, MySQL says 'field list'.
    clause = {"mariadb": "SELECT", "mysql": "field list"}[FLAVOR]
    assert failed["error"]["message"] == \
        f"base: sysbench exited with code 1: FATAL: MySQL error: 1054 \"Unknown column 'no_such_column' in '{clause}'\""
    assert "Unknown column 'no_such_column'" in failed["error"]["log_tail"]
    assert fine["status"] == "ok" and len(fine["rounds"]) == 2  # the servers are fine: go on
    assert [e["benchmark"] for e in results["errors"]] == [failed["id"]]
    no_server_left(harness.out)


def kill_client_connections(socket_path: Path, stop: threading.Event):
    """Kills sysbench's connections (not the harness's) until told to stop."""
    while not stop.is_set():
        try:
            conn = pymysql.connect(unix_socket=str(socket_path), user="root", autocommit=True)
        except pymysql.err.MySQLError:
            time.sleep(0.1)
            continue
        with conn:
            cur = conn.cursor()
            cur.execute("SELECT id FROM information_schema.PROCESSLIST WHERE db = 'sbtest' "
                        "AND command = 'Execute' AND id <> CONNECTION_ID()")
            for (conn_id,) in cur.fetchall():
                try:
                    cur.execute(f"KILL CONNECTION {conn_id}")
                except pymysql.err.MySQLError:
                    pass
        time.sleep(0.2)


def test_lost_connections_during_a_round(harness, basedirs):
    # With mysql-ignore-errors sysbench tries to reconnect: sysbench 1.0.20 linked with
    # libmariadb dies of SIGSEGV doing so, other builds count reconnects. Both are errors.
    plan = small_plan(basedirs, benchmarks=("point-query",), seconds=3)
    plan["benchmarks"][0]["options"]["mysql-ignore-errors"] = "all"
    proc = harness.start(plan)
    stop = threading.Event()
    killer = None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        event = json.loads(line)
        if event["event"] == "round" and killer is None:
            sock = harness.out / "servers" / event["side"] / "mysqld.sock"
            killer = threading.Thread(target=kill_client_connections, args=(sock, stop))
            killer.start()
        elif event["event"] == "benchmark":
            stop.set()
    proc.wait(120)
    stop.set()
    if killer:
        killer.join()
    done = subprocess.CompletedProcess(proc.args, proc.returncode, "".join(lines), proc.stderr.read())
    results = error_results(harness, done)
    error = results["benchmarks"][0]["error"]
    assert error["step"] == "round"
    assert ("sysbench was killed by SIGSEGV" in error["message"]
            or "sysbench reconnected" in error["message"]), error["message"]
    no_server_left(harness.out)


def test_stale_files_are_cleaned_and_a_foreign_server_is_left_alone(harness, basedirs):
    base_dir = harness.out / "servers" / "base"
    head_dir = harness.out / "servers" / "head"
    base_dir.mkdir(parents=True)
    head_dir.mkdir(parents=True)
    # head: an earlier run died and left its pid file (of a process long gone) and its socket
    gone = subprocess.Popen(["true"])
    gone.wait()
    (head_dir / "mysqld.pid").write_text(f"{gone.pid}\n")
    import socket
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(head_dir / "mysqld.sock"))
    # base: a live process that runs on our datadir but was not started by this run
    foreign = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)",
                                f"--defaults-file={base_dir / 'my.cnf'}"])
    try:
        while str(base_dir / "my.cnf") not in Path(f"/proc/{foreign.pid}/cmdline").read_text():
            time.sleep(0.01)
        (base_dir / "mysqld.pid").write_text(f"{foreign.pid}\n")
        done = harness.run(small_plan(basedirs, benchmarks=("point-query",)))
        results = error_results(harness, done)
        assert foreign.poll() is None, "perfgate killed a process it did not start"
        base_error = [e for e in results["errors"] if e["side"] == "base" and e["benchmark"] is None]
        assert base_error and base_error[0]["message"].startswith(
            f"a server (pid {foreign.pid}) not started by this run is still running on {base_dir / 'data'}")
        assert not [e for e in results["errors"] if e["side"] == "head"]  # head cleaned up and started
        assert (head_dir / "error.log").read_text().count("ready for connections") == 1
    finally:
        foreign.kill()
        foreign.wait()
    no_server_left(harness.out)


def test_interrupted_run_stops_its_servers_and_writes_nothing(harness, basedirs):
    proc = harness.start(small_plan(basedirs, seconds=3))
    for line in proc.stdout:
        if json.loads(line)["event"] == "round":
            pids = [pid_of(harness.out, side) for side in ("base", "head")]
            proc.send_signal(signal.SIGTERM)
            break
    proc.wait(120)
    assert proc.returncode == 128 + signal.SIGTERM
    assert not (harness.out / "results.json").exists()
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists() or not is_server(Path(f"/proc/{pid}/cmdline").read_text())
    assert not subprocess.run(["pgrep", "-f", f"sysbench.*{harness.out}"]).returncode == 0  # no sysbench left
    for side in ("base", "head"):  # stopped with SHUTDOWN, not killed
        assert "Shutdown complete" in (harness.out / "servers" / side / "error.log").read_text()
