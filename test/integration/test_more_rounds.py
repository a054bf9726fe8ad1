"""More pairs on a benchmark's own servers, asked for after every pair (plan
measure.rounds_on_request): the harness asks on stdout with the record so far, reads one line
of stdin, runs what it is told on the same servers and numbers the rounds on."""
import json
import signal

from perfgate_harness import schema

from conftest import events, load_plan, no_server_left, processes_mentioning


def test_the_harness_asks_after_each_pair_and_runs_what_it_is_told(harness, basedirs):
    plan = load_plan("tiny-quick.json", basedirs, rounds=2, warmup_seconds=0, side_schedule="alternating",
                     rounds_on_request=3)
    plan["benchmarks"] = plan["benchmarks"][:3]
    point, random_points, covered = (b["id"] for b in plan["benchmarks"])
    # point-query: one more pair, then two at once, then the offer is used up (3);
    # random-points: none; the third: an answer out of form.
    answers = {point: [1, 2], random_points: [0], covered: ["yes"]}
    proc = harness.start_asked(plan)
    asked = []
    for line in proc.stdout:
        event = json.loads(line) if line.startswith("{") else {}
        if event.get("event") != "more_rounds?":
            continue
        bench = event["benchmark"]
        asked.append((bench, event["most"], len(event["record"]["rounds"])))
        answer = answers[bench].pop(0)
        reply = answer if isinstance(answer, str) else json.dumps({"benchmark": bench, "more_rounds": answer})
        proc.stdin.write(reply + "\n")
        proc.stdin.flush()
    stderr = proc.stderr.read()
    assert proc.wait(timeout=300) == 4, stderr  # the answer out of form fails its benchmark
    # Asked after the planned pairs and after each answer, with what was offered left, until
    # the offer is used up; the record carries every round so far.
    assert asked == [(point, 3, 4), (point, 2, 6), (random_points, 3, 4), (covered, 3, 4)]
    assert (harness.out / "results.json").is_file(), stderr
    results = harness.results()
    assert schema.schema_errors("results", results) == []
    rows = {b["id"]: b for b in results["benchmarks"]}
    assert [(r["index"], r["side"]) for r in rows[point]["rounds"]] == [
        (i, side) for i in range(5) for side in ("base", "head")]
    assert all(r["qps"] > 0 for r in rows[point]["rounds"])
    assert len(rows[random_points]["rounds"]) == 4
    assert rows[covered]["status"] == "error" and rows[covered]["rounds"] == []
    error = next(e for e in results["errors"] if e["benchmark"] == covered)
    assert error["step"] == "more rounds"
    assert error["message"].startswith("answer on stdin 'yes'; expected {\"benchmark\": ")
    no_server_left(harness.out)


def test_nobody_answering_is_no_more_rounds(harness, basedirs):
    plan = load_plan("tiny-quick.json", basedirs, rounds=2, warmup_seconds=0, rounds_on_request=3)
    plan["benchmarks"] = plan["benchmarks"][:1]
    done = harness.run(plan)  # stdin: nothing (end of input at once)
    assert done.returncode == 0, done.stderr
    assert [e["event"] for e in events(done.stdout)].count("more_rounds?") == 1
    assert len(harness.results()["benchmarks"][0]["rounds"]) == 4


def test_a_cancel_while_the_harness_waits_for_an_answer_stops_everything(harness, basedirs):
    plan = load_plan("tiny-quick.json", basedirs, rounds=2, warmup_seconds=0, rounds_on_request=3)
    plan["benchmarks"] = plan["benchmarks"][:1]
    proc = harness.start_asked(plan)
    for line in proc.stdout:
        if line.startswith("{") and json.loads(line).get("event") == "more_rounds?":
            break
    proc.send_signal(signal.SIGTERM)  # nobody answers; the cancel comes instead
    proc.stdout.read()
    stderr = proc.stderr.read()
    assert proc.wait(timeout=120) == 128 + signal.SIGTERM, stderr
    assert processes_mentioning(str(harness.out)) == {}
    no_server_left(harness.out)
