import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from perfgate_harness import schema, server

REPO = Path(__file__).resolve().parents[3]
PLAN = __import__("json").loads((REPO / "test" / "fixtures" / "plans" / "tiny-quick.json").read_text())

MARIADB = "/usr/sbin/mariadbd  Ver 10.11.18-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)"
MYSQL = "/usr/sbin/mysqld  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)"
PERCONA = "/usr/sbin/mysqld  Ver 8.0.36-28 for Linux on x86_64 (Percona Server (GPL), Release 28, Revision 47601f19)"


def test_flavor_and_version():
    assert server.parse_version(MARIADB) == ("mariadb", "10.11.18-MariaDB-0+deb12u1")
    assert server.parse_version(MYSQL) == ("mysql", "8.0.36")
    assert server.parse_version(PERCONA) == ("percona", "8.0.36-28")
    with pytest.raises(ValueError, match="no 'Ver <version>'"):
        server.parse_version("Segmentation fault")


# What a server built from source says: no maker's name, whichever fork it is.
PERCONA_FROM_SOURCE = "/p/bin/mysqld  Ver 8.4.3-3 for Linux on x86_64 (Source distribution)"


def test_a_percona_server_built_from_source_is_named_by_its_build_recipe():
    detected = server.parse_version(PERCONA_FROM_SOURCE)
    assert detected == ("mysql", "8.4.3-3")
    assert server.settle_flavor(detected, "percona") == ("percona", "8.4.3-3")
    assert server.settle_flavor(detected, None) == ("mysql", "8.4.3-3")
    assert server.settle_flavor(detected, "mysql") == ("mysql", "8.4.3-3")
    # What --version says of itself stands: a recipe cannot turn MariaDB or Percona into another.
    assert server.settle_flavor(server.parse_version(MARIADB), "percona")[0] == "mariadb"
    assert server.settle_flavor(server.parse_version(PERCONA), "mysql")[0] == "percona"


def test_the_plan_carries_the_flavour_a_side_was_built_as():
    spec = {**PLAN, "sides": {**PLAN["sides"], "head": {**PLAN["sides"]["head"], "flavor": "percona"}}}
    assert schema.schema_errors("plan", spec) == []
    bad = {**PLAN, "sides": {**PLAN["sides"], "head": {**PLAN["sides"]["head"], "flavor": "postgres"}}}
    assert schema.schema_errors("plan", bad)[0].startswith("sides.head.flavor: 'postgres' is not one of")


def layout(tmp_path):
    return server.layout_for(tmp_path, "base")


def test_layout_keeps_everything_under_the_run_folder(tmp_path):
    lay = layout(tmp_path)
    for p in (lay.datadir, lay.tmpdir, lay.cnf, lay.socket, lay.pid_file, lay.error_log):
        assert str(p).startswith(str(tmp_path.resolve() / "servers" / "base"))


def test_long_run_folder_moves_the_socket_to_tmp(tmp_path):
    deep = tmp_path / ("x" * 120)
    sock = server.socket_path(deep / "servers" / "head", "head")
    assert sock.parent.parent == Path("/tmp") and sock.name == "head.sock"
    assert len(str(sock)) < server.SOCKET_PATH_LIMIT
    assert sock == server.socket_path(deep / "servers" / "head", "head")  # stable for the same folder


def test_cnf_is_the_profile_then_our_paths(tmp_path):
    lay = layout(tmp_path)
    opts = server.server_options({"innodb_buffer_pool_size": "1G", "performance_schema": False,
                                  "skip_log_bin": None, "max_connections": 500},
                                 lay, Path("/opt/m"), 3307, run_as="root")
    text = server.render_cnf(opts)
    lines = text.splitlines()
    assert lines[1] == "[mysqld]"
    assert lines[2:6] == ["innodb_buffer_pool_size = 1G", "performance_schema = OFF", "skip_log_bin",
                          "max_connections = 500"]
    assert f"datadir = {lay.datadir}" in lines and f"tmpdir = {lay.tmpdir}" in lines and f"socket = {lay.socket}" in lines
    assert "port = 3307" in lines and "bind_address = 127.0.0.1" in lines and "user = root" in lines
    assert "user" not in server.server_options({}, lay, Path("/opt/m"), 3307, run_as=None)


@pytest.mark.parametrize("flavor", ["mysql", "percona"])
def test_mysql_servers_do_not_fight_over_the_x_plugin_port(tmp_path, flavor):
    opts = server.server_options({}, layout(tmp_path), Path("/p"), 3307, None, flavor)
    assert opts["loose_mysqlx"] == "OFF"
    assert "loose_mysqlx" not in server.server_options({}, layout(tmp_path), Path("/m"), 3307, None, "mariadb")


def test_the_plan_schema_refuses_every_option_perfgate_writes_for_a_server(tmp_path):
    """server_options() writes these keys for each side; a profile that set one would point the
    server elsewhere, and the plan schema (which the thresholds loader applies too) refuses it."""
    written = server.server_options({}, layout(tmp_path), Path("/m"), 3307, run_as="root", flavor="mysql")
    for key in written:
        for spelling in (key, key.replace("_", "-")):
            problems = schema.schema_errors("plan", with_mysql_profile({spelling: "x"}))
            assert any(p.startswith(f"profiles.mysql.options.{spelling}: set by perfgate for each server") for p in problems), (spelling, problems)
    assert schema.schema_errors("plan", with_mysql_profile({"innodb_buffer_pool_size": "1G"})) == []


def with_mysql_profile(options):
    return {**PLAN, "profiles": {**PLAN["profiles"], "mysql": {"name": "p", "options": options}}}


def test_mariadb_init_command(tmp_path):
    lay = layout(tmp_path)
    cmd = server.init_command("mariadb", Path("/m/sbin/mariadbd"), Path("/m/bin/mariadb-install-db"), Path("/m"), lay)
    assert cmd == ["/m/bin/mariadb-install-db", f"--defaults-file={lay.cnf}", "--basedir=/m",
                   f"--datadir={lay.datadir}", "--auth-root-authentication-method=normal", "--skip-test-db"]
    with pytest.raises(ValueError, match="no mariadb-install-db under /m"):
        server.init_command("mariadb", Path("/m/sbin/mariadbd"), None, Path("/m"), lay)


@pytest.mark.parametrize("flavor", ["mysql", "percona"])
def test_mysql_and_percona_initialize_with_the_server_binary(tmp_path, flavor):
    lay = layout(tmp_path)
    cmd = server.init_command(flavor, Path("/p/bin/mysqld"), None, Path("/p"), lay)
    # --defaults-file must be the first option or mysqld refuses it
    assert cmd == ["/p/bin/mysqld", f"--defaults-file={lay.cnf}", "--initialize-insecure", "--basedir=/p",
                   f"--datadir={lay.datadir}"]


def test_start_command_pins_with_taskset(tmp_path):
    lay = layout(tmp_path)
    assert server.start_command(Path("/m/sbin/mariadbd"), lay, None) == ["/m/sbin/mariadbd", f"--defaults-file={lay.cnf}"]
    assert server.start_command(Path("/m/sbin/mariadbd"), lay, "0")[:3] == ["taskset", "-c", "0"]
    assert server.start_command(Path("/m/sbin/mariadbd"), lay, None, ("valgrind", "-q")) == [
        "valgrind", "-q", "/m/sbin/mariadbd", f"--defaults-file={lay.cnf}"]


def test_find_server_binary(tmp_path):
    assert server.find_server_binary(tmp_path) is None
    (tmp_path / "bin").mkdir()
    binary = tmp_path / "bin" / "mysqld"
    binary.write_text("#!/bin/sh\n")
    assert server.find_server_binary(tmp_path) is None  # not executable
    binary.chmod(0o755)
    assert server.find_server_binary(tmp_path) == binary


def test_stale_pid_and_socket_files_are_removed(tmp_path):
    lay = layout(tmp_path)
    lay.dir.mkdir(parents=True)
    dead = subprocess.Popen(["true"])
    dead.wait()
    lay.pid_file.write_text(f"{dead.pid}\n")
    with socket.socket(socket.AF_UNIX) as s:  # a socket file nobody listens on any more
        s.bind(str(lay.socket))
    assert set(server.clean_stale_files(lay)) == {str(lay.pid_file), str(lay.socket)}
    assert not lay.pid_file.exists() and not lay.socket.exists()


def test_pid_file_of_a_reused_pid_is_stale(tmp_path):
    lay = layout(tmp_path)
    lay.dir.mkdir(parents=True)
    lay.pid_file.write_text(f"{os.getpid()}\n")  # alive, but not a server on this datadir
    assert server.clean_stale_files(lay) == [str(lay.pid_file)]


def test_a_live_server_on_our_datadir_is_never_killed(tmp_path):
    lay = layout(tmp_path)
    lay.dir.mkdir(parents=True)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", f"--defaults-file={lay.cnf}"])
    try:
        while str(lay.cnf) not in server.process_cmdline(other.pid):
            time.sleep(0.01)  # until the child has exec'd
        lay.pid_file.write_text(f"{other.pid}\n")
        with pytest.raises(server.ServerError, match=f"a server \\(pid {other.pid}\\) not started by this run"):
            server.clean_stale_files(lay)
        assert other.poll() is None and lay.pid_file.exists()
    finally:
        other.kill()
        other.wait()


def test_a_live_socket_is_never_taken_over(tmp_path):
    lay = layout(tmp_path)
    lay.dir.mkdir(parents=True)
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(lay.socket))
        listener.listen(1)
        with pytest.raises(server.ServerError, match="belongs to a live server not started by this run"):
            server.clean_stale_files(lay)
        assert lay.socket.exists()


def test_free_port_is_bindable():
    port = server.free_port()
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))


def test_a_socket_moved_to_tmp_for_a_long_run_folder_takes_its_folder_along(tmp_path):
    deep = tmp_path / ("a" * 60) / ("b" * 60)
    lay = server.layout_for(deep, "head")
    assert lay.socket.parent.name.startswith("perfgate-") and str(lay.socket).startswith("/tmp/")
    lay.socket.parent.mkdir(parents=True, exist_ok=True)
    lay.socket.write_text("")
    server.remove_private_socket_dir(lay)
    assert not lay.socket.parent.exists()
    short = server.layout_for(tmp_path / "run", "base")
    short.dir.mkdir(parents=True)
    server.remove_private_socket_dir(short)  # its socket sits in the run folder: nothing removed
    assert short.dir.exists()


@pytest.mark.parametrize("line", [
    "2026-11-25  0:30:38 0 [ERROR] InnoDB: preallocating 50331648 bytes for file ./ib_logfile101 failed with error 28",
    "[ERROR] [MY-012592] [InnoDB] Operating system error number 28 in a file operation.",
    "[ERROR] [MY-012596] [InnoDB] Error number 28 means 'No space left on device'",
    "mysqld: Disk is full writing './binlog.000001' (OS errno 28 - No space left on device). Waiting for someone to free space...",
])
def test_a_full_disk_in_the_server_log_is_named(tmp_path, line):
    assert server.disk_full_note(f"starting\n{line}\n", tmp_path) == \
        f"the disk holding {tmp_path} is full ({__import__('shutil').disk_usage(tmp_path).free // 2**20} MiB free now): free space there and run again"


def test_other_failures_say_nothing_of_the_disk(tmp_path):
    assert server.disk_full_note("[ERROR] unknown variable 'innodb_no_such_option=1'\nerror 280 in table", tmp_path) is None
    assert server.disk_full_note("", tmp_path) is None


def test_a_dying_server_is_seen_dead_when_given_a_moment():
    # A client sees its connection drop before the kernel has reaped the killed server: the round's
    # error must name the server's end, not the client's lost connection.
    srv = server.Server.__new__(server.Server)
    srv.proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.5)"])
    try:
        assert srv.exit_description() == "running"
        assert srv.exit_description(settle=10) == "exited with code 0"
    finally:
        srv.proc.kill()
        srv.proc.wait()
    srv.proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        started = time.monotonic()
        assert srv.exit_description(settle=0.2) == "running"
        assert time.monotonic() - started < 5
    finally:
        srv.proc.kill()
        srv.proc.wait()
