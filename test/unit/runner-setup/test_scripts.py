"""runner-setup/install, tune and register, run as they are: --dry-run on this host, and real
changes where they touch only a temporary tree (tune --root, install --ccache-dir)."""

import os
import re
import shutil
import subprocess
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SETUP = os.path.join(HERE, "..", "..", "..", "runner-setup")
IS_ROOT = os.geteuid() == 0


def run(script, *args, env=None, user=None):
    cmd = [os.path.join(SETUP, script), *args]
    if user:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *cmd]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def lines_starting(out, prefix):
    return [line for line in out.splitlines() if line.startswith(prefix)]


# -------------------------------------------------------------------------------- install

def dpkg_installed(name):
    proc = subprocess.run(["dpkg-query", "-W", "-f=${Status}", name], capture_output=True, text=True)
    return "install ok installed" in proc.stdout


def test_install_dry_run_lists_exactly_the_missing_packages_and_changes_nothing(tmp_path):
    code, out, err = run("install", "--dry-run", "--ccache-dir", str(tmp_path / "cc"))
    assert code == 0, err
    for line in out.splitlines():
        assert re.match(r"^(ok|would|skipped): |^     \(", line), line
    apt = [line for line in out.splitlines() if "apt-get install" in line]
    wanted = set()
    if apt:
        [apt_line] = apt
        wanted = set(apt_line.split("--no-install-recommends", 1)[1].split())
        assert all(not dpkg_installed(p) for p in wanted), apt_line
        assert out.index("would: apt-get update") < out.index(apt_line)
    else:
        assert lines_starting(out, "ok: packages: all")
    # Every package the script knows about is either installed or in the would-line.
    script = open(os.path.join(SETUP, "install"), encoding="utf-8").read()
    for group in ("COMMON_BUILD", "MARIADB_BUILD", "MYSQL_BUILD", "RUNTIME"):
        names = re.search(group + r"=\(([^)]*)\)", script).group(1).split()
        for name in names:
            assert dpkg_installed(name) or name in wanted, name
    assert "would: env CCACHE_DIR=" + str(tmp_path / "cc") + " ccache --max-size=20G" in out
    assert not (tmp_path / "cc").exists()


def test_install_provisions_the_sandbox_the_parent_death_signal_and_the_counting_tools():
    """bubblewrap (the sandbox of pull-request builds, servers and sysbench), util-linux
    (setpriv), valgrind (instructions) and perf and eu-stack (the explanation step's stacks) are
    runtime packages: the dry run above installs them where they are missing."""
    script = open(os.path.join(SETUP, "install"), encoding="utf-8").read()
    runtime = re.search(r"RUNTIME=\(([^)]*)\)", script).group(1).split()
    assert {"bubblewrap", "util-linux", "valgrind", "linux-perf", "elfutils"} <= set(runtime), runtime


def test_install_sizes_ccache_once_then_reports_ok(tmp_path):
    """A real run, limited to the one step that changes nothing outside the temporary folder."""
    cache = tmp_path / "cc"
    args = ("--only", "ccache", "--ccache-dir", str(cache), "--ccache-size", "3G")
    code, out, err = run("install", *args)
    assert code == 0, err
    assert out.splitlines()[0] == f"run: env CCACHE_DIR={cache} ccache --max-size=3G", out
    code, again, err = run("install", *args)
    assert code == 0, err
    assert not lines_starting(again, "run:"), again
    assert f"ok: ccache: {cache} max_size 3.0G" in again


@pytest.mark.parametrize("args, message", [
    (["--flavors", "postgres"], "--flavors: unknown flavor 'postgres'; expected a comma-separated list of mariadb, mysql, percona"),
    (["--ccache-size", "lots"], "--ccache-size 'lots' is not a size; expected a number with K, M, G or T, e.g. 20G"),
    (["--frobnicate"], "unknown argument '--frobnicate'"),
    (["--only", "apt"], "--only: unknown step 'apt'; expected a comma-separated list of packages, python, node, ccache"),
])
def test_install_rejects_bad_arguments(args, message):
    code, out, err = run("install", "--dry-run", *args)
    assert code == 2
    assert message in err
    assert out == ""


# -------------------------------------------------------------------------------- tune

def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def read(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        return f.read().strip()


def bare_metal_tree(root):
    """The /sys and /proc files tune touches on a 4-thread Intel host, in kernel format."""
    for cpu in range(4):
        write(root, f"sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor", "powersave\n")
        write(root, f"sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_available_governors", "performance powersave\n")
    write(root, "sys/devices/system/cpu/online", "0-3\n")
    write(root, "sys/devices/system/cpu/intel_pstate/no_turbo", "0\n")
    write(root, "sys/devices/system/cpu/smt/control", "on\n")
    write(root, "sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n")
    write(root, "sys/kernel/mm/transparent_hugepage/defrag", "always defer defer+madvise [madvise] never\n")
    write(root, "proc/sys/vm/swappiness", "60\n")


def test_tune_sets_every_knob_then_undo_restores_them(tmp_path):
    root = str(tmp_path)
    bare_metal_tree(root)
    code, out, err = run("tune", "--root", root, "--pin-cpus", "server=0-2,client=3")
    assert code == 0, err
    assert f"set: governor cpu0: powersave -> performance ({root}/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor)" in out
    assert len(lines_starting(out, "set: governor cpu")) == 4
    assert "set: turbo: 0 -> 1" in out
    assert "set: smt: on -> off" in out
    assert "set: thp: always -> never" in out
    assert "set: thp-defrag: madvise -> never" in out
    assert "set: swappiness: 60 -> 1" in out
    assert "set: pin-cpus: PERFGATE_PIN_CPUS=server=0-2,client=3" in out
    assert read(root, "sys/devices/system/cpu/cpu3/cpufreq/scaling_governor") == "performance"
    assert read(root, "sys/devices/system/cpu/intel_pstate/no_turbo") == "1"
    assert read(root, "proc/sys/vm/swappiness") == "1"
    assert read(root, "etc/perfgate/runner.env") == "PERFGATE_PIN_CPUS=server=0-2,client=3"

    # Again: nothing left to change, and the saved values are still those from before tuning.
    code, again, err = run("tune", "--root", root, "--pin-cpus", "server=0-2,client=3")
    assert code == 0, err
    assert not lines_starting(again, "set:"), again
    assert "ok: swappiness: 1" in again

    code, undone, err = run("tune", "--root", root, "--undo")
    assert code == 0, err
    assert f"restored: {root}/proc/sys/vm/swappiness: 60" in undone
    assert read(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") == "powersave"
    assert read(root, "sys/devices/system/cpu/intel_pstate/no_turbo") == "0"
    assert read(root, "sys/devices/system/cpu/smt/control") == "on"
    assert read(root, "sys/kernel/mm/transparent_hugepage/enabled") == "always"
    assert read(root, "sys/kernel/mm/transparent_hugepage/defrag") == "madvise"
    assert read(root, "proc/sys/vm/swappiness") == "60"
    assert not os.path.exists(os.path.join(root, "var/lib/perfgate/tune.state"))
    assert not os.path.exists(os.path.join(root, "etc/perfgate/runner.env"))


def test_tune_dry_run_changes_nothing(tmp_path):
    root = str(tmp_path)
    bare_metal_tree(root)
    code, out, err = run("tune", "--root", root, "--dry-run", "--keep-smt")
    assert code == 0, err
    assert "would: governor cpu0: powersave -> performance" in out
    assert "skipped: smt: --keep-smt" in out
    assert "would: swappiness: 60 -> 1" in out
    assert not lines_starting(out, "set:")
    assert read(root, "proc/sys/vm/swappiness") == "60"
    assert not os.path.exists(os.path.join(root, "var/lib/perfgate"))


def test_tune_on_a_host_without_knobs_skips_each_with_its_reason(tmp_path):
    """A container-like tree: no cpufreq, no boost control, no SMT control, no THP."""
    root = str(tmp_path)
    write(root, "sys/devices/system/cpu/online", "0-1\n")
    os.makedirs(os.path.join(root, "sys/devices/system/cpu/cpu0"))
    write(root, "proc/sys/vm/swappiness", "60\n")
    code, out, err = run("tune", "--root", root, "--dry-run")
    assert code == 0, err
    assert lines_starting(out, "skipped: governor: no cpufreq")
    assert lines_starting(out, "skipped: turbo: neither")
    assert lines_starting(out, "skipped: smt: ")
    assert lines_starting(out, "skipped: thp: ")
    assert "would: swappiness: 60 -> 1" in out


def test_tune_without_write_permission_skips_and_exits_0():
    assert IS_ROOT, "this test drops from root to another user: run the tests as root, as benchmark runners do"
    # Outside pytest's tmp_path, whose parents only root may enter.
    root = tempfile.mkdtemp(prefix="perfgate-tune-")
    os.chmod(root, 0o755)
    bare_metal_tree(root)
    try:
        code, out, err = run("tune", "--root", root, "--state", "/nonexistent/tune.state", user="65534")
    finally:
        shutil.rmtree(root)
    assert code == 0, err
    assert "skipped: swappiness: " + root + "/proc/sys/vm/swappiness is not writable here" in out
    assert lines_starting(out, "skipped: governor cpu0: ")
    assert not lines_starting(out, "set:")


def test_tune_on_this_host_says_what_it_cannot_do(tmp_path):
    """This host is a VM: no cpufreq, no boost control, no SMT. Dry run, real /sys."""
    code, out, err = run("tune", "--dry-run", "--state", str(tmp_path / "state"))
    assert code == 0, err
    for line in out.splitlines():
        assert re.match(r"^(ok|would|skipped): ", line), line
    cpu = "/sys/devices/system/cpu"
    if not os.path.exists(f"{cpu}/cpu0/cpufreq/scaling_governor"):
        assert lines_starting(out, "skipped: governor: ")
    if not os.path.exists(f"{cpu}/intel_pstate/no_turbo") and not os.path.exists(f"{cpu}/cpufreq/boost"):
        assert lines_starting(out, "skipped: turbo: ")
    assert lines_starting(out, "skipped: smt: ") or lines_starting(out, "would: smt: ") or lines_starting(out, "ok: smt: ")


@pytest.mark.parametrize("pin, message", [
    ("0:1", "--pin-cpus '0:1' is not valid; expected server=<cpus>,client=<cpus>"),
    ("server=0-1,client=1", "server and client share CPU 1; expected separate sets"),
    ("server=0,client=7", "CPU 7 is not online; online CPUs are 0-3"),
])
def test_tune_rejects_bad_pinning(tmp_path, pin, message):
    root = str(tmp_path)
    bare_metal_tree(root)
    code, out, err = run("tune", "--root", root, "--pin-cpus", pin)
    assert code == 2
    assert message in err
    assert out == ""
    assert read(root, "proc/sys/vm/swappiness") == "60"


# -------------------------------------------------------------------------------- register

TOKEN = "AABBCCDDEEFFGGHHIIJJKKLLMMNNO"


@pytest.fixture
def runner_dir(tmp_path):
    """An actions runner folder whose config.sh records its arguments, one per line, the token
    it was given in its environment, and the command lines of its parent processes as ps
    would show them to any user of the host."""
    d = tmp_path / "actions-runner"
    d.mkdir()
    config = d / "config.sh"
    config.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$(dirname "$0")/config.args"\n'
                      'printf "%s" "$ACTIONS_RUNNER_INPUT_TOKEN" > "$(dirname "$0")/config.token"\n'
                      'ps -o args= -p $$ -p $PPID > "$(dirname "$0")/config.ps"\n')
    config.chmod(0o755)
    return d


def test_register_dry_run_masks_the_token_and_derives_the_class(runner_dir):
    env = dict(os.environ, RUNNER_TOKEN=TOKEN)
    code, out, err = run("register", "--runner-dir", str(runner_dir), "--url", "https://github.com/acme/server", "--dry-run", env=env)
    assert code == 0, err
    assert TOKEN not in out + err
    [would] = lines_starting(out, "would: ")
    assert "ACTIONS_RUNNER_INPUT_TOKEN='***' ./config.sh --unattended --url https://github.com/acme/server " in would
    assert re.search(r"--labels perf,perf-\d+c-\d+g ", would)
    assert would.endswith("--replace --ephemeral)")
    assert not (runner_dir / "config.args").exists()


def test_register_passes_the_token_to_config_sh_only(runner_dir, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    code, out, err = run("register", "--runner-dir", str(runner_dir), "--url", "https://github.com/acme",
                         "--token-file", str(token_file), "--class", "16c-64g", "--labels", "nvme",
                         "--name", "db-perf-1", "--persistent")
    assert code == 0, err
    assert TOKEN not in out + err
    args = (runner_dir / "config.args").read_text().split("\n")
    assert "--token" not in args and TOKEN not in args, "the token is never on a command line"
    assert (runner_dir / "config.token").read_text() == TOKEN
    assert TOKEN not in (runner_dir / "config.ps").read_text()
    assert args[args.index("--labels") + 1] == "perf,perf-16c-64g,nvme"
    assert args[args.index("--name") + 1] == "db-perf-1"
    assert "--ephemeral" not in args
    assert lines_starting(out, "warning: persistent runner")


@pytest.mark.parametrize("args, env, message", [
    (["--url", "https://github.com/acme/server"], {}, "no registration token: set RUNNER_TOKEN or pass --token-file"),
    (["--url", "git@github.com:acme/server"], {"RUNNER_TOKEN": TOKEN}, "--url 'git@github.com:acme/server' is not valid"),
    (["--url", "https://github.com/acme", "--class", "big"], {"RUNNER_TOKEN": TOKEN}, "--class 'big' is not valid; expected <cpus>c-<GiB>g"),
])
def test_register_rejects_bad_input(runner_dir, args, env, message):
    full_env = {k: v for k, v in os.environ.items() if k != "RUNNER_TOKEN"}
    full_env.update(env)
    code, out, err = run("register", "--runner-dir", str(runner_dir), *args, "--dry-run", env=full_env)
    assert code == 2
    assert message in err
    assert TOKEN not in out + err


def test_register_needs_an_actions_runner_folder(tmp_path):
    code, _, err = run("register", "--runner-dir", str(tmp_path), "--url", "https://github.com/acme", "--dry-run",
                       env=dict(os.environ, RUNNER_TOKEN=TOKEN))
    assert code == 2
    assert f"--runner-dir '{tmp_path}' holds no config.sh" in err


def test_scripts_are_shellcheck_clean():
    assert shutil.which("shellcheck"), "shellcheck is not installed: run make setup (apt-get install shellcheck)"
    scripts = [os.path.join(SETUP, s) for s in ("install", "tune", "register")]
    proc = subprocess.run(["shellcheck", *scripts], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout
