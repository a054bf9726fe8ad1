"""A tiny quick suite end to end on the two real servers."""
import os
from perfgate_harness import schema

from conftest import FLAVOR, VERSIONS, events, load_plan, no_server_left


def test_quick_suite_end_to_end(harness, basedirs):
    plan = load_plan("tiny-quick.json", basedirs, rounds=1, warmup_seconds=1)
    done = harness.run(plan)
    assert done.returncode == 0, done.stderr
    results = harness.results()
    assert schema.schema_errors("results", results) == []
    assert results["status"] == "ok" and results["errors"] == []

    names = [b["name"] for b in results["benchmarks"]]
    assert names == [b["name"] for b in plan["benchmarks"]]  # the posts' names, in the plan's order
    for bench in results["benchmarks"]:
        assert bench["status"] == "ok"
        assert [(r["index"], r["side"]) for r in bench["rounds"]] == [(0, "base"), (0, "head")]
        for r in bench["rounds"]:
            assert r["qps"] > 0 and r["tps"] > 0 and r["queries"] > 0
            assert r["cpu_per_query_us"] > 0 and r["cs_per_query"] > 0
            assert r["errors"] == 0 and r["reconnects"] == 0
            assert 0 < r["latency_ms"]["avg"] <= r["latency_ms"]["max"]
            # I/O per query from /proc/<pid>/io and /proc/diskstats: measured (not None), and a
            # write benchmark writes (the redo log at least) in every round.
            io = [r[k] for k in ("read_kb_per_query", "write_kb_per_query", "device_reads_per_query",
                                 "device_read_kb_per_query", "device_write_kb_per_query")]
            assert all(v is not None and v >= 0 for v in io), io
            if bench["kind"] == "write":
                assert r["write_kb_per_query"] > 0
            # Resident memory from /proc/<pid>/status around the round: read, never made up.
            assert 0 < r["rss_before_bytes"] and 0 < r["rss_bytes"] <= r["hwm_bytes"], r
            assert r["memory_growth_per_query"] == (r["rss_bytes"] - r["rss_before_bytes"]) / r["queries"]
        assert f"--mysql-socket={harness.out / 'servers' / 'base' / 'mysqld.sock'}" in bench["command"]

    # both servers, with their versions and the options they ran with
    assert results["sides"]["base"]["version"].startswith(VERSIONS[FLAVOR][0])
    assert results["sides"]["head"]["version"].startswith(VERSIONS[FLAVOR][1])
    for side in ("base", "head"):
        record = results["sides"][side]
        assert record["flavor"] == FLAVOR
        # The profile of the server's own flavour (plan.json has one per flavour).
        assert record["profile"] == plan["profiles"][FLAVOR]["name"]
        assert record["options"]["innodb_buffer_pool_size"] == "128M"
        if FLAVOR == "mysql":
            # The binary log is off: no binlog file, no index of them, in the datadir.
            assert "disable_log_bin" in record["options"] and record["options"]["disable_log_bin"] is None
            assert "disable_log_bin\n" in (harness.out / "servers" / side / "my.cnf").read_text()
            datadir = harness.out / "servers" / side / "data"
            assert (datadir / "mysql.ibd").is_file()  # the datadir is there to look at
            assert not list(datadir.glob("binlog.*"))
        assert record["options"]["datadir"] == str(harness.out / "servers" / side / "data")
        assert (harness.out / record["error_log"]).is_file()
        assert record["io_device"]["name"] and results["warnings"] == []
        if FLAVOR == "mariadb":
            # Debian's packages: the version line says which build; the compiler is stripped away.
            assert record["build"]["version_line"] == (f"mariadbd  Ver {record['version']} for debian-linux-gnu "
                                                       "on x86_64 (Debian 12)")
            assert record["build"]["compiler"] is None and record["build"]["cmake_options"] is None
            assert record["build"]["unknown"].startswith("the compiler (.comment section stripped")
        else:
            # `perfgate build`'s prefix: the compiler from the binary, the cmake options from build.json.
            assert record["build"]["version_line"] == f"mysqld  Ver {record['version']} for Linux on x86_64 (Source distribution)"
            assert record["build"]["compiler"].startswith("GCC: ") and record["build"]["compiler_from"] == ".comment section"
            assert record["build"]["cmake_options"]["CMAKE_BUILD_TYPE"] == "RelWithDebInfo"
            assert record["build"]["cmake_from"] == "build.json"
    assert results["machine"]["sysbench"] == "1.0.20"
    assert results["machine"]["cores"] == os.cpu_count() and results["machine"]["cpu_model"]

    progress = events(done.stdout)
    rounds = [e for e in progress if e["event"] == "round"]
    assert len(rounds) == 2 * len(plan["benchmarks"]) and all(e["eta_seconds"] >= 0 for e in rounds)
    assert rounds[-1]["eta_seconds"] < rounds[0]["eta_seconds"]
    assert progress[-1] == {"event": "done", "status": "ok"}
    no_server_left(harness.out)
