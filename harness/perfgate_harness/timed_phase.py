"""The timed phase: per benchmark, in plan order, the AHI cell's settings, a discarded warm-up
on each side, then the planned rounds interleaved (schedule.py), and more pairs on the same
servers while whoever started the harness asks for them (the `more_rounds?` dialogue)."""
import traceback

from . import progress, schedule
from .ahi import AhiCells
from .phase import Phase, Services
from .plan import Benchmark
from .records import BenchmarkFailed
from .rounds import Rounds


class TimedPhase(Phase):
    name = "rounds"

    def __init__(self, services: Services):
        super().__init__(services)
        self.rounds = Rounds(services.fleet)
        self.ahi = AhiCells(services.fleet)

    @property
    def wanted(self) -> bool:
        return self.plan.measures_time

    @property
    def io_devices(self) -> dict:
        return self.rounds.io_devices

    def run(self, records: dict) -> None:
        if not self.fleet.dead:
            self.fleet.start_all()
        benches = self.plan.benchmarks
        for i, bench in enumerate(benches):
            record = records[bench.id]
            if record["status"] == "error":
                continue
            try:
                self._measure(bench, record, benches[i + 1:])
            except Exception as e:  # a harness fault must still end as an error run, not a traceback
                self.journal.fail(record, {"side": None, "step": "internal", "message": f"{type(e).__name__}: {e}",
                                           "log_tail": traceback.format_exc()[-4000:]})
        return None

    def _measure(self, bench: Benchmark, record: dict, later: list) -> dict:
        """The timed rounds of one benchmark, interleaved, into `record`."""
        workload = self.services.workload(bench)
        sides = self.fleet.sides
        record["command"] = workload.command(self.fleet.servers["base"], self.plan.seconds)
        if self.fleet.dead:
            return self.journal.skip(record, self.fleet.dead)
        try:
            self.ahi.set_up(bench, sides)
            if self.plan.warmup_seconds > 0:
                progress.emit("phase", phase="warmup", benchmark=bench.id, side=", ".join(sides))
                self.rounds.warm_up(workload, sides)
            counters = {side: {} for side in sides} if bench.ahi else None

            def measure_group(group, **progress_fields):
                group_sides = [side for _, side in group]
                progress.emit("round", benchmark=bench.id, side=", ".join(group_sides), round=group[0][0],
                              **progress_fields)
                with self.ahi.counted(bench, group_sides, counters):
                    record["rounds"].extend(self.rounds.group(workload, group))

            groups = schedule.round_groups(self.plan.rounds, self.plan.first_round, sides, self.plan.side_schedule)
            for n, group in enumerate(groups):
                measure_group(group, rounds=self.plan.rounds,
                              eta_seconds=schedule.rounds_eta(self.plan, len(groups) - n, later))
            self._rounds_on_request(bench, record, counters, measure_group)
            if counters is not None:
                record["ahi_counters"] = counters
        except BenchmarkFailed as e:
            return self.journal.fail(record, e.error)
        progress.emit("benchmark", benchmark=bench.id, status="ok")
        return record

    def _rounds_on_request(self, bench: Benchmark, record: dict, counters: dict | None, measure_group) -> None:
        """More pairs on the same servers while the one who started the harness asks for them
        (it judges the row): no restart, no second warm-up, and a row stops as soon as its
        answer is clear."""
        most = self.plan.rounds_on_request
        extra, next_index = 0, self.plan.first_round + self.plan.rounds
        while extra < most:
            if counters is not None:
                record["ahi_counters"] = counters
            try:
                more = progress.ask_more_rounds(bench.id, record, most - extra)
            except progress.AnswerError as e:
                raise BenchmarkFailed(None, "more rounds", str(e)) from None
            if more == 0:
                break
            for group in schedule.round_groups(more, next_index, self.fleet.sides, self.plan.side_schedule):
                measure_group(group, extra=True)
            extra, next_index = extra + more, next_index + more
