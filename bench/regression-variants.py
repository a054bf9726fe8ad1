#!/usr/bin/env python3
"""How often the gate catches regressions of known place and size, and how often it cries wolf.

Builds regression variants of Debian's MariaDB 10.11.18 source (the end-to-end fork,
test/e2e/fetch-mariadb-source.sh) on the build cache, each one commit on `base`:

  read-1/2/4    a busy loop in InnoDB's row fetch (row_sel_store_mysql_rec, once per row
                returned) sized for about 1%, 2% and 4% more instructions per point query
  write-1/2/4   the same loop in the secondary-index update (row_upd_sec_index_entry), sized
                for about 1%, 2% and 4% more instructions per update-index query
  purge-2/4     the busy loop in purge, where the secondary-index entries the updates left
                behind are removed (row_purge_remove_sec_if_poss): no instruction more on
                the queries' own threads; about 2% and 4% more instructions of all threads
                per update-index query
  sleep-5/15    a short sleep on one call in K of the secondary-index update: a time-only
                change (no instructions worth counting), sized for about 5% and 15% slower
                update-index with the quick suite as shipped (1 client thread, sysbench and
                mysqld on CPUs of their own)
  read-sleep-5/15  the same on a read path: a sleep on one call in K of the row fetch, sized
                for about 5% and 15% slower point queries (scan_range=100 calls it a hundred
                times a query and slows far more)
  read-0.5, fsync-commit, all-1.5 and every other variant of bench/variants.py whose rows are
                all quick rows (the others, e.g. plan-fullscan or ddl-slow-index, are checked
                by bench/variant-checks.py)

With --prefix <installed server> no source is built: the time-only variants pwrite-5/15 are
copies of that prefix whose server sleeps on one pwrite() call in K (bench/sleep-variant.sh:
the redo log write of each commit, so the write path; a point query writes nothing), compared
with --base <prefix> --head <copy>. --sides in-turn|together|alternating is passed to perfgate compare.

and runs `perfgate compare --source <fork> --base base --head <variant>` with the quick suite
(limited to the rows the variant touches and rows it must not touch) `--runs` times each, then
base against base (`--aa-runs` times, all ten quick rows) for false alarms. It prints, per
variant and row, the measured change (median of the runs' estimates) and how often the row
failed, warned, passed or stayed inconclusive; and whether any row the variant does not touch
ever failed. Figures and the date go to <out>/summary.json; docs/measurements.md keeps them.

Every run is judged twice: live, with the shipped quick suite's limits (its adaptive steps
follow them), and again (`perfgate judge`, no measurement of its own) with the limits
`perfgate calibrate` suggests for this runner: `--calibrate-pairs N` first runs calibrate on
the base build (A/A, both signals, N pairs of fresh servers, the rows the benchmark uses), or
`--calibrated DIR` names a thresholds folder calibrate wrote earlier.

The sizes are aims: what a variant really changes is measured and printed next to it.

Usage: python3 bench/regression-variants.py [--runs 5] [--aa-runs 10] [--variants read-4,sleep-15]
       [--calibrate-pairs 5 | --calibrated DIR] [--out runs/variants] [--sides together]
       python3 bench/regression-variants.py --prefix ~/.cache/perfgate/servers/mariadb-10.11.18/usr
       [--variants pwrite-5,pwrite-15] [--runs 5] [--aa-runs 3] [--sides together]
       (hold /tmp/perfgate-measure.lock while recording figures)

Runs go round by round (every variant, then one A/A run), and a finished run is kept: run it
again with the same --out and it goes on where it stopped.
"""
import argparse
import collections
import datetime
import json
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PERFGATE = ["node", str(REPO / "cli" / "bin" / "perfgate.js")]

from variants import PREFIX_VARIANTS, QUICK, VARIANTS, variant_commits, variant_tag  # noqa: E402 (bench/ is the script's folder)

QUICK = list(QUICK)


def thresholds_with(tests, out):
    """A copy of thresholds/ whose quick suite lists only `tests`, everything else as shipped."""
    import shutil
    import yaml
    target = out.parent / f"{out.name}.thresholds"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(REPO / "thresholds", target)
    suite_file = target / "suites" / "quick.yml"
    suite = yaml.safe_load(suite_file.read_text())
    suite["benchmarks"] = [t for t in QUICK if t in tests]
    suite_file.write_text(yaml.safe_dump(suite, sort_keys=False))
    return target


def commit_of(fork, ref):
    return subprocess.run(["git", "-C", fork, "rev-parse", f"{ref}^{{commit}}"], check=True, capture_output=True,
                          text=True).stdout.strip()


class ForkBuilds:
    """The variants as commits of the end-to-end fork, built by perfgate on the build cache."""
    # The variants whose rows are all quick rows: the others are checked by bench/variant-checks.py.
    names = {name: v for name, v in VARIANTS.items() if v.quick}

    def __init__(self):
        self.fork = subprocess.run(["bash", str(REPO / "test" / "e2e" / "fetch-mariadb-source.sh")], check=True,
                                   capture_output=True, text=True).stdout.strip()
        variant_commits(self.fork, list(self.names))

    def rows(self, name):
        return list(VARIANTS[name].slows), list(VARIANTS[name].leaves)

    def _ref(self, name):
        return variant_tag(name) if name else "base"

    def key(self, name):
        return {"base": commit_of(self.fork, "base"), "head": commit_of(self.fork, self._ref(name))}

    def sides(self, name):
        return ["--source", self.fork, "--base", "base", "--head", self._ref(name)]

    def base_prefix(self):
        r = subprocess.run([*PERFGATE, "build", "--source", self.fork, "--ref", "base"], capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"regression-variants: perfgate build of base exited {r.returncode}: {r.stderr[-2000:]}")
        return r.stdout.strip()


class PrefixBuilds:
    """Time-only variants of an installed server: copies of its prefix that sleep in pwrite()."""
    names = PREFIX_VARIANTS

    def __init__(self, prefix, out):
        self.prefix = Path(prefix).expanduser().resolve()
        self.copies = out / "prefixes"

    def rows(self, name):
        return PREFIX_VARIANTS[name][2], PREFIX_VARIANTS[name][3]

    def _head(self, name):
        if not name:
            return self.prefix
        every, micros = PREFIX_VARIANTS[name][:2]
        head = self.copies / f"{name}-{every}x{micros}"
        if not head.exists():
            self.copies.mkdir(parents=True, exist_ok=True)
            subprocess.run(["bash", str(REPO / "bench" / "sleep-variant.sh"), str(self.prefix), str(head), str(every),
                            str(micros)], check=True, capture_output=True, text=True)
        return head

    def key(self, name):
        return {"base": str(self.prefix), "head": list(PREFIX_VARIANTS[name][:2]) if name else "base"}

    def sides(self, name):
        return ["--base", str(self.prefix), "--head", str(self._head(name))]

    def base_prefix(self):
        return str(self.prefix)


def compare(builds, name, tests, out, sides_how):
    """One comparison's rows by id (`name` None: base against itself). A run folder that already
    holds a finished comparison of the same builds and rows (its `<out>.done` record) is read,
    not measured again: the benchmark takes hours, and a stopped one goes on where it stopped."""
    done = out.parent / f"{out.name}.done"
    key = {**builds.key(name), "tests": sorted(tests), **({"sides": sides_how} if sides_how else {})}
    if done.exists() and json.loads(done.read_text()).get("key") == key and (out / "verdict.json").exists():
        verdict = json.loads((out / "verdict.json").read_text())
        return {b["id"]: b for b in verdict["benchmarks"]}
    done.unlink(missing_ok=True)
    cmd = [*PERFGATE, "compare", *builds.sides(name), "--suite", "quick",
           "--thresholds", str(thresholds_with(tests, out)), "--out", str(out),
           *(["--sides", sides_how] if sides_how else [])]
    r = subprocess.run(cmd, capture_output=True, text=True)
    (out.parent / f"{out.name}.stderr").write_text(r.stderr)
    if r.returncode not in (0, 1, 3):
        sys.stderr.write(r.stderr[-3000:])
        raise SystemExit(f"regression-variants: {' '.join(cmd)} exited {r.returncode} (log: {out}.stderr)")
    verdict = json.loads((out / "verdict.json").read_text())
    done.write_text(json.dumps({"key": key, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}) + "\n")
    return {b["id"]: b for b in verdict["benchmarks"]}


def rejudge(run, thresholds):
    """The rows of a finished run folder judged with another thresholds folder's limits, into
    <run>.calibrated/ (the run folder itself keeps its live verdict)."""
    target = run.parent / f"{run.name}.calibrated"
    target.mkdir(exist_ok=True)
    r = subprocess.run([*PERFGATE, "judge", str(target), "--results", str(run / "results.json"),
                        "--thresholds", str(thresholds), "--suite", "quick"], capture_output=True, text=True)
    if r.returncode not in (0, 1, 3):
        raise SystemExit(f"regression-variants: perfgate judge of {run} with {thresholds} exited {r.returncode}: {r.stderr[-2000:]}")
    verdict = json.loads((target / "verdict.json").read_text())
    return {b["id"]: b for b in verdict["benchmarks"]}


def calibrated_thresholds(builds, pairs, rows, out):
    """perfgate calibrate on the base build (A/A, time and instructions) for `rows`: the thresholds
    folder it writes. A finished calibration in `out` is reused."""
    folder = out / "calibration"
    written = folder / "thresholds"
    if (folder / "calibration.json").exists() and (written / "suites" / "quick.yml").exists():
        return written
    cmd = [*PERFGATE, "calibrate", "--base", builds.base_prefix(), "--pairs", str(pairs), "--suite", "quick",
           "--metric", "both", "--benchmarks", ",".join(rows), "--out", str(folder)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    (out / "calibration.stdout").write_text(r.stdout)
    (out / "calibration.stderr").write_text(r.stderr)
    if r.returncode != 0:
        raise SystemExit(f"regression-variants: {' '.join(cmd)} exited {r.returncode} (log: {out}/calibration.stderr)")
    return written


def all_threads_ratio(instructions):
    """Head/base instructions per query of all threads (the queries' own and the background
    work they left, drained after each window), the geometric mean of the paired windows. The
    gate judges the queries' own threads only; this is measured here, beside it."""
    if not instructions:
        return None

    def total(window):
        own = window["connection"]["per_query"] or 0
        return own + (window["background"]["per_query"] or 0) if own > 0 else None

    pairs = [(total(b), total(h)) for b, h in zip(instructions["base"]["windows"], instructions["head"]["windows"])]
    logs = [math.log(h / b) for b, h in pairs if b and h]
    return round(math.exp(statistics.mean(logs)), 4) if logs else None


def figure(row, instructions=None):
    """The signal that the variant changes, as measured: instr/o (of the queries' own threads,
    as judged, and of all threads, from the windows), else rQPS."""
    i = row.get("instructions_per_query") or {}
    q = row.get("rqps") or {}
    return {"instr": i.get("estimate"), "instr_all": all_threads_ratio(instructions), "rqps": q.get("estimate")}


def label(row):
    """The row's verdict; a pass that could still be a warn and an undecided row that one signal
    already proves beyond its warn limit are told apart (their reasons say so). A run folder
    judged before perfgate.verdict/v2 said "inconclusive" and marked such a pass `open`."""
    verdict = "undecided" if row["verdict"] == "inconclusive" else row["verdict"]
    if verdict == "pass" and (row.get("could_be") or row.get("open")):
        return "pass (could be a warn)"
    # The summary may follow what one pair of servers proved on its own ("failed on its first
    # servers, not on fresh ones: 6% slower, could be beyond its fail limit: ...").
    summary = row.get("reason", "").split(": ")
    if verdict == "undecided" and any(s.endswith(", could be beyond its fail limit") or s == "at least a warn, could be a fail" for s in summary):
        return "undecided (beyond warn)"
    return verdict


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--aa-runs", type=int, default=10)
    p.add_argument("--variants", default=None, help="default: every variant of the kind built")
    p.add_argument("--prefix", default=None, help="an installed server: its time-only pwrite variants, no source build")
    p.add_argument("--sides", choices=["in-turn", "together", "alternating"], default=None, help="passed to perfgate compare")
    p.add_argument("--out", default=str(REPO / "runs" / "variants"))
    p.add_argument("--calibrate-pairs", type=int, default=0)
    p.add_argument("--calibrated", default=None, help="a thresholds folder written by perfgate calibrate")
    a = p.parse_args()
    kinds = PREFIX_VARIANTS if a.prefix else ForkBuilds.names
    names = [v for v in (a.variants or ",".join(kinds)).split(",") if v]
    not_quick = [v for v in names if v in VARIANTS and v not in kinds and not a.prefix]
    if not_quick:
        raise SystemExit(f"regression-variants: --variants: {', '.join(not_quick)} name rows outside the quick suite; "
                         f"bench/variant-checks.py checks them")
    unknown = [v for v in names if v not in kinds]
    if unknown:
        raise SystemExit(f"regression-variants: --variants: unknown {', '.join(unknown)}; expected some of: {', '.join(kinds)}"
                         + (" (with --prefix)" if a.prefix else ""))
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    builds = PrefixBuilds(a.prefix, out) if a.prefix else ForkBuilds()
    used = [t for t in QUICK if any(t in sum(builds.rows(n), []) for n in names)] if not a.aa_runs else QUICK
    calibrated = Path(a.calibrated) if a.calibrated else (
        calibrated_thresholds(builds, a.calibrate_pairs, used, out) if a.calibrate_pairs else None)
    summary = {"date": datetime.date.today().isoformat(), "runs": a.runs, "variants": {}, "aa": None,
               "calibrated": str(calibrated) if calibrated else None, "sides": a.sides or "as the suite says",
               "builds": f"copies of {builds.prefix}" if a.prefix else "commits of the end-to-end fork"}
    tally = {name: collections.defaultdict(collections.Counter) for name in names}
    tally_cal = {name: collections.defaultdict(collections.Counter) for name in names}
    changes = {name: collections.defaultdict(list) for name in names}
    aa_tally = collections.Counter()
    aa_tally_cal = collections.Counter()
    # Round by round, every variant and one A/A run each round: a benchmark stopped part way
    # has figures for every variant, and the machine's drift over hours hits them all alike.
    for k in range(max(a.runs, a.aa_runs)):
        for name in names if k < a.runs else []:
            slowed, untouched = builds.rows(name)
            run = out / f"{name}-{k + 1}"
            rows = compare(builds, name, slowed + untouched, run, a.sides)
            windows = {b["id"]: b.get("instructions") for b in json.loads((run / "results.json").read_text())["benchmarks"]}
            for rid, row in rows.items():
                tally[name][rid][label(row)] += 1
                changes[name][rid].append(figure(row, windows.get(rid)))
            said = ", ".join(f"{rid} {label(r)}" for rid, r in rows.items())
            if calibrated:
                cal_rows = rejudge(run, calibrated)
                for rid, row in cal_rows.items():
                    tally_cal[name][rid][label(row)] += 1
                said += "; calibrated: " + ", ".join(f"{rid} {label(r)}" for rid, r in cal_rows.items())
            print(f"{name} run {k + 1}: {said}", flush=True)
        if k < a.aa_runs:
            run = out / f"aa-{k + 1}"
            rows = compare(builds, None, QUICK, run, a.sides)
            aa_tally.update(label(r) for r in rows.values())
            said = ", ".join(f"{rid} {label(r)}" for rid, r in rows.items())
            if calibrated:
                cal_rows = rejudge(run, calibrated)
                aa_tally_cal.update(label(r) for r in cal_rows.values())
                said += "; calibrated: " + ", ".join(f"{rid} {label(r)}" for rid, r in cal_rows.items())
            print(f"A/A run {k + 1}: {said}", flush=True)
    for name in names:
        slowed, _ = builds.rows(name)
        summary["variants"][name] = {
            rid: {"slowed": rid in slowed, "verdicts": dict(tally[name][rid]),
                  "calibrated_verdicts": dict(tally_cal[name][rid]) if calibrated else None,
                  "instr_median": median([c["instr"] for c in changes[name][rid]]),
                  "instr_all_median": median([c["instr_all"] for c in changes[name][rid]]),
                  "rqps_median": median([c["rqps"] for c in changes[name][rid]])}
            for rid in tally[name]}
    if a.aa_runs:
        summary["aa"] = {"rows": sum(aa_tally.values()), "verdicts": dict(aa_tally),
                         "calibrated_verdicts": dict(aa_tally_cal) if calibrated else None}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(render(summary))


def median(values):
    values = [v for v in values if v is not None]
    return round(statistics.median(values), 4) if values else None


# Before perfgate.verdict/v2 the columns read fail/warn/inconclusive (at least warn)/inconclusive/
# pass (open)/pass: the same rows, in the same order.
VERDICT_COLUMNS = ("fail", "warn", "undecided (beyond warn)", "undecided", "pass (could be a warn)", "pass")


def counts(v):
    """The counts of VERDICT_COLUMNS as one cell: 5/0/0/0/0/0."""
    return "/".join(str((v or {}).get(k, 0)) for k in VERDICT_COLUMNS)


def render(summary):
    calibrated = bool(summary.get("calibrated"))
    lines = [f"regression variants, {summary['date']}, {summary['runs']} runs each"
             + (f" ({summary['builds']}, sides {summary['sides']})" if summary.get("builds") else "")
             + "; verdict counts as "
             + "/".join(VERDICT_COLUMNS),
             "| variant | row | touched | instr/o (median) | all threads (median) | rQPS (median) | shipped limits |"
             + (" calibrated limits |" if calibrated else ""),
             "|---|---|---|--:|--:|--:|--:|" + ("--:|" if calibrated else "")]
    for name, rows in summary["variants"].items():
        for rid, r in rows.items():
            fmt = lambda x: "–" if x is None else f"{x:.3f}"
            lines.append(f"| {name} | {rid} | {'yes' if r['slowed'] else 'no'} | {fmt(r['instr_median'])} | {fmt(r.get('instr_all_median'))} | {fmt(r['rqps_median'])} | "
                         f"{counts(r['verdicts'])} |" + (f" {counts(r.get('calibrated_verdicts'))} |" if calibrated else ""))
    for key, words in (("verdicts", "shipped limits"), ("calibrated_verdicts", "calibrated limits")):
        if key == "calibrated_verdicts" and not calibrated:
            continue
        untouched_fails = sum((r.get(key) or {}).get("fail", 0) for rows in summary["variants"].values()
                              for r in rows.values() if not r["slowed"])
        lines.append(f"rows a variant does not touch that failed ({words}): {untouched_fails}")
        if summary["aa"]:
            lines.append(f"A/A ({words}): {summary['aa']['rows']} row verdicts: {counts(summary['aa'][key])}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
