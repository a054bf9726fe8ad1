"""Unit tests of the harness: pure functions on real captured output, no servers."""
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
