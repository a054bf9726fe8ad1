"""The defaults probe's pure parts: which server variables count as differing (each side's own
paths, port, identity and versions aside), which are refused before the head's restart and why,
which the restarted head took, and how many re-measure pairs fit the row's time; optimizer_switch
flag by flag, on the strings real MariaDB and MySQL servers start with."""
import json
from pathlib import Path

from perfgate_harness import explain_defaults as ed

# optimizer_switch as real servers start with it (the file says where each comes from).
SWITCH = json.loads((Path(__file__).resolve().parents[2] / "fixtures" / "explain" / "optimizer-switch.json").read_text())


def opts(side):
    d = f"/run/servers/{side}"
    return {"innodb_buffer_pool_size": "128M", "datadir": f"{d}/data", "tmpdir": f"{d}/tmp", "socket": f"{d}/mysqld.sock",
            "pid_file": f"{d}/mysqld.pid", "log_error": f"{d}/error.log", "basedir": f"/srv/{side}/usr",
            "port": {"base": "41001", "head": "41002"}[side]}


def sides_variables(**changes):
    """SHOW GLOBAL VARIABLES of two sides that differ only where perfgate places them, plus `changes`
    (name -> (base, head))."""
    out = {}
    for side in ("base", "head"):
        o = opts(side)
        out[side] = {"datadir": o["datadir"] + "/", "socket": o["socket"], "port": o["port"], "pid_file": o["pid_file"],
                     "general_log_file": f"{o['datadir']}/host.log", "plugin_dir": f"{o['basedir']}/lib/mysql/plugin/",
                     "hostname": "vm", "server_uid": {"base": "abc=", "head": "xyz="}[side],
                     "version": {"base": "10.11.18-MariaDB", "head": "11.8.9-MariaDB"}[side],
                     "innodb_version": {"base": "10.11.18", "head": "11.8.9"}[side],
                     "gtid_binlog_pos": {"base": "0-1-5", "head": "0-1-9"}[side],
                     "log_bin_basename": f"{o['datadir']}/mysql-bin", "sort_buffer_size": "2097152"}
    for name, (b, h) in changes.items():
        for side, value in (("base", b), ("head", h)):
            if value is None:
                out[side].pop(name, None)
            else:
                out[side][name] = value
    return out


def test_only_settings_of_the_builds_differ():
    v = sides_variables()
    assert ed.differing(v["base"], v["head"], opts("base"), opts("head")) == []
    v = sides_variables(sort_buffer_size=("2097152", "262144"), old_mode=("", None), innodb_new_thing=(None, "ON"))
    assert ed.differing(v["base"], v["head"], opts("base"), opts("head")) == [
        {"name": "innodb_new_thing", "base": None, "head": "ON"}, {"name": "old_mode", "base": "", "head": None},
        {"name": "sort_buffer_size", "base": "2097152", "head": "262144"}]
    # A path that is not a side's own is a difference (an option file of a build, say).
    v = sides_variables(init_file=("/etc/a.sql", "/etc/b.sql"))
    assert [d["name"] for d in ed.differing(v["base"], v["head"], opts("base"), opts("head"))] == ["init_file"]


def test_the_exclusions_are_places_identities_versions_and_data_state():
    for name in ("datadir", "port", "socket", "pid_file", "hostname", "server_uid", "server_uuid", "server_id",
                 "tmpdir", "plugin_dir", "version", "version_compile_os", "innodb_version", "gtid_current_pos",
                 "build_id"):
        assert ed.excluded(name), name
    for name in ("sort_buffer_size", "innodb_flush_log_at_trx_commit", "optimizer_switch", "version_something"):
        assert not ed.excluded(name), name


def test_variables_refused_before_the_restart_say_why():
    differ = [{"name": "innodb_new_thing", "base": None, "head": "ON"}, {"name": "old_mode", "base": "X", "head": None},
              {"name": "have_ssl", "base": "YES", "head": "DISABLED"}, {"name": "init_connect", "base": "a\\nb", "head": ""},
              {"name": "sort_buffer_size", "base": "2097152", "head": "262144"}]
    base = {v["name"]: v["base"] for v in differ}
    given, refused = ed.candidates(differ, base)
    # Whether the head takes one as a server option is the head's to say at its start.
    assert given == {"have_ssl": "YES", "sort_buffer_size": "2097152"}
    assert refused == [
        {"name": "innodb_new_thing", "reason": "only the head has it: the base has no value to set"},
        {"name": "old_mode", "reason": "unknown to the head: only the base has it"},
        {"name": "init_connect", "reason": "its value cannot be written to an option file as it is"}]


def test_the_base_values_replace_what_the_head_set_itself():
    options = {"innodb_flush_log_at_trx_commit": "1", "innodb-buffer-pool-size": "1G", "datadir": "/d"}
    got = ed.options_with(options, {"innodb_flush_log_at_trx_commit": "2", "innodb_buffer_pool_size": "134217728",
                                    "ft_boolean_syntax": "+ -><()~*:\"\"&|", "old_mode": ""})
    assert got == {"datadir": "/d", "loose-innodb_flush_log_at_trx_commit": "2", "loose-innodb_buffer_pool_size": "134217728",
                   "loose-ft_boolean_syntax": "'+ -><()~*:\"\"&|'", "loose-old_mode": '""'}


def test_what_the_restarted_head_did_not_take_is_refused_with_its_log_line():
    given = {"sort_buffer_size": "2097152", "innodb_log_write_ahead_size": "8192", "optimizer_mode": "x"}
    base = {**sides_variables()["base"], **given}
    head = {**sides_variables()["head"], "sort_buffer_size": "2097152", "innodb_log_write_ahead_size": "4096",
            "optimizer_mode": "y"}
    log = ("2026-12-06 19:00:01 0 [Warning] mariadbd: ignoring option '--loose-optimizer-mode' due to invalid value 'x'\n"
           "2026-12-06 19:00:02 0 [Note] InnoDB: started\n")
    done, refused = ed.taken(given, base, head, opts("base"), opts("head"), log)
    assert done == ["sort_buffer_size"]
    assert refused == [
        {"name": "innodb_log_write_ahead_size", "reason": "the head reads '4096' after the restart"},
        {"name": "optimizer_mode", "reason": "rejected by the head: [Warning] mariadbd: ignoring "
                                             "option '--loose-optimizer-mode' due to invalid value 'x'"}]
    # Not taken, unnamed in the log: no server option, where the head says so.
    assert ed.taken({"have_ssl": "YES"}, {"have_ssl": "YES"}, {"have_ssl": "NO"}, opts("base"), opts("head"), "",
                    {"have_ssl": False})[1] == [{"name": "have_ssl", "reason": "not a server option of the head: the server sets it itself"}]
    # What differs after the restart besides the refused: a variable derived from one that was set.
    head["innodb_buffer_pool_chunk_size"], base["innodb_buffer_pool_chunk_size"] = "1048576", "2097152"
    assert ed.still_differ(base, head, opts("base"), opts("head"), refused) == ["innodb_buffer_pool_chunk_size"]


def test_a_head_that_does_not_start_with_a_value_names_it():
    log = ("2026-12-06 19:01:43 0 [ERROR] /usr/sbin/mariadbd: Error while setting value 'BOGUS' to 'transaction-isolation'\n"
           "2026-12-06 19:01:43 0 [ERROR] Aborting\n")
    given = {"transaction_isolation": "BOGUS", "sort_buffer_size": "2097152", "isolation": "x"}
    assert ed.refused_at_start(given, log) == [{"name": "transaction_isolation", "reason": "the head did not start with it: "
                                                "[ERROR] mariadbd: Error while setting value 'BOGUS' to 'transaction-isolation'"}]
    assert ed.refused_at_start(given, "[ERROR] InnoDB: cannot allocate memory\n") == []


def test_a_long_value_in_a_log_line_is_cut():
    value = ",".join(f"flag{i}=on" for i in range(40))
    log = f"2026-12-06 19:43:49 0 [ERROR] mariadbd: Error while setting value '{value}' to 'optimizer_switch'\n"
    assert ed.log_line("optimizer_switch", log) == f"[ERROR] mariadbd: Error while setting value '{value[:40]}…' to 'optimizer_switch'"


def test_the_error_naming_an_option_is_said_over_its_deprecation_warning():
    log = ("2026-12-06 19:52:22 0 [ERROR] /root/srv/usr/sbin/mariadbd: Error while setting value 'fix_card_multiplier' "
           "to 'optimizer_adjust_secondary_key_costs'\n"
           "2026-12-06 19:52:22 0 [Warning] --optimizer-adjust-secondary-key-costs is deprecated and will be removed\n")
    assert ed.log_line("optimizer_adjust_secondary_key_costs", log) == (
        "[ERROR] mariadbd: Error while setting value 'fix_card_multiplier' to 'optimizer_adjust_secondary_key_costs'")
    assert ed.log_line("optimizer_adjust_secondary_key_costs", log.splitlines()[1]) == (
        "[Warning] --optimizer-adjust-secondary-key-costs is deprecated and will be removed")


def test_the_pairs_that_fit_the_rows_time():
    assert ed.pairs_plan(100, 10) == (4, 10)  # 21 s a pair at the row's round length
    assert ed.pairs_plan(30, 10) == (2, 7.0)  # shorter rounds for the least pairs
    assert ed.pairs_plan(6, 10) == (2, 1.0)
    assert ed.pairs_plan(5.9, 10) == (0, 0.0)  # not even 2 pairs of 1 s
    assert ed.pairs_plan(1000, 1) == (ed.MOST_PAIRS, 1)


def test_the_probes_leave_the_remeasure_its_least():
    # The restart as long as the row's first start, and 2 pairs of 1 s a side with 1 s of overhead each.
    assert ed.reserve_seconds(5.0) == 11.0


def test_refused_variables_the_head_would_not_take_come_first():
    refused = [{"name": "a_new", "reason": "only the head has it: the base has no value to set"},
               {"name": "b_gone", "reason": "unknown to the head: only the base has it"},
               {"name": "have_ssl", "reason": "not a server option of the head: the server sets it itself"},
               {"name": "optimizer_switch", "reason": "the head reads 'x' after the restart"},
               {"name": "c_bad", "reason": "rejected by the head: [Warning] ..."}]
    assert [r["name"] for r in ed.most_telling_first(refused)] == ["c_bad", "optimizer_switch", "have_ssl", "b_gone", "a_new"]


def switch(name, **changes):
    """A real optimizer_switch with `changes` (flag -> value, None: the flag dropped)."""
    flags = ed.flags(SWITCH[name])
    for flag, value in changes.items():
        if value is None:
            flags.pop(flag)
        else:
            flags[flag] = value
    return ",".join(f"{f}={v}" for f, v in flags.items())


def test_optimizer_switch_reads_as_flags_on_mariadb_and_mysql():
    old, new, mysql = (ed.flags(SWITCH[n]) for n in ("mariadb-10.11.18", "mariadb-11.8.9", "mysql-8.4"))
    assert (len(old), len(new), len(mysql)) == (38, 38, 27)
    assert (old["engine_condition_pushdown"], new["sargable_casefold"], mysql["hypergraph_optimizer"]) == ("off", "on", "off")
    # Not flags: compared whole, as any other variable.
    for value in ("", "index_merge", "a=on,,b=off", "a=on;b=off", None, "a" * 65 + "=on", ",".join(f"f{i}=on" for i in range(201))):
        assert ed.flags(value) is None, value
    assert ed.variable_of("optimizer_switch.mrr") == "optimizer_switch"
    assert ed.variable_of("sort_buffer_size") == "sort_buffer_size"
    assert ed.variable_of("innodb.thing") == "innodb.thing"


def test_10_11_against_11_8_the_flags_both_know_are_set_and_those_one_side_has_listed():
    v = sides_variables(optimizer_switch=(SWITCH["mariadb-10.11.18"], SWITCH["mariadb-11.8.9"]))
    differ = ed.differing(v["base"], v["head"], opts("base"), opts("head"))
    assert differ == [{"name": "optimizer_switch.cset_narrowing", "base": "off", "head": "on"},
                      {"name": "optimizer_switch.engine_condition_pushdown", "base": "off", "head": None},
                      {"name": "optimizer_switch.hash_join_cardinality", "base": "off", "head": "on"},
                      {"name": "optimizer_switch.sargable_casefold", "base": None, "head": "on"}]
    given, refused = ed.candidates(differ, v["base"])
    # One assignment of the flags the head knows, never the whole string it would refuse.
    assert given == {"optimizer_switch": "cset_narrowing=off,hash_join_cardinality=off"}
    assert ed.most_telling_first(refused) == [
        {"name": "optimizer_switch.engine_condition_pushdown", "reason": "unknown to the head: only the base has it"},
        {"name": "optimizer_switch.sargable_casefold", "reason": "only the head has it: the base has no value to set"}]


def test_the_flags_both_know_are_set_to_the_base_values_in_one_assignment():
    base = switch("mariadb-10.11.18", mrr="on", rowid_filter="off")
    v = sides_variables(optimizer_switch=(base, SWITCH["mariadb-11.8.9"]), sort_buffer_size=("2097152", "262144"))
    differ = ed.differing(v["base"], v["head"], opts("base"), opts("head"))
    assert [d["name"] for d in differ] == [
        "optimizer_switch.cset_narrowing", "optimizer_switch.engine_condition_pushdown", "optimizer_switch.hash_join_cardinality",
        "optimizer_switch.mrr", "optimizer_switch.rowid_filter", "optimizer_switch.sargable_casefold", "sort_buffer_size"]
    given, refused = ed.candidates(differ, v["base"])
    flags = "cset_narrowing=off,hash_join_cardinality=off,mrr=on,rowid_filter=off"
    assert given == {"optimizer_switch": flags, "sort_buffer_size": "2097152"}
    assert [r["name"] for r in refused] == ["optimizer_switch.engine_condition_pushdown", "optimizer_switch.sargable_casefold"]
    assert ed.options_with({"datadir": "/d"}, given) == {
        "datadir": "/d", "loose-optimizer_switch": flags, "loose-sort_buffer_size": "2097152"}
    # A flag set the head was started with keeps its other flags.
    assert ed.options_with({"optimizer-switch": "mrr=off,index_merge=off"}, given)["loose-optimizer_switch"] == (
        "mrr=on,index_merge=off,cset_narrowing=off,hash_join_cardinality=off,rowid_filter=off")
    # After the restart: each flag given the head reads as the base does, by name; one it does
    # not, with what it reads; the flags only one side has stay refused, never "still different".
    head_after = {**v["head"], "optimizer_switch": switch("mariadb-11.8.9", mrr="on", cset_narrowing="off", hash_join_cardinality="off"),
                  "sort_buffer_size": "2097152"}
    done, not_taken = ed.taken(given, v["base"], head_after, opts("base"), opts("head"), "")
    assert done == ["optimizer_switch.cset_narrowing", "optimizer_switch.hash_join_cardinality", "optimizer_switch.mrr", "sort_buffer_size"]
    assert not_taken == [{"name": "optimizer_switch.rowid_filter", "reason": "the head reads 'on' after the restart"}]
    assert ed.still_differ(v["base"], head_after, opts("base"), opts("head"), refused + not_taken) == []
    # A head that does not start with the assignment: each flag in it refused with the line.
    log = f"2026-12-06 19:43:49 0 [ERROR] mariadbd: Error while setting value '{flags}' to 'optimizer_switch'\n"
    said = f"the head did not start with it: [ERROR] mariadbd: Error while setting value '{flags[:40]}…' to 'optimizer_switch'"
    assert ed.refused_at_start(given, log) == [{"name": f"optimizer_switch.{f}", "reason": said}
                                               for f in ("cset_narrowing", "hash_join_cardinality", "mrr", "rowid_filter")]


def test_mysql_flags_are_compared_the_same_way():
    base = SWITCH["mysql-8.4"]
    head = switch("mysql-8.4", hash_set_operations=None, hypergraph_optimizer="on", new_flag="off")
    v = sides_variables(optimizer_switch=(base, head), optimizer_trace=("enabled=off,one_line=off", "enabled=off,one_line=off"))
    differ = ed.differing(v["base"], v["head"], opts("base"), opts("head"))
    assert differ == [{"name": "optimizer_switch.hash_set_operations", "base": "on", "head": None},
                      {"name": "optimizer_switch.hypergraph_optimizer", "base": "off", "head": "on"},
                      {"name": "optimizer_switch.new_flag", "base": None, "head": "off"}]
    given, refused = ed.candidates(differ, v["base"])
    assert given == {"optimizer_switch": "hypergraph_optimizer=off"}
    assert [r["name"] for r in refused] == ["optimizer_switch.hash_set_operations", "optimizer_switch.new_flag"]
    # A flag set only one side reads as flags is one variable, as before.
    v = sides_variables(optimizer_switch=(base, "x"))
    assert ed.differing(v["base"], v["head"], opts("base"), opts("head")) == [{"name": "optimizer_switch", "base": base, "head": "x"}]


class _Cursor:
    def __init__(self, error):
        self.error = error

    def execute(self, sql):
        raise self.error


class _Server:
    def __init__(self, error):
        self.error, self.closed = error, False

    def connect(self):
        server = self

        class Conn:
            def cursor(self):
                return _Cursor(server.error)

            def close(self):
                server.closed = True
        return Conn()


def test_a_server_without_system_variables_has_no_startup_list_and_other_errors_are_raised():
    import pymysql
    import pytest
    # MySQL 9.7 answers 1109 (Unknown table 'SYSTEM_VARIABLES' in information_schema), which
    # PyMySQL raises as an OperationalError.
    mysql = _Server(pymysql.err.OperationalError(1109, "Unknown table 'SYSTEM_VARIABLES' in information_schema"))
    assert ed.startup_options(mysql) is None and mysql.closed
    assert ed.startup_options(_Server(pymysql.err.ProgrammingError(1146, "Table doesn't exist"))) is None
    with pytest.raises(pymysql.err.OperationalError):
        ed.startup_options(_Server(pymysql.err.OperationalError(2013, "Lost connection to server during query")))
