"""A tiny AHI write-mix end to end: the AHI really is switched per cell, and the server's
adaptive_hash_% counters are recorded per side."""
from perfgate_harness import schema

from conftest import events, load_plan, no_server_left


def test_ahi_cells_switch_the_ahi_and_record_its_counters(harness, basedirs):
    plan = load_plan("tiny-ahi.json", basedirs, rounds=1, warmup_seconds=0)
    plan["benchmarks"] = [b for b in plan["benchmarks"] if b["name"] != "point-select+5%update-nonindex"]
    assert plan["scale"]["tables"] >= 16
    done = harness.run(plan)
    assert done.returncode == 0, done.stderr
    results = harness.results()
    assert schema.schema_errors("results", results) == []
    assert results["status"] == "ok"

    cells = results["benchmarks"]
    assert {(b["name"], b["ahi"], b["threads"]) for b in cells} == {
        (name, ahi, threads) for name in ("point-select", "point-select+5%update-index")
        for ahi in ("off", "on") for threads in (1, 2)}
    for cell in cells:
        assert cell["status"] == "ok" and cell["group"] == "ahi"
        assert all(r["qps"] > 0 and r["cpu_per_query_us"] > 0 for r in cell["rounds"])
        for side in ("base", "head"):
            counters = cell["ahi_counters"][side]
            assert {"adaptive_hash_searches", "adaptive_hash_searches_btree", "adaptive_hash_rows_added",
                    "adaptive_hash_pages_added"} <= set(counters)
            assert all(v >= 0 for v in counters.values()), counters
            if cell["ahi"] == "on":
                assert counters["adaptive_hash_searches"] > 0, (cell["id"], side, counters)
            else:
                assert counters["adaptive_hash_searches"] == 0, (cell["id"], side, counters)
        if cell["name"].endswith("update-index"):
            assert "--update_percent=5" in cell["command"] and "--update=index" in cell["command"]
    assert events(done.stdout)[-1] == {"event": "done", "status": "ok"}
    no_server_left(harness.out)
