"""perfgate's statistics (core/src/statistics.js) against scipy on the same samples.

gate (Node) computes rQPS intervals as the geometric mean of paired head/base ratios with a
Student-t interval on the log ratios. scipy computes the same quantities independently
(ttest_1samp's confidence interval, gmean, t.ppf); both must agree to 1e-9.
"""
import glob
import json
import math
import os
import subprocess

import pytest
from scipy import stats

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STATS_JS = os.path.join(REPO, "core", "src", "statistics.js")
JUDGE_JS = os.path.join(REPO, "core", "src", "verdict.js")


def node(script, payload):
    out = subprocess.run(
        ["node", "-e", script], input=json.dumps(payload), capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def gate_intervals(samples):
    script = (
        f"const s=require({json.dumps(STATS_JS)});"
        "const xs=JSON.parse(require('fs').readFileSync(0,'utf8'));"
        "process.stdout.write(JSON.stringify(xs.map(r=>s.ratioInterval(r,0.95))));"
    )
    return node(script, samples)


def scipy_interval(ratios):
    logs = [math.log(r) for r in ratios]
    estimate = float(stats.gmean(ratios))
    if len(set(logs)) == 1:
        # scipy returns nan bounds for zero spread; the interval of identical ratios is the point.
        return estimate, estimate, estimate
    ci = stats.ttest_1samp(logs, 0.0).confidence_interval(0.95)
    return estimate, math.exp(ci.low), math.exp(ci.high)


SAMPLES = {
    "two rounds": [0.97, 1.04],
    "identical values": [1.0, 1.0, 1.0, 1.0],
    "identical non-unit values": [0.9, 0.9, 0.9],
    "one outlier": [1.01, 0.99, 1.02, 0.62],
    "default four pairs": [0.98, 1.03, 1.01, 0.96],
    "big regression": [0.55, 0.56, 0.54, 0.57, 0.55, 0.56],
    "noisy A/A from DESIGN range": [0.94, 1.16, 1.02, 0.99, 1.05, 0.97, 1.08, 0.95, 1.01, 1.0],
    "improvement": [1.9, 1.88, 1.93, 1.91],
}


@pytest.mark.parametrize("name", list(SAMPLES))
def test_ratio_interval_matches_scipy(name):
    ratios = SAMPLES[name]
    (gate,) = gate_intervals([ratios])
    estimate, low, high = scipy_interval(ratios)
    assert gate["n"] == len(ratios)
    assert gate["estimate"] == pytest.approx(estimate, rel=1e-12)
    assert gate["low"] == pytest.approx(low, rel=1e-9)
    assert gate["high"] == pytest.approx(high, rel=1e-9)


def test_outlier_widens_rather_than_moves():
    (clean, outlier) = gate_intervals([[1.01, 0.99, 1.02], [1.01, 0.99, 1.02, 0.62]])
    assert outlier["high"] - outlier["low"] > 5 * (clean["high"] - clean["low"])
    assert outlier["low"] < 0.93 < outlier["high"]  # straddles a fail limit: undecided


def test_one_round_has_no_interval():
    (one,) = gate_intervals([[0.8]])
    assert one["estimate"] == pytest.approx(0.8)
    assert one["low"] is None and one["high"] is None


@pytest.mark.parametrize("df", [1, 2, 3, 4, 5, 7, 9, 15, 30, 120])
@pytest.mark.parametrize("p", [0.025, 0.4, 0.6, 0.9, 0.95, 0.975, 0.995])
def test_student_t_quantile_matches_scipy(df, p):
    script = (
        f"const s=require({json.dumps(STATS_JS)});"
        "const [p,df]=JSON.parse(require('fs').readFileSync(0,'utf8'));"
        "process.stdout.write(JSON.stringify([s.studentTQuantile(p,df), s.chiSquareQuantile(p,df)]));"
    )
    t, chi2 = node(script, [p, df])
    assert t == pytest.approx(stats.t.ppf(p, df), rel=1e-9)
    assert chi2 == pytest.approx(stats.chi2.ppf(p, df), rel=1e-9)


@pytest.mark.parametrize("p", [0.001, 0.2, 0.5, 0.8, 0.9, 0.99, 0.999])
def test_normal_quantile_matches_scipy(p):
    script = (
        f"const s=require({json.dumps(STATS_JS)});"
        "const p=JSON.parse(require('fs').readFileSync(0,'utf8'));"
        "process.stdout.write(JSON.stringify(s.normalQuantile(p)));"
    )
    assert node(script, p) == pytest.approx(stats.norm.ppf(p), rel=1e-9, abs=1e-12)


def results_files():
    base = os.path.join(REPO, "test", "fixtures", "results")
    return sorted(glob.glob(os.path.join(base, "**", "results.json"), recursive=True) + glob.glob(os.path.join(base, "*.json")))


def fixture_id(path):
    return os.path.basename(os.path.dirname(path)) if path.endswith("/results.json") else os.path.basename(path)


@pytest.mark.parametrize("path", results_files(), ids=fixture_id)
def test_judge_on_captured_results_matches_scipy(path):
    """Pairs rounds by index in Python and checks every rQPS and cpu/o interval gate reports."""
    script = (
        f"const {{judge}}=require({json.dumps(JUDGE_JS)});"
        "const r=JSON.parse(require('fs').readFileSync(0,'utf8'));"
        "process.stdout.write(JSON.stringify(judge(r,{limits:{default:{warn:0.97,fail:0.93,instructions:{warn:1.02,fail:1.04}}}})));"
    )
    with open(path) as f:
        results = json.load(f)
    verdict = node(script, results)
    by_id = {b["id"]: b for b in verdict["benchmarks"]}
    if not any(b["status"] == "ok" for b in results["benchmarks"]):
        assert verdict["verdict"] == "error"
        return
    checked = 0
    for bench in results["benchmarks"]:
        if bench["status"] != "ok":
            continue
        for metric, key in (("qps", "rqps"), ("cpu_per_query_us", "cpu_per_query")):
            base = {r["index"]: r.get(metric) for r in bench["rounds"] if r["side"] == "base"}
            head = {r["index"]: r.get(metric) for r in bench["rounds"] if r["side"] == "head"}
            ratios = [head[i] / base[i] for i in sorted(base) if i in head and base[i] and head[i]]
            got = by_id[bench["id"]][key]
            if len(ratios) < 2:
                # One pair: an estimate, no interval.
                if ratios:
                    assert got["estimate"] == pytest.approx(ratios[0], rel=1e-12)
                    assert got["low"] is None and got["high"] is None
                    checked += 1
                continue
            estimate, low, high = scipy_interval(ratios)
            assert got["estimate"] == pytest.approx(estimate, rel=1e-9)
            assert got["low"] == pytest.approx(low, rel=1e-9)
            assert got["high"] == pytest.approx(high, rel=1e-9)
            checked += 1
        # instr/o: window i of the head over window i of the base, per thread group.
        if "instructions" in bench:
            for group, key in (("connection", "instructions_per_query"), ("background", "background_per_query")):
                pairs = zip(bench["instructions"]["base"]["windows"], bench["instructions"]["head"]["windows"])
                ratios = [h[group]["per_query"] / b[group]["per_query"] for b, h in pairs]
                estimate, low, high = scipy_interval(ratios)
                got = by_id[bench["id"]][key]
                assert (got["estimate"], got["low"], got["high"]) == pytest.approx((estimate, low, high), rel=1e-9)
                checked += 1
    assert checked > 0


@pytest.mark.parametrize("x,n", [(0, 20), (0, 110), (1, 110), (3, 55), (7, 25), (24, 25)])
def test_binomial_upper_bound_matches_scipy(x, n):
    """The bound the detection benchmark states for its false-fail rate (Clopper-Pearson)."""
    script = (
        f"const s=require({json.dumps(STATS_JS)});"
        "const [x,n]=JSON.parse(require('fs').readFileSync(0,'utf8'));"
        "process.stdout.write(JSON.stringify(s.binomialUpperBound(x,n)));"
    )
    got = node(script, [x, n])
    assert got == pytest.approx(stats.beta.ppf(0.95, x + 1, n - x), rel=1e-9)


ROW_SETS = {
    "three rows of different noise": [[1.01, 1.02, 1.015], [0.99, 1.03, 1.0, 1.02], [1.005, 1.006, 1.004, 1.005, 1.007]],
    "one row much faster": [[0.9, 0.901, 0.899], [1.0, 1.001, 0.999], [1.0, 1.002, 0.998], [1.0, 1.0005, 0.9995]],
    "noisy timed rows": [[0.94, 1.16, 1.02, 0.99, 1.05], [0.97, 1.04], [1.1, 0.9, 1.0, 1.05, 0.95, 1.02]],
}


@pytest.mark.parametrize("name", list(ROW_SETS))
def test_mean_of_row_ratios_matches_scipy(name):
    # The suite as a whole (docs/verdicts.md): each row's own interval, then the mean of their
    # log estimates with the variance sum(s_i^2 / n_i) / k^2 on Welch-Satterthwaite df.
    rows = ROW_SETS[name]
    script = (
        f"const s=require({json.dumps(STATS_JS)});"
        "const rows=JSON.parse(require('fs').readFileSync(0,'utf8'));"
        "process.stdout.write(JSON.stringify(s.meanOfRowRatios(rows.map(r=>s.ratioInterval(r)))));"
    )
    gate = node(script, rows)
    k = len(rows)
    logs = [[math.log(r) for r in row] for row in rows]
    means = [float(stats.tmean(l)) for l in logs]
    v = [float(stats.tvar(l)) / len(l) for l in logs]
    df = sum(v) ** 2 / sum(vi ** 2 / (len(l) - 1) for vi, l in zip(v, logs))
    half = float(stats.t.ppf(0.975, df)) * math.sqrt(sum(v)) / k
    centre = sum(means) / k
    assert gate["n"] == k
    assert gate["df"] == pytest.approx(df, rel=1e-9)
    assert gate["estimate"] == pytest.approx(math.exp(centre), rel=1e-12)
    assert gate["low"] == pytest.approx(math.exp(centre - half), rel=1e-9)
    assert gate["high"] == pytest.approx(math.exp(centre + half), rel=1e-9)
