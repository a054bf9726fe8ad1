"""Executes a plan: both servers up, data loaded, then each benchmark's warm-up and interleaved
rounds, sampling mysqld's cost around every round. Returns the results document.

Fault policy: a failed step becomes an error record (step, message, log tail) on the benchmark
and the run, and the benchmark keeps no rounds, so nothing downstream can read it as a
measurement. A side whose server died is not restarted: crash recovery leaves it in a state
(cold buffer pool, recovered data) that no longer matches the other side, and the run is an
error anyway, so the remaining benchmarks are recorded as not measured instead.
"""
import json
import shutil
import signal
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

import pymysql

from . import alternate, callgrind, fingerprint, iostat, procstat, progress, schedule, server, sysbench
from .plan import Benchmark, Plan

PREPARE_SCRIPT = "oltp_point_select"  # any oltp_* script prepares the shared sbtestN tables
AHI_COUNTERS_SQL = ("SELECT name, `count` FROM information_schema.INNODB_METRICS "
                    "WHERE name LIKE 'adaptive\\_hash\\_%' ORDER BY name")


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class BenchmarkFailed(Exception):
    def __init__(self, side, step, message, log_tail=""):
        super().__init__(message)
        self.error = {"side": side, "step": step, "message": message, "log_tail": log_tail}


# ------------------------------------------------------------------------------ pure decisions

def round_failure(side: str, outcome: sysbench.Outcome, parsed: dict | None, parse_error: str | None,
                  server_state: str, timeout: float) -> str | None:
    """Why a round cannot count as a measurement, or None when it can."""
    if server_state != "running":
        return f"{side} server {server_state} during the round"
    if outcome.timed_out:
        return f"sysbench did not finish within {timeout:.0f} s and was killed"
    if outcome.returncode < 0:
        name = signal.Signals(-outcome.returncode).name
        hint = (" (sysbench 1.0.20 built with libmariadb crashes this way when it reconnects after a lost "
                "connection)" if name == "SIGSEGV" else "")
        return f"sysbench was killed by {name}{hint}"
    if outcome.returncode != 0:
        reason = sysbench.failure_reason(outcome.output)
        return f"sysbench exited with code {outcome.returncode}" + (f": {reason}" if reason else "")
    if parse_error:
        return parse_error
    if parsed["reconnects"] > 0:
        return f"sysbench reconnected {parsed['reconnects']} times: connections were lost during the round"
    if parsed["queries"] == 0:
        return "sysbench completed no queries"
    return None


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
    and instruction counts follow the rows: two separate loads counted 0.8% apart on
    range-notcovered-si and 6% on update-index. In a chain one head of another series makes
    every side load its own, so that all heads' tables are loaded the same way."""
    series = lambda v: tuple(v.split("-", 1)[0].split(".")[:2])  # noqa: E731
    flavor_b, version_b = versions["base"]
    return all(flavor == flavor_b and series(version) == series(version_b) for flavor, version in versions.values())


AHI_PARTS = "innodb_adaptive_hash_index_parts"


def ahi_parts_problem(side: str, flavor: str, version: str, variables: dict) -> str | None:
    """Why `side` cannot run a cell at a chosen AHI partition count, or None. Decided from the
    server's own variables (SHOW GLOBAL VARIABLES of its start): MariaDB 10.2+ and MySQL 5.7+
    have the variable, older servers and builds without the AHI do not."""
    if AHI_PARTS in variables:
        return None
    return (f"{side}: {flavor} {version} has no {AHI_PARTS} (not in SHOW GLOBAL VARIABLES), so this cell's "
            f"AHI partition count cannot be set; expected a suite without ahi.parts for this server, e.g. ahi-quick")


def rewrite_as_copy(datadir: Path, scratch: Path) -> None:
    """`datadir` replaced by a copy of itself written in one go (through `scratch`, a path
    beside it that is removed first if a run cut short left it)."""
    if scratch.exists():
        shutil.rmtree(scratch)
    shutil.copytree(datadir, scratch, symlinks=True)
    shutil.rmtree(datadir)
    scratch.rename(datadir)


def _questions(conn):
    """The server's count of statements it was sent (SHOW GLOBAL STATUS 'Questions')."""
    def count() -> int:
        cur = conn.cursor()
        cur.execute("SHOW GLOBAL STATUS LIKE 'Questions'")
        row = cur.fetchone()
        if row is None:
            # Without the counter the sides cannot be told apart in alternating rounds.
            raise alternate.CounterError("SHOW GLOBAL STATUS has no 'Questions' row; --sides alternating needs it "
                                         "(expected a MySQL or MariaDB server that counts statements, or --sides in-turn)")
        return int(row[1])
    return count


def counter_delta(before: dict, after: dict) -> dict:
    return {name: after[name] - before.get(name, 0) for name in after}


# ------------------------------------------------------------------------------ the run

class Run:
    def __init__(self, plan: Plan, out_dir: Path, reuse_data: bool = False):
        self.plan = plan
        self.sides = tuple(plan.sides)  # base, head, then a chain's further heads, in order
        self.out = Path(out_dir).resolve()
        self.reuse_data = reuse_data
        self.servers: dict[str, server.Server] = {}
        self.versions: dict[str, tuple[str, str]] = {}
        self.errors: list[dict] = []
        self.warnings: list[str] = []
        self.dead: dict[str, str] = {}  # side -> why it cannot be measured any more
        self.ahi_monitor_enabled: set[str] = set()
        self.sysbench_log = self.out / "sysbench.log"
        self.data: str | None = None  # "shared" or "per-side", once the datadirs are loaded
        self.io_devices: dict[str, iostat.Device | None] = {}  # side -> the device holding its datadir
        self.variables: dict[str, dict] = {}  # side -> SHOW GLOBAL VARIABLES of its last start
        # side -> the options of that start, recorded with the variables: the reports read each
        # side's paths and port in them as its own (in an instructions-only run the last start
        # is under valgrind, on a port of its own).
        self.variable_options: dict[str, dict] = {}

    # --- entry ---------------------------------------------------------------------------
    def execute(self, versions: dict) -> dict:
        self.versions = versions
        started = now()
        self.out.mkdir(parents=True, exist_ok=True)
        records = {b.id: self._record(b) for b in self.plan.benchmarks}
        instructions = None
        try:
            loaded_now = self._setup_servers()
            if not self.dead:
                self._start_from_loaded_data(loaded_now)
            if self.plan.measures_instructions and not self.dead:
                keep = self._keeps_loaded_data()
                instructions = self._instruction_phase(records)
                if keep and not self.dead:
                    # The windows of write benchmarks changed rows (deletes, inserts, page
                    # splits); the timed rounds start from the tables as loaded.
                    self._restore_loaded_data()
                if instructions is not None:
                    instructions["timed_from"] = "loaded" if keep else "after-windows"
            if self.plan.measures_time and not self.dead:
                self._start_all()
            for i, bench in enumerate(self.plan.benchmarks):
                record = records[bench.id]
                if record["status"] == "error":
                    continue
                try:
                    if self.plan.measures_time:
                        self._measure(bench, record, self.plan.benchmarks[i + 1:])
                    elif self.dead:
                        self._skip(record)
                except Exception as e:  # a harness fault must still end as an error run, not a traceback
                    self._fail(record, {"side": None, "step": "internal", "message": f"{type(e).__name__}: {e}",
                                        "log_tail": traceback.format_exc()[-4000:]})
        finally:
            self._shutdown_all()
        benchmarks = list(records.values())
        status = "error" if self.errors or any(b["status"] == "error" for b in benchmarks) else "ok"
        progress.emit("done", status=status)
        results = {
            "schema": "perfgate.results/v1",
            "plan": self.plan.raw,
            "status": status,
            "errors": self.errors,
            "warnings": self.warnings,
            "started": started,
            "finished": now(),
            "machine": fingerprint.collect(data_dir=str(self.out)),
            "sides": {side: self._side_record(side) for side in self.sides},
            "benchmarks": benchmarks,
        }
        if self.data is not None:
            results["data"] = self.data
        if instructions is not None:
            results["instructions"] = instructions
        return results

    def _side_record(self, side: str) -> dict:
        spec = self.plan.sides[side]
        flavor, version = self.versions[side]
        srv = self.servers.get(side)
        record = {"basedir": str(spec.basedir), "flavor": flavor, "version": version,
                  "binary": str(spec.binary), "profile": self.plan.profile_for(flavor).name}
        if spec.label is not None:
            record["label"] = spec.label
        if spec.commit is not None:
            record["commit"] = spec.commit
        record["build"] = fingerprint.server_build(spec.binary, spec.basedir)
        if side in self.variables:
            record["variables"] = self.variables[side]
        if side in self.io_devices:
            device = self.io_devices[side]
            record["io_device"] = None if device is None else {"name": device.name, "dev": device.dev}
        # The options of the start the variables were read from (its paths and port), else the
        # side's server as it is now.
        options = self.variable_options.get(side) or (srv.options if srv is not None else None)
        if options is not None:
            record["options"] = options
            record["error_log"] = str(srv.layout.error_log.relative_to(self.out))
        return record

    # --- servers -------------------------------------------------------------------------
    def _server_options(self, side: str) -> dict:
        """The profile of the side's own flavour (MySQL and MariaDB differ: binary log, redo log
        option), then the side's own options."""
        flavor, _ = self.versions[side]
        return {**self.plan.profile_for(flavor).options, **self.plan.sides[side].options}

    def _setup_servers(self) -> bool:
        """Each side's datadir loaded (or an earlier one kept), servers stopped. True when the
        datadirs were loaded now, False when an earlier step's were kept."""
        for side in self.sides:
            spec = self.plan.sides[side]
            flavor, version = self.versions[side]
            self.servers[side] = server.Server(side, spec.basedir, spec.binary, flavor, version,
                                               server.layout_for(self.out, side), self._server_options(side),
                                               self.plan.pin_server)
        reused = {side: self._reusable(side) for side in self.sides}
        self.data = "shared" if shares_data(self.versions) else "per-side"
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
            self._side_failed("base", failure)
            self.data = "per-side"
            for head in heads:
                failure = self._load_side(head)
                if failure is not None:
                    self._side_failed(head, failure)
            return True
        with ThreadPoolExecutor(max_workers=2) as pool:
            failures = list(pool.map(self._load_side, self.sides))
        for side, failure in zip(self.sides, failures):
            if failure is not None:
                self._side_failed(side, failure)
        return True

    def _side_failed(self, side: str, failure: dict) -> None:
        note = server.disk_full_note(failure.get("log_tail", ""), server.layout_for(self.out, side).dir)
        if note:
            failure = {**failure, "message": f"{failure['message']}; {note}"}
        self.errors.append({"side": side, "benchmark": None, **failure})
        self.dead[side] = f"{side} server failed at {failure['step']}: {failure['message']}"

    def _marker(self, side: str) -> dict:
        return reuse_marker(self.plan.sides[side].basedir, self.servers[side].version, self.plan.tables, self.plan.rows)

    def _reusable(self, side: str) -> bool:
        layout = self.servers[side].layout
        marker_text = layout.marker.read_text() if layout.marker.exists() else None
        return self.reuse_data and layout.datadir.is_dir() and can_reuse(marker_text, self._marker(side))

    def _load_side(self, side: str) -> dict | None:
        """A fresh datadir of `side` loaded by its own server, which is stopped again."""
        srv = self.servers[side]
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
            self._load(srv)
            srv.layout.marker.write_text(json.dumps(self._marker(side)) + "\n")
            step = "shutdown"
            problem = srv.shutdown()
            if problem:
                return {"step": step, "message": problem, "log_tail": srv.log_tail()}
            return None
        except server.ServerError as e:
            return {"step": e.step, "message": e.message, "log_tail": e.log_tail}
        except BenchmarkFailed as e:
            return {k: v for k, v in e.error.items() if k != "side"}
        except pymysql.err.MySQLError as e:
            return {"step": step, "message": f"{side}: {e}", "log_tail": srv.log_tail()}
        except OSError as e:
            # perfgate's own files of the side (its option file, the marker) could not be
            # written, e.g. on a full disk: the side failed, in the OS's words where the server
            # has none yet.
            said = f"{e.strerror or e}: {e.filename}" if e.filename else str(e)
            return {"step": step, "message": f"{side}: {said}", "log_tail": srv.log_tail() or said}

    def _copy_data(self, source: str, target: str) -> dict | None:
        src, dst = self.servers[source].layout, self.servers[target].layout
        progress.emit("phase", phase="copy data", side=target)
        try:
            server.clean_stale_files(dst)
            if dst.datadir.exists():
                shutil.rmtree(dst.datadir)
            dst.dir.mkdir(parents=True, exist_ok=True)
            shutil.copytree(src.datadir, dst.datadir, symlinks=True)
            dst.marker.write_text(json.dumps(self._marker(target)) + "\n")
            return None
        except OSError as e:
            return {"step": "prepare", "message": f"{target}: copying the {source} datadir failed: {e}", "log_tail": ""}

    # --- the tables as loaded, for whatever runs after writes ------------------------------
    def _start_from_loaded_data(self, loaded_now: bool) -> None:
        """A run that loaded its tables keeps a copy of them when its plan writes; a later step
        (extra rounds, confirmations, recounts: `--reuse-data`) starts again from that copy.
        The earlier step's writes changed each side's tables as often as its speed allowed, so
        the sides no longer held the same rows and pages: window i of base and of head would
        not run the same work (update-index counted 195k instructions a query in the first
        windows, 160k after the timed rounds), and reads timed after the writes ran on
        secondary indexes full of delete-marked entries with purge catching up (random-points
        at a third of its QPS in the rounds before), the side that wrote more the slower."""
        if loaded_now:
            if self._keeps_loaded_data():
                self._snapshot_loaded_data()
            else:
                self._drop_loaded_copies()  # an earlier scale's copy must not come back
        elif self._has_loaded_copy():
            self._restore_loaded_data()

    def _keeps_loaded_data(self) -> bool:
        """Whether a copy of the tables as loaded is kept: the plan writes (its instruction
        windows or timed rounds change rows: deletes, inserts, page splits), and what runs
        after them (timed rounds after windows, any later step) starts from the tables as
        loaded, as a suite's reads and `.pre` reads were first measured."""
        return any(b.kind == "write" for b in self.plan.benchmarks)

    def _drop_loaded_copies(self) -> None:
        for side in self.sides:
            copy = self.servers[side].layout.loaded_copy
            if copy.exists():
                shutil.rmtree(copy)

    def _snapshot_sides(self) -> list[str]:
        # With shared data the head is a copy of the base: one snapshot serves both.
        return ["base"] if self.data == "shared" else list(self.sides)

    def _snapshot_loaded_data(self) -> None:
        for side in self._snapshot_sides():
            layout = self.servers[side].layout
            progress.emit("phase", phase="keep loaded data", side=side)
            try:
                if layout.loaded_copy.exists():
                    shutil.rmtree(layout.loaded_copy)
                shutil.copytree(layout.datadir, layout.loaded_copy, symlinks=True)
            except OSError as e:
                self._side_failed(side, {"step": "prepare", "message": f"{side}: keeping a copy of the loaded datadir failed: {e}",
                                         "log_tail": ""})

    def _has_loaded_copy(self) -> bool:
        return all(self.servers[side].layout.loaded_copy.is_dir() for side in self._snapshot_sides())

    def _restore_loaded_data(self) -> None:
        """The datadirs replaced by copies of the tables as loaded; the copy stays for later
        steps (removed with the run's server data)."""
        sides = self._snapshot_sides()
        for side in sides:
            layout = self.servers[side].layout
            progress.emit("phase", phase="restore loaded data", side=side)
            try:
                server.clean_stale_files(layout)
                if layout.datadir.exists():
                    shutil.rmtree(layout.datadir)
                shutil.copytree(layout.loaded_copy, layout.datadir, symlinks=True)
            except OSError as e:
                self._side_failed(side, {"step": "prepare", "message": f"{side}: restoring the loaded datadir failed: {e}",
                                         "log_tail": ""})
                return
        if sides == ["base"]:
            self._copy_to_heads()

    def _rewrite_as_copy(self, side: str) -> None:
        """The side's datadir replaced by a copy of itself. A loaded base's table files grew
        piece by piece while sysbench inserted their rows, a head's copy is written in one go,
        and on this project's runner the base's writes ran slower for it: in time-only A/A runs
        the heads measured update-index, update-nonindex and insert 21% faster on average
        (nine row runs, every one above 1.00; two copies of the base in one chain were 22%
        faster than it and equal to each other), a bias that hides a head's write regression
        of that size. With the base's datadir copied too the same rows averaged 0.98."""
        layout = self.servers[side].layout
        progress.emit("phase", phase="copy data", side=side)
        try:
            rewrite_as_copy(layout.datadir, layout.dir / "data.copy")
        except OSError as e:
            self._side_failed(side, {"step": "prepare", "message": f"{side}: copying its loaded datadir failed: {e}", "log_tail": ""})

    def _copy_to_heads(self) -> None:
        """Every head's datadir a copy of the base's (shared data)."""
        for head in self.sides[1:]:
            failure = self._copy_data("base", head)
            if failure is not None:
                self._side_failed(head, failure)

    def _start_all(self, wrapper_for=None) -> None:
        """Both servers started (under `wrapper_for(side)` when given), side by side."""
        def start(side):
            if side in self.dead:
                return None
            srv = self.servers[side]
            try:
                progress.emit("phase", phase="start", side=side)
                srv.start(timeout=600 if wrapper_for else server.START_TIMEOUT)
                return None
            except server.ServerError as e:
                return {"step": e.step, "message": e.message, "log_tail": e.log_tail}
        with ThreadPoolExecutor(max_workers=2) as pool:
            failures = list(pool.map(start, self.sides))
        for side, failure in zip(self.sides, failures):
            if failure is not None:
                self._side_failed(side, failure)
            elif side not in self.dead:
                self._capture_variables(side)

    def _capture_variables(self, side: str) -> None:
        """SHOW GLOBAL VARIABLES of a side as it runs: with `profile: defaults` the build's own
        defaults, which the reports compare between the sides. The last start wins: the timed
        rounds' servers, not the ones under valgrind."""
        try:
            rows = self._sql(side, "variables", ["SHOW GLOBAL VARIABLES"])
        except BenchmarkFailed as e:
            self._warn_once(f"{side}: SHOW GLOBAL VARIABLES failed, the server variables are not recorded: {e}")
            return
        self.variables[side] = {str(name): None if value is None else str(value) for name, value in rows}
        self.variable_options[side] = self.servers[side].options

    def _load(self, srv: server.Server) -> None:
        conn = srv.connect()
        try:
            conn.cursor().execute(f"CREATE DATABASE IF NOT EXISTS {sysbench.DATABASE}")
        finally:
            conn.close()
        inv = sysbench.Invocation(script_path=sysbench.resolve_script(PREPARE_SCRIPT), socket=srv.layout.socket,
                                  tables=self.plan.tables, rows=self.plan.rows,
                                  threads=min(self.plan.tables, 4), command="prepare",
                                  pin_cpus=self.plan.pin_client)
        cmd = sysbench.build_command(inv)
        outcome = sysbench.execute(cmd, timeout=3600, log_path=self.sysbench_log)
        if outcome.returncode != 0 or not srv.alive():
            reason = sysbench.failure_reason(outcome.output)
            message = (f"{srv.side}: sysbench prepare failed (exit code {outcome.returncode})"
                       + (f": {reason}" if reason else ""))
            if not srv.alive():
                message = f"{srv.side}: server {srv.exit_description()} while loading data"
            raise BenchmarkFailed(srv.side, "prepare", message,
                                  sysbench.output_tail(outcome.output) + "\n" + srv.log_tail())
        conn = srv.connect(database=sysbench.DATABASE)
        try:
            cur = conn.cursor()
            for t in range(1, self.plan.tables + 1):
                cur.execute(f"ANALYZE TABLE sbtest{t}")
                cur.fetchall()
        finally:
            conn.close()

    def _shutdown_all(self) -> None:
        for side, srv in self.servers.items():
            if srv.proc is None:
                server.remove_private_socket_dir(srv.layout)
                continue
            progress.emit("phase", phase="shutdown", side=side)
            problem = srv.shutdown()
            if problem:
                self.warnings.append(problem)

    # --- benchmarks ----------------------------------------------------------------------
    def _record(self, bench: Benchmark) -> dict:
        record = {"id": bench.id, "name": bench.name, "group": bench.group, "kind": bench.kind,
                  "threads": bench.threads, "ahi": bench.ahi, "script": bench.script,
                  "options": bench.options, "status": "ok", "rounds": []}
        if bench.shape:
            record["shape"] = bench.shape
        if bench.ahi_parts is not None:
            record["ahi_parts"] = bench.ahi_parts
        return record

    def _invocation(self, bench: Benchmark, side: str, seconds: float) -> sysbench.Invocation:
        return sysbench.Invocation(script_path=bench.script_path, socket=self.servers[side].layout.socket,
                                   tables=self.plan.tables, rows=self.plan.rows, threads=bench.threads,
                                   seconds=seconds, options=bench.options, pin_cpus=self.plan.pin_client)

    def _fail(self, record: dict, error: dict) -> dict:
        error = {"benchmark": record["id"], **error}
        record["status"] = "error"
        record["error"] = error
        record["rounds"] = []
        record.pop("ahi_counters", None)
        self.errors.append(error)
        progress.emit("benchmark", benchmark=record["id"], status="error", message=error["message"])
        return record

    def _skip(self, record: dict) -> dict:
        side, why = next(iter(self.dead.items()))
        return self._fail(record, {"side": side, "step": "skipped", "message": f"not measured: {why}"})

    def _measure(self, bench: Benchmark, record: dict, later: list) -> dict:
        """The timed rounds of one benchmark, interleaved, into `record`."""
        record["command"] = sysbench.command_text(sysbench.build_command(
            self._invocation(bench, "base", self.plan.seconds)))
        if self.dead:
            return self._skip(record)
        try:
            if bench.ahi_parts is not None:
                self._use_ahi_parts(bench.ahi_parts)
            if bench.ahi:
                for side in self.sides:
                    self._set_ahi(side, bench.ahi)
            if self.plan.warmup_seconds > 0:
                progress.emit("phase", phase="warmup", benchmark=bench.id, side=", ".join(self.sides))
                self._at_once([lambda side=side: self._timed_run(bench, side, self.plan.warmup_seconds, step="warmup")
                               for side in self.sides], schedule.warmups_together(self.plan.side_schedule))
            counters = {side: {} for side in self.sides} if bench.ahi else None

            def measure_group(group, **progress_fields):
                progress.emit("round", benchmark=bench.id, side=", ".join(side for _, side in group), round=group[0][0],
                              **progress_fields)
                before_counters = {side: self._ahi_counters(side) for _, side in group} if bench.ahi else None
                if self.plan.side_schedule == "alternating" and len(group) > 1:
                    record["rounds"].extend(self._alternating_rounds(bench, group))
                else:
                    record["rounds"].extend(self._at_once([lambda i=i, side=side: self._round(bench, side, i)
                                                           for i, side in group], True))
                if bench.ahi:
                    for _, side in group:
                        delta = counter_delta(before_counters[side], self._ahi_counters(side))
                        for name, value in delta.items():
                            counters[side][name] = counters[side].get(name, 0) + value

            groups = schedule.round_groups(self.plan.rounds, self.plan.first_round, self.sides, self.plan.side_schedule)
            for n, group in enumerate(groups):
                measure_group(group, rounds=self.plan.rounds, eta_seconds=self._eta(len(groups) - n, later))
            # More pairs on the same servers while the one who started the harness asks for
            # them (it judges the row): no restart, no second warm-up, and a row stops as soon
            # as its answer is clear.
            extra, next_index = 0, self.plan.first_round + self.plan.rounds
            while extra < self.plan.rounds_on_request:
                if counters is not None:
                    record["ahi_counters"] = counters
                try:
                    more = progress.ask_more_rounds(bench.id, record, self.plan.rounds_on_request - extra)
                except progress.AnswerError as e:
                    raise BenchmarkFailed(None, "more rounds", str(e)) from None
                if more == 0:
                    break
                for group in schedule.round_groups(more, next_index, self.sides, self.plan.side_schedule):
                    measure_group(group, extra=True)
                extra, next_index = extra + more, next_index + more
            if counters is not None:
                record["ahi_counters"] = counters
        except BenchmarkFailed as e:
            return self._fail(record, e.error)
        progress.emit("benchmark", benchmark=bench.id, status="ok")
        return record

    # --- instructions --------------------------------------------------------------------
    def _instruction_phase(self, records: dict) -> dict:
        """Every benchmark's instruction windows, both servers under callgrind side by side
        (Valgrind runs one thread of a process at a time: each side takes one core). The
        servers are stopped afterwards; the timed rounds start them again without Valgrind."""
        started = time.monotonic()
        reason = callgrind.unavailable_reason()
        if reason:
            for side in self.sides:
                self._side_failed(side, {"step": "instructions", "message": reason, "log_tail": ""})
            return None
        normal = dict(self.servers)
        dirs = {side: self.servers[side].layout.dir / "callgrind" for side in self.sides}
        for side in self.sides:
            dirs[side].mkdir(parents=True, exist_ok=True)
            srv = normal[side]
            self.servers[side] = server.Server(side, srv.basedir, srv.binary, srv.flavor, srv.version, srv.layout,
                                               callgrind.server_options(self._server_options(side)),
                                               wrapper=callgrind.valgrind_wrapper(dirs[side]))
        controls = {}
        try:
            self._start_all(wrapper_for=True)
            controls = {side: callgrind.Control(self.servers[side].pid, dirs[side]) for side in self.sides
                        if side not in self.dead}
            benches = self.plan.benchmarks
            for i, bench in enumerate(benches):
                if self.dead:
                    self._skip(records[bench.id])
                    continue
                progress.emit("phase", phase="instructions", benchmark=bench.id,
                              eta_seconds=schedule.instruction_eta(len(benches) - i, self.plan.instruction_windows)
                              + (self._eta(0, benches) if self.plan.measures_time else 0))
                self._count_instructions(bench, records[bench.id], controls, dirs)
        finally:
            for side, srv in list(self.servers.items()):
                if srv.proc is None:
                    continue
                progress.emit("phase", phase="shutdown", side=side)
                problem = srv.shutdown(timeout=300)
                if problem:
                    self.warnings.append(f"instructions: {problem}")
                elif not callgrind.final_dump_written(dirs[side], srv.pid):
                    self.warnings.append(f"instructions: {side}: valgrind wrote no final dump (it did not exit cleanly)")
                callgrind.remove_files(dirs[side], srv.pid)
            self.servers = normal
        return {"tool": "callgrind", "windows": self.plan.instruction_windows, "seed": self.plan.instruction_seed,
                "seconds": round(time.monotonic() - started, 1), "data": self.data}

    def _count_instructions(self, bench: Benchmark, record: dict, controls: dict, dirs: dict) -> None:
        def side_windows(side):
            srv = self.servers[side]
            inv = sysbench.Invocation(script_path=bench.script_path, socket=srv.layout.socket,
                                      tables=self.plan.tables, rows=self.plan.rows, threads=1,
                                      options=bench.options, events=bench.instructions_events,
                                      rand_seed=self.plan.instruction_seed)
            keep = dirs[side] / callgrind.window_description(bench.id, "last")
            try:
                measured = callgrind.measure_benchmark(controls[side], inv, srv.connect, bench.id,
                                                       self.plan.instruction_windows, log_path=self.sysbench_log,
                                                       keep_last_in=keep)
                measured["files"] = str(keep.relative_to(self.out))
                return measured, None
            except (callgrind.CallgrindError, callgrind.CallgrindFormatError, sysbench.SysbenchOutputError,
                    pymysql.err.MySQLError, OSError) as e:
                state = srv.exit_description()
                if state != "running":
                    self.dead[side] = f"{side} server under valgrind {state}"
                return None, {"side": side, "step": "instructions", "message": f"{side}: {e}",
                              "log_tail": srv.log_tail(30 if state != "running" else 5)}
        with ThreadPoolExecutor(max_workers=2) as pool:
            outcomes = dict(zip(self.sides, pool.map(side_windows, self.sides)))
        failure = next((error for _, error in outcomes.values() if error), None)
        if failure:
            self._fail(record, failure)
            return
        record["instructions"] = {"events": bench.instructions_events, "seed": self.plan.instruction_seed,
                                  **{side: outcomes[side][0] for side in self.sides}}

    def _at_once(self, runs: list, together: bool, while_running=None) -> list:
        """Calls each of `runs` (a timed run of one side each), all at the same time when
        `together`, else one after the other; the results in the order given. A failure of one
        stops the others and is raised once they have ended: no sysbench is left running.
        `while_running(futures)`, for runs together, is called in this thread once all have
        been started (the alternating rounds' slices); what it raises stops the runs alike."""
        if not together or len(runs) == 1:
            assert while_running is None, "while_running needs runs at the same time"
            return [run() for run in runs]
        pool = ThreadPoolExecutor(max_workers=len(runs))
        futures = [pool.submit(run) for run in runs]
        try:
            if while_running is not None:
                while_running(futures)
            results = [future.result() for future in futures]
        except BaseException:
            # A cancel (SIGTERM arrives here, in the main thread) or one side's failure: the
            # other sides' sysbench stop now instead of running out their rounds.
            sysbench.stop_all()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        return results

    def _eta(self, groups_left_here: int, later: list) -> int:
        # Time passes per group of rounds (one round, or every side's round of one index).
        grouped = self.plan.side_schedule != "in-turn"
        groups_per_benchmark = self.plan.rounds * (1 if grouped else len(self.sides))
        group_seconds = schedule.group_wall_seconds(self.plan.side_schedule, self.plan.seconds, len(self.sides))
        warmups = (1 if schedule.warmups_together(self.plan.side_schedule) else len(self.sides)) if self.plan.warmup_seconds > 0 else 0
        return schedule.eta_seconds(groups_left_here + groups_per_benchmark * len(later), group_seconds,
                                    warmups * len(later), self.plan.warmup_seconds)

    def _check_alive(self, side: str, step: str) -> None:
        srv = self.servers[side]
        if not srv.alive():
            why = f"{side} server {srv.exit_description()}"
            self.dead[side] = why
            raise BenchmarkFailed(side, step, why, srv.log_tail())

    def _sql(self, side: str, step: str, statements: list[str]) -> list:
        self._check_alive(side, step)
        srv = self.servers[side]
        try:
            conn = srv.connect()
            try:
                cur = conn.cursor()
                rows = []
                for statement in statements:
                    cur.execute(statement)
                    rows = cur.fetchall()
                return rows
            finally:
                conn.close()
        except pymysql.err.MySQLError as e:
            self._check_alive(side, step)
            raise BenchmarkFailed(side, step, f"{side}: {e}", srv.log_tail()) from None

    def _set_ahi(self, side: str, state: str) -> None:
        value = "ON" if state == "on" else "OFF"
        statements = [f"SET GLOBAL innodb_adaptive_hash_index = {value}"]
        if side not in self.ahi_monitor_enabled:
            # Most adaptive_hash_% counters are off by default; enabling them once is enough.
            statements.append("SET GLOBAL innodb_monitor_enable = 'module_adaptive_hash'")
        statements.append("SELECT @@GLOBAL.innodb_adaptive_hash_index")
        rows = self._sql(side, "ahi", statements)
        self.ahi_monitor_enabled.add(side)
        if int(rows[0][0]) != (1 if state == "on" else 0):
            raise BenchmarkFailed(side, "ahi", f"{side}: innodb_adaptive_hash_index stayed {rows[0][0]} "
                                               f"after SET GLOBAL ... = {value}")

    def _use_ahi_parts(self, parts: int) -> None:
        """Both servers running with innodb_adaptive_hash_index_parts = `parts`. It is read at
        startup only: when it differs, both restart with it (the plan groups the cells of one
        count, so this happens once per count). A server without the variable refuses the cell."""
        for side in schedule.SIDES:
            flavor, version = self.versions[side]
            problem = ahi_parts_problem(side, flavor, version, self.variables.get(side, {}))
            if problem:
                raise BenchmarkFailed(side, "ahi", problem)
        wanted = str(parts)
        if all(self.variables[side].get(AHI_PARTS) == wanted for side in schedule.SIDES):
            return
        for side in schedule.SIDES:
            srv = self.servers[side]
            srv.profile_options = {**srv.profile_options, AHI_PARTS: wanted}
            progress.emit("phase", phase="shutdown", side=side)
            problem = srv.shutdown()
            if problem:
                self.warnings.append(problem)
        self._start_all()
        # A restarted server has its AHI monitor counters off again.
        self.ahi_monitor_enabled.clear()
        for side in schedule.SIDES:
            if side in self.dead:
                raise BenchmarkFailed(side, "ahi", self.dead[side], self.servers[side].log_tail())
            now_parts = self.variables.get(side, {}).get(AHI_PARTS)
            if now_parts != wanted:
                raise BenchmarkFailed(side, "ahi", f"{side}: {AHI_PARTS} is {now_parts} after a restart with {wanted}")

    def _ahi_counters(self, side: str) -> dict:
        rows = self._sql(side, "ahi", [AHI_COUNTERS_SQL])
        if not rows:
            raise BenchmarkFailed(side, "ahi", f"{side}: information_schema.INNODB_METRICS has no adaptive_hash_% counters")
        return {name: int(count) for name, count in rows}

    def _timed_run(self, bench: Benchmark, side: str, seconds: float, step: str, on_start=None):
        """Runs sysbench once against one side; returns the parsed report and, before and after it,
        (the server's /proc sample, its datadir device's /proc/diskstats sample or None).
        `on_start(proc)` is called once sysbench runs."""
        self._check_alive(side, step)
        srv = self.servers[side]
        cmd = sysbench.build_command(self._invocation(bench, side, seconds))
        timeout = seconds + sysbench.RUN_GRACE_SECONDS
        device = self._io_device(side)
        try:
            before = procstat.sample(srv.pid)
        except OSError:
            self._check_alive(side, step)
            raise
        device_before = iostat.sample(device)
        outcome = sysbench.execute(cmd, timeout=timeout, log_path=self.sysbench_log, on_start=on_start)
        device_after = iostat.sample(device)
        state = srv.exit_description()
        after = procstat.sample(srv.pid) if state == "running" else None
        parsed, parse_error = None, None
        if outcome.returncode == 0 and not outcome.timed_out:
            try:
                parsed = sysbench.parse_run_output(outcome.output)
            except sysbench.SysbenchOutputError as e:
                parse_error = str(e)
        failure = round_failure(side, outcome, parsed, parse_error, state, timeout)
        if failure:
            if state != "running":
                self.dead[side] = f"{side} server {state}"
            log_tail = sysbench.output_tail(outcome.output)
            # The server's last words explain a crash; when it is alive they are only context.
            server_tail = srv.log_tail(30 if state != "running" else 5)
            if server_tail:
                log_tail += f"\n--- {srv.layout.error_log.name} ({side}) ---\n{server_tail}"
            raise BenchmarkFailed(side, step, f"{side}: {failure}", log_tail)
        if after.read_bytes is None:
            self._warn_once(f"{side}: /proc/{srv.pid}/io cannot be read: the server's own I/O (rKB/o, wKB/o) is not recorded")
        return parsed, (before, device_before), (after, device_after)

    def _io_device(self, side: str) -> iostat.Device | None:
        if side not in self.io_devices:
            datadir = self.servers[side].layout.datadir
            self.io_devices[side] = iostat.device_of(datadir)
            if self.io_devices[side] is None:
                self._warn_once(f"{side}: no block device in /proc/diskstats holds {datadir}: the device's I/O (r/o) is not recorded")
            elif self.plan.side_schedule != "in-turn" and any(iostat.device_of(self.servers[other].layout.datadir) == self.io_devices[side]
                                                  for other in self.sides if other != side):
                # Both sides' reads land on one device at the same time: its counters cannot be
                # split between them. The servers' own I/O (rKB/o, wKB/o) is still per side.
                self.io_devices[side] = None
                self._warn_once(f"the sides are measured {self.plan.side_schedule} on one block device: the device's I/O per query (r/o) is not recorded")
        return self.io_devices[side]

    def _warn_once(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def _round(self, bench: Benchmark, side: str, index: int) -> dict:
        started = now()
        return self._round_record(index, side, started, self._timed_run(bench, side, self.plan.seconds, "round"))

    def _alternating_rounds(self, bench: Benchmark, group: list) -> list[dict]:
        """Every side's round of one index with the sides alternating (alternate.py): each side's
        sysbench runs for the round's length times the number of sides, in turns of a slice,
        and its QPS is the queries its own server counted over the slices it ran."""
        started = now()
        names = [side for _, side in group]
        conns, sides = {}, {}
        try:
            for side in names:
                self._check_alive(side, "round")
                conns[side] = self.servers[side].connect()
                count = _questions(conns[side])
                sides[side] = alternate.Side(self.servers[side].pid, count=count, own=alternate.own_statements(count))
        except BaseException as e:
            for conn in conns.values():
                conn.close()
            if not isinstance(e, (pymysql.err.MySQLError, alternate.CounterError)):
                raise
            self._check_alive(side, "round")
            raise BenchmarkFailed(side, "round", f"{side}: {e}", self.servers[side].log_tail()) from None
        clients = {}

        def on_start(side):
            def record(proc):
                clients[side] = proc
                sides[side].client_pid = proc.pid
            return record

        wall = schedule.group_wall_seconds("alternating", self.plan.seconds, len(names))
        tallies = {}

        def count_slices(futures):
            by_side = dict(zip(names, futures))

            def finished(side):
                return by_side[side].done() or (side in clients and clients[side].poll() is not None)

            try:
                tallies.update(alternate.run_slices(
                    sides, ready=lambda: all(side in clients or by_side[side].done() for side in names), finished=finished))
            except (pymysql.err.MySQLError, alternate.CounterError) as e:
                # A server stopped answering its counter: its round fails like any other.
                side = next((s for s in names if not self.servers[s].alive()), names[0])
                raise BenchmarkFailed(side, "round", f"{side}: counting its queries failed: {e}", self.servers[side].log_tail()) from None

        try:
            runs = [lambda side=side: self._timed_run(bench, side, wall, "round", on_start(side)) for side in names]
            timed = dict(zip(names, self._at_once(runs, True, while_running=count_slices)))
        finally:
            for conn in conns.values():
                conn.close()
        records = []
        for index, side in group:
            tally = tallies[side]
            if tally.qps is None:
                raise BenchmarkFailed(side, "round", f"{side}: no slice of the alternating round was counted "
                                      f"(its sysbench ran {timed[side][0]['seconds']:.2f} s of its {wall} s)")
            records.append(self._round_record(index, side, started, timed[side], counted=tally))
        return records

    def _round_record(self, index: int, side: str, started: str, timed, counted: alternate.Tally | None = None) -> dict:
        """One round's record. `counted`: the slices an alternating round counted, whose QPS
        stands for the round (sysbench's own includes the time its side was frozen)."""
        parsed, (before, device_before), (after, device_after) = timed
        cpu_us, cs = procstat.per_query(before, after, parsed["queries"])
        qps, tps, seconds = parsed["qps"], parsed["tps"], parsed["seconds"]
        if counted is not None:
            qps, seconds = counted.qps, counted.seconds
            tps = qps * parsed["transactions"] / parsed["queries"] if parsed["queries"] else 0.0
        return {
            "index": index, "side": side, "started": started, "seconds": seconds,
            "qps": qps, "tps": tps, "queries": parsed["queries"],
            "latency_ms": parsed["latency_ms"], "errors": parsed["errors"], "reconnects": parsed["reconnects"],
            "cpu_per_query_us": cpu_us, "cs_per_query": cs,
            **iostat.per_query(before, after, device_before, device_after, parsed["queries"]),
        }
