"""bench/window-split.py: each window's connection and background instructions, per row and side,
of a run folder and its recounts; a folder without results.json is refused by name."""
import importlib.util
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


def load():
    spec = importlib.util.spec_from_file_location("window_split", REPO / "bench" / "window-split.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def window(connection, background):
    return {"connection": {"instructions": connection}, "background": {"instructions": background}, "queries": 1}


def test_every_window_of_every_step_in_millions(tmp_path):
    row = {"id": "add-index", "instructions": {"base": {"windows": [window(190e6, 1950e6), window(858e6, 1268e6)]},
                                               "head": {"windows": [window(186.3e6, 1980.5e6)]}}}
    (tmp_path / "results.json").write_text(json.dumps({"benchmarks": [row, {"id": "timed-only"}]}))
    (tmp_path / "results.extra-1.json").write_text(json.dumps({"benchmarks": [row]}))
    out = list(load().lines(tmp_path))
    assert out[0].split() == ["results.json", "add-index", "base:", "190.0+1950.0", "858.0+1268.0"]
    assert out[1].split() == ["results.json", "add-index", "head:", "186.3+1980.5"]
    assert [line.split()[0] for line in out] == ["results.json", "results.json", "results.extra-1.json", "results.extra-1.json"]


def test_a_folder_without_results_is_refused_naming_it(tmp_path):
    with pytest.raises(SystemExit, match="no results.json; expected a run folder of perfgate compare"):
        list(load().lines(tmp_path))
