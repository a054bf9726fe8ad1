"""Callgrind: the server command and options, the profile parser (checked against
callgrind_annotate on real dumps of mariadbd 10.11.18), thread groups, window records."""
import gzip
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from perfgate_harness import callgrind, counted_malloc, server
from perfgate_harness.callgrind_format import CallgrindFormatError, FunctionCost, Profile, parse_profile

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "test" / "fixtures" / "callgrind"
# One real dump of an update-index window (3 events), one file per thread, and the files the
# same process wrote at exit. See test/fixtures/callgrind/README.md.
DUMP = FIXTURES / "update-index"


def fixture_files(folder: Path) -> dict[str, str]:
    files = {}
    for path in sorted(folder.iterdir()):
        if path.name.endswith(".gz"):
            files[path.name[:-3]] = gzip.decompress(path.read_bytes()).decode()
        elif path.name.startswith(callgrind.OUT_FILE_PREFIX):
            files[path.name] = path.read_text()
    return files


def fixture_pid() -> int:
    return next(parts[0] for parts in map(callgrind.dump_file_parts, fixture_files(DUMP)) if parts)


PID = fixture_pid()


def window_profiles():
    files = fixture_files(DUMP)
    parts = callgrind.files_of_dump(list(files), PID)
    assert len(parts) == 1, f"{DUMP} holds parts {sorted(parts)}; expected the files of one dump"
    return [parse_profile(files[n], n) for n in sorted(next(iter(parts.values())))]


def materialize(tmp_path: Path) -> Path:
    for name, text in fixture_files(DUMP).items():
        (tmp_path / name).write_text(text)
    return tmp_path


# ------------------------------------------------------------------------- command and options

JEMALLOC = counted_malloc.CountedMalloc("jemalloc", "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2")


def test_valgrind_wrapper_counts_nothing_until_told_and_splits_threads(tmp_path):
    assert callgrind.valgrind_wrapper(tmp_path, counted_malloc.GLIBC) == (
        "env", "GLIBC_TUNABLES=glibc.malloc.arena_max=1",
        "valgrind", "--tool=callgrind", "--instr-atstart=no", "--separate-threads=yes",
        f"--callgrind-out-file={tmp_path}/callgrind.out.%p")


def test_the_counted_server_gets_jemalloc_preloaded_and_valgrind_runs_it(tmp_path):
    lay = server.layout_for(tmp_path, "base")
    cmd = server.start_command(Path("/m/sbin/mariadbd"), lay, None, callgrind.valgrind_wrapper(tmp_path / "cg", JEMALLOC))
    # `env` sets the variables for what it runs: valgrind passes them on to the server it loads.
    assert cmd[:5] == ["env", "GLIBC_TUNABLES=glibc.malloc.arena_max=1",
                       "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
                       "MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1", "valgrind"]
    assert cmd.index("valgrind") < cmd.index("/m/sbin/mariadbd")


def test_the_wrapper_goes_between_taskset_and_the_server(tmp_path):
    lay = server.layout_for(tmp_path, "base")
    wrapper = callgrind.valgrind_wrapper(tmp_path / "cg", counted_malloc.GLIBC)
    cmd = server.start_command(Path("/m/sbin/mariadbd"), lay, "1", wrapper)
    assert cmd[:6] == ["taskset", "-c", "1", "env", "GLIBC_TUNABLES=glibc.malloc.arena_max=1", "valgrind"]
    assert cmd[-2:] == ["/m/sbin/mariadbd", f"--defaults-file={lay.cnf}"]


def test_server_options_cap_the_pool_at_its_size_and_keep_the_profile():
    profile = {"innodb-buffer-pool-size": "1G", "innodb_use_native_aio": "ON", "max_connections": 500,
               "innodb_purge_threads": 4}
    options = callgrind.server_options(profile)
    assert options == {"innodb-buffer-pool-size": "1G", "max_connections": 500,
                       "loose_innodb_buffer_pool_size_max": "1G", "innodb_use_native_aio": False,
                       "innodb_purge_threads": 1, "innodb_buffer_pool_load_at_startup": False}
    assert profile["innodb_use_native_aio"] == "ON"  # the profile itself is not changed


def test_server_options_use_mariadbs_default_pool_when_the_profile_has_none():
    assert callgrind.server_options({})["loose_innodb_buffer_pool_size_max"] == "128M"


def test_written_options_are_what_mariadbd_reads(tmp_path):
    options = server.server_options(callgrind.server_options({"innodb_buffer_pool_size": "1G"}),
                                    server.layout_for(tmp_path, "base"), Path("/m"), 3306, None)
    assert ("loose_innodb_buffer_pool_size_max = 1G\ninnodb_use_native_aio = OFF\ninnodb_purge_threads = 1\n"
            "innodb_buffer_pool_load_at_startup = OFF\n") in server.render_cnf(options)


# ------------------------------------------------------------------------- dump files

def test_dump_file_names():
    assert callgrind.dump_file_parts("callgrind.out.18870.3-13") == (18870, 3, 13)
    assert callgrind.dump_file_parts("callgrind.out.18870.12-01") == (18870, 12, 1)
    assert callgrind.dump_file_parts("callgrind.out.18870-13") is None  # written at exit: no part
    assert callgrind.dump_file_parts("callgrind.out.18870") is None
    names = ["callgrind.out.7.1-01", "callgrind.out.7.1-02", "callgrind.out.7.2-01", "callgrind.out.8.1-01",
             "callgrind.out.7-01", "error.log"]
    assert callgrind.files_of_dump(names, 7) == {1: ["callgrind.out.7.1-01", "callgrind.out.7.1-02"],
                                                 2: ["callgrind.out.7.2-01"]}


def test_read_dump_rejects_a_file_of_another_dump(tmp_path):
    folder = materialize(tmp_path)
    files = sorted(folder.glob(f"callgrind.out.{PID}.*-*"))
    trigger = parse_profile(files[0].read_text()).trigger
    assert trigger.startswith("dump ")
    assert len(callgrind.read_dump(files, trigger[len("dump "):])) == len(files)
    with pytest.raises(CallgrindFormatError, match=r"written by 'dump .*'; expected 'dump other'"):
        callgrind.read_dump(files, "other")


def test_read_dump_rejects_a_file_cut_short(tmp_path):
    folder = materialize(tmp_path)
    path = max(folder.glob(f"callgrind.out.{PID}.*-*"), key=lambda p: p.stat().st_size)
    text = path.read_text()
    path.write_text(text[:text.index("\ntotals:")] + "\n")
    description = parse_profile(text).trigger[len("dump "):]
    with pytest.raises(CallgrindFormatError, match=r"no 'totals:' line; the dump was not written whole"):
        callgrind.read_dump([path], description)


def test_final_dump_is_recognised_and_everything_removed(tmp_path):
    folder = materialize(tmp_path)
    assert callgrind.final_dump_written(folder, PID)
    assert not callgrind.final_dump_written(folder, PID + 1)
    (folder / "unrelated.txt").write_text("x")
    callgrind.remove_files(folder, PID)
    assert [p.name for p in folder.iterdir()] == ["unrelated.txt"]


# ------------------------------------------------------------------------- the parser

def test_costs_add_up_to_each_files_totals():
    profiles = window_profiles()
    assert len(profiles) > 5
    for p in profiles:
        assert p.totals == p.self_sum()
        assert p.events == ["Ir"]


def annotate(text: str, tmp_path: Path, inclusive: bool) -> dict[str, list[int]]:
    """Costs per function name as callgrind_annotate prints them: one entry per source file the
    function's code came from (inlined code of another file is listed apart)."""
    if shutil.which("callgrind_annotate") is None:
        pytest.fail("callgrind_annotate is not installed (Debian: apt-get install valgrind)")
    path = tmp_path / "profile"
    path.write_text(text)
    out = subprocess.run(["callgrind_annotate", "--threshold=100", "--auto=no",
                          f"--inclusive={'yes' if inclusive else 'no'}", str(path)],
                         capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    costs = {}
    for line in out.splitlines():
        # "<cost> (<pct>%)  <file>:<function> [<object>]"; the object is left out when it is unknown.
        m = re.match(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*?)(?: \[(.*)\])?$", line)
        if m and m.group(2) != "PROGRAM TOTALS":
            file_and_function = m.group(2)
            function = file_and_function.split(":", 1)[1]
            costs.setdefault(function, []).append(int(m.group(1).replace(",", "")))
    return costs


def connection_thread_text() -> str:
    return next(text for text in fixture_files(DUMP).values()
                if callgrind.is_connection_thread(parse_profile(text)))


def test_self_costs_match_callgrind_annotate(tmp_path):
    text = connection_thread_text()
    mine = {name: f.self_cost for name, f in parse_profile(text).functions.items() if f.self_cost}
    theirs = {name: sum(costs) for name, costs in annotate(text, tmp_path, inclusive=False).items()}
    assert len(mine) > 1000
    assert mine == theirs


def test_inclusive_costs_match_callgrind_annotate(tmp_path):
    text = connection_thread_text()
    theirs = annotate(text, tmp_path, inclusive=True)
    mine = parse_profile(text).functions
    # Functions whose code all comes from one source file; the others annotate splits by file.
    single = {name: costs[0] for name, costs in theirs.items() if len(costs) == 1}
    assert len(single) > 1000
    differ = {name for name, cost in single.items() if mine[name].inclusive != cost}
    # annotate charges a callee what its callers' call lines say; we add up what the function
    # itself ran and called. The two differ only for a wait that was under way when counting
    # began (part of its call was not counted).
    assert differ == {"__futex_abstimed_wait_common"}


def test_inclusive_cost_of_the_connection_entry_is_the_whole_thread():
    profiles = window_profiles()
    connection = [p for p in profiles if callgrind.is_connection_thread(p)]
    assert len(connection) == 1
    p = connection[0]
    by_name = {callgrind.base_name(f.name): f for f in p.functions.values()}
    # sysbench connected inside the window: login and statement preparation run under the
    # connection's entry point but outside the command loop of the 3 events.
    assert by_name["do_handle_one_connection"].inclusive == p.totals
    assert 0.85 * p.totals < by_name["do_command"].inclusive < p.totals
    assert by_name["dispatch_command"].inclusive < by_name["do_command"].inclusive
    for f in p.functions.values():
        assert f.self_cost <= f.inclusive


def test_parse_errors_name_the_file_and_line():
    with pytest.raises(CallgrindFormatError, match=r"^x.out:3: a cost line before any fn= line: '5 10'$"):
        parse_profile("events: Ir\npositions: line\n5 10\n", "x.out")
    with pytest.raises(CallgrindFormatError, match=r"^x.out:3: fn=\(7\) refers to a name never defined$"):
        parse_profile("events: Ir\npositions: line\nfn=(7)\n", "x.out")
    with pytest.raises(CallgrindFormatError, match=r"^x.out:2: positions: 'instr line'; expected 'line'"):
        parse_profile("events: Ir\npositions: instr line\n", "x.out")
    with pytest.raises(CallgrindFormatError, match=r"^x.out: no 'events:' line; not a callgrind profile$"):
        parse_profile("hello\n".replace("hello", "# nothing"), "x.out")
    with pytest.raises(CallgrindFormatError, match=r"^x.out:1: not a callgrind line: 'hello'$"):
        parse_profile("hello\n", "x.out")


# ------------------------------------------------------------------------- thread groups, records

def test_base_name_drops_arguments_and_recursion_level():
    assert callgrind.base_name("do_command(THD*, bool)") == "do_command"
    assert callgrind.base_name("do_handle_one_connection(CONNECT*, bool)'2") == "do_handle_one_connection"
    assert callgrind.base_name("0x0000000000d6d620") == "0x0000000000d6d620"


def test_threads_split_into_the_connection_and_the_background():
    groups = callgrind.split_threads(window_profiles())
    assert len(groups["connection"]) == 1
    assert groups["background"]
    names = {callgrind.base_name(f.name) for p in groups["background"] for f in p.functions.values()}
    assert "do_command" not in names
    assert any(n.startswith("tpool::") for n in names)  # InnoDB's worker pool


def test_window_record_keeps_exact_totals_per_group_less_the_client_reads():
    profiles = window_profiles()
    record = callgrind.window_record(profiles, queries=3, events=3, seconds=1.23456)
    total = sum(p.totals for p in profiles)
    reads = record["connection"]["client_reads"]
    assert record["connection"]["instructions"] + record["background"]["instructions"] + reads == total
    # The connection thread read its 3 statements (and COM_QUIT's wait) through vio_read:
    # exactly what callgrind charged to vio_read and what it called; background threads read none.
    connection = callgrind.split_threads(profiles)["connection"][0]
    assert reads == connection.functions["vio_read"].inclusive
    assert 0 < reads < record["connection"]["instructions"] / 100
    assert record["background"]["client_reads"] == 0
    assert record["connection"]["per_query"] == round(record["connection"]["instructions"] / 3, 1)
    assert record["seconds"] == 1.235 and record["events"] == 3 and record["queries"] == 3
    assert record["connection"]["threads"] == 1


def test_client_reads_are_vio_read_alone_and_counted_once():
    def profile(*functions):
        return Profile(pid=1, part=1, thread=1, trigger=None, events=["Ir"], totals=0,
                       functions={f.name: f for f in functions})
    thread = profile(FunctionCost("do_command(THD*, bool)", "mariadbd", "", 0, 10, 1000),
                     FunctionCost("vio_read(st_vio*, unsigned char*, unsigned long)", "mariadbd", "", 0, 20, 120),
                     FunctionCost("vio_read'2", "mariadbd", "", 0, 5, 30),  # inside the first level's 120
                     FunctionCost("vio_read_buff", "mariadbd", "", 0, 40, 160),  # the buffer's own work counts
                     FunctionCost("vio_io_wait", "mariadbd", "", 0, 50, 90))  # inside vio_read's 120
    assert callgrind.client_reads(thread) == 120
    assert callgrind.client_reads(profile()) == 0


def test_a_window_with_no_queries_or_no_connection_count_is_an_error_not_a_figure():
    profiles = window_profiles()
    good = {"queries": 3, "errors": 0, "reconnects": 0}
    record = callgrind.window_record(profiles, 3, 3, 1.0)
    assert callgrind.window_problem("w1", good, record) is None
    assert callgrind.window_problem("w1", {**good, "errors": 2}, record).startswith("window w1: sysbench had 2 errors")
    none_done = callgrind.window_record(profiles, 0, 3, 1.0)
    assert none_done["connection"]["per_query"] is None
    assert callgrind.window_problem("w1", {**good, "queries": 0}, none_done) == "window w1: sysbench completed no queries"
    background_only = callgrind.window_record(callgrind.split_threads(profiles)["background"], 3, 3, 1.0)
    assert callgrind.window_problem("w1", good, background_only).startswith(
        "window w1: no instructions counted on the connection threads")


def test_side_record_lists_the_top_functions_per_query():
    profiles = window_profiles()
    windows = [callgrind.window_record(profiles, 3, 3, 1.0)] * 2
    record = callgrind.side_record(windows, [profiles, profiles], top={"connection": 5, "background": 2})
    top = record["functions"]["connection"]
    assert len(top) == 5 and len(record["functions"]["background"]) == 2
    assert [f["inclusive"] for f in top] == sorted((f["inclusive"] for f in top), reverse=True)
    # Two identical windows of 3 queries each: per query is one window's cost divided by 3.
    connection = callgrind.split_threads(profiles)["connection"][0]
    first = connection.functions[top[0]["name"]]
    assert top[0]["inclusive"] == round(first.inclusive / 3, 1)
    assert top[0]["object"] == "mariadbd"
    assert set(top[0]) == {"name", "object", "source", "self", "inclusive"}


def test_events_for_a_target_is_a_round_number_within_bounds():
    assert callgrind.events_for(43_573, 100e6) == 2300
    assert callgrind.events_for(1_053_846, 100e6) == 95
    assert callgrind.events_for(78_854_722, 100e6) == 2     # at least two events
    assert callgrind.events_for(10, 100e6) == 20000         # at most 20,000
    with pytest.raises(ValueError, match="per-event instructions 0; expected a positive number"):
        callgrind.events_for(0, 100e6)


def test_sources_come_from_line_information_where_the_binary_has_it():
    # Debian's libc carries line information; its mariadbd is stripped of it.
    merged = callgrind.merge_functions(callgrind.split_threads(window_profiles())["connection"])
    by_name = {name: entry for (name, _), entry in merged.items()}
    assert by_name["malloc"]["source"] == "./malloc/./malloc/malloc.c:3281"  # __libc_malloc's entry
    assert by_name["malloc"]["object"] == "libc.so.6"
    assert by_name["do_command(THD*, bool)"]["source"] is None
    assert by_name["do_command(THD*, bool)"]["object"] == "mariadbd"


# ------------------------------------------------------------------ Control: the vgdb calls

FAKE_VGDB = """#!/bin/sh
# Records its arguments; "dump" writes one file per thread as callgrind would, and a reply set in
# FAKE_VGDB_REPLY is printed as callgrind's gdbserver prints an error; with FAKE_VGDB_DIR empty a
# dump writes nothing.
echo "$*" >> "$FAKE_VGDB_LOG"
if [ -n "$FAKE_VGDB_REPLY" ]; then echo "$FAKE_VGDB_REPLY"; exit 0; fi
[ -n "$FAKE_VGDB_DIR" ] || exit 0
case "$*" in *dump*)
  part=$(( $(ls "$FAKE_VGDB_DIR" | wc -l) / 2 + 1 ))
  : > "$FAKE_VGDB_DIR/callgrind.out.4242.$part-01"; : > "$FAKE_VGDB_DIR/callgrind.out.4242.$part-02";;
esac
"""


@pytest.fixture
def fake_vgdb(tmp_path, monkeypatch):
    bin_dir, out_dir = tmp_path / "bin", tmp_path / "out"
    bin_dir.mkdir()
    out_dir.mkdir()
    script = bin_dir / "vgdb"
    script.write_text(FAKE_VGDB)
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("FAKE_VGDB_LOG", str(tmp_path / "calls"))
    monkeypatch.setenv("FAKE_VGDB_DIR", str(out_dir))
    return callgrind.Control(4242, out_dir), tmp_path / "calls"


def test_a_dump_after_switching_off_is_one_vgdb_call_that_returns_the_new_files(fake_vgdb):
    control, calls = fake_vgdb
    control.instrument(True)
    first = control.dump("point-query.0.q")
    second = control.dump("point-query.0.p", instrument_off=True)
    assert calls.read_text().splitlines() == [
        "--pid=4242 --max-invoke-ms=1 instrumentation on",
        "--pid=4242 --max-invoke-ms=1 dump point-query.0.q",
        "--pid=4242 --max-invoke-ms=1 instrumentation off -c dump point-query.0.p",
    ]
    assert [p.name for p in first] == ["callgrind.out.4242.1-01", "callgrind.out.4242.1-02"]
    assert [p.name for p in second] == ["callgrind.out.4242.2-01", "callgrind.out.4242.2-02"]
    assert control.seconds > 0


def test_a_reply_from_the_gdbserver_is_an_error_that_quotes_it(fake_vgdb, monkeypatch):
    control, _ = fake_vgdb
    monkeypatch.setenv("FAKE_VGDB_REPLY", "command 'instrumentation sideways' not recognised")
    with pytest.raises(callgrind.CallgrindError, match="not recognised"):
        control.instrument(True)


def test_a_dump_that_writes_nothing_is_an_error(fake_vgdb, monkeypatch):
    control, _ = fake_vgdb
    monkeypatch.setenv("FAKE_VGDB_DIR", "")
    with pytest.raises(callgrind.CallgrindError, match="expected exactly one new part"):
        control.dump("scan.1.q")


def test_a_dump_description_cannot_carry_another_command(fake_vgdb):
    control, calls = fake_vgdb
    with pytest.raises(ValueError, match="expected letters"):
        control.dump("x -c v.kill")
    assert not calls.exists()
