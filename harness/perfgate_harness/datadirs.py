"""Each side's datadir as a service the phases use: loaded (or an earlier one kept), shared by
copying the base's to the heads, rewritten as a copy of itself, and the tables as loaded kept
and put back for whatever runs after writes. The servers are stopped around every file copy."""
import json
import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pymysql

from . import progress, server, sysbench
from .fleet import Fleet
from .workload import Dataset, WorkloadFailed


# ------------------------------------------------------------------------------ pure decisions

def reuse_marker(basedir: Path, version: str, tables: int, rows: int) -> dict:
    return {"basedir": str(basedir), "version": version, "tables": tables, "rows": rows,
            "rand_type": sysbench.RAND_TYPE}


def can_reuse(marker_text: str | None, expected: dict) -> bool:
    if not marker_text:
        return False
    try:
        return json.loads(marker_text) == expected
    except json.JSONDecodeError:
        return False


def shares_data(versions: dict) -> bool:
    """Whether every head can start from a copy of base's loaded datadir: servers of one flavor
    and one major.minor series read each other's files. A copy gives both sides the same rows,
    which two `sysbench prepare` runs never do (sysbench 1.0.20's prepare ignores --rand-seed),
    and instruction counts follow the rows (docs/usage.md, "Instructions per query").
    In a chain one head of another series makes every side load its own, so that all heads'
    tables are loaded the same way."""
    series = lambda v: tuple(v.split("-", 1)[0].split(".")[:2])  # noqa: E731
    flavor_b, version_b = versions["base"]
    return all(flavor == flavor_b and series(version) == series(version_b) for flavor, version in versions.values())


def replace_with_copy(source: Path, target: Path) -> None:
    """`target` (a datadir, or a copy of one) replaced by a copy of `source`, links kept."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, symlinks=True)


def rewrite_as_copy(datadir: Path, scratch: Path) -> None:
    """`datadir` replaced by a copy of itself written in one go (through `scratch`, a path
    beside it that is removed first if a run cut short left it)."""
    replace_with_copy(datadir, scratch)
    shutil.rmtree(datadir)
    scratch.rename(datadir)


# ------------------------------------------------------------------------------ the datadirs

class Datadirs:
    def __init__(self, fleet: Fleet, dataset: Dataset, reuse: bool):
        self.fleet = fleet
        self.plan = fleet.plan
        self.sides = fleet.sides
        self.dataset = dataset
        self.reuse = reuse
        self.data: str | None = None  # "shared" or "per-side", once the datadirs are loaded

    def _layout(self, side: str) -> server.Layout:
        return self.fleet.servers[side].layout

    # --- loading ---------------------------------------------------------------------------
    def prepare(self) -> bool:
        """Each side's datadir loaded (or an earlier one kept), servers stopped. True when the
        datadirs were loaded now, False when an earlier step's were kept."""
        reused = {side: self._reusable(side) for side in self.sides}
        self.data = "shared" if shares_data(self.fleet.versions) else "per-side"
        if all(reused.values()):
            return False
        heads = self.sides[1:]
        if self.data == "shared":
            failure = self._load_side("base")
            if failure is None:
                self._copy_to_heads()
                self._rewrite_as_copy("base")
                return True
            # The base could not be loaded: the heads load their own, so that each side's own
            # problems are found and reported; the run is an error either way.
            self.fleet.side_failed("base", failure)
            self.data = "per-side"
            for head in heads:
                failure = self._load_side(head)
                if failure is not None:
                    self.fleet.side_failed(head, failure)
            return True
        with ThreadPoolExecutor(max_workers=2) as pool:
            failures = list(pool.map(self._load_side, self.sides))
        for side, failure in zip(self.sides, failures):
            if failure is not None:
                self.fleet.side_failed(side, failure)
        return True

    def _marker(self, side: str) -> dict:
        return reuse_marker(self.plan.sides[side].basedir, self.fleet.servers[side].version, self.plan.tables, self.plan.rows)

    def _reusable(self, side: str) -> bool:
        layout = self._layout(side)
        marker_text = layout.marker.read_text() if layout.marker.exists() else None
        return self.reuse and layout.datadir.is_dir() and can_reuse(marker_text, self._marker(side))

    def _load_side(self, side: str) -> dict | None:
        """A fresh datadir of `side` loaded by its own server, which is stopped again."""
        srv = self.fleet.servers[side]
        step = "init"
        try:
            progress.emit("phase", phase="init", side=side)
            server.clean_stale_files(srv.layout)
            srv.initialize()
            step = "start"
            progress.emit("phase", phase="start", side=side)
            srv.start()
            step = "prepare"
            progress.emit("phase", phase="prepare", side=side)
            self.dataset.load(srv)
            srv.layout.marker.write_text(json.dumps(self._marker(side)) + "\n")
            step = "shutdown"
            problem = srv.shutdown()
            if problem:
                return {"step": step, "message": problem, "log_tail": srv.log_tail()}
            return None
        except server.ServerError as e:
            return {"step": e.step, "message": e.message, "log_tail": e.log_tail}
        except WorkloadFailed as e:
            return {"step": step, "message": str(e), "log_tail": e.log_tail}
        except pymysql.err.MySQLError as e:
            return {"step": step, "message": f"{side}: {e}", "log_tail": srv.log_tail()}
        except OSError as e:
            # perfgate's own files of the side (its option file, the marker) could not be
            # written, e.g. on a full disk: the side failed, in the OS's words where the server
            # has none yet.
            said = f"{e.strerror or e}: {e.filename}" if e.filename else str(e)
            return {"step": step, "message": f"{side}: {said}", "log_tail": srv.log_tail() or said}

    def _copy_data(self, source: str, target: str) -> dict | None:
        src, dst = self._layout(source), self._layout(target)
        progress.emit("phase", phase="copy data", side=target)
        try:
            server.clean_stale_files(dst)
            dst.dir.mkdir(parents=True, exist_ok=True)
            replace_with_copy(src.datadir, dst.datadir)
            dst.marker.write_text(json.dumps(self._marker(target)) + "\n")
            return None
        except OSError as e:
            return {"step": "prepare", "message": f"{target}: copying the {source} datadir failed: {e}", "log_tail": ""}

    def _rewrite_as_copy(self, side: str) -> None:
        """The side's datadir replaced by a copy of itself. A loaded base's table files grew
        piece by piece while sysbench inserted their rows, a head's copy is written in one go,
        and the base's writes ran slower for it, a bias that hides a head's write regression of
        that size (docs/measurements.md, "A bias in time-only runs: the loaded base's files")."""
        layout = self._layout(side)
        progress.emit("phase", phase="copy data", side=side)
        try:
            rewrite_as_copy(layout.datadir, layout.dir / "data.copy")
        except OSError as e:
            self.fleet.side_failed(side, {"step": "prepare", "message": f"{side}: copying its loaded datadir failed: {e}", "log_tail": ""})

    def _copy_to_heads(self) -> None:
        """Every head's datadir a copy of the base's (shared data)."""
        for head in self.sides[1:]:
            failure = self._copy_data("base", head)
            if failure is not None:
                self.fleet.side_failed(head, failure)

    # --- the tables as loaded, for whatever runs after writes ------------------------------
    def start_from_loaded(self, loaded_now: bool) -> None:
        """A run that loaded its tables keeps a copy of them when its plan writes; a later step
        (extra rounds, confirmations, recounts: `--reuse-data`) starts again from that copy.
        The earlier step's writes changed each side's tables as often as its speed allowed, so
        the sides no longer held the same rows and pages: windows there would pair different
        work, and reads timed there would run on secondary indexes full of delete-marked entries
        with purge catching up, the side that wrote more the slower (docs/measurements.md,
        "Extra rounds after the writes")."""
        if loaded_now:
            if self.keeps_loaded():
                self._snapshot_loaded()
            else:
                self._drop_loaded_copies()  # an earlier scale's copy must not come back
        elif self.has_loaded_copy():
            self.restore_loaded()

    def keeps_loaded(self) -> bool:
        """Whether a copy of the tables as loaded is kept: the plan writes (its instruction
        windows or timed rounds change rows: deletes, inserts, page splits), and what runs
        after them (timed rounds after windows, any later step) starts from the tables as
        loaded, as a suite's reads and `.pre` reads were first measured."""
        return any(b.kind == "write" for b in self.plan.benchmarks)

    def _drop_loaded_copies(self) -> None:
        for side in self.sides:
            copy = self._layout(side).loaded_copy
            if copy.exists():
                shutil.rmtree(copy)

    def _snapshot_sides(self) -> list[str]:
        # With shared data the head is a copy of the base: one snapshot serves both.
        return ["base"] if self.data == "shared" else list(self.sides)

    def _snapshot_loaded(self) -> None:
        for side in self._snapshot_sides():
            layout = self._layout(side)
            progress.emit("phase", phase="keep loaded data", side=side)
            try:
                replace_with_copy(layout.datadir, layout.loaded_copy)
            except OSError as e:
                self.fleet.side_failed(side, {"step": "prepare", "message": f"{side}: keeping a copy of the loaded datadir failed: {e}",
                                              "log_tail": ""})

    def fresh_copy(self, side: str) -> None:
        """`side`'s datadir (its server stopped) replaced by a copy of the tables as loaded and
        written to disk, so that no writeback of the copy runs inside a timing: a DDL statement
        starts from the same files on every side and in every round."""
        layout = self._layout(side)
        source = self._layout(self._snapshot_sides()[0] if self.data == "shared" else side).loaded_copy
        server.clean_stale_files(layout)
        replace_with_copy(source, layout.datadir)
        os.sync()

    def has_loaded_copy(self) -> bool:
        return all(self._layout(side).loaded_copy.is_dir() for side in self._snapshot_sides())

    def restore_loaded(self) -> None:
        """The datadirs (servers stopped) replaced by copies of the tables as loaded; the copy
        stays for later steps (removed with the run's server data)."""
        sides = self._snapshot_sides()
        for side in sides:
            layout = self._layout(side)
            progress.emit("phase", phase="restore loaded data", side=side)
            try:
                server.clean_stale_files(layout)
                replace_with_copy(layout.loaded_copy, layout.datadir)
            except OSError as e:
                self.fleet.side_failed(side, {"step": "prepare", "message": f"{side}: restoring the loaded datadir failed: {e}",
                                              "log_tail": ""})
                return
        if sides == ["base"]:
            self._copy_to_heads()
