"""Instructions per query from `perf stat`, where the machine's hardware counters allow it."""
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

EVENT = "instructions"


def parse_perf_csv(text: str, event: str = EVENT) -> tuple[int | None, str | None]:
    """(count, None) or (None, reason) from `perf stat -x,` output for one event."""
    for line in text.splitlines():
        fields = line.split(",")
        if len(fields) >= 3 and fields[2].split(":")[0] == event:
            value = fields[0].strip()
            if value.startswith("<"):
                return None, f"perf stat reports {event} as {value}: no hardware counters on this machine"
            try:
                return int(float(value)), None
            except ValueError:
                return None, f"perf stat printed {value!r} for {event}"
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return None, f"perf stat printed no {event} count" + (f": {lines[-1].strip()}" if lines else "")


def unavailable_reason(event: str = EVENT) -> str | None:
    """None when `perf stat -e <event>` counts on this machine, else why it does not."""
    if shutil.which("perf") is None:
        return "perf is not installed"
    try:
        out = subprocess.run(["perf", "stat", "-x,", "-e", event, "true"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"perf stat could not run: {e}"
    count, reason = parse_perf_csv(out.stderr, event)
    if count is not None:
        return None
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or [""])[-1]
        return f"perf stat exited with code {out.returncode}: {last}"
    return reason


class Counter:
    """Counts `event` in one running process while a round runs (perf stat -p, stopped by SIGINT)."""

    def __init__(self, pid: int, event: str = EVENT):
        self.event = event
        self._out = Path(tempfile.mkstemp(prefix="perfgate-perf-", suffix=".csv")[1])
        self._proc = subprocess.Popen(["perf", "stat", "-x,", "-e", event, "-p", str(pid), "-o", str(self._out)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self) -> tuple[int | None, str | None]:
        if self._proc.poll() is None:
            self._proc.send_signal(signal.SIGINT)
        try:
            self._proc.wait(10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        try:
            return parse_perf_csv(self._out.read_text(), self.event)
        finally:
            self._out.unlink(missing_ok=True)
