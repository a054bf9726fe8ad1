"""The malloc counted servers run with: jemalloc where it is installed, glibc's on one arena where not."""
from pathlib import Path

from perfgate_harness import counted_malloc


def test_this_architectures_folder_is_looked_in_first_and_each_place_once():
    places = counted_malloc.candidates("x86_64")
    assert places[0] == Path("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2")
    assert Path("/usr/lib64/libjemalloc.so.2") in places and len(set(places)) == len(places)
    assert counted_malloc.candidates("aarch64")[0] == Path("/usr/lib/aarch64-linux-gnu/libjemalloc.so.2")
    # An architecture without a known folder still looks in the plain ones.
    assert counted_malloc.candidates("riscv64")[0] == Path("/usr/lib64/libjemalloc.so.2")


def test_jemalloc_found_is_preloaded_with_its_purging_off_and_recorded():
    found = counted_malloc.choose([Path("/usr/lib64/libjemalloc.so.2"), Path("/usr/lib/libjemalloc.so.2")])
    assert found.library == "/usr/lib64/libjemalloc.so.2"
    assert found.environment() == ("GLIBC_TUNABLES=glibc.malloc.arena_max=1", "LD_PRELOAD=/usr/lib64/libjemalloc.so.2",
                                   "MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1")
    assert found.record() == {"name": "jemalloc", "library": "/usr/lib64/libjemalloc.so.2",
                              "settings": "dirty_decay_ms:-1,muzzy_decay_ms:-1"}
    assert found.warning() is None


def test_without_jemalloc_the_run_counts_on_one_glibc_arena_and_says_what_that_costs():
    fallback = counted_malloc.choose([])
    assert fallback.environment() == ("GLIBC_TUNABLES=glibc.malloc.arena_max=1",)
    assert fallback.record() == {"name": "glibc", "settings": "glibc.malloc.arena_max=1"}
    warning = fallback.warning()
    assert "libjemalloc.so.2 not found" in warning and "further apart than the shipped instruction limits" in warning
    assert "Instruction counts of fresh processes" in warning and "libjemalloc2" in warning


def test_locate_finds_what_the_host_has(monkeypatch, tmp_path):
    lib = tmp_path / "lib" / "libjemalloc.so.2"
    lib.parent.mkdir()
    lib.write_bytes(b"\x7fELF")
    monkeypatch.setattr(counted_malloc, "candidates", lambda machine: [tmp_path / "missing.so.2", lib])
    assert counted_malloc.locate().library == str(lib)
    monkeypatch.setattr(counted_malloc, "candidates", lambda machine: [tmp_path / "missing.so.2"])
    assert counted_malloc.locate() is counted_malloc.GLIBC
