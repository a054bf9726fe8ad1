"""The explanation step: for each row asked, both sides on fresh servers (started from the run's
datadirs as loaded, performance_schema and every InnoDB monitor on, for this step only), a short
warm-up, then each probe on the base and then the head over windows of the same fixed-seed
events, sized to its share of the row's time: counters, waits, memory, stacks; then the row's
statement shapes, captured once on the base and EXPLAINed on both sides; last, where the sides'
server variables differ, the head restarted with the base's values and measured again against
the base (explain_defaults.py). It runs after every timed round and changes no verdict: what it
gathers is explain.json (schema/explain.schema.json), which core reads to name a cause."""
import os
import shutil
import time
import traceback
from pathlib import Path

import pymysql

from . import explain_counters, explain_defaults, explain_plans, explain_snapshots, explain_stacks, progress, server, sysbench
from .phase import Phase, Services
from .plan import Benchmark
from .records import BenchmarkFailed, now
from .rounds import Rounds
from .workload import WorkloadFailed

# The options of this step's servers, after the profile's and the side's (the last one wins).
EXPLAIN_OPTIONS = {
    "performance_schema": "ON",
    "performance-schema-instrument": "'%=ON'",
    "performance-schema-consumer-events-waits-current": "ON",
    "performance-schema-consumer-events-stages-current": "ON",
    "performance-schema-consumer-events-statements-current": "ON",
    "innodb_monitor_enable": "all",
}
PROBES = ("counters", "waits", "memory", "stacks")
# Each probe's share of what is left of a row's time, and the fewest events per window that
# still say something (counts per query are exact in a few hundred events; memory growth
# needs many).
SHARES = {"counters": 3, "waits": 3, "memory": 2, "stacks": 2}
LEAST_EVENTS = {"counters": 200, "waits": 200, "memory": 2000, "stacks": 500}
# A heavy row (a sort of 10,000 rows an event) needs fewer events for exact counts, waits and
# stacks per query: the least is then what LEAST_WINDOW_SECONDS of it hold, never fewer than
# LEAST_FLOOR. Memory growth per query is not scaled: a leak of a few bytes needs many queries.
LEAST_WINDOW_SECONDS = 5.0
LEAST_FLOOR = 10
# The plans come after the probes (their capture runs events on the base alone) and take a few
# seconds: a handful of events under the general log and an EXPLAIN per shape. The probes stop
# this much before the row's end so that a planned row's plan is always looked at.
PLANS_SECONDS = 5.0
SCALED_LEAST = ("counters", "waits", "stacks")
SIDES = ("base", "head")
# Failures of a row that leave the other rows to look at.
ROW_FAILURES = (BenchmarkFailed, WorkloadFailed, server.ServerError, pymysql.err.MySQLError, OSError,
                explain_stacks.StacksFailed, ValueError)
# Failures of the re-measure with the base's defaults: that probe is not looked at, and the
# other probes' figures, gathered before it, stand.
DEFAULTS_FAILURES = (explain_defaults.DefaultsFailed, BenchmarkFailed, WorkloadFailed, server.ServerError,
                     pymysql.err.MySQLError, OSError)


class Settings:
    """How much each probe runs: events per window and windows per side."""

    def __init__(self, events: int = 2000, windows: int = 3, memory_events: int = 20000, memory_windows: int = 2,
                 stack_events: int = 5000, plan_events: int = 20, warmup_seconds: float = 2.0, seed: int = 1):
        self.events, self.windows = events, windows
        self.memory_events, self.memory_windows = memory_events, memory_windows
        self.stack_events, self.plan_events = stack_events, plan_events
        self.warmup_seconds, self.seed = warmup_seconds, seed


# ------------------------------------------------------------------------------ pure decisions

def empty_side() -> dict:
    return {"counters": None, "waits": None, "stacks": None, "memory": None, "unavailable": {}}


def fitting_events(wanted: int, least: int, rate: float | None, seconds_left: float) -> int:
    """How many of `wanted` events fit in `seconds_left` at `rate` events/s (unknown: all of
    them); 0 when fewer than `least` would."""
    if rate is None or rate <= 0:
        return wanted
    fit = int(rate * max(seconds_left, 0))
    return wanted if fit >= wanted else (fit if fit >= least else 0)


def least_events(probe: str, rate: float | None) -> int:
    """The fewest events a window of `probe` needs (LEAST_EVENTS), fewer for a heavy row."""
    if rate is None or rate <= 0 or probe not in SCALED_LEAST:
        return LEAST_EVENTS[probe]
    return min(LEAST_EVENTS[probe], max(LEAST_FLOOR, int(rate * LEAST_WINDOW_SECONDS)))


def probe_events(probe: str, wanted: int, windows: int, rate: float | None, seconds_left: float,
                 reserved: float = 0.0) -> int:
    """Events per window of `probe` on each side: `wanted`, or as many as its share of
    `seconds_left` allows at `rate` events/s (the slower side's), two sides of `windows`
    windows. Where its share holds fewer than LEAST_EVENTS but all that is left holds them, it
    runs those: the probes' order is their priority (exact counters first, a slow row's time
    is not split into shares too small for any). The first probe's least may also take the
    `reserved` seconds kept for the defaults re-measure: exact counts come before a timing.
    0 when not even that fits."""
    later = PROBES[PROBES.index(probe):]
    allowance = seconds_left * SHARES[probe] / sum(SHARES[p] for p in later)
    both = 2 * windows
    least = min(wanted, least_events(probe, rate)) * both
    shared = fitting_events(wanted * both, least, rate, allowance)
    room = seconds_left + (reserved if probe == PROBES[0] else 0.0)
    return (shared or fitting_events(least, least, rate, room)) // both


def skipped(seconds_per_row: float) -> str:
    """Why a probe was not run: the row's time was spent (never a silent skip)."""
    return f"skipped: the row's {seconds_per_row:g} s (suite key explain.seconds_per_row) were spent before it"


def row_status(record: dict) -> dict:
    """A row ends as an error when it has one, and then keeps no figure of either side: what a
    server measured before one of them died is not a comparison. Its seconds rounded."""
    record["status"] = "error" if record.get("error") else "ok"
    if record["status"] == "error":
        record.update(sides={side: empty_side() for side in SIDES}, plans=None, defaults=None)
    record["seconds"] = round(record["seconds"], 1)
    return record


class ExplainPhase(Phase):
    name = "explain"

    def __init__(self, services: Services, rows: list[tuple[str, str]], budget: dict, settings: Settings | None = None):
        super().__init__(services)
        self.rows = rows  # [(benchmark id, how it was asked: auto, all, named)]
        self.budget = budget  # {rows, seconds_per_row}
        self.settings = settings or Settings(seed=self.plan.instruction_seed or 1)
        self.dir = services.out / "explain"
        self.probe = PROBES[0]  # the probe running, which a failure names

    @property
    def wanted(self) -> bool:
        return bool(self.rows)

    def run(self, records: dict | None = None) -> dict:
        """The explain.json document of every row asked."""
        started = now()
        benches = {b.id: b for b in self.plan.benchmarks}
        rows = []
        for bench_id, asked in self.rows[: self.budget["rows"]]:
            progress.emit("phase", phase="explain", benchmark=bench_id)
            rows.append(self._row(benches[bench_id], asked))
        return self._document(started, "ok", rows)

    def failed(self, started: str, error: dict) -> dict:
        """The document of a step that could not start: every row asked, each with the error."""
        rows = [row_status({"id": bench_id, "asked": asked, "seconds": 0.0, "error": error, "plans": None,
                            "defaults": None, "sides": {"base": empty_side(), "head": empty_side()}})
                for bench_id, asked in self.rows[: self.budget["rows"]]]
        return self._document(started, "error", rows)

    def _document(self, started: str, status: str, rows: list) -> dict:
        return {"schema": "perfgate.explain/v1", "started": started, "finished": now(), "status": status,
                "budget": dict(self.budget), "rows": rows}

    # --- one row -------------------------------------------------------------------------------
    def _row(self, bench: Benchmark, asked: str) -> dict:
        started = time.monotonic()
        deadline = started + float(self.budget["seconds_per_row"])
        record = {"id": bench.id, "asked": asked, "status": "ok", "seconds": 0.0,
                  "sides": {"base": empty_side(), "head": empty_side()}, "plans": None, "defaults": None}
        servers = self._fresh_servers()
        step = "servers"
        try:
            with self.fleet.replaced(servers):
                try:
                    rates = self._start(bench)
                    start_seconds = time.monotonic() - started
                    workload = self.services.workload(bench)
                    step = "defaults"
                    differ = self._differing(servers)
                    step = "probes"
                    # Where settings differ, the probes leave the re-measure its least.
                    reserve = explain_defaults.reserve_seconds(start_seconds) if differ[0] else 0.0
                    self._probes(bench, workload, record["sides"], deadline - reserve - PLANS_SECONDS, rates, reserve)
                    step = "plans"
                    record["plans"] = self._plans(workload, record, deadline)
                    step = "defaults"
                    if differ[0]:
                        record["defaults"] = self._defaults(bench, workload, servers, differ,
                                                            deadline, start_seconds)
                finally:
                    self._stop(servers)
        except ROW_FAILURES as e:
            # Whatever failed inside a probe (the server, sysbench, a query) failed that probe.
            record["error"] = {"step": self.probe if step == "probes" else step, "message": self._why(e, servers)}
        except Exception as e:  # a harness fault ends the row as an error, never as a finding
            record["error"] = {"step": step, "message": f"internal: {type(e).__name__}: {e}"[:4096]}
            progress.say(traceback.format_exc()[-2000:])
        record["seconds"] = time.monotonic() - started
        return row_status(record)

    def _fresh_servers(self) -> dict:
        """Both sides' servers from the tables as loaded, with this step's options."""
        self.fleet.dead.clear()  # every row starts its own processes
        datadirs = self.services.datadirs
        if datadirs.keeps_loaded() and datadirs.has_loaded_copy():
            datadirs.restore_loaded()
        out = {}
        for side in SIDES:
            usual = self.fleet.servers[side]
            out[side] = server.Server(side, usual.basedir, usual.binary, usual.flavor, usual.version, usual.layout,
                                      {**self.fleet.server_options(side), **EXPLAIN_OPTIONS}, self.plan.pin_server)
        return out

    def _start(self, bench: Benchmark) -> dict:
        """Both servers up and warmed; each side's pace in the warm-up (events/s), which sizes
        the first windows."""
        self.fleet.start_all()
        if self.fleet.dead:
            side, why = next(iter(self.fleet.dead.items()))
            raise BenchmarkFailed(side, "servers", why)
        workload = self.services.workload(bench)
        rates = {}
        for side in SIDES:
            report = self._warm(workload, side)
            if report is not None and report.get("tps"):
                rates[side] = float(report["tps"])
        return rates

    def _warm(self, workload, side: str) -> dict | None:
        srv = self.fleet.check_alive(side, "warm-up")
        conn = srv.connect()
        try:
            conn.cursor().execute("UPDATE performance_schema.setup_consumers SET ENABLED = 'YES'")
        finally:
            conn.close()
        if self.settings.warmup_seconds > 0:
            return workload.timed(srv, self.settings.warmup_seconds)
        return None

    def _stop(self, servers: dict) -> None:
        for srv in servers.values():
            if srv.proc is not None:
                problem = srv.shutdown()
                if problem:
                    self.journal.warn(f"explain: {problem}")

    def _why(self, e: Exception, servers: dict) -> str:
        """The failure in one message; a server that died is the cause, whatever else was said."""
        dead = [f"{side} server {srv.exit_description()}" for side, srv in servers.items()
                if srv.proc is not None and srv.exit_description() != "running" and not srv.exit_description().endswith("code 0")]
        message = str(e) or type(e).__name__
        return ("; ".join(dead) + f" ({message})" if dead else message)[:4096]

    # --- one side ------------------------------------------------------------------------------
    def _probes(self, bench: Benchmark, workload, sides: dict, deadline: float, rates: dict,
                reserved: float = 0.0) -> None:
        """Each probe on both sides in turn, over the same events on both, as many as fit in
        what is left of the row's time at the slower side's pace (the plans take little);
        `reserved`: the seconds after `deadline` kept for the defaults re-measure."""
        s = self.settings
        self.probe = PROBES[0]
        observers = {side: explain_counters.Observer(self.fleet.check_alive(side, self.probe)) for side in SIDES}

        def runner(side):
            srv = self.fleet.servers[side]

            def run_events(events):
                self.fleet.check_alive(side, self.probe)
                # At the row's client threads: a latch or a lock that threads queue on shows
                # only when they do (a contention row's 16; one for the quick suite's).
                report = workload.events(srv, events, s.seed, bench.threads)
                rates[side] = events / max(report["seconds"], 1e-3)
                return report
            return run_events

        for probe in PROBES:
            self.probe = probe
            events, windows = {"memory": (s.memory_events, s.memory_windows), "stacks": (s.stack_events, 1)}.get(
                probe, (s.events, s.windows))
            # A margin for what the windows do besides the events (snapshots, purge drained).
            fit = probe_events(probe, events, windows, min(rates.values()) if rates else None,
                               (deadline - time.monotonic()) * 0.8, reserved * 0.8)
            if fit <= 0:
                for side in SIDES:
                    sides[side]["unavailable"][probe] = skipped(self.budget["seconds_per_row"])
                continue
            # Snapshots (no perf) keep going while a side's half of the row's time is left.
            side_seconds = max(0.0, (deadline - time.monotonic()) * 0.8 / len(SIDES))
            for side in SIDES:
                progress.emit("phase", phase=f"explain {probe}", benchmark=bench.id, side=side)
                record, observer, run_events = sides[side], observers[side], runner(side)
                if probe == "counters":
                    record["counters"] = explain_counters.counter_windows(observer, run_events, fit, windows)
                elif probe == "waits":
                    record["waits"] = explain_counters.wait_windows(observer, run_events, fit, windows)
                elif probe == "memory":
                    record["memory"] = explain_counters.memory_windows(observer, run_events, fit, windows)
                else:
                    self._stacks(bench, observer.srv, run_events, fit, side, record, side_seconds)

    def _stacks(self, bench: Benchmark, srv, run_events, events: int, side: str, record: dict,
                most_seconds: float) -> None:
        """perf where it may record scheduler switches; else snapshots by eu-stack (the sandbox)."""
        refused = explain_stacks.unavailable_reason(shutil.which("perf"), os.geteuid(), _read(explain_stacks.PARANOID))
        missing = explain_snapshots.unavailable_reason(shutil.which("eu-stack")) if refused else None
        if missing:
            record["unavailable"]["stacks"] = f"{refused}; and {missing}"[:1024]
            return
        stem = explain_stacks.file_stem(bench.id, side)
        tool = "eu-stack" if refused else "perf"
        try:
            if refused:
                record["stacks"] = explain_snapshots.snapshots_window(srv.pid, run_events, events, self.dir, self.services.out,
                                                                      stem, srv.binary.name, most_seconds)
            else:
                record["stacks"] = explain_stacks.stacks_window(srv.pid, run_events, events, self.dir, self.services.out,
                                                                stem, srv.binary.name)
        except explain_stacks.StacksFailed as e:
            self.fleet.check_alive(side, "stacks")  # a server that died is the row's error
            record["unavailable"]["stacks"] = f"{tool} failed: {e}"[:1024]

    # --- defaults --------------------------------------------------------------------------------
    def _differing(self, servers: dict) -> tuple[list, dict, dict | None]:
        """The settings that differ between the sides as this step started them (the same
        options on both, the side's own aside), the base's variables, and which of its
        variables the head takes as a server option."""
        found = {side: explain_defaults.variables(servers[side]) for side in SIDES}
        differ = explain_defaults.differing(found["base"], found["head"], servers["base"].options, servers["head"].options)
        return differ, found["base"], explain_defaults.startup_options(servers["head"]) if differ else None

    def _defaults(self, bench: Benchmark, workload, servers: dict, differ: tuple, deadline: float,
                  start_seconds: float) -> dict:
        """Both sides restarted with their usual options (this step's performance_schema would
        cost both alike and pull the ratio towards 1), the head with the base's values of the
        variables that differ; then alternating pairs. Where it cannot run, the variables that
        differ with why (not_measured)."""
        variables, base_vars, startup = differ
        given, refused = explain_defaults.candidates(variables, base_vars)
        record = {"variables": variables, "set": [], "refused": explain_defaults.most_telling_first(refused),
                  "still_differ": [], "rounds": []}
        room = deadline - time.monotonic() - start_seconds
        if not given:
            return record
        if explain_defaults.pairs_plan(room, self.plan.seconds)[0] == 0:
            return self._not_measured(record, skipped(self.budget["seconds_per_row"]))
        progress.emit("phase", phase="explain defaults", benchmark=bench.id, side="base, head")
        try:
            explain_defaults.restart(servers, "base", self.fleet.server_options("base"))
            usual = self.fleet.server_options("head")
            for attempt in range(explain_defaults.START_ATTEMPTS):
                try:
                    log = explain_defaults.restart(servers, "head", explain_defaults.options_with(usual, given))
                    break
                except explain_defaults.DefaultsFailed as e:
                    # A value the head cannot start with (a server stops at the first): refused
                    # by name, and the head started once more without it.
                    named = explain_defaults.refused_at_start(given, e.log)
                    if not named or attempt + 1 == explain_defaults.START_ATTEMPTS:
                        raise
                    refused += named
                    given = {n: v for n, v in given.items() if n not in {explain_defaults.variable_of(r["name"]) for r in named}}
            after = {side: explain_defaults.variables(servers[side]) for side in SIDES}
            options = [servers[side].options for side in SIDES]
            record["set"], not_taken = explain_defaults.taken(given, after["base"], after["head"], *options, log,
                                                                     startup)
            record["refused"] = explain_defaults.most_telling_first(refused + not_taken)
            record["still_differ"] = explain_defaults.still_differ(after["base"], after["head"], *options, record["refused"])
            if not record["set"]:
                return record
            for side in SIDES:
                if self.settings.warmup_seconds > 0:
                    workload.timed(self.fleet.check_alive(side, "defaults"), self.settings.warmup_seconds)
            record["rounds"] = explain_defaults.remeasure(Rounds(self.fleet), workload, deadline, self.plan.seconds)
        except DEFAULTS_FAILURES as e:
            return self._not_measured(record, f"the re-measure with the base's settings failed: {self._why(e, servers)}")
        return record

    @staticmethod
    def _not_measured(record: dict, why: str) -> dict:
        """The record without its re-measure: the variables that differ, and why they were not set."""
        return {**record, "set": [], "still_differ": [], "rounds": [], "not_measured": why[:1024]}

    # --- plans -----------------------------------------------------------------------------------
    def _plans(self, workload, record: dict, deadline: float) -> dict | None:
        if time.monotonic() >= deadline:
            for side in SIDES:
                record["sides"][side]["unavailable"]["plans"] = "skipped: the row's time was spent before it"
            return None
        base = self.fleet.check_alive("base", "plans")
        log = base.layout.dir / "general.log"
        found = explain_plans.capture(base.connect, lambda n: workload.events(base, n, self.settings.seed),
                                      self.settings.plan_events, log)
        explained = {}
        for side in SIDES:
            srv = self.fleet.check_alive(side, "plans")
            explained[side] = explain_plans.explain_all(lambda: srv.connect(database=sysbench.DATABASE), found)
        return explain_plans.plans_record(found, explained)


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None
