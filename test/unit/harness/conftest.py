"""Unit tests of the harness: pure functions on real captured output, no servers."""
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "test" / "fixtures"
sys.path.insert(0, str(REPO / "harness"))


@pytest.fixture
def fixture_text():
    def read(*parts):
        return (FIXTURES.joinpath(*parts)).read_text()
    return read


@pytest.fixture
def time_plan(fixture_text, tmp_path):
    """The tiny quick plan, time only, on a stand-in server binary under tmp_path, with one
    table of `rows` rows and `benchmarks` as given (a DDL or TPC-C plan's starting point)."""
    def make(rows, benchmarks):
        (tmp_path / "srv" / "sbin").mkdir(parents=True, exist_ok=True)
        binary = tmp_path / "srv" / "sbin" / "mariadbd"
        binary.write_text("#!/bin/sh\n")
        binary.chmod(0o755)
        plan = json.loads(fixture_text("plans", "tiny-quick.json"))
        plan["sides"]["base"]["basedir"] = plan["sides"]["head"]["basedir"] = str(tmp_path / "srv")
        plan["scale"] = {"tables": 1, "rows": rows}
        plan["measure"]["signals"] = ["time"]
        plan["measure"].pop("instructions", None)
        plan["benchmarks"] = benchmarks
        return plan
    return make
