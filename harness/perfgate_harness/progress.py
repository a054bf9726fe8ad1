"""Progress as JSON lines on stdout (read by the gate); human messages go to stderr."""
import json
import sys


def emit(event: str, **fields) -> None:
    sys.stdout.write(json.dumps({"event": event, **fields}) + "\n")
    sys.stdout.flush()


def say(message: str) -> None:
    sys.stderr.write(f"perfgate harness: {message}\n")
    sys.stderr.flush()
