"""Executes a plan: the servers and datadirs set up as services (fleet.py, datadirs.py), then
the phases in order (instruction_phase.py under callgrind, timed_phase.py), and every server
shut down at the end whatever happened. Returns the results document.

A side whose server died is not restarted (fleet.py says why): the phases record the
remaining benchmarks as not measured, and the run is an error.
"""
from pathlib import Path

from . import fingerprint, progress
from .datadirs import Datadirs
from .explain_phase import ExplainPhase, Settings
from .fleet import Fleet
from .instruction_phase import InstructionPhase
from .phase import Phase, Services, dataset_for
from .plan import Plan
from .records import Journal, benchmark_record, now
from .timed_phase import TimedPhase


class Run:
    def __init__(self, plan: Plan, out_dir: Path, versions: dict, reuse_data: bool = False):
        self.plan = plan
        self.out = Path(out_dir).resolve()
        self.journal = Journal()
        self.fleet = Fleet(plan, self.out, versions, self.journal)
        client_log = self.out / "sysbench.log"
        self.datadirs = Datadirs(self.fleet, dataset_for(plan, client_log), reuse_data)
        self.services = Services(plan, self.out, self.journal, self.fleet, self.datadirs, client_log)
        self.timed_phase = TimedPhase(self.services)
        # In this order: the windows count on the tables as loaded, the timed rounds follow.
        self.phases: list[Phase] = [InstructionPhase(self.services), self.timed_phase]

    def execute(self) -> dict:
        started = now()
        self.out.mkdir(parents=True, exist_ok=True)
        records = {b.id: benchmark_record(b) for b in self.plan.benchmarks}
        blocks = {}
        try:
            loaded_now = self.datadirs.prepare()
            if not self.fleet.dead:
                self.datadirs.start_from_loaded(loaded_now)
            for phase in self.phases:
                if phase.wanted:
                    block = phase.run(records)
                    if block is not None:
                        blocks[phase.name] = block
            if self.fleet.dead and not self.timed_phase.wanted:
                # No timed phase recorded what a dead side left standing: none of it is measured.
                for record in records.values():
                    if record["status"] != "error":
                        self.journal.skip(record, self.fleet.dead)
        finally:
            self.fleet.shutdown_all()
        return self._results(started, list(records.values()), blocks)

    def explain(self, rows: list, budget: dict, settings: Settings | None = None) -> dict:
        """The explanation step of a measured run (docs/explain.md): its datadirs as the run
        left them (kept with --reuse-data), the rows asked on fresh servers; explain.json's
        document. Every server is shut down at the end whatever happened."""
        started = now()
        phase = ExplainPhase(self.services, rows, budget, settings)
        try:
            # Each row restores the tables as loaded itself (explain_phase.py): only a load made
            # now needs its copy kept.
            if self.datadirs.prepare() and not self.fleet.dead:
                self.datadirs.start_from_loaded(True)
            if self.fleet.dead:
                return phase.failed(started, {"step": "servers", "message": next(iter(self.fleet.dead.values()))})
            return phase.run()
        finally:
            self.fleet.shutdown_all()

    def _results(self, started: str, benchmarks: list, blocks: dict) -> dict:
        journal = self.journal
        status = "error" if journal.errors or any(b["status"] == "error" for b in benchmarks) else "ok"
        progress.emit("done", status=status)
        results = {
            "schema": "perfgate.results/v1",
            "plan": self.plan.raw,
            "status": status,
            "errors": journal.errors,
            "warnings": journal.warnings,
            "started": started,
            "finished": now(),
            "machine": fingerprint.collect(data_dir=str(self.out)),
            "sides": {side: self.side_record(side) for side in self.fleet.sides},
            "benchmarks": benchmarks,
        }
        if self.datadirs.data is not None:
            results["data"] = self.datadirs.data
        results.update(blocks)
        return results

    def side_record(self, side: str) -> dict:
        """What results.json says of one side: its build, profile, variables and options."""
        fleet = self.fleet
        spec = self.plan.sides[side]
        flavor, version = fleet.versions[side]
        srv = fleet.servers.get(side)
        record = {"basedir": str(spec.basedir), "flavor": flavor, "version": version,
                  "binary": str(spec.binary), "profile": self.plan.profile_for(flavor).name}
        if spec.label is not None:
            record["label"] = spec.label
        if spec.commit is not None:
            record["commit"] = spec.commit
        record["build"] = fingerprint.server_build(spec.binary, spec.basedir)
        if side in fleet.variables:
            record["variables"] = fleet.variables[side]
        io_devices = self.timed_phase.io_devices
        if side in io_devices:
            device = io_devices[side]
            record["io_device"] = None if device is None else {"name": device.name, "dev": device.dev}
        # The options of the start the variables were read from (its paths and port), else the
        # side's server as it is now.
        options = fleet.variable_options.get(side) or (srv.options if srv is not None else None)
        if options is not None:
            record["options"] = options
            record["error_log"] = str(srv.layout.error_log.relative_to(self.out))
        return record
