"""One real mariadbd under callgrind: a cheap microbenchmark counted in two windows.

Needs valgrind (Debian: apt-get install valgrind); fails, not skips, without it.
"""
import subprocess
import time
from pathlib import Path

import pytest

from perfgate_harness import callgrind, counted_malloc, server, sysbench
from perfgate_harness.sysbench_workload import run_events

from conftest import BASE

TABLES, ROWS = 1, 2000
EVENTS = 300


@pytest.fixture(scope="module")
def counted_server(tmp_path_factory, basedirs):
    reason = callgrind.unavailable_reason()
    assert reason is None, reason
    out = tmp_path_factory.mktemp("callgrind")
    binary = server.find_server_binary(Path(BASE))
    flavor, version = server.detect_version(binary)
    layout = server.layout_for(out, "base")
    profile = {"innodb_buffer_pool_size": "128M", "innodb_log_file_size": "48M",
               "innodb_flush_log_at_trx_commit": 2, "performance_schema": "OFF", "skip_name_resolve": "ON"}
    plain = server.Server("base", Path(BASE), binary, flavor, version, layout, profile)
    plain.initialize()
    plain.start()
    try:
        conn = plain.connect()
        conn.cursor().execute(f"CREATE DATABASE {sysbench.DATABASE}")
        conn.close()
        prepare = sysbench.Invocation(script_path=sysbench.resolve_script("oltp_point_select"),
                                      socket=layout.socket, tables=TABLES, rows=ROWS, threads=1, command="prepare")
        outcome = sysbench.execute(sysbench.build_command(prepare), timeout=300)
        assert outcome.returncode == 0, outcome.output
    finally:
        assert plain.shutdown() is None

    cg_dir = layout.dir / "callgrind"
    cg_dir.mkdir()
    srv = server.Server("base", Path(BASE), binary, flavor, version, layout, callgrind.server_options(profile),
                        wrapper=callgrind.valgrind_wrapper(cg_dir, counted_malloc.locate()))
    started = time.monotonic()
    srv.start(timeout=300)
    startup = time.monotonic() - started
    try:
        yield srv, callgrind.Control(srv.pid, cg_dir), cg_dir, startup
    finally:
        problem = srv.shutdown(timeout=300)
        assert problem is None, problem
        assert not srv.alive()
        assert callgrind.final_dump_written(cg_dir, srv.pid), "valgrind wrote no dump at exit"
        callgrind.remove_files(cg_dir, srv.pid)
        assert list(cg_dir.iterdir()) == []


def test_the_program_valgrind_runs_gets_the_malloc_settings(tmp_path):
    # /usr/bin/env in the server's place prints the environment valgrind gave its client.
    malloc = counted_malloc.locate()
    out = subprocess.run([*callgrind.valgrind_wrapper(tmp_path, malloc), "/usr/bin/env"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    seen = dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)
    for word in malloc.environment():
        name, value = word.split("=", 1)
        # Valgrind puts its own preloads before the client's.
        assert value in seen[name].split(":") if name == "LD_PRELOAD" else seen[name] == value, (name, seen.get(name))


def test_the_counted_server_runs_on_jemalloc(counted_server):
    # setup installs libjemalloc2 (scripts/install-deps.sh): a host without it fails here, it is not skipped.
    malloc = counted_malloc.locate()
    assert malloc.name == "jemalloc", malloc.warning()
    srv = counted_server[0]
    environ = dict(e.split("=", 1) for e in Path(f"/proc/{srv.pid}/environ").read_text().split("\0") if "=" in e)
    assert malloc.library in environ["LD_PRELOAD"].split(":"), environ.get("LD_PRELOAD")
    assert malloc.library in Path(f"/proc/{srv.pid}/maps").read_text(), "jemalloc is not mapped into the server"


def test_point_selects_count_the_same_in_two_windows(counted_server):
    srv, control, cg_dir, _ = counted_server
    inv = sysbench.Invocation(script_path=sysbench.resolve_script("oltp_point_select"), socket=srv.layout.socket,
                              tables=TABLES, rows=ROWS, threads=1, events=EVENTS, rand_seed=1)
    record = callgrind.measure_benchmark(control, lambda: run_events(inv), inv.events, srv.connect, "point-query", windows=2,
                                         top={"connection": 20, "background": 5})
    first, second = record["windows"]
    for w in (first, second):
        assert w["events"] == EVENTS and w["queries"] == EVENTS
        # The query's own work: one connection thread, tens of thousands of instructions a query.
        assert w["connection"]["threads"] == 1
        assert 10_000 < w["connection"]["per_query"] < 1_000_000
        # InnoDB's workers and the server's other threads ran too, and are counted apart.
        assert w["background"]["threads"] >= 1
        assert w["background"]["instructions"] > 0
    ratio = second["connection"]["instructions"] / first["connection"]["instructions"]
    assert 0.97 < ratio < 1.03, (first, second)
    names = [f["name"] for f in record["functions"]["connection"]]
    assert any(callgrind.base_name(n) == "do_command" for n in names)
    assert not any(callgrind.base_name(n) == "do_command" for n in
                   (f["name"] for f in record["functions"]["background"]))
    # Every window's files were read and removed; only the process's startup file remains.
    assert [p.name for p in cg_dir.iterdir()] == [f"callgrind.out.{srv.pid}"]
