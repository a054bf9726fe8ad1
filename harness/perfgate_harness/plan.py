"""Reading a plan: validated once, at the edge, into one typed object.

Every error is one line naming the file, the key, the bad value and what was expected, so that
the caller can print it and exit 2 without having started anything.
"""
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from . import schema, server, sysbench

CPU_LIST = re.compile(r"^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$")
SIDES = ("base", "head")


class PlanError(Exception):
    """The plan cannot be run as written; the message is one line for the user."""


@dataclass(frozen=True)
class Side:
    name: str
    basedir: Path
    label: str | None
    commit: str | None
    binary: Path


@dataclass(frozen=True)
class Benchmark:
    id: str
    name: str
    group: str
    kind: str
    script: str
    script_path: Path
    options: dict
    threads: int
    shape: str | None
    ahi: str | None


@dataclass(frozen=True)
class Plan:
    raw: dict
    suite: str
    sides: dict  # side name -> Side
    profile_name: str
    profile_options: dict
    tables: int
    rows: int
    seconds: int
    warmup_seconds: int
    rounds: int
    first_round: int
    pin_server: str | None
    pin_client: str | None
    benchmarks: list = field(default_factory=list)


def load_plan(path: str | Path) -> Plan:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise PlanError(f"{path}: cannot read the plan ({e.strerror})") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise PlanError(f"{path}: not JSON (line {e.lineno} column {e.colno}: {e.msg})") from None
    return parse_plan(raw, str(path))


def parse_plan(raw, source: str = "plan.json") -> Plan:
    problems = schema.schema_errors("plan", raw)
    if problems:
        raise PlanError(f"{source}: {problems[0]}")

    sides = {}
    for name in SIDES:
        spec = raw["sides"][name]
        basedir = Path(spec["basedir"]).expanduser()
        if not basedir.is_dir():
            raise PlanError(f"{source}: sides.{name}.basedir: {spec['basedir']!r} is not a directory; "
                            "expected an installed server prefix holding sbin/ or bin/ and share/")
        binary = server.find_server_binary(basedir)
        if binary is None:
            raise PlanError(f"{source}: sides.{name}.basedir: no server binary in {spec['basedir']!r}; "
                            f"expected one of {', '.join(server.SERVER_BINARY_CANDIDATES)}")
        sides[name] = Side(name, basedir, spec.get("label"), spec.get("commit"), binary)

    conflicts = server.owned_option_conflicts(raw["profile"]["options"])
    if conflicts:
        raise PlanError(f"{source}: profile.options.{conflicts[0]}: set by perfgate for each server "
                        f"(one of {', '.join(server.OWNED_OPTIONS)}); remove it from the profile")

    measure = raw["measure"]
    for key in ("seconds", "warmup_seconds"):
        if not float(measure[key]).is_integer():
            raise PlanError(f"{source}: measure.{key}: {measure[key]} is not a whole number of seconds; "
                            "expected an integer (sysbench 1.0.20 --time takes whole seconds)")
    pin = measure.get("pin_cpus") or {}
    for role in pin:
        if role not in ("server", "client"):
            raise PlanError(f"{source}: measure.pin_cpus.{role}: unknown role; expected server and/or client")
        if not isinstance(pin[role], str) or not CPU_LIST.match(pin[role]):
            raise PlanError(f"{source}: measure.pin_cpus.{role}: {pin[role]!r} is not a CPU list; "
                            "expected a taskset list such as \"0\" or \"0-1,3\"")

    benchmarks = []
    seen = set()
    for i, b in enumerate(raw["benchmarks"]):
        where = f"{source}: benchmarks[{i}]"
        if b["id"] in seen:
            raise PlanError(f"{where}.id: {b['id']!r} appears twice; expected ids unique in the plan")
        seen.add(b["id"])
        script_path = sysbench.resolve_script(b["script"])
        if script_path is None:
            raise PlanError(f"{where}.script: {b['script']!r} is neither a sysbench built-in nor a perfgate "
                            f"Lua script; expected one of {', '.join(sysbench.known_scripts())}")
        try:
            sysbench.script_options(b["options"])
        except ValueError as e:
            raise PlanError(f"{where}.options.{e}") from None
        benchmarks.append(Benchmark(
            id=b["id"], name=b["name"], group=b["group"], kind=b["kind"], script=b["script"],
            script_path=script_path, options=dict(b["options"]), threads=b["threads"],
            shape=b.get("shape"), ahi=b.get("ahi")))

    return Plan(
        raw=raw, suite=raw["suite"], sides=sides,
        profile_name=raw["profile"]["name"], profile_options=dict(raw["profile"]["options"]),
        tables=raw["scale"]["tables"], rows=raw["scale"]["rows"],
        seconds=int(measure["seconds"]), warmup_seconds=int(measure["warmup_seconds"]),
        rounds=measure["rounds"], first_round=measure.get("first_round", 0),
        pin_server=pin.get("server"), pin_client=pin.get("client"),
        benchmarks=benchmarks)
