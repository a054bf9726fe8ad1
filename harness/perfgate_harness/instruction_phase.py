"""The instruction phase: every benchmark's instruction windows, both servers under callgrind
side by side (Valgrind runs one thread of a process at a time: each side takes one core). The
servers are stopped afterwards; the timed rounds start them again without Valgrind, on the
tables as loaded when the windows wrote."""
import time
from concurrent.futures import ThreadPoolExecutor

import pymysql

from . import callgrind, counted_malloc, progress, schedule, server
from .phase import Phase
from .plan import Benchmark

VALGRIND_START_TIMEOUT = 600.0  # a server under valgrind starts many times slower
VALGRIND_SHUTDOWN_TIMEOUT = 300.0


class InstructionPhase(Phase):
    name = "instructions"

    @property
    def wanted(self) -> bool:
        return self.plan.measures_instructions

    def run(self, records: dict) -> dict | None:
        if self.fleet.dead:
            return None
        datadirs = self.services.datadirs
        keep = datadirs.keeps_loaded()
        block = self._count_all(records)
        if keep and not self.fleet.dead:
            # The windows of write benchmarks changed rows (deletes, inserts, page splits); the
            # timed rounds start from the tables as loaded.
            datadirs.restore_loaded()
        if block is not None:
            block["timed_from"] = "loaded" if keep else "after-windows"
        return block

    def _count_all(self, records: dict) -> dict | None:
        started = time.monotonic()
        fleet, journal = self.fleet, self.journal
        reason = callgrind.unavailable_reason()
        if reason:
            for side in self.fleet.sides:
                fleet.side_failed(side, {"step": "instructions", "message": reason, "log_tail": ""})
            return None
        dirs = {side: fleet.servers[side].layout.dir / "callgrind" for side in self.fleet.sides}
        malloc = counted_malloc.locate()
        if malloc.warning():
            journal.warn(malloc.warning())
        counted = {}
        for side in self.fleet.sides:
            dirs[side].mkdir(parents=True, exist_ok=True)
            srv = fleet.servers[side]
            counted[side] = server.Server(side, srv.basedir, srv.binary, srv.flavor, srv.version, srv.layout,
                                          callgrind.server_options(fleet.server_options(side)),
                                          wrapper=callgrind.valgrind_wrapper(dirs[side], malloc))
        with fleet.replaced(counted):
            try:
                fleet.start_all(timeout=VALGRIND_START_TIMEOUT)
                controls = {side: callgrind.Control(counted[side].pid, dirs[side]) for side in self.fleet.sides
                            if side not in fleet.dead}
                benches = self.plan.benchmarks
                for i, bench in enumerate(benches):
                    if fleet.dead:
                        journal.skip(records[bench.id], fleet.dead)
                        continue
                    progress.emit("phase", phase="instructions", benchmark=bench.id,
                                  eta_seconds=schedule.instruction_eta(len(benches) - i, self.plan.instruction_windows)
                                  + (schedule.rounds_eta(self.plan, 0, benches) if self.plan.measures_time else 0))
                    self._count(bench, records[bench.id], controls, dirs)
            finally:
                for side, srv in counted.items():
                    if srv.proc is None:
                        continue
                    progress.emit("phase", phase="shutdown", side=side)
                    problem = srv.shutdown(timeout=VALGRIND_SHUTDOWN_TIMEOUT)
                    if problem:
                        journal.warn(f"instructions: {problem}")
                    elif not callgrind.final_dump_written(dirs[side], srv.pid):
                        journal.warn(f"instructions: {side}: valgrind wrote no final dump (it did not exit cleanly)")
                    callgrind.remove_files(dirs[side], srv.pid)
        return {"tool": "callgrind", "windows": self.plan.instruction_windows, "seed": self.plan.instruction_seed,
                "seconds": round(time.monotonic() - started, 1), "data": self.services.datadirs.data,
                "malloc": malloc.record(), "left_out": sorted(callgrind.CLIENT_READS)}

    def _count(self, bench: Benchmark, record: dict, controls: dict, dirs: dict) -> None:
        """One benchmark's warm-up and windows on every side at once, into its record."""
        workload = self.services.workload(bench)
        out = self.services.out

        def side_windows(side):
            srv = self.fleet.servers[side]
            keep = dirs[side] / callgrind.window_description(bench.id, "last")
            # A workload whose events change what they run on (a DDL statement) remakes it
            # before each window, uncounted.
            before = getattr(workload, "before_events", None)
            try:
                measured = callgrind.measure_benchmark(
                    controls[side], lambda: workload.events(srv, bench.instructions_events, self.plan.instruction_seed),
                    bench.instructions_events, srv.connect, bench.id, self.plan.instruction_windows, keep_last_in=keep,
                    prepare=(lambda: before(srv)) if before else None)
                measured["files"] = str(keep.relative_to(out))
                return measured, None
            except (callgrind.CallgrindError, callgrind.CallgrindFormatError, pymysql.err.MySQLError, OSError) as e:
                state = srv.exit_description(settle=server.EXIT_SETTLE_SECONDS)
                if state != "running":
                    self.fleet.dead[side] = f"{side} server under valgrind {state}"
                return None, {"side": side, "step": "instructions", "message": f"{side}: {e}",
                              "log_tail": srv.log_tail(30 if state != "running" else 5)}
        with ThreadPoolExecutor(max_workers=2) as pool:
            outcomes = dict(zip(self.fleet.sides, pool.map(side_windows, self.fleet.sides)))
        failure = next((error for _, error in outcomes.values() if error), None)
        if failure:
            self.journal.fail(record, failure)
            return
        record["instructions"] = {"events": bench.instructions_events, "seed": self.plan.instruction_seed,
                                  **{side: outcomes[side][0] for side in self.fleet.sides}}
