"""What a run writes down besides its figures: each benchmark's record, the run's errors and
warnings, and how a benchmark fails.

Fault policy: a failed step becomes an error record (step, message, log tail) on the benchmark
and the run, and the benchmark keeps no rounds, so nothing downstream can read it as a
measurement.
"""
from datetime import datetime, timezone

from . import progress
from .plan import Benchmark


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class BenchmarkFailed(Exception):
    def __init__(self, side, step, message, log_tail=""):
        super().__init__(message)
        self.error = {"side": side, "step": step, "message": message, "log_tail": log_tail}


def benchmark_record(bench: Benchmark) -> dict:
    """A benchmark's record before anything is measured; the phases fill it in."""
    record = {"id": bench.id, "name": bench.name, "group": bench.group, "kind": bench.kind,
              "threads": bench.threads, "ahi": bench.ahi, "script": bench.script,
              "options": bench.options, "status": "ok", "rounds": []}
    if bench.shape:
        record["shape"] = bench.shape
    if bench.ahi_parts is not None:
        record["ahi_parts"] = bench.ahi_parts
    return record


class Journal:
    """The run's errors and warnings, in the order they happened."""

    def __init__(self):
        self.errors: list[dict] = []
        self.warnings: list[str] = []

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def warn_once(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def fail(self, record: dict, error: dict) -> dict:
        """`record` becomes an error: no rounds, no counters, the error kept on it and the run."""
        error = {"benchmark": record["id"], **error}
        record["status"] = "error"
        record["error"] = error
        record["rounds"] = []
        record.pop("ahi_counters", None)
        self.errors.append(error)
        progress.emit("benchmark", benchmark=record["id"], status="error", message=error["message"])
        return record

    def skip(self, record: dict, dead: dict) -> dict:
        """`record` not measured because a side's server is gone (`dead`: side -> why)."""
        side, why = next(iter(dead.items()))
        return self.fail(record, {"side": side, "step": "skipped", "message": f"not measured: {why}"})
