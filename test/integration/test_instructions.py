"""Instructions per query on the real servers: the signal that decides on a noisy runner, and
the rule that keeps a time-only regression a fail.

Both tests compare Debian's 10.11.18 with itself, the head started with one server option
changed, so that what changes is known:
  - performance_schema=ON does more work per query: instructions must fail, whatever the
    noisy clock says, and the report names where the instructions went;
  - innodb_flush_log_at_trx_commit=1 waits for an fsync per commit: time must fail on the
    write, while its instructions stay within their limits. An fsync on a shared disk takes
    from under a millisecond to hundreds, so the head's rounds of the write spread by tens of
    times: five pairs, not three, keep that fail's interval closed under the fail limit.
"""
import json
import subprocess

import jsonschema

from conftest import REPO

SUITE = """suite: instr
scale: {tables: 2, rows: 2000}
measure: {threads: 2, seconds: 2, warmup_seconds: 1, rounds: 5, signals: [time, instructions]}
instructions: {windows: 3, seed: 1}
limits:
  default: {warn: 0.9, fail: 0.8, instructions: {warn: 1.01, fail: 1.02}}
budget: {extra_pairs: 0, minutes: 0}
benchmarks: [point-query, update-index_range=100]
"""


def compare(basedirs, tmp_path, head_option):
    thresholds = tmp_path / "thresholds"
    (thresholds / "suites").mkdir(parents=True)
    (thresholds / "suites" / "instr.yml").write_text(SUITE)
    out = tmp_path / "run"
    r = subprocess.run(["node", str(REPO / "cli" / "bin" / "perfgate.js"), "compare", "--explain", "none", "--base", basedirs["base"],
                        "--head", basedirs["base"], "--thresholds", str(thresholds), "--suite", "instr",
                        "--out", str(out), "--head-option", head_option],
                       capture_output=True, text=True, timeout=900)
    verdict = json.loads((out / "verdict.json").read_text())
    jsonschema.validate(verdict, json.loads((REPO / "schema" / "verdict.schema.json").read_text()))
    results = json.loads((out / "results.json").read_text())
    jsonschema.validate(results, json.loads((REPO / "schema" / "results.schema.json").read_text()))
    return r, verdict, results, out


def rows(verdict):
    return {b["id"]: b for b in verdict["benchmarks"]}


def test_more_work_per_query_fails_on_instructions_and_says_where(basedirs, tmp_path):
    r, verdict, results, out = compare(basedirs, tmp_path, "performance_schema=ON")
    assert r.returncode == 1, r.stdout + r.stderr[-2000:]
    assert results["data"] == "shared" and results["instructions"]["windows"] == 3
    # Counted on jemalloc, which setup installs (counted_malloc.py): recorded with the run.
    assert results["instructions"]["malloc"]["name"] == "jemalloc", results["instructions"]
    assert results["machine"]["counted_malloc"] == results["instructions"]["malloc"]
    assert results["instructions"]["left_out"] == ["vio_read"]
    # Each fail was counted again on fresh server processes (a recount of instructions.windows)
    # before it stood; minutes: 0 leaves no count to narrow, a confirmation always runs.
    assert [e["purpose"] for e in results["extensions"]] == ["recount"]
    assert "places" not in results["extensions"][0]
    for bench in results["benchmarks"]:
        assert bench["instructions"]["runs"] == 2
        for side in ("base", "head"):
            windows = bench["instructions"][side]["windows"]
            assert len(windows) == 6 and all(w["connection"]["per_query"] > 1000 for w in windows)
            assert all(w["connection"]["threads"] >= 1 for w in windows)
            # Reading the client's statements is left out of the count and kept beside it.
            assert all(0 < w["connection"]["client_reads"] < w["connection"]["instructions"] for w in windows)
            assert (out / bench["instructions"][side]["files"]).is_dir(), "the last window's callgrind files are kept"
    for row in rows(verdict).values():
        assert row["instructions_verdict"] == "fail", row["reason"]
        assert row["verdict"] == "fail"
        assert row["instructions_per_query"]["low"] > 1.02, row["instructions_per_query"]
        assert "% more instructions per query: instr/o " in row["reason"] and "lies wholly above the fail limit 1.02" in row["reason"]
        went = row["instructions_functions"]
        assert went["grown"] and went["grown"][0]["self_growth"] > 0
        # The recount ran the head build in the base's place; its files were moved to its own folder.
        assert went["annotate"].startswith("callgrind_annotate --inclusive=yes servers/head/callgrind/")
    comment = (out / "comment.md").read_text()
    assert "| instr/o | 95% interval |" in comment
    assert "<details><summary>Where the instructions went</summary>" in comment
    assert "psi_" in comment, "performance schema's own functions grew"
    assert any(line.startswith("  update-index_range=100: instructions grew most in ") for line in r.stdout.splitlines()), r.stdout


def test_a_regression_that_only_waits_still_fails_on_time(basedirs, tmp_path):
    r, verdict, results, out = compare(basedirs, tmp_path, "innodb_flush_log_at_trx_commit=1")
    assert results["sides"]["head"]["options"]["innodb_flush_log_at_trx_commit"] == "1"
    assert results["sides"]["base"]["options"]["innodb_flush_log_at_trx_commit"] == "2"
    update = rows(verdict)["update-index_range=100"]
    assert update["instructions_verdict"] in ("pass", "warn"), update["reason"]
    assert update["time_verdict"] == "fail", update["reason"]
    assert update["verdict"] == "fail"
    assert "% slower: rQPS " in update["reason"] and update["decided_by"] == ["time"]
    assert r.returncode == 1, r.stdout + r.stderr[-2000:]


def test_timed_rounds_start_from_the_tables_as_loaded(basedirs, tmp_path):
    """The instruction windows of the write benchmark change rows before the timed rounds: a copy
    of the loaded datadir is kept and put back, so timed reads see the tables as loaded (the full
    suite's `.pre` reads are timed on freshly loaded tables), and no copy is left behind."""
    r, verdict, results, out = compare(basedirs, tmp_path, "performance_schema=OFF")
    assert r.returncode in (0, 1, 3), r.stdout + r.stderr[-2000:]
    assert results["instructions"]["timed_from"] == "loaded"
    assert "restore loaded data" in r.stderr or "restore loaded data" in r.stdout
    for side in ("base", "head"):
        assert not (out / "servers" / side / "data.loaded").exists()
        assert not (out / "servers" / side / "data").exists(), "the datadirs are removed after the run"


EXTRA_WINDOWS_SUITE = """suite: instr
scale: {tables: 2, rows: 2000}
measure: {threads: 2, seconds: 2, warmup_seconds: 1, rounds: 3, signals: [time, instructions]}
instructions: {windows: 2, seed: 1}
limits:
  default: {warn: 0.5, fail: 0.4, instructions: {warn: 0.5, fail: 0.6}}
budget: {extra_pairs: 0, minutes: 0}
benchmarks: [update-index_range=100]
"""


def test_extra_windows_count_on_the_tables_as_loaded(basedirs, tmp_path):
    """Extra instruction windows come after the timed rounds, which changed each side's tables
    as often as its speed allowed: counted there, base and head would run different work
    (update-index measured 195k instructions a query in the first windows and 160k in later
    ones, and a 4% change shrank to nothing). They count on the tables as loaded again, so
    their figures match the first windows'. An instr/o fail limit below 1 makes every count a
    fail, so the step that counts again on fresh servers always comes, wherever the two sides'
    counts land (limits just above 1 left it to where an A/A interval fell)."""
    thresholds = tmp_path / "thresholds"
    (thresholds / "suites").mkdir(parents=True)
    (thresholds / "suites" / "instr.yml").write_text(EXTRA_WINDOWS_SUITE)
    out = tmp_path / "run"
    r = subprocess.run(["node", str(REPO / "cli" / "bin" / "perfgate.js"), "compare", "--explain", "none", "--base", basedirs["base"],
                        "--head", basedirs["base"], "--thresholds", str(thresholds), "--suite", "instr",
                        "--out", str(out)], capture_output=True, text=True, timeout=900)
    assert r.returncode in (0, 1, 3), r.stdout + r.stderr[-2000:]
    results = json.loads((out / "results.json").read_text())
    assert [(e["purpose"], e["windows"]) for e in results.get("extensions", [])] == [("recount", 2)], results.get("extensions")
    windows = {side: [w["connection"]["per_query"] for w in results["benchmarks"][0]["instructions"][side]["windows"]]
               for side in ("base", "head")}
    for side, counts in windows.items():
        assert len(counts) == 4, counts
        first, extra = sum(counts[:2]) / 2, sum(counts[2:]) / 2
        assert abs(extra / first - 1) < 0.02, f"{side}: first windows {counts[:2]}, extra windows {counts[2:]}"
    for k in range(4):
        assert abs(windows["head"][k] / windows["base"][k] - 1) < 0.02, windows
