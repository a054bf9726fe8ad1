"""--reuse-data: extra rounds on the loaded datadirs, continuing the round numbering."""
import json

from conftest import events, load_plan, no_server_left


def phases(done):
    return [(e["phase"], e["side"]) for e in events(done.stdout) if e["event"] == "phase" and "side" in e
            and e["phase"] in ("init", "prepare", "copy data")]


# One load, copied to the head: both servers are MariaDB 10.11, so both sides hold the same rows.
# Then the base's own datadir is rewritten as a copy, so that both sides' files are written alike.
LOADED = [("init", "base"), ("prepare", "base"), ("copy data", "head"), ("copy data", "base")]


def small(basedirs, **measure):
    plan = load_plan("tiny-quick.json", basedirs, **{"rounds": 1, "warmup_seconds": 0, **measure})
    plan["scale"] = {"tables": 1, "rows": 500}
    plan["benchmarks"] = plan["benchmarks"][:1]
    return plan


def test_extension_run_reuses_the_data_and_continues_the_rounds(harness, basedirs):
    first = harness.run(small(basedirs))
    assert first.returncode == 0, first.stderr
    assert phases(first) == LOADED

    extra = harness.run(small(basedirs, rounds=2, first_round=1), "--reuse-data", "--results", "results.extra-1.json")
    assert extra.returncode == 0, extra.stderr
    assert phases(extra) == []  # same scale and basedirs: no init, no load
    measured = json.loads(harness.out.joinpath("results.extra-1.json").read_text())["benchmarks"][0]["rounds"]
    assert [(r["index"], r["side"]) for r in measured] == [(1, "head"), (1, "base"), (2, "base"), (2, "head")]
    assert json.loads(harness.out.joinpath("results.json").read_text())["status"] == "ok"  # first file kept

    bigger = small(basedirs)
    bigger["scale"]["rows"] = 600
    again = harness.run(bigger, "--reuse-data")
    assert again.returncode == 0, again.stderr
    assert phases(again) == LOADED
    no_server_left(harness.out)


def table_sizes(datadir):
    return {f.name: f.stat().st_size for f in sorted(datadir.glob("sbtest/sbtest*.ibd"))}


def test_a_later_step_starts_from_the_tables_as_loaded(harness, basedirs):
    """The first step's writes changed each side's tables as often as its speed allowed; a later
    step (extra rounds, a confirmation) that timed its reads there would time them on tables the
    sides no longer share, with purge catching up. It starts from the copy of the tables as
    loaded that the first step kept, the head again a copy of the base."""
    plan = small(basedirs, seconds=2)
    plan["benchmarks"] = [b for b in load_plan("tiny-quick.json", basedirs)["benchmarks"]
                          if b["id"] in ("point-query", "insert_range=100")]
    first = harness.run(plan)
    assert first.returncode == 0, first.stderr
    servers = harness.out / "servers"
    loaded = table_sizes(servers / "base" / "data.loaded")
    assert loaded and table_sizes(servers / "base" / "data") != loaded, "the inserts did not grow the tables"

    reads = small(basedirs, rounds=2, first_round=1)
    extra = harness.run(reads, "--reuse-data", "--results", "results.extra-1.json")
    assert extra.returncode == 0, extra.stderr
    restored = [(e["phase"], e["side"]) for e in events(extra.stdout) if e["event"] == "phase" and "side" in e]
    assert ("restore loaded data", "base") in restored and ("copy data", "head") in restored, restored
    assert phases(extra) == [("copy data", "head")]  # no init, no load
    for side in ("base", "head"):
        assert table_sizes(servers / side / "data") == loaded, side
    no_server_left(harness.out)
