"""MariaDB 11.8.9, Debian 13's binary build with its own libraries (scripts/fetch-server-trixie.sh,
`make fetch-11.8`), measured by perfgate as any prefix is: in the sandbox, with the shipped
mariadb profile, against Debian 12's 10.11.19.

Not part of `make test`: the prefix comes from another Debian release's archive, which drops a
version once a newer one replaces it. `make test-11.8` runs this file; it fails, naming the
script, when the prefix has not been fetched.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "harness"))
sys.path.insert(0, str(REPO / "test" / "integration"))
from test_compare import tiny_thresholds  # noqa: E402 (the integration tier's tiny suite)

CACHE = Path(os.environ.get("PERFGATE_CACHE", Path.home() / ".cache" / "perfgate"))
PREFIX = Path(os.environ.get("PERFGATE_MARIADB_11_8", CACHE / "servers" / "mariadb-11.8.9" / "usr"))
BASE = Path(os.environ.get("PERFGATE_BASE", CACHE / "servers" / "mariadb-10.11.19" / "usr"))
VERSION = "11.8.9-MariaDB-0+deb13u1"


def require_prefix(prefix: Path, how: str) -> Path:
    from perfgate_harness import server
    assert server.find_server_binary(prefix) is not None, f"no MariaDB server under {prefix}: {how}"
    return prefix


@pytest.fixture(scope="module")
def prefix():
    return require_prefix(PREFIX, "run `make fetch-11.8` (scripts/fetch-server-trixie.sh)")


@pytest.fixture(scope="module")
def base():
    return require_prefix(BASE, "run `make setup` (scripts/fetch-servers.sh)")


def test_a_missing_prefix_names_the_script_that_fetches_it(tmp_path):
    with pytest.raises(AssertionError, match=r"no MariaDB server under .*/nothing/usr: run `make fetch-11\.8` "
                                             r"\(scripts/fetch-server-trixie\.sh\)"):
        require_prefix(tmp_path / "nothing" / "usr", "run `make fetch-11.8` (scripts/fetch-server-trixie.sh)")


def in_sandbox(program: Path, args: list[str], visible: Path) -> subprocess.CompletedProcess:
    """`program args` started as perfgate starts a server in its sandbox, which shows the host's
    system folders and, of the rest, only `visible`."""
    script = ("const { runProcessSync } = require('./cli/src/processes');"
              "const [program, visible, ...args] = process.argv.slice(1);"
              "const r = runProcessSync(program, args, { sandbox: { readOnly: [visible], cwd: '/' } });"
              "console.log(JSON.stringify({ status: r.status, stdout: r.stdout, stderr: r.stderr, error: r.error && r.error.message }));")
    r = subprocess.run(["node", "-e", script, str(program), str(visible), *args], capture_output=True, text=True,
                       timeout=120, cwd=REPO)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_the_prefix_runs_in_the_sandbox_with_nothing_but_itself(prefix):
    # What mariadb-install-db runs besides the server: my_print_defaults, resolveip.
    ran = in_sandbox(prefix / "sbin" / "mariadbd", ["--no-defaults", "--version"], prefix)
    assert ran["status"] == 0 and f"Ver {VERSION} " in ran["stdout"], ran
    ran = in_sandbox(prefix / "bin" / "my_print_defaults", ["--no-defaults", "mysqld"], prefix)
    assert ran["status"] == 0, ran
    ran = in_sandbox(prefix / "bin" / "resolveip", ["127.0.0.1"], prefix)
    assert ran["status"] == 0 and "localhost" in ran["stdout"], ran


def test_a_copy_of_the_prefix_still_needs_the_original(prefix, tmp_path):
    # The executables' interpreter is the original prefix's loader (an ELF interpreter is an
    # absolute path): a copy shown alone in the sandbox does not start. Copies are not measured.
    copy = tmp_path / "usr"
    subprocess.run(["cp", "-al", str(prefix), str(copy)], check=True)
    ran = in_sandbox(copy / "sbin" / "mariadbd", ["--no-defaults", "--version"], copy)
    assert ran["status"] != 0, ran


def test_perfgate_measures_it_with_the_shipped_mariadb_profile(prefix, base, tmp_path):
    out = tmp_path / "run"
    env = {**os.environ, "PERFGATE_SANDBOX": "auto"}
    r = subprocess.run(["node", str(REPO / "cli/bin/perfgate.js"), "compare", "--base", str(base), "--head", str(prefix),
                        "--out", str(out), "--suite", "tiny", "--thresholds", str(tiny_thresholds(tmp_path, "{warn: 0.5, fail: 0.4}", "{extra_pairs: 0, minutes: 10}", benchmarks=("point-query",))),
                        "--tables", "1", "--rows", "1000", "--metric", "time"],
                       capture_output=True, text=True, timeout=600, env=env, cwd=REPO)
    assert r.returncode in (0, 1, 3), r.stderr
    head = json.loads((out / "results.json").read_text())["sides"]["head"]
    assert (head["flavor"], head["version"]) == ("mariadb", VERSION)
    assert f"perfgate tiny: head {VERSION} “head” against base 10.11." in r.stdout
    # The shipped profile is accepted as it is: no unknown option, no error.
    log = (out / "servers" / "head" / "error.log").read_text()
    assert "[ERROR]" not in log and "unknown variable" not in log, log
