"""Fingerprint parsing on captured /proc and /sys contents, and collection on this machine."""

import copy
import json
import os
import subprocess
import sys

import jsonschema
import pytest

from perfgate_harness import fingerprint as fpm

HERE = os.path.dirname(__file__)
REPO = os.path.join(HERE, "..", "..", "..")
CAPTURED = os.path.join(HERE, "..", "..", "fixtures", "fingerprint", "vm-epyc")  # a 2-vCPU KVM guest


def captured(relpath):
    with open(os.path.join(CAPTURED, relpath), encoding="utf-8") as f:
        return f.read()


def machine_schema():
    with open(os.path.join(REPO, "schema", "results.schema.json"), encoding="utf-8") as f:
        return json.load(f)["properties"]["machine"]


def test_cpuinfo_of_a_vm_gives_model_logical_cpus_and_hypervisor():
    assert fpm.parse_cpuinfo(captured("proc/cpuinfo")) == {
        "cpu_model": "AMD EPYC", "cores": 2, "hypervisor": True}


def test_cpuinfo_of_bare_metal_has_no_hypervisor_flag():
    text = ("processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz\n"
            "flags\t\t: fpu vme sse sse2 ht\n\nprocessor\t: 1\n"
            "model name\t: Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz\nflags\t\t: fpu vme sse sse2 ht\n")
    assert fpm.parse_cpuinfo(text) == {
        "cpu_model": "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz", "cores": 2, "hypervisor": False}


def test_meminfo_total_in_bytes():
    assert fpm.parse_meminfo(captured("proc/meminfo")) == 24684084 * 1024


def test_meminfo_without_total_is_an_error():
    with pytest.raises(ValueError, match="MemTotal"):
        fpm.parse_meminfo("MemFree: 12 kB\n")


@pytest.mark.parametrize("text, expected", [
    ("always [madvise] never\n", "madvise"),
    ("[always] madvise never", "always"),
    ("always defer defer+madvise [madvise] never\n", "madvise"),
    ("none [mq-deadline] kyber bfq \n", "mq-deadline"),
    ("performance\n", "performance"),
    ("", None),
    (None, None),
])
def test_bracketed_choice(text, expected):
    assert fpm.parse_bracketed_choice(text) == expected


@pytest.mark.parametrize("no_turbo, boost, expected", [
    ("1\n", None, "off"),
    ("0\n", None, "on"),
    (None, "1\n", "on"),
    (None, "0\n", "off"),
    (None, None, None),
    ("garbage", None, None),
])
def test_turbo(no_turbo, boost, expected):
    assert fpm.parse_turbo(no_turbo, boost) == expected


def test_governors_agree_disagree_or_are_absent():
    assert fpm.parse_governors(["performance\n", "performance\n"]) == "performance"
    assert fpm.parse_governors(["powersave\n", "performance\n"]) == "mixed:performance,powersave"
    assert fpm.parse_governors([None, None]) is None


def test_mitigations_are_normalized_and_summarized():
    files = {n: captured(os.path.join("sys/devices/system/cpu/vulnerabilities", n))
             for n in os.listdir(os.path.join(CAPTURED, "sys/devices/system/cpu/vulnerabilities"))}
    mitigations = fpm.parse_mitigations(files)
    assert mitigations["spec_store_bypass"] == "Vulnerable"
    assert mitigations["meltdown"] == "Not affected"
    assert mitigations["spectre_v2"].startswith("Mitigation: Retpolines")
    assert fpm.summarize_mitigations(mitigations) == {
        "not_affected": 15, "mitigated": 2, "vulnerable": 2, "other": 0}


def test_mount_for_path_picks_the_deepest_mount():
    mounts = fpm.parse_mountinfo(captured("proc/self/mountinfo"))
    assert fpm.mount_for_path(mounts, "/work/runs/x")["fstype"] == "ext4"
    assert fpm.mount_for_path(mounts, "/work/runs/x")["source"] == "/dev/vda"
    assert fpm.mount_for_path(mounts, "/work/runs/x")["dev"] == "254:0"
    assert fpm.mount_for_path(mounts, "/dev/shm/perfgate")["fstype"] == "tmpfs"
    # /dev/shmem is not under /dev/shm
    assert fpm.mount_for_path(mounts, "/dev/shmem")["fstype"] == "devtmpfs"


def test_mountinfo_unescapes_spaces_in_mount_points():
    text = "40 27 8:1 / /mnt/my\\040disk rw,relatime - xfs /dev/sdb1 rw,attr2\n"
    [mount] = fpm.parse_mountinfo(text)
    assert mount["mount_point"] == "/mnt/my disk"
    assert fpm.mount_for_path([mount], "/mnt/my disk/data")["fstype"] == "xfs"


def test_hardware_class_rounds_memory_to_whole_gib():
    assert fpm.hardware_class(2, 24684084 * 1024) == "2c-24g"
    assert fpm.hardware_class(16, 64 * 2**30 - 300 * 2**20) == "16c-64g"


def test_collect_from_a_captured_tree():
    fp = fpm.collect(data_dir="/", root=CAPTURED)
    assert fp["cpu_model"] == "AMD EPYC"
    assert fp["cores"] == 2
    assert fp["memory_bytes"] == 24684084 * 1024
    assert fp["hostname"] == "captured-vm"
    assert fp["governor"] is None  # no cpufreq in this guest
    assert fp["turbo"] is None
    assert fp["smt"] == "notsupported"
    assert fp["thp"] == "madvise"
    assert fp["swappiness"] == 60
    assert fp["filesystem"]["type"] == "ext4"
    assert fp["virtualization"]["virtualized"] is True
    assert fp["hardware_class"] == "2c-24g"
    assert len(fp["id"]) == 16
    jsonschema.validate(fp, machine_schema())


def test_id_ignores_hostname_and_boot_to_boot_memory_drift():
    fp = fpm.collect(data_dir="/", root=CAPTURED)
    other = copy.deepcopy(fp)
    other["hostname"] = "another-boot"
    other["memory_bytes"] -= 4 * 2**20
    other["filesystem"]["path"] = "/elsewhere"
    assert fpm.fingerprint_id(other) == fp["id"]


@pytest.mark.parametrize("change", [
    lambda fp: fp.update(governor="powersave"),
    lambda fp: fp.update(turbo="on"),
    lambda fp: fp.update(kernel="6.1.0-13-amd64"),
    lambda fp: fp.update(cores=4),
    lambda fp: fp["mitigations"].update(spec_store_bypass="Mitigation: SSB disabled via prctl"),
    lambda fp: fp["filesystem"].update(type="xfs"),
])
def test_id_changes_with_what_moves_timings(change):
    fp = fpm.collect(data_dir="/", root=CAPTURED)
    other = copy.deepcopy(fp)
    change(other)
    assert fpm.fingerprint_id(other) != fp["id"]


def test_collect_on_this_machine_matches_the_schema(tmp_path):
    fp = fpm.collect(data_dir=str(tmp_path))
    jsonschema.validate(fp, machine_schema())
    assert fp["cores"] == os.cpu_count() and fp["memory_bytes"] > 2**20
    assert fp["filesystem"]["path"] == os.path.realpath(tmp_path)
    assert fp["filesystem"]["type"]


def test_fingerprint_command_prints_json(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "harness"))
    out = subprocess.run([sys.executable, "-m", "perfgate_harness", "fingerprint", "--data-dir", str(tmp_path)],
                         env=env, capture_output=True, text=True, check=True).stdout
    fp = json.loads(out)
    assert fp["id"] == fpm.collect(data_dir=str(tmp_path))["id"]


# ------------------------------------------------------------------ how a server was built

# `readelf -p .comment` of a binary built here by Debian 12's gcc, and of a clang-built one.
READELF_GCC = "\nString dump of section '.comment':\n  [     0]  GCC: (Debian 12.2.0-14+deb12u1) 12.2.0\n\n"
READELF_CLANG = ("\nString dump of section '.comment':\n  [     0]  Linker: Ubuntu LLD 18.1.3\n"
                 "  [    1b]  Ubuntu clang version 18.1.3 (1ubuntu1)\n\n")
RECORD = {"schema": "perfgate.build/v1", "cmakeFlags": {"CMAKE_BUILD_TYPE": "RelWithDebInfo", "WITH_LIBFMT": "system"},
          "cmakeCache": {"CMAKE_BUILD_TYPE": "RelWithDebInfo", "CMAKE_CXX_FLAGS_RELWITHDEBINFO": "-O2 -g -DNDEBUG"},
          "compiler": {"id": "GNU", "version": "12.2.0", "path": "/usr/bin/c++"}}


def test_the_compiler_named_in_a_comment_section():
    assert fpm.compiler_of_comment(fpm.parse_readelf_strings(READELF_GCC)) == "GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
    assert fpm.compiler_of_comment(fpm.parse_readelf_strings(READELF_CLANG)) == "Ubuntu clang version 18.1.3 (1ubuntu1)"
    # A stripped binary: readelf warns on stderr and prints no string.
    assert fpm.parse_readelf_strings("") == []


def test_sysbench_version():
    assert fpm.parse_sysbench_version("sysbench 1.0.20\n") == "1.0.20"
    assert fpm.parse_sysbench_version("sysbench 1.1.0-df89d34 (using bundled LuaJIT 2.1.0-beta3)\n") == "1.1.0-df89d34"
    assert fpm.parse_sysbench_version("bash: sysbench: command not found") is None


def test_a_distribution_package_says_what_cannot_be_known():
    line = "mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)"
    assert fpm.describe_build(line, [], None) == {
        "version_line": line, "compiler": None, "compiler_from": None, "cmake_options": None, "cmake_from": None,
        "unknown": "the compiler (.comment section stripped, as distribution packages do); "
                   "the cmake options (no build.json of perfgate build beside the prefix)"}


def test_a_perfgate_build_has_its_compiler_and_cmake_options():
    gcc = fpm.parse_readelf_strings(READELF_GCC)
    built = fpm.describe_build("mariadbd  Ver 10.11.18-MariaDB", gcc, RECORD)
    assert built["compiler"] == "GCC: (Debian 12.2.0-14+deb12u1) 12.2.0" and built["compiler_from"] == ".comment section"
    assert built["cmake_options"] == {"CMAKE_BUILD_TYPE": "RelWithDebInfo", "WITH_LIBFMT": "system",
                                      "CMAKE_CXX_FLAGS_RELWITHDEBINFO": "-O2 -g -DNDEBUG"}
    assert "unknown" not in built
    # Installed stripped (cmake --install --strip): the build record still names the compiler.
    stripped = fpm.describe_build("mariadbd  Ver 10.11.18-MariaDB", [], RECORD)
    assert (stripped["compiler"], stripped["compiler_from"]) == ("GNU 12.2.0 (/usr/bin/c++)", "build.json")


def test_a_build_record_is_read_only_beside_a_prefix_and_only_when_valid(tmp_path):
    prefix = tmp_path / "builds" / "key" / "prefix"
    prefix.mkdir(parents=True)
    assert fpm._build_record(prefix) == (None, None)
    record = {"schema": "perfgate.build/v1", "key": "a" * 40 + "-" + "b" * 16, "commit": "a" * 40, "ref": "main",
              "source": "/src", "flavor": "mariadb", "cmakeFlags": {"WITH_LIBFMT": "system"}, "targets": ["mariadbd"],
              "install": [{"dir": "sql", "component": "Server"}], "flagsHash": "c" * 64, "tree": "cold", "seconds": 1,
              "builtAt": "2026-11-25T00:00:00Z"}
    (prefix.parent / "build.json").write_text(json.dumps(record))
    assert fpm._build_record(prefix) == (record, None)
    # Hostile or corrupt: a record that breaks the schema is not believed, and the reason is kept.
    (prefix.parent / "build.json").write_text(json.dumps({**record, "cmakeFlags": {"X": ["rm -rf /"]}}))
    found, problem = fpm._build_record(prefix)
    assert found is None and "breaks schema/build.schema.json: cmakeFlags.X: ['rm -rf /'] is not of type 'string'" in problem
    (prefix.parent / "build.json").write_text("{")
    assert fpm._build_record(prefix)[1].startswith(f"{prefix.parent / 'build.json'} cannot be read: ")
    # Not a prefix of perfgate build: a build.json beside it is someone else's file.
    other = tmp_path / "usr"
    other.mkdir()
    (tmp_path / "build.json").write_text(json.dumps(record))
    assert fpm._build_record(other) == (None, None)


def test_a_real_binary_built_here(tmp_path):
    src = tmp_path / "main.c"
    src.write_text("int main(void) { return 0; }\n")
    subprocess.run(["gcc", "-o", str(tmp_path / "tinyd"), str(src)], check=True)
    built = fpm.server_build(tmp_path / "tinyd", tmp_path)
    gcc = subprocess.run(["gcc", "-dumpfullversion"], capture_output=True, text=True, check=True).stdout.strip()
    assert built["compiler"].startswith("GCC: (") and built["compiler"].endswith(gcc)
    assert built["version_line"] is None  # it prints nothing for --version
