"""`run`: plan.json in, results.json out; `explain`: a measured run's plan and datadirs in,
explain.json out. Exit 0 ok, 4 written with status error, 2 bad plan or arguments (one line,
nothing written)."""
import json
import os
import signal
import sys
import tempfile
from pathlib import Path

from . import progress, schema, server
from .plan import PlanError, load_plan
from .explain_phase import Settings
from .runner import Run

EXIT_OK, EXIT_USAGE, EXIT_ERROR = 0, 2, 4


def write_json_atomically(path: Path, document: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(document, f, indent=2)
            f.write("\n")
        # mkstemp creates 0600; results are read by other users (artifact upload, a web server).
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _terminate(signum, frame):
    # Unwind through the runner's finally blocks so that our servers are shut down.
    raise SystemExit(128 + signum)


def _file_name(option: str, name: str, example: str) -> bool:
    if not name or "/" in name or name in (".", ".."):
        progress.say(f"{option}: {name!r} is not a file name; expected e.g. {example}")
        return False
    return True


def _plan_and_versions(plan_file: str, option: str, name: str, example: str):
    """The plan and each side's (flavor, version), or None when either, or the output file's
    name given by `option`, is wrong (said)."""
    if not _file_name(option, name, example):
        return None
    try:
        plan = load_plan(plan_file)
        versions = {}
        for side, spec in plan.sides.items():
            try:
                versions[side] = server.settle_flavor(server.detect_version(spec.binary), spec.flavor)
            except ValueError as e:
                raise PlanError(f"{plan_file}: sides.{side}.basedir: {e}") from None
        return plan, versions
    except PlanError as e:
        progress.say(str(e))
        return None


def _write_checked(kind: str, path: Path, document: dict) -> bool:
    """`document` written whole when it matches schema/<kind>.schema.json; False (said) when not:
    a file that breaks its schema would mislead every reader."""
    problems = schema.schema_errors(kind, document)
    if problems:
        progress.say(f"internal error: {path.name} does not match schema/{kind}.schema.json: {problems[0]}")
        return False
    write_json_atomically(path, document)
    return True


def run(args) -> int:
    checked = _plan_and_versions(args.plan, "--results", args.results, "results.json")
    if checked is None:
        return EXIT_USAGE
    plan, versions = checked
    signal.signal(signal.SIGTERM, _terminate)
    out = Path(args.out)
    results = Run(plan, out, versions, reuse_data=args.reuse_data).execute()
    if not _write_checked("results", out / args.results, results):
        return EXIT_ERROR
    if results["status"] != "ok":
        for error in results["errors"]:
            progress.say(f"error: {error.get('side') or '-'} {error.get('benchmark') or '-'} "
                         f"{error.get('step', '')}: {error['message']}")
        return EXIT_ERROR
    return EXIT_OK


def add_run_parser(commands) -> None:
    p = commands.add_parser("run", help="execute a plan and write results.json")
    p.add_argument("--plan", required=True, help="plan.json (schema/plan.schema.json)")
    p.add_argument("--out", required=True, help="run folder: results, server logs and datadirs go here")
    p.add_argument("--results", default="results.json", help="results file name inside --out")
    p.add_argument("--reuse-data", action="store_true",
                   help="keep datadirs loaded with the same scale and basedir (extension runs)")
    p.set_defaults(handler=run)


ASKED = ("auto", "all", "named")


def explain(args) -> int:
    checked = _plan_and_versions(args.plan, "--explain", args.explain, "explain.json")
    if checked is None:
        return EXIT_USAGE
    plan, versions = checked
    known = [b.id for b in plan.benchmarks]
    rows = [r for r in args.rows.split(",") if r]
    unknown = [r for r in rows if r not in known]
    if not rows or unknown:
        progress.say(f"--rows: {', '.join(unknown) or repr(args.rows)} is not a row of {args.plan}; "
                     f"expected a comma-separated list of: {', '.join(known)}")
        return EXIT_USAGE
    if plan.sides.keys() != {"base", "head"}:
        progress.say(f"{args.plan}: sides: the explanation step compares a base and a head; this plan has "
                     f"{', '.join(plan.sides)}")
        return EXIT_USAGE
    budget = {"rows": args.budget_rows, "seconds_per_row": args.seconds_per_row}
    settings = Settings(events=args.events, windows=args.windows, memory_events=args.memory_events,
                        stack_events=args.stack_events, warmup_seconds=args.warmup_seconds,
                        seed=plan.instruction_seed or 1)
    signal.signal(signal.SIGTERM, _terminate)
    out = Path(args.out)
    document = Run(plan, out, versions, reuse_data=True).explain([(r, args.asked) for r in rows], budget, settings)
    if not _write_checked("explain", out / args.explain, document):
        return EXIT_ERROR
    for row in document["rows"]:
        if row["status"] == "error":
            progress.say(f"explain: {row['id']}: {row['error']['step']}: {row['error']['message']}")
    return EXIT_OK if document["status"] == "ok" else EXIT_ERROR


def _positive(kind):
    def parse(text):
        value = kind(text)
        if value <= 0:
            raise ValueError(text)
        return value
    parse.__name__ = f"positive {kind.__name__}"
    return parse


def add_explain_parser(commands) -> None:
    p = commands.add_parser("explain", help="explain rows of a measured run on fresh servers: explain.json")
    p.add_argument("--plan", required=True, help="the run's plan.json")
    p.add_argument("--out", required=True, help="the run folder, its loaded datadirs kept (run --reuse-data)")
    p.add_argument("--rows", required=True, help="row ids, comma-separated")
    p.add_argument("--asked", choices=ASKED, required=True, help="why these rows: auto (not a plain pass), all, named")
    p.add_argument("--budget-rows", type=_positive(int), default=3, help="the most rows explained")
    p.add_argument("--seconds-per-row", type=_positive(float), default=60.0, help="the time one row's probes may take")
    p.add_argument("--explain", default="explain.json", help="file name inside --out")
    p.add_argument("--events", type=_positive(int), default=2000, help="events per counter and waits window")
    p.add_argument("--windows", type=_positive(int), default=3, help="counter and waits windows per side")
    p.add_argument("--memory-events", type=_positive(int), default=20000, help="events per memory window")
    p.add_argument("--stack-events", type=_positive(int), default=5000, help="events of the perf window")
    p.add_argument("--warmup-seconds", type=float, default=2.0, help="warm-up per side before the probes")
    p.set_defaults(handler=explain)
