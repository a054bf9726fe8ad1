"""Change points of series along the main branch, by Apache Otava's E-Divisive means.

    python -m perfgate_harness.change_points < request.json > answer.json

Reads a perfgate.change-points/v1 document without `change_points` on stdin and writes it back
on stdout with `detector` and `change_points` (schema/change-points.schema.json). Bad input
exits 2 with one line on stderr naming the key. Otava pins numpy and scipy versions of its own,
so it lives in a virtual environment of its own (scripts/install-deps.sh); only this module
imports it.
"""
import json
import sys
from importlib import metadata

from .schema import schema_errors

KIND = "change-points"


class InputError(Exception):
    pass


def _otava():
    try:
        from otava.analysis import compute_change_points
    except ImportError as err:
        raise InputError(
            f"Apache Otava is not installed for {sys.executable} ({err}): "
            "run scripts/install-deps.sh, or pip install -e 'harness[changepoints]' in a virtual environment"
        ) from err
    return compute_change_points, metadata.version("apache-otava")


def detect(document: dict) -> dict:
    """The document with `detector` and `change_points` filled (pure apart from Otava)."""
    problems = schema_errors(KIND, document)
    if problems:
        raise InputError(f"change-points input: {problems[0]}")
    if "change_points" in document or "detector" in document:
        raise InputError("change-points input: 'change_points' and 'detector' are answers, not input")
    compute_change_points, version = _otava()
    method = document["method"]
    found = []
    for series in document["series"]:
        points = series["points"]
        values = [float(p["value"]) for p in points]
        if len(values) < 3:
            continue
        change_points, _weak = compute_change_points(
            values, window_len=method["window"], max_pvalue=method["max_pvalue"], min_magnitude=method["min_magnitude"]
        )
        for cp in change_points:
            index = int(cp.index)
            before, after = float(cp.stats.mean_1), float(cp.stats.mean_2)
            found.append({
                "key": series["key"],
                "index": index,
                "id": points[index]["id"],
                "previous_id": points[index - 1]["id"],
                "mean_before": before,
                "mean_after": after,
                "ratio": after / before,
                "pvalue": float(cp.stats.pvalue),
            })
    answer = dict(document)
    answer["detector"] = {"library": "apache-otava", "version": version, "algorithm": "e-divisive means (split and merge, t-test)"}
    answer["change_points"] = found
    problems = schema_errors(KIND, answer)
    if problems:
        raise AssertionError(f"change-points answer breaks its schema: {problems[0]}")
    return answer


def main(argv=None) -> int:
    try:
        document = json.load(sys.stdin)
    except json.JSONDecodeError as err:
        print(f"change-points input: not JSON: {err}", file=sys.stderr)
        return 2
    try:
        answer = detect(document)
    except InputError as err:
        print(str(err), file=sys.stderr)
        return 2
    json.dump(answer, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
