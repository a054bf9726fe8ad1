"""Reading a plan: validated once, at the edge, into one typed object.

The rules a plan must follow are those of schema/plan.schema.json, the same definitions the
gate checks thresholds files against, and nothing else: here only what a schema cannot know
is checked, that each basedir holds a server and each script is installed on this machine.
Every error is one line naming the file, the key, the bad value and what was expected, so that
the caller can print it and exit 2 without having started anything.
"""
import json
from dataclasses import dataclass, field
from pathlib import Path

from . import schema, server, sysbench

SIDES = ("base", "head")


def side_names(sides: dict) -> tuple:
    """The plan's sides in chain order: base, head, then head2, head3, ... (a chain of heads,
    each measured against the same base in the same interleaved rounds)."""
    extra = sorted((name for name in sides if name not in SIDES), key=lambda name: int(name[len("head"):]))
    return SIDES + tuple(extra)


# Groups whose statements no sysbench script sends: the harness (ddl) or go-tpc (tpcc).
OWN_CLIENT_GROUPS = ("ddl", "tpcc")


def dataset_kind(bench) -> str:
    """What tables a benchmark runs on, in words: a plan holds one kind only."""
    return {"ddl": "DDL statements", "tpcc": "TPC-C"}.get(bench.group, "sysbench microbenchmarks")


class PlanError(Exception):
    """The plan cannot be run as written; the message is one line for the user."""


@dataclass(frozen=True)
class Side:
    name: str
    basedir: Path
    label: str | None
    commit: str | None
    binary: Path
    options: dict = field(default_factory=dict)  # this side's own [mysqld] options, after the profile's
    flavor: str | None = None  # the flavour perfgate built it as, when it built it


@dataclass(frozen=True)
class Benchmark:
    id: str
    name: str
    group: str
    kind: str
    script: str
    script_path: Path | None  # None for a DDL statement or TPC-C
    options: dict
    threads: int
    shape: str | None
    ahi: str | None
    instructions_events: int | None = None
    ahi_parts: int | None = None  # innodb_adaptive_hash_index_parts the servers run this cell with
    ddl: dict | None = None  # {statement, session} of a DDL statement (group ddl), run by ddl_workload.py


@dataclass(frozen=True)
class Profile:
    """The [mysqld] options of one server profile, as resolved by the gate."""
    name: str
    options: dict


@dataclass(frozen=True)
class Plan:
    raw: dict
    suite: str
    sides: dict  # side name -> Side, in chain order (base, head, head2, ...)
    profiles: dict  # server flavour (mariadb, mysql, percona) -> Profile
    tables: int
    rows: int
    seconds: int
    warmup_seconds: int
    rounds: int
    first_round: int
    pin_server: str | None
    pin_client: str | None
    benchmarks: list = field(default_factory=list)
    signals: tuple = ("time",)
    instruction_windows: int = 0
    instruction_seed: int = 0
    side_schedule: str = "in-turn"  # how the rounds of one index share the machine: SIDE_SCHEDULES
    rounds_on_request: int = 0  # more rounds per side a benchmark may get, pair by pair, when asked for

    def profile_for(self, flavor: str) -> Profile:
        """The profile a server of `flavor` (as its `mysqld --version` says) runs with."""
        return self.profiles[flavor]

    @property
    def measures_time(self) -> bool:
        return "time" in self.signals

    @property
    def measures_instructions(self) -> bool:
        return "instructions" in self.signals


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
    for name in side_names(raw["sides"]):
        spec = raw["sides"][name]
        basedir = Path(spec["basedir"]).expanduser()
        if not basedir.is_dir():
            raise PlanError(f"{source}: sides.{name}.basedir: {spec['basedir']!r} is not a directory; "
                            "expected an installed server prefix holding sbin/ or bin/ and share/")
        binary = server.find_server_binary(basedir)
        if binary is None:
            raise PlanError(f"{source}: sides.{name}.basedir: no server binary in {spec['basedir']!r}; "
                            f"expected one of {', '.join(server.SERVER_BINARY_CANDIDATES)}")
        sides[name] = Side(name, basedir, spec.get("label"), spec.get("commit"), binary, dict(spec.get("options") or {}),
                           spec.get("flavor"))

    measure = raw["measure"]
    if len(sides) > len(SIDES) and "instructions" in measure.get("signals", ["time"]):
        raise PlanError(f"{source}: measure.signals: a chain of {len(sides) - 1} heads counts no instructions "
                        "(the callgrind windows pair one base with one head); expected [\"time\"]")
    pin = measure.get("pin_cpus") or {}
    benchmarks = []
    for i, b in enumerate(raw["benchmarks"]):
        # A DDL statement is sent by the harness itself, TPC-C by go-tpc: no script to find.
        own = b["group"] in OWN_CLIENT_GROUPS
        script_path = None if own else sysbench.resolve_script(b["script"])
        if script_path is None and not own:
            raise PlanError(f"{source}: benchmarks[{i}].script: {b['script']!r} is not installed on this machine "
                            f"(looked in {sysbench.LUA_DIR} and {sysbench.SYSBENCH_BUILTIN_DIR}); expected sysbench 1.0.20 "
                            "and perfgate's Lua scripts")
        benchmarks.append(Benchmark(
            id=b["id"], name=b["name"], group=b["group"], kind=b["kind"], script=b["script"],
            script_path=script_path, options=dict(b["options"]), threads=b["threads"],
            shape=b.get("shape"), ahi=b.get("ahi"), instructions_events=b.get("instructions_events"),
            ahi_parts=b.get("ahi_parts"), ddl=b.get("ddl")))
    if len({dataset_kind(b) for b in benchmarks}) > 1:
        raise PlanError(f"{source}: benchmarks: {' and '.join(sorted({dataset_kind(b) for b in benchmarks}))} load different "
                        "tables; expected a plan of one kind only")

    return Plan(
        raw=raw, suite=raw["suite"], sides=sides,
        profiles={flavor: Profile(p["name"], dict(p["options"])) for flavor, p in raw["profiles"].items()},
        tables=raw["scale"]["tables"], rows=raw["scale"]["rows"],
        seconds=measure["seconds"], warmup_seconds=measure["warmup_seconds"],
        rounds=measure["rounds"], first_round=measure.get("first_round", 0),
        pin_server=pin.get("server"), pin_client=pin.get("client"),
        benchmarks=benchmarks, signals=tuple(measure.get("signals", ["time"])),
        instruction_windows=measure.get("instructions", {}).get("windows", 0),
        instruction_seed=measure.get("instructions", {}).get("seed", 0),
        side_schedule=measure.get("side_schedule", "in-turn"),
        rounds_on_request=measure.get("rounds_on_request", 0))
