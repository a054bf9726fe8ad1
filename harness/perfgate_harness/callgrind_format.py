"""Reading callgrind's profile files (the format of Valgrind 3.x, `positions: line`).

One file holds one thread's costs for one dump. Self cost of a function is the sum of its cost
lines; the line after a `calls=` line is the inclusive cost of that call, charged to the caller's
inclusive cost only. Names are kept as callgrind wrote them: recursion levels (`f'2`) stay apart,
so no cost is counted twice.
"""
import re
from dataclasses import dataclass, field

# fl=(3) name defines id 3; fl=(3) alone refers back to it; a bare name is uncompressed.
_NAME = re.compile(r"^\((\d+)\)(?: (.*))?$")
# Kinds that share one name table in the format: fl, fi, fe, cfi, cfl (files); fn, cfn (functions);
# ob, cob (objects).
_TABLE = {"fl": "file", "fi": "file", "fe": "file", "cfi": "file", "cfl": "file", "jfi": "file",
          "fn": "fn", "cfn": "fn", "jfn": "fn", "ob": "ob", "cob": "ob"}


class CallgrindFormatError(ValueError):
    """The file is not a callgrind profile this parser understands; names the line."""


@dataclass
class FunctionCost:
    name: str
    object: str
    file: str
    # The first line of `file` that callgrind listed for the function: its entry, as blocks are
    # listed in the order they were first run (0 when the binary has no line information).
    line: int
    self_cost: int = 0
    inclusive: int = 0


@dataclass
class Profile:
    """One dump file: one thread, one part."""
    pid: int | None
    part: int | None
    thread: int | None
    trigger: str | None
    events: list
    totals: int | None
    functions: dict = field(default_factory=dict)  # name -> FunctionCost

    def self_sum(self) -> int:
        return sum(f.self_cost for f in self.functions.values())


def _first_number(text: str) -> int:
    return int(text.split()[0]) if text.split() else 0


def parse_profile(text: str, source: str = "callgrind.out") -> Profile:
    """Parses one callgrind file; costs are of the first event (Ir: instructions)."""
    names = {"file": {}, "fn": {}, "ob": {}}
    header = {}
    events = None
    totals = None
    functions: dict[str, FunctionCost] = {}
    current: FunctionCost | None = None
    obj = file = ""
    cost_file = ""  # where the next cost lines' code comes from: `fl`, or an inlined `fi`/`fe`
    line = 0
    pending_call = False
    positions_checked = False

    def resolve(kind: str, value: str, number: int) -> str:
        table = names[_TABLE[kind]]
        m = _NAME.match(value)
        if not m:
            return value
        ident, name = m.group(1), m.group(2)
        if name is not None:
            table[ident] = name
            return name
        if ident not in table:
            raise CallgrindFormatError(f"{source}:{number}: {kind}=({ident}) refers to a name never defined")
        return table[ident]

    for number, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if not s or s.startswith("#"):
            continue
        head = s[0]
        if head.isdigit() or head in "+-*":
            if current is None:
                raise CallgrindFormatError(f"{source}:{number}: a cost line before any fn= line: {s[:80]!r}")
            position, _, rest = s.partition(" ")
            if position == "*":
                pass
            elif position[0] in "+-":
                line += int(position)
            else:
                line = int(position)
            cost = _first_number(rest)
            if pending_call:
                current.inclusive += cost
                pending_call = False
            else:
                current.self_cost += cost
                current.inclusive += cost
                if current.line == 0 and line > 0 and cost_file == current.file:
                    current.line = line
            continue
        key, sep, value = s.partition("=")
        if sep and key in _TABLE:
            name = resolve(key, value, number)
            if key == "fn":
                current = functions.get(name)
                if current is None:
                    current = functions[name] = FunctionCost(name, obj, file, 0)
            elif key == "fl":
                file = cost_file = name
            elif key in ("fi", "fe"):
                cost_file = name
            elif key == "ob":
                obj = name
            continue
        if sep and key == "calls":
            pending_call = True
            continue
        if sep and key in ("jump", "jcnd"):
            continue
        key, sep, value = s.partition(":")
        if not sep:
            raise CallgrindFormatError(f"{source}:{number}: not a callgrind line: {s[:80]!r}")
        value = value.strip()
        if key == "events":
            events = value.split()
        elif key == "positions":
            if value.split() != ["line"]:
                raise CallgrindFormatError(f"{source}:{number}: positions: {value!r}; expected 'line' "
                                           "(callgrind's default; run without --dump-instr)")
            positions_checked = True
        elif key == "totals":
            totals = _first_number(value)
        elif key in ("pid", "part", "thread"):
            header[key] = int(value)
        elif key == "desc" and value.startswith("Trigger:"):
            header["trigger"] = value[len("Trigger:"):].strip()
    if events is None:
        raise CallgrindFormatError(f"{source}: no 'events:' line; not a callgrind profile")
    if not positions_checked:
        raise CallgrindFormatError(f"{source}: no 'positions:' line; not a callgrind profile")
    return Profile(pid=header.get("pid"), part=header.get("part"), thread=header.get("thread"),
                   trigger=header.get("trigger"), events=events, totals=totals, functions=functions)
