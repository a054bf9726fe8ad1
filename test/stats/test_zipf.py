"""The Zipf generator of update-zipf (harness/perfgate_harness/lua/perfgate_zipf.lua), run in
sysbench's own LuaJIT, against the exact Zipf probabilities P(k) = k^-s / sum(j^-s, j = 1..n).

Each case's draws are binned (one bin per value while it expects at least MIN_EXPECTED draws,
then bins of doubling width) and compared with Pearson's chi-square test (scipy); a second test
on the ten most frequent values alone catches errors concentrated at the head, which the many
bins of the first would dilute. The same check must reject a uniform generator and Zipf draws of
a neighbouring exponent, so it can tell a wrong generator from a right one.
"""
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

REPO = Path(__file__).resolve().parents[2]
LUA_DIR = REPO / "harness" / "perfgate_harness" / "lua"
DRIVER = Path(__file__).resolve().parent / "zipf_draws.lua"
DRAWS = 1_000_000
MIN_EXPECTED = 50
HEAD = 10
# A right generator fails one run in a million; the wrong ones below score p < 1e-30.
ACCEPT_P = 1e-6
REJECT_P = 1e-12


def draw(n: int, exponent: float, source: str = "zipf", draws: int = DRAWS) -> np.ndarray:
    """Counts of each value 1..n in `draws` draws made by sysbench running zipf_draws.lua."""
    sysbench = shutil.which("sysbench")
    if sysbench is None:
        pytest.fail("sysbench is not installed; install sysbench 1.0.20 (apt-get install sysbench)")
    out = subprocess.run([sysbench, str(DRIVER), f"--lua-dir={LUA_DIR}", f"--n={n}", f"--exponent={exponent!r}",
                          f"--draws={draws}", f"--source={source}", "draw"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    counts = np.zeros(n + 1, dtype=np.int64)
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit():
            value, count = int(parts[0]), int(parts[1])
            assert 1 <= value <= n, f"drew {value}, outside 1..{n}"
            counts[value] += count
    assert counts.sum() == draws, f"read {counts.sum()} draws from sysbench's output, expected {draws}"
    return counts[1:]


def zipf_probabilities(n: int, exponent: float) -> np.ndarray:
    weights = np.arange(1, n + 1, dtype=np.float64) ** -exponent
    return weights / weights.sum()


def bin_edges(expected: np.ndarray) -> list[int]:
    """Start indexes of the bins: single values while each expects MIN_EXPECTED draws, then bins
    twice as wide as the last, the final bin merged into its neighbour if it expects too few."""
    n = len(expected)
    edges, k = [], 0
    while k < n and expected[k] >= MIN_EXPECTED:
        edges.append(k)
        k += 1
    width = 1
    while k < n:
        edges.append(k)
        k += width
        width *= 2
    cumulative = np.concatenate([[0.0], np.cumsum(expected)])
    if len(edges) > 1 and cumulative[n] - cumulative[edges[-1]] < MIN_EXPECTED:
        edges.pop()
    return edges


def chi_square(counts: np.ndarray, exponent: float, head: int | None = None) -> tuple[float, int]:
    """p-value of the draws under Zipf(n, exponent), and the number of bins it was computed on;
    with `head`, the bins are the values 1..head and one bin for all the others."""
    expected = zipf_probabilities(len(counts), exponent) * counts.sum()
    edges = list(range(head + 1)) if head else bin_edges(expected)
    observed = np.add.reduceat(counts, edges)
    expected_binned = np.add.reduceat(expected, edges)
    return float(stats.chisquare(observed, expected_binned).pvalue), len(edges)


def top_share(counts: np.ndarray, k: int) -> float:
    return float(counts[:k].sum() / counts.sum())


@pytest.mark.parametrize("n, exponent, draws", [
    (1000, 0.8, 10 * DRAWS),    # update-zipf's exponent, every value its own bin
    (10_000_000, 0.8, DRAWS),   # the posts' table size
    (1000, 1.0, DRAWS),         # s = 1: H(x) = log x, the series branch
    (1000, 0.99999, DRAWS),     # s near 1: where log1p/expm1 matter
    (100_000, 1.5, DRAWS),      # s > 1
    (1000, 0.3, DRAWS),         # weak skew
])
def test_draws_follow_the_zipf_probabilities(n, exponent, draws):
    counts = draw(n, exponent, draws=draws)
    theory = zipf_probabilities(n, exponent)
    shares = {k: (round(top_share(counts, k), 4), round(float(theory[:k].sum()), 4)) for k in (1, 10, 100)}
    for head in (None, HEAD):
        p, bins = chi_square(counts, exponent, head)
        assert p > ACCEPT_P, f"Zipf(n={n}, s={exponent}): chi-square p = {p:.3g} over {bins} bins; " \
                             f"top-k shares (drawn, exact): {shares}"


@pytest.mark.parametrize("source, drawn_exponent, label", [
    ("uniform", None, "sysbench.rand.uniform"),
    ("zipf", 0.7, "Zipf with s = 0.7"),
    ("zipf", 0.9, "Zipf with s = 0.9"),
])
def test_the_check_rejects_a_generator_with_the_wrong_skew(source, drawn_exponent, label):
    counts = draw(1000, drawn_exponent or 0.8, source=source)
    for head in (None, HEAD):
        p, bins = chi_square(counts, 0.8, head)
        assert p < REJECT_P, f"{label} passed as Zipf(s = 0.8): chi-square p = {p:.3g} over {bins} bins"
