from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "test" / "fixtures"


@pytest.fixture
def fixture_text():
    def read(*parts):
        return (FIXTURES.joinpath(*parts)).read_text()
    return read
