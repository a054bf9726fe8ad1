"""Progress as JSON lines on stdout (read by the gate); human messages go to stderr."""
import json
import sys


def emit(event: str, **fields) -> None:
    sys.stdout.write(json.dumps({"event": event, **fields}) + "\n")
    sys.stdout.flush()


def say(message: str) -> None:
    sys.stderr.write(f"perfgate harness: {message}\n")
    sys.stderr.flush()


class AnswerError(Exception):
    """The answer read on stdin is not one the question allows; the message names what was read."""


def read_answer(line: str, benchmark: str, most: int) -> int:
    """The number of more rounds in one answer line, {"benchmark": <id>, "more_rounds": 0..most};
    an empty line (end of input: nobody answers) is 0."""
    if not line:
        return 0
    expected = f'expected {{"benchmark": {json.dumps(benchmark)}, "more_rounds": <integer 0..{most}>}}'
    try:
        answer = json.loads(line)
    except ValueError:
        answer = None
    more = answer.get("more_rounds") if isinstance(answer, dict) else None
    # (bool is an int in Python: true is not a count of rounds)
    if (not isinstance(answer, dict) or answer.get("benchmark") != benchmark or set(answer) != {"benchmark", "more_rounds"}
            or type(more) is not int or not 0 <= more <= most):
        shown = repr(line.strip())
        raise AnswerError(f"answer on stdin {shown[:200]}{'...' if len(shown) > 200 else ''}; {expected}")
    return more


def ask_more_rounds(benchmark: str, record: dict, most: int, answers=None) -> int:
    """Asks whoever started the harness whether a benchmark gets more rounds now, on the same
    servers: its record so far goes out as a `more_rounds?` event; one line of stdin answers."""
    emit("more_rounds?", benchmark=benchmark, most=most, record=record)
    return read_answer((answers or sys.stdin).readline(), benchmark, most)
