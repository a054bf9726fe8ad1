import copy
import json

import pytest

from perfgate_harness.plan import PlanError, load_plan, parse_plan


@pytest.fixture
def basedir(tmp_path):
    (tmp_path / "srv" / "sbin").mkdir(parents=True)
    binary = tmp_path / "srv" / "sbin" / "mariadbd"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    return str(tmp_path / "srv")


@pytest.fixture
def raw(fixture_text, basedir):
    plan = json.loads(fixture_text("plans", "tiny-quick.json"))
    plan["sides"]["base"]["basedir"] = plan["sides"]["head"]["basedir"] = basedir
    return plan


def test_fixture_plans_parse(raw, fixture_text, basedir):
    plan = parse_plan(raw)
    assert [b.name for b in plan.benchmarks][:3] == ["point-query", "random-points_range=1000", "points-covered-pk_range=100"]
    assert plan.tables == 2 and plan.rounds == 2 and plan.first_round == 0 and plan.pin_server is None
    assert plan.benchmarks[1].script_path.name == "perfgate_points.lua"
    ahi = json.loads(fixture_text("plans", "tiny-ahi.json"))
    ahi["sides"]["base"]["basedir"] = ahi["sides"]["head"]["basedir"] = basedir
    cells = parse_plan(ahi).benchmarks
    assert {b.ahi for b in cells} == {"on", "off"} and all(b.script == "perfgate_ahi_mix" for b in cells)
    assert all(b.ahi_parts is None for b in cells)
    ahi["benchmarks"][0]["ahi_parts"] = 1
    assert parse_plan(ahi).benchmarks[0].ahi_parts == 1


def edited(raw, edit):
    raw = copy.deepcopy(raw)
    edit(raw)
    return raw


@pytest.mark.parametrize("edit, message", [
    (lambda p: p.pop("benchmarks"), "plan.json: (top level): 'benchmarks' is a required property"),
    (lambda p: p["measure"].update(seconds=0.5), "plan.json: measure.seconds: 0.5 is not of type 'integer'"),
    (lambda p: p["benchmarks"][2].update(threads=0), "plan.json: benchmarks[2].threads: 0 is less than the minimum of 1"),
    (lambda p: p["sides"]["head"].update(basedir="/nonexistent"),
     "plan.json: sides.head.basedir: '/nonexistent' is not a directory; expected an installed server prefix"),
    (lambda p: p["benchmarks"][0].update(script="oltp_nothing"),
     "plan.json: benchmarks[0].script: 'oltp_nothing' is not one of ['oltp_delete', "),
    (lambda p: p["benchmarks"][0]["options"].update(threads=8),
     "plan.json: benchmarks[0].options.threads: set by perfgate from the plan's scale, threads and seconds"),
    (lambda p: p["benchmarks"][0]["options"].update({"Bad Name": 1}),
     "plan.json: benchmarks[0].options.Bad Name: lower-case letters, digits, '_' or '-'"),
    (lambda p: p["benchmarks"][0]["options"].update(c="a\nb"),
     "plan.json: benchmarks[0].options.c: 'a\\nb' is not valid under any of the given schemas"),
    (lambda p: p["measure"].update(pin_cpus={"server": "zero"}),
     "plan.json: measure.pin_cpus.server: 'zero' does not match"),
    (lambda p: p["profiles"]["mysql"]["options"].update(socket="/tmp/x.sock"),
     "plan.json: profiles.mysql.options.socket: set by perfgate for each server"),
    (lambda p: p["profiles"].pop("percona"), "plan.json: profiles: 'percona' is a required property"),
])
def test_bad_plans_name_the_key(raw, edit, message):
    with pytest.raises(PlanError) as e:
        parse_plan(edited(raw, edit))
    assert str(e.value).startswith(message)
    assert "\n" not in str(e.value)


def test_basedir_without_a_server_binary(raw, tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(PlanError, match=r"sides.base.basedir: no server binary in '.*empty'; expected one of sbin/mariadbd"):
        parse_plan(edited(raw, lambda p: p["sides"]["base"].update(basedir=str(tmp_path / "empty"))))


def test_pin_cpus(raw):
    plan = parse_plan(edited(raw, lambda p: p["measure"].update(pin_cpus={"server": "0", "client": "1-2,4"})))
    assert (plan.pin_server, plan.pin_client) == ("0", "1-2,4")


def test_side_schedule(raw):
    assert parse_plan(raw).side_schedule == "in-turn"
    for way in ("together", "alternating"):
        assert parse_plan(edited(raw, lambda p: p["measure"].update(side_schedule=way))).side_schedule == way
    with pytest.raises(PlanError, match="measure.side_schedule: 'yes' is not one of"):
        parse_plan(edited(raw, lambda p: p["measure"].update(side_schedule="yes")))


def test_load_plan_file_errors(tmp_path):
    with pytest.raises(PlanError, match="missing.json: cannot read the plan"):
        load_plan(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(PlanError, match="bad.json: not JSON"):
        load_plan(tmp_path / "bad.json")


def test_signals_instruction_windows_and_side_options(raw):
    plan = parse_plan(raw)
    assert plan.signals == ("time",) and plan.measures_time and not plan.measures_instructions
    counted = edited(raw, lambda p: (p["measure"].update(signals=["time", "instructions"], instructions={"windows": 3, "seed": 1}),
                                     [b.update(instructions_events=50) for b in p["benchmarks"]],
                                     p["sides"]["head"].update(options={"innodb_flush_log_at_trx_commit": "1"})))
    plan = parse_plan(counted)
    assert plan.measures_instructions and (plan.instruction_windows, plan.instruction_seed) == (3, 1)
    assert {b.instructions_events for b in plan.benchmarks} == {50}
    assert plan.sides["head"].options == {"innodb_flush_log_at_trx_commit": "1"} and plan.sides["base"].options == {}


@pytest.mark.parametrize("edit, message", [
    (lambda p: p["measure"].update(signals=["instructions"]), "plan.json: measure: 'instructions' is a required property"),
    (lambda p: p["measure"].update(signals=["cycles"]), "plan.json: measure.signals[0]: 'cycles' is not one of ['time', 'instructions']"),
    (lambda p: (p["measure"].update(signals=["instructions"], instructions={"windows": 1, "seed": 1}),
                [b.update(instructions_events=5) for b in p["benchmarks"]]),
     "plan.json: measure.instructions.windows: 1 is less than the minimum of 2"),
    (lambda p: p["measure"].update(signals=["instructions"], instructions={"windows": 2, "seed": 1}),
     "plan.json: benchmarks[0]: 'instructions_events' is a required property"),
    (lambda p: p["sides"]["head"].update(options={"datadir": "/x"}), "plan.json: sides.head.options.datadir: set by perfgate for each server"),
])
def test_bad_instruction_settings_name_the_key(raw, edit, message):
    with pytest.raises(PlanError) as e:
        parse_plan(edited(raw, edit))
    assert str(e.value).startswith(message), str(e.value)


def test_each_side_runs_with_the_profile_of_its_own_flavour(raw, tmp_path):
    """The flavour comes from the server (`mysqld --version`), not from the suite: a MySQL side
    gets the MySQL profile (binary log off, innodb_redo_log_capacity), a MariaDB side MariaDB's,
    and a side's own options still come last."""
    from perfgate_harness.runner import Run
    raw["sides"]["head"]["options"] = {"innodb_adaptive_hash_index": "ON"}
    plan = parse_plan(raw)
    run = Run(plan, tmp_path / "run", {"base": ("mariadb", "10.11.18"), "head": ("mysql", "9.7.2")})
    base, head = run.fleet.server_options("base"), run.fleet.server_options("head")
    assert base["innodb_log_file_size"] == "48M" and "disable_log_bin" not in base
    assert "innodb_redo_log_capacity" in head and "innodb_log_file_size" not in head
    assert "disable_log_bin" in head and head["disable_log_bin"] is None  # written bare into my.cnf
    assert head["innodb_adaptive_hash_index"] == "ON" and base["innodb_adaptive_hash_index"] == "OFF"
    assert (run.side_record("base")["profile"], run.side_record("head")["profile"]) == ("mariadb-tiny", "mysql-tiny")
    run = Run(plan, tmp_path / "run", {"base": ("percona", "8.4.3-3"), "head": ("percona", "8.4.3-3")})
    assert run.fleet.server_options("base") == {**raw["profiles"]["percona"]["options"]}


def chain(raw, basedir, heads):
    raw = copy.deepcopy(raw)
    for name in heads:
        raw["sides"][name] = {"basedir": basedir, "label": name}
    raw["measure"]["signals"] = ["time"]
    return raw


def test_a_chain_keeps_its_heads_in_order(raw, basedir):
    # head10 is not a side name the schema allows; head2..head5 are, listed in any order.
    plan = parse_plan(chain(raw, basedir, ["head3", "head2"]))
    assert list(plan.sides) == ["base", "head", "head2", "head3"]
    with pytest.raises(PlanError, match=r"sides: .*head6"):
        parse_plan(chain(raw, basedir, ["head6"]))


def test_a_chain_counts_no_instructions(raw, basedir):
    bad = chain(raw, basedir, ["head2"])
    bad["measure"]["signals"] = ["time", "instructions"]
    bad["measure"]["instructions"] = {"windows": 2, "seed": 1}
    for b in bad["benchmarks"]:
        b["instructions_events"] = 100
    with pytest.raises(PlanError, match=r'measure.signals: a chain of 2 heads counts no instructions .*expected \["time"\]'):
        parse_plan(bad)
