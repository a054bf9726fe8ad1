"""`run`: plan.json in, results.json out. Exit 0 ok, 4 results written with status error,
2 bad plan or arguments (one line, nothing written)."""
import json
import os
import signal
import sys
import tempfile
from pathlib import Path

from . import progress, schema, server
from .plan import PlanError, load_plan
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


def run(args) -> int:
    if not args.results or "/" in args.results or args.results in (".", ".."):
        progress.say(f"--results: {args.results!r} is not a file name; expected e.g. results.json")
        return EXIT_USAGE
    try:
        plan = load_plan(args.plan)
        versions = {}
        for side, spec in plan.sides.items():
            try:
                versions[side] = server.settle_flavor(server.detect_version(spec.binary), spec.flavor)
            except ValueError as e:
                raise PlanError(f"{args.plan}: sides.{side}.basedir: {e}") from None
    except PlanError as e:
        progress.say(str(e))
        return EXIT_USAGE

    signal.signal(signal.SIGTERM, _terminate)
    out = Path(args.out)
    results = Run(plan, out, versions, reuse_data=args.reuse_data).execute()
    problems = schema.schema_errors("results", results)
    if problems:
        # A results file that breaks its schema would mislead every reader; say why instead.
        progress.say(f"internal error: results do not match schema/results.schema.json: {problems[0]}")
        return EXIT_ERROR
    write_json_atomically(out / args.results, results)
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
