"""TPC-C in the harness without servers: go-tpc's command lines, its real captured output read
into a workload report (test/fixtures/gotpc/), and every way a run fails: no go-tpc, garbled
output, a client thread stopped on an error, a server that died."""
import copy
import os
import stat

import pytest

from perfgate_harness import tpcc_workload as tpcc
from perfgate_harness.phase import Services, dataset_for
from perfgate_harness.plan import PlanError, parse_plan
from perfgate_harness.sysbench import Outcome
from perfgate_harness.workload import WorkloadFailed


def gotpc(fixture_text, name):
    return fixture_text("gotpc", name)


def summary_counts(text):
    """Count: of each [Summary] line, by kind, read independently of the parser under test."""
    out = {}
    for line in text.splitlines():
        if line.startswith("[Summary] "):
            kind = line.split()[1]
            out[kind] = int(line.split("Count: ")[1].split(",")[0])
    return out


def test_a_round_is_read_as_neworders_per_second_with_neworders_latency(fixture_text):
    text = gotpc(fixture_text, "run-time.txt")
    report = tpcc.parse_run_output(text)
    counts = summary_counts(text)
    tpmc = float(text.split("tpmC: ")[1].split(",")[0])
    assert report["queries"] == counts["NEW_ORDER"]
    assert report["qps"] == pytest.approx(tpmc / 60)
    # Transactions of the five kinds; the _ERR lines (cut short by the deadline) are not among them.
    assert report["transactions"] == sum(n for kind, n in counts.items() if not kind.endswith("_ERR"))
    assert report["seconds"] == pytest.approx(5.0, abs=0.1)
    assert report["tps"] == pytest.approx(report["transactions"] / report["seconds"])
    assert report["latency_ms"] == {"avg": 4.7, "p95": 10.5, "max": 24.1}
    assert (report["errors"], report["reconnects"]) == (0, 0)


def test_the_summary_is_read_not_the_interval_lines(fixture_text):
    text = gotpc(fixture_text, "run-interval.txt")
    report = tpcc.parse_run_output(text)
    assert report["queries"] == summary_counts(text)["NEW_ORDER"] != 1463  # 1463: the [Current] line's
    assert report["latency_ms"]["max"] == 92.3


def test_a_counted_window_runs_exactly_its_transactions(fixture_text):
    report = tpcc.parse_run_output(gotpc(fixture_text, "run-count.txt"))
    assert report["transactions"] == 200 and report["queries"] == 82


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace("[Summary] NEW_ORDER -", "[Summary] NEWORDER -"), "go-tpc output has no '[Summary] NEW_ORDER' line; its last line is 'tpmC:"),
    (lambda t: t[:t.index("tpmC:")], "go-tpc output has no 'tpmC:' line; its last line is '[Summary] STOCK_LEVEL"),
    (lambda t: t.replace("95th(ms): 10.5, ", ""), "go-tpc's '[Summary] NEW_ORDER' line has no '95th(ms)'"),
    (lambda t: "", "go-tpc output has no '[Summary] NEW_ORDER' line; it is empty"),
    (lambda t: t.replace("Count: 1204", "Count: 0"), "go-tpc completed no NewOrder transaction (Count 0"),
])
def test_garbled_output_is_an_error_naming_what_is_missing(fixture_text, edit, message):
    with pytest.raises(tpcc.GoTpcOutputError) as e:
        tpcc.parse_run_output(edit(gotpc(fixture_text, "run-time.txt")))
    assert str(e.value).startswith(message)


@pytest.mark.parametrize("name, returncode, state, message", [
    # go-tpc exits 0 when its threads stop on errors: the lines say so.
    ("server-killed.txt", 0, "running", "a go-tpc client thread stopped on an error: invalid connection"),
    ("server-killed.txt", 0, "killed by signal SIGKILL", "base server killed by signal SIGKILL during the round"),
    ("connection-refused.txt", 2, "running", "go-tpc exited with code 2: failed to connect to database when loading data"),
    ("no-tables.txt", 2, "running", "go-tpc exited with code 2: Error 1146: Table 'nosuch.customer' doesn't exist"),
    ("run-time.txt", 0, "running", None),
])
def test_why_a_run_cannot_count(fixture_text, name, returncode, state, message):
    outcome = Outcome(returncode, gotpc(fixture_text, name))
    assert tpcc.run_failure("base", outcome, state, 65) == message


def test_a_client_killed_at_its_timeout_is_said_so():
    assert tpcc.run_failure("head", Outcome(-9, "", timed_out=True), "running", 65) == "go-tpc did not finish within 65 s and was killed"


def test_command_lines_of_a_round_a_window_and_the_prepare():
    inv = tpcc.Invocation(port=3307, warehouses=2, threads=4, seconds=20)
    common = ["go-tpc", "tpcc", "run", "-H", "127.0.0.1", "-P", "3307", "-U", "perfgate_tpcc", "-D", "perfgate_tpcc",
              "--warehouses", "2", "-T", "4"]
    assert tpcc.build_command(inv) == [*common, "--time", "20s", "--interval", "80s"]
    window = tpcc.Invocation(port=3307, warehouses=2, threads=1, count=500, pin_cpus="1")
    assert tpcc.build_command(window, "/opt/go-tpc") == ["taskset", "-c", "1", "/opt/go-tpc", *common[1:-1], "1", "--count", "500"]
    prepare = tpcc.Invocation(port=3307, warehouses=2, threads=2, command="prepare")
    assert tpcc.build_command(prepare)[:3] == ["go-tpc", "tpcc", "prepare"] and tpcc.build_command(prepare)[-1] == "--no-check"
    # A client thread that meets an error stops and says so: no --ignore-error, whose dead
    # server is a line per refused connect.
    assert "--ignore-error" not in tpcc.build_command(inv)


def fake_program(folder, text, code=0):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "output.txt").write_text(text)
    program = folder / "go-tpc"
    program.write_text(f"#!/bin/sh\ncat '{folder / 'output.txt'}'\nexit {code}\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return program


def test_go_tpc_is_found_on_path_then_in_the_tools_folder_and_its_absence_fails_the_run(tmp_path, monkeypatch):
    tools = tmp_path / "tools"
    assert tpcc.find_program(path_env=str(tmp_path / "empty"), tools_bin=tools) is None
    installed = fake_program(tools, "")
    assert tpcc.find_program(path_env=str(tmp_path / "empty"), tools_bin=tools) == installed
    on_path = fake_program(tmp_path / "bin", "")
    assert tpcc.find_program(path_env=str(tmp_path / "bin"), tools_bin=tools) == on_path
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(tpcc, "TOOLS_BIN", tmp_path / "nothing")
    with pytest.raises(WorkloadFailed) as e:
        tpcc.require_program()
    assert str(e.value) == (f"go-tpc is not installed: not on PATH nor in {tmp_path / 'nothing'}; expected go-tpc v1.0.7 "
                            "(scripts/install-ci-tools.sh installs it)")


class Srv:
    side = "base"
    port = 3307

    def __init__(self, state="running"):
        self.state = state

    def exit_description(self, settle=0.0):
        return self.state


@pytest.fixture
def raw(time_plan):
    return time_plan(100000, [{"id": "tpcc", "name": "tpcc", "group": "tpcc", "kind": "write", "script": "perfgate_tpcc",
                               "options": {}, "threads": 2}])


def workload_of(raw, tmp_path):
    plan = parse_plan(raw)
    services = Services(plan=plan, out=tmp_path, journal=None, fleet=None, datadirs=None, client_log=tmp_path / "client.log")
    return services.workload(plan.benchmarks[0])


@pytest.mark.parametrize("name, code, state, message", [
    ("run-time.txt", 0, "running", None),
    ("run-time.txt", 0, "exited with code 1", "base server exited with code 1 during the round"),
    ("server-killed.txt", 0, "running", "a go-tpc client thread stopped on an error: invalid connection"),
    ("connection-refused.txt", 2, "running", "go-tpc exited with code 2: failed to connect"),
])
def test_a_round_runs_the_go_tpc_it_finds_and_fails_instead_of_counting_a_broken_run(raw, tmp_path, monkeypatch, fixture_text,
                                                                                     name, code, state, message):
    fake_program(tmp_path / "bin", gotpc(fixture_text, name), code)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    workload = workload_of(raw, tmp_path)
    assert isinstance(workload, tpcc.TpccWorkload)
    assert workload.command(Srv(), 20).startswith(f"{tmp_path / 'bin' / 'go-tpc'} tpcc run -H 127.0.0.1 -P 3307")
    if message is None:
        assert workload.timed(Srv(state), 5)["queries"] == summary_counts(gotpc(fixture_text, name))["NEW_ORDER"]
        assert "tpmC:" in (tmp_path / "client.log").read_text()
        return
    with pytest.raises(WorkloadFailed) as e:
        workload.timed(Srv(state), 5)
    assert str(e.value).startswith(message)
    assert e.value.log_tail  # go-tpc's last words go with the error


def test_a_tpcc_plan_loads_go_tpcs_warehouses_and_holds_tpcc_only(raw, tmp_path):
    plan = parse_plan(raw)
    assert plan.benchmarks[0].script_path is None
    assert isinstance(dataset_for(plan, tmp_path / "client.log"), tpcc.TpccWarehouses)
    mixed = copy.deepcopy(raw)
    mixed["benchmarks"].append({"id": "point-query", "name": "point-query", "group": "point", "kind": "read",
                                "script": "oltp_point_select", "options": {}, "threads": 1})
    with pytest.raises(PlanError) as e:
        parse_plan(mixed)
    assert str(e.value) == "plan.json: benchmarks: TPC-C and sysbench microbenchmarks load different tables; expected a plan of one kind only"
    hostile = copy.deepcopy(raw)
    hostile["benchmarks"][0]["script"] = "oltp_point_select"
    with pytest.raises(PlanError) as e:
        parse_plan(hostile)
    assert str(e.value).startswith("plan.json: benchmarks[0].script: ")
