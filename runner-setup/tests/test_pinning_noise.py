"""The statistics of runner-setup/pinning-noise on small hand-checked results."""

import importlib.util
import os
from importlib.machinery import SourceFileLoader

import pytest

_PATH = os.path.join(os.path.dirname(__file__), "..", "pinning-noise")
_SPEC = importlib.util.spec_from_loader("pinning_noise", SourceFileLoader("pinning_noise", _PATH))
noise = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(noise)


def results(*pairs):
    """One benchmark 'b' with rounds (base qps, head qps) per index."""
    rounds = []
    for i, (base, head) in enumerate(pairs):
        rounds += [{"index": i, "side": "base", "qps": base}, {"index": i, "side": "head", "qps": head}]
    return {"benchmarks": [{"id": "b", "rounds": rounds}]}


def test_round_cv_is_the_mean_of_both_sides():
    # base 100, 100: CV 0; head 110, 90: stdev 14.14 / mean 100
    assert noise.round_cv(results((100, 110), (100, 90)))["b"] == pytest.approx(0.1414214 / 2)


def test_paired_ratios_pair_rounds_by_index():
    assert noise.paired_ratios(results((100, 110), (200, 180))) == {"b": [1.1, 0.9]}


def test_summary_pools_runs_of_a_condition():
    table = noise.summarize({"pinned": [results((100, 101), (100, 99)), results((100, 102), (100, 100))]})
    s = table["b"]["pinned"]
    assert s["pairs"] == 4
    assert (s["ratio_min"], s["ratio_max"]) == (0.99, 1.02)


def test_pin_argument():
    assert noise.parse_pin("server=0-2,client=3") == {"server": "0-2", "client": "3"}
    with pytest.raises(Exception, match="expected server=<cpus>,client=<cpus>"):
        noise.parse_pin("0:1")
