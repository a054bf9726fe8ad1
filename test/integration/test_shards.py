"""The full suite in two shards on the real servers, merged into one report.

Two `perfgate compare --suite full --shard K/2` run side by side (standing in for two runners of
a workflow matrix) at 2 tables × 1,000 rows, 2 rounds of 1 s, then `perfgate merge` joins their
run folders. The figures of such short rounds on a shared machine mean nothing; what is checked
is the split, the merge and the reports.
"""
import json
import subprocess

import jsonschema
import pytest
import yaml

from conftest import REPO, no_server_left

PERFGATE = ["node", str(REPO / "cli" / "bin" / "perfgate.js")]
# One thread count (the shipped suite runs two): the split and the merge are what is checked,
# at half the time, with rows named as the suite names them.
TINY = ["--tables", "2", "--rows", "1000", "--seconds", "1", "--warmup-seconds", "0", "--rounds", "2", "--threads", "2"]
COMMENT_LIMIT = 65536


def schema(kind):
    return json.loads((REPO / "schema" / f"{kind}.schema.json").read_text())


@pytest.mark.slow
def test_full_suite_in_two_shards_merged(basedirs, tmp_path):
    suite = yaml.safe_load((REPO / "thresholds" / "suites" / "full.yml").read_text())["benchmarks"]
    shards = [tmp_path / f"shard-{k}" for k in (1, 2)]
    running = [
        subprocess.Popen([*PERFGATE, "compare", "--explain", "none", "--base", basedirs["base"], "--head", basedirs["head"],
                          "--suite", "full", "--shard", f"{k}/2", *TINY, "--out", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for k, out in zip((1, 2), shards)
    ]
    for p in running:
        stdout, stderr = p.communicate(timeout=600)
        # 0 pass/warn, 1 fail, 3 undecided are verdicts; 2 and 4 are not
        assert p.returncode in (0, 1, 3), stderr[-3000:]
    for out in shards:
        no_server_left(out)
        assert not (out / "servers" / "base" / "data").exists()

    # Each shard ran its part in the suite's order, a .pre read with its twin, writes before
    # the reads after writes.
    parts = [json.loads((out / "plan.json").read_text()) for out in shards]
    for k, (out, plan) in enumerate(zip(shards, parts), start=1):
        jsonschema.validate(plan, schema("plan"))
        assert plan["shard"] == {"index": k, "count": 2, "suite_benchmarks": suite}
        ids = [b["id"] for b in plan["benchmarks"]]
        assert ids == [n for n in suite if n in ids]
        for name in ids:
            if ".pre_" in name:
                assert name.replace(".pre_", "_") in ids, name
        kinds = [b["kind"] for b in plan["benchmarks"]]
        first_post_read = next(i for i, b in enumerate(plan["benchmarks"])
                               if b["kind"] == "read" and ".pre_" not in b["id"])
        assert "write" in kinds[:first_post_read], ids
        shard_results = json.loads((out / "results.json").read_text())
        assert [b["id"] for b in shard_results["benchmarks"]] == ids
    assert sorted(b["id"] for p in parts for b in p["benchmarks"]) == sorted(suite)

    # One shard alone is refused, by name.
    merged = tmp_path / "merged"
    r = subprocess.run([*PERFGATE, "merge", str(shards[0]), "--out", str(merged)], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr == (f"perfgate merge: shard 2/2 is missing ({shards[0]} is 1/2); pass the folder of every shard, "
                        "or --allow-partial for a report marked partial\n")
    assert not merged.exists()

    r = subprocess.run([*PERFGATE, "merge", str(shards[1]), str(shards[0]), "--out", str(merged)],
                       capture_output=True, text=True, timeout=120)
    results = json.loads((merged / "results.json").read_text())
    verdict = json.loads((merged / "verdict.json").read_text())
    assert r.returncode == verdict["exit_code"], r.stderr
    jsonschema.validate(results, schema("results"))
    jsonschema.validate(verdict, schema("verdict"))
    assert [b["id"] for b in results["benchmarks"]] == suite
    for b in results["benchmarks"]:
        assert b["status"] == "ok", b["id"]
        assert sorted((x["side"], x["index"]) for x in b["rounds"]) == [("base", 0), ("base", 1), ("head", 0), ("head", 1)]
    assert [(p["index"], p["folder"]) for p in results["shards"]["merged"]] == [(1, str(shards[0])), (2, str(shards[1]))]
    assert results["shards"]["missing"] == [] and results["shards"]["not_measured"] == []
    assert len(verdict["benchmarks"]) == 42

    comment = (merged / "comment.md").read_text()
    assert len(comment) <= COMMENT_LIMIT
    assert "rows are left out" not in comment
    rows = [line.split(" | ")[1] for line in comment.splitlines() if line.startswith("| ") and "_range=" in line]
    assert sorted(rows) == sorted(suite)
    assert rows.index("point-query_range=100") == rows.index("point-query.pre_range=100") + 1
    assert "Rows named .pre ran on freshly loaded tables, before the writes" in comment
    assert "Merged from 2 of 2 shards" in comment
    assert r.stdout.splitlines()[0].startswith("perfgate full: head 10.11.19")
