"""The malloc a server counted under callgrind runs with.

Two fresh processes of one build count a write's instructions per query apart by what malloc
does: glibc's malloc serves the connection from heap state the background threads share and
leave differently in every process. One arena for every thread narrowed the reads but not the
writes; jemalloc preloaded, with its per-thread caches and its purging of unused pages switched
off (it runs on a clock, and under Valgrind the clock is what differs most), narrowed every row
of the quick suite enough for the gate's limits (figures: docs/measurements.md, "Instruction
counts of fresh processes"). Where jemalloc is not installed the server counts on glibc's
malloc with one arena, and the run says so.

Base and head of one run always count with the same malloc. The counts are of the server with
that malloc, not of its own: a change in how often the server allocates still shows, the cost of
glibc's malloc for it does not.
"""
import platform
from dataclasses import dataclass
from pathlib import Path

JEMALLOC = "libjemalloc.so.2"
# Every thread on one glibc arena: the fallback, and harmless under jemalloc (nothing left calls it).
GLIBC_TUNABLES = "glibc.malloc.arena_max=1"
# Pages unused are never given back: purging is timed by the clock, not by the work.
JEMALLOC_CONF = "dirty_decay_ms:-1,muzzy_decay_ms:-1"
INSTALL_HINT = "libjemalloc2 (runner-setup/install)"


@dataclass(frozen=True)
class CountedMalloc:
    name: str                 # "jemalloc" or "glibc"
    library: str | None = None

    def environment(self) -> tuple[str, ...]:
        """`NAME=value` words for `env` before valgrind, which passes them on to the server."""
        words = (f"GLIBC_TUNABLES={GLIBC_TUNABLES}",)
        if self.library:
            words += (f"LD_PRELOAD={self.library}", f"MALLOC_CONF={JEMALLOC_CONF}")
        return words

    def record(self) -> dict:
        """results.json's `instructions.malloc`."""
        if self.library:
            return {"name": self.name, "library": self.library, "settings": JEMALLOC_CONF}
        return {"name": self.name, "settings": GLIBC_TUNABLES}

    def warning(self) -> str | None:
        """What a run counted on glibc's malloc says (None with jemalloc)."""
        if self.library:
            return None
        return (f"instructions: {JEMALLOC} not found; counted on glibc's malloc with one arena, where two processes "
                f"of one build count further apart than the shipped instruction limits allow for "
                f"(docs/measurements.md, \"Instruction counts of fresh processes\"; install {INSTALL_HINT})")


GLIBC = CountedMalloc("glibc")


def candidates(machine: str) -> list[Path]:
    """Where Debian, Ubuntu, Fedora and a local build put the library, this architecture's first (pure)."""
    multiarch = {"x86_64": "x86_64-linux-gnu", "aarch64": "aarch64-linux-gnu", "arm64": "aarch64-linux-gnu",
                 "ppc64le": "powerpc64le-linux-gnu", "s390x": "s390x-linux-gnu"}.get(machine)
    dirs = ([f"/usr/lib/{multiarch}", f"/lib/{multiarch}"] if multiarch else []) + ["/usr/lib64", "/usr/lib", "/usr/local/lib"]
    return [Path(d) / JEMALLOC for d in dirs]


def choose(present: list[Path]) -> CountedMalloc:
    """jemalloc from the first place it is found, else glibc's malloc (pure)."""
    return CountedMalloc("jemalloc", str(present[0])) if present else GLIBC


def locate() -> CountedMalloc:
    """The malloc this host gives counted servers."""
    return choose([p for p in candidates(platform.machine()) if p.is_file()])
