"""A disk that fills up while the servers are set up: the run ends as an error that says so,
with the server's own words in the log tail, and no server is left running.

The servers' folders live on a small tmpfs mounted in a mount namespace of the harness's own
(unshare --mount), so the host's mounts never change; results.json is written beside it, on the
real disk."""
import os
import subprocess

from perfgate_harness import schema, server

from conftest import events, load_plan, no_server_left

# Enough for the harness's own files, far too little for a datadir of either flavour (MariaDB
# writes about 100 MB of redo log and system tablespace, MySQL 9.7 more).
TMPFS_SIZE = "24m"


def test_a_full_disk_while_the_servers_are_set_up(harness, basedirs):
    assert os.geteuid() == 0, "mounting a tmpfs in a private mount namespace needs root: run the tests as root, as benchmark runners do"
    plan = load_plan("tiny-quick.json", basedirs, rounds=1, warmup_seconds=0)
    plan["benchmarks"] = plan["benchmarks"][:1]
    servers = harness.out / "servers"
    servers.mkdir(parents=True)
    command = harness.command(plan)
    script = 'mount -t tmpfs -o size="$1" tmpfs "$2" && shift 2 && exec "$@"'
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh",
                           TMPFS_SIZE, str(servers), *command],
                          capture_output=True, text=True, timeout=600, env=harness.env())
    assert done.returncode == 4, done.stderr
    results = harness.results()
    assert schema.schema_errors("results", results) == []
    assert results["status"] == "error"
    side_errors = [e for e in results["errors"] if e["benchmark"] is None]
    assert side_errors, results["errors"]
    for e in side_errors:
        assert e["step"] in ("init", "start", "prepare"), e
        assert e["message"].endswith(f"; the disk holding {servers / e['side']} is full "
                                     f"({int(e['message'].rsplit('(', 1)[1].split()[0])} MiB free now): free space there and run again"), e
        assert server.DISK_FULL.search(e["log_tail"]), e["log_tail"]  # in the server's own words
    assert results["benchmarks"][0]["status"] == "error"
    assert events(done.stdout)[-1] == {"event": "done", "status": "error"}
    assert os.listdir(servers) == [], "the tmpfs lived only in the harness's namespace"
    no_server_left(harness.out)
