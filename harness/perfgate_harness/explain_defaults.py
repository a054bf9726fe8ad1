"""The explanation step's defaults probe: where the sides' server variables differ in a setting of
the builds' behaviour, the head is restarted with the base's values of them and measured again
against the base in alternating timed pairs (docs/explain.md, "What each probe needs"). What it
writes is explain.json's `defaults`; core/src/explain/defaults.js says what the pairs show.

The base's values are given as server options at the head's start, not SET GLOBAL: a build's
default is what the server starts with, and many of the settings that move throughput (the
buffer pool's instances, the redo log's size, a thread pool) are read-only once it runs. Each
is written `loose-<name>`, so that one the head does not know or whose value it rejects is a
warning in its log, not a server that does not start; every variable is then read back, and one
the head did not take is refused with its log line.

A flag set (optimizer_switch) is compared flag by flag: the head gets one assignment of the
flags both sides know whose values differ, at the base's values, and each flag only one side
has is refused by name (`optimizer_switch.cset_narrowing`), so that a flag a release added or
dropped neither stops the head nor goes unsaid."""
import re
import time

import pymysql

from . import server

# Variables that are no setting of a build's behaviour: where a side runs (paths, port, socket,
# its files, host), who it is (server ids and uuids), what it is (version strings) and the state
# of its data (GTID positions). Each side's own paths and port are also read as placeholders, so
# that a variable naming a file under its datadir is no difference either.
NOT_SETTINGS = frozenset({
    "basedir", "datadir", "tmpdir", "socket", "port", "report_port", "bind_address", "pid_file", "log_error",
    "general_log_file", "slow_query_log_file", "log_bin_basename", "log_bin_index", "relay_log_basename",
    "relay_log_index", "relay_log_info_file", "master_info_file", "innodb_data_home_dir",
    "innodb_log_group_home_dir", "innodb_tmpdir", "aria_log_dir_path", "plugin_dir", "lc_messages_dir",
    "character_sets_dir", "secure_file_priv", "hostname", "report_host", "server_id", "server_uid", "server_uuid",
    "system_time_zone", "large_page_size", "gtid_binlog_pos", "gtid_binlog_state", "gtid_current_pos",
    "gtid_slave_pos", "gtid_executed", "gtid_purged", "protocol_version", "license",
})
VERSION = re.compile(r"^(version|version_comment|version_source_revision|innodb_version|version_compile_\w+"
                     r"|version_malloc_library|version_ssl_library|build_id)$")  # build_id: MySQL's build identity
# What a server without MariaDB's information_schema.SYSTEM_VARIABLES answers (MySQL: 1109).
NO_SUCH_TABLE = (1109, 1146)
# The server options perfgate gives each side that name a place of its own (server.py).
SIDE_OWN = ("datadir", "tmpdir", "socket", "pid_file", "log_error", "basedir")
VALUE_MAX = 4096  # the schema's longest value
# Variables whose value is a set of flags, `name=value` pairs separated by commas, of which an
# assignment changes only the flags it names (the servers' Sys_var_flagset): MariaDB's and
# MySQL's optimizer_switch and optimizer_trace, MySQL's optimizer_trace_features. Their flags
# differ between releases and forks; each is a setting of its own here, named `<variable>.<flag>`.
FLAG_SETS = frozenset({"optimizer_switch", "optimizer_trace", "optimizer_trace_features"})
# A flag as the servers name them; a value past these bounds (the head's server runs the pull
# request's code) is compared whole, as any other variable.
FLAG = re.compile(r"^([a-z][a-z0-9_]{0,63})=([a-z0-9_]{1,32})$")
FLAGS_MAX = 200
# The re-measure: pairs of the row's round length, or shorter where the row's time left asks,
# never shorter than this; at least LEAST_PAIRS of them, at most MOST_PAIRS.
LEAST_ROUND_SECONDS = 1.0
LEAST_PAIRS, MOST_PAIRS = 2, 6
PAIR_OVERHEAD_SECONDS = 1.0  # sysbench's start and the slices' settling, per pair
START_ATTEMPTS = 4  # the head's starts, each without the values the one before stopped at


class DefaultsFailed(Exception):
    def __init__(self, message: str, log: str = ""):
        super().__init__(message)
        self.log = log  # what the server's error log said during the start that failed


# ------------------------------------------------------------------------------ pure decisions

def excluded(name: str) -> bool:
    return name in NOT_SETTINGS or bool(VERSION.match(name))


def normalizer(options: dict):
    """(name, value) -> the value with the side's own paths and port as placeholders."""
    anchors = sorted(((str(options[k]).rstrip("/"), f"<{k}>") for k in SIDE_OWN if options.get(k)),
                     key=lambda a: -len(a[0]))
    port = options.get("port")

    def normal(value):
        if value is None:
            return None
        if port is not None and str(value) == str(port):
            return "<port>"
        out = str(value)
        for path, placeholder in anchors:
            out = out.replace(path, placeholder)
        return out
    return normal


def flags(value) -> dict | None:
    """A flag set's value as {flag: value}, in its order; None where it is not `name=value`
    pairs separated by commas."""
    if value is None:
        return None
    pairs = [FLAG.match(part.strip()) for part in str(value).split(",")]
    if len(pairs) > FLAGS_MAX or not all(pairs):
        return None
    return {m.group(1): m.group(2) for m in pairs}


def flag_sets(base: dict, head: dict) -> dict:
    """The flag sets both sides have whose values read as flags: variable -> (base's, head's)."""
    out = {}
    for name in FLAG_SETS & set(base) & set(head):
        b, h = flags(base[name]), flags(head[name])
        if b is not None and h is not None:
            out[name] = (b, h)
    return out


def variable_of(name: str) -> str:
    """The server variable a setting belongs to: `optimizer_switch.mrr` is optimizer_switch's."""
    variable, dot, _ = name.partition(".")
    return variable if dot and variable in FLAG_SETS else name


def differing(base: dict, head: dict, base_options: dict, head_options: dict) -> list[dict]:
    """The settings whose values differ between the sides' variables, by name: [{name, base,
    head}], a side's value None where it has no such variable; a flag set's flags each by
    itself, `<variable>.<flag>`."""
    nb, nh = normalizer(base_options), normalizer(head_options)
    split = flag_sets(base, head)
    names = sorted(n for n in set(base) | set(head) if not excluded(n) and n not in split)
    out = [{"name": n, "base": _cut(base.get(n)), "head": _cut(head.get(n))} for n in names
           if nb(base.get(n)) != nh(head.get(n))]
    for variable, (b, h) in split.items():
        out += [{"name": f"{variable}.{f}", "base": b.get(f), "head": h.get(f)} for f in sorted(set(b) | set(h))
                if b.get(f) != h.get(f)]
    return sorted(out, key=lambda v: v["name"])


def _cut(value):
    return None if value is None else str(value)[:VALUE_MAX]


def refusal(base_value, head_value, base_full) -> str | None:
    """Why a differing variable cannot be given to the head at its start, or None. Whether the
    head takes it as a server option is its own to say: SYSTEM_VARIABLES has no option for
    some that are (character_set_server's is --character-set-server)."""
    if base_value is None:
        return "only the head has it: the base has no value to set"
    if head_value is None:
        return "unknown to the head: only the base has it"
    if len(str(base_full)) > VALUE_MAX:
        return f"its value is longer than {VALUE_MAX} characters"
    if any(c in str(base_full) for c in "\n\r\\"):
        return "its value cannot be written to an option file as it is"
    return None


def candidates(variables: list[dict], base: dict) -> tuple[dict, list[dict]]:
    """The differing variables to give the head (name -> the base's value; a flag set's, the
    flags both sides know at the base's values, `a=on,b=off`) and those refused ([{name,
    reason}], a flag only one side has by itself)."""
    given, refused, flagged = {}, [], {}
    for v in variables:
        variable = variable_of(v["name"])
        full = v["base"] if variable != v["name"] else base.get(v["name"])
        why = refusal(v["base"], v["head"], full)
        if why:
            refused.append({"name": v["name"], "reason": why})
        elif variable != v["name"]:
            flagged.setdefault(variable, {})[v["name"].partition(".")[2]] = v["base"]
        else:
            given[v["name"]] = str(base[v["name"]])
    for variable, values in flagged.items():
        given[variable] = ",".join(f"{f}={value}" for f, value in values.items())
    return given, refused


def option_value(value: str) -> str:
    """A value as an option file reads it back: quoted where it has a space, '#' or quote."""
    if value == "" or re.search(r"[\s#'\"]", value):
        return f'"{value}"' if '"' not in value else f"'{value}'"
    return value


def options_with(options: dict, given: dict) -> dict:
    """`options` with the base's values of `given` in place of any the side set itself; of a
    flag set the side set itself, its other flags kept."""
    names = {n.replace("-", "_") for n in given}
    own = {k.replace("-", "_").removeprefix("loose_"): v for k, v in options.items()}
    kept = {k: v for k, v in options.items() if k.replace("-", "_").removeprefix("loose_") not in names}
    merged = {}
    for n, v in given.items():
        mine = flags(own.get(n)) if n in FLAG_SETS else None
        merged[n] = ",".join(f"{f}={x}" for f, x in {**mine, **flags(v)}.items()) if mine and flags(v) else v
    return {**kept, **{f"loose-{n}": option_value(v) for n, v in merged.items()}}


def taken(given: dict, base_after: dict, head_after: dict, base_options: dict, head_options: dict,
          head_log: str, startup: dict | None = None) -> tuple[list[str], list[dict]]:
    """Which of `given` the restarted head reads as the restarted base does (set), and why each
    other one was not taken (refused): the head's log line naming it, else that it is no
    server option of the head (`startup`: MariaDB's information_schema.SYSTEM_VARIABLES, None
    where the head does not say), else the value it reads."""
    nb, nh = normalizer(base_options), normalizer(head_options)
    done, refused = [], []
    for name, value in given.items():
        # A flag set's flags each by itself: the base's and the head's reading of each flag given.
        split = flag_sets({name: base_after.get(name)}, {name: head_after.get(name)}) if name in FLAG_SETS else {}
        read = ([(f"{name}.{f}", split[name][0].get(f), split[name][1].get(f)) for f in flags(value)] if split
                else [(name, nb(base_after.get(name)), nh(head_after.get(name)))])
        for setting, b, h in read:
            if b == h:
                done.append(setting)
                continue
            said = log_line(name, head_log)
            reason = (f"rejected by the head: {said}" if said
                      else "not a server option of the head: the server sets it itself" if (startup or {}).get(name) is False
                      else f"the head reads {h if split else head_after.get(name)!r} after the restart")
            refused.append({"name": setting, "reason": reason[:1024]})
    return sorted(done), refused


def log_line(name: str, log: str) -> str | None:
    """The last line of a server's log that names the option `name` (as name, loose-name, with
    dashes or underscores), or None."""
    word = re.escape(name).replace("_", "[-_]")
    pattern = re.compile(rf"(?<![\w])(?<!\w-)(?:loose[-_])?{word}(?![\w]|-\w)")
    said = [line.strip() for line in log.splitlines() if pattern.search(line)]
    if not said:
        return None
    # An error over a deprecation warning; the line without its time and the server's path, and
    # a long value quoted in it (a whole optimizer_switch) cut to its start.
    line = ([line for line in said if "[ERROR]" in line] or said)[-1]
    line = re.sub(r"^\d{4}-\d\d-\d\d\s+\d\d?:\d\d:\d\d\s+\d+\s+", "", line)
    line = re.sub(r"/\S*/(mariadbd|mysqld)\b", r"\1", line)
    return re.sub(r"'([^']{40})[^']{20,}'", "'\\1…'", line)


def refused_at_start(given: dict, log: str) -> list[dict]:
    """The options of `given` that a head which did not start named in its log, each with
    that line (a flag set's, each flag given): [] when it named none of them (its failure is
    another's)."""
    return [{"name": setting, "reason": f"the head did not start with it: {line}"[:1024]}
            for n, v in given.items() if (line := log_line(n, log))
            for setting in ([f"{n}.{f}" for f in flags(v)] if n in FLAG_SETS and flags(v) else [n])]


def still_differ(base_after: dict, head_after: dict, base_options: dict, head_options: dict, refused: list) -> list[str]:
    """Settings that differ after the restart besides those refused (a variable the server
    derives from one that was set, one set at a value the head adjusted)."""
    gone = {r["name"] for r in refused}
    return [v["name"] for v in differing(base_after, head_after, base_options, head_options) if v["name"] not in gone]


# The order refused variables are said in: a value the base has that the head would not take
# first, a setting the head lacks next, a setting only the head has last (there is nothing
# to set it to; between releases most of the list).
REFUSED_ORDER = ("rejected", "the head reads", "the head did not start", "not a server option", "its value",
                 "unknown to the head", "only the head")


def most_telling_first(refused: list[dict]) -> list[dict]:
    rank = {why: i for i, why in enumerate(REFUSED_ORDER)}
    return sorted(refused, key=lambda r: (next((rank[w] for w in REFUSED_ORDER if r["reason"].startswith(w)),
                                               len(REFUSED_ORDER)), r["name"]))


def reserve_seconds(start_seconds: float) -> float:
    """What the probes leave the re-measure where settings differ: both servers' restart and
    warm-up (as long as the row's first start took) and the least pairs of the least rounds."""
    return start_seconds + LEAST_PAIRS * (2 * LEAST_ROUND_SECONDS + PAIR_OVERHEAD_SECONDS)


def pairs_plan(seconds_left: float, round_seconds: float) -> tuple[int, float]:
    """(pairs, seconds a side) of the re-measure that fit `seconds_left`: the row's round length
    or shorter, at least LEAST_PAIRS; (0, 0) when not even those fit rounds of
    LEAST_ROUND_SECONDS."""
    seconds = min(round_seconds, (seconds_left / LEAST_PAIRS - PAIR_OVERHEAD_SECONDS) / 2)
    if seconds < LEAST_ROUND_SECONDS:
        return 0, 0.0
    return min(MOST_PAIRS, int(seconds_left // (2 * seconds + PAIR_OVERHEAD_SECONDS))), seconds


# ------------------------------------------------------------------------------ the servers

def variables(srv) -> dict:
    """SHOW GLOBAL VARIABLES of a running server (MariaDB and MySQL alike)."""
    conn = srv.connect()
    try:
        cur = conn.cursor()
        cur.execute("SHOW GLOBAL VARIABLES")
        return {str(n).lower(): None if v is None else str(v) for n, v in cur.fetchall()}
    finally:
        conn.close()


def startup_options(srv) -> dict | None:
    """Variable -> whether the server takes it as a server option, from MariaDB's
    information_schema.SYSTEM_VARIABLES; None where the server has no such table (MySQL)."""
    conn = srv.connect()
    try:
        cur = conn.cursor()
        try:
            cur.execute("SELECT VARIABLE_NAME, COMMAND_LINE_ARGUMENT FROM information_schema.SYSTEM_VARIABLES")
        except pymysql.err.MySQLError as e:
            if e.args and e.args[0] in NO_SUCH_TABLE:
                return None
            raise
        return {str(n).lower(): arg is not None for n, arg in cur.fetchall()}
    finally:
        conn.close()


def restart(servers: dict, side: str, options: dict) -> str:
    """The side's server stopped and started again with `options`; what its error log said
    during the start (DefaultsFailed, with it, when it did not start)."""
    old = servers[side]
    problem = old.shutdown()
    if problem:
        raise DefaultsFailed(problem)
    new = server.Server(side, old.basedir, old.binary, old.flavor, old.version, old.layout, options, old.pin_cpus)
    servers[side] = new
    # The options are read before the error log is open: what they say goes to the output.
    files = (new.layout.stdout_log, new.layout.error_log)
    offsets = [path.stat().st_size if path.exists() else 0 for path in files]

    def said() -> str:
        return "\n".join(server.read_from(path, offset) for path, offset in zip(files, offsets))
    try:
        new.start()
    except server.ServerError as e:
        log = said()
        raise DefaultsFailed(f"the {side} did not start: {e.message}: {log.strip()[-800:]}", log) from None
    return said()


def remeasure(rounds, workload, deadline: float, round_seconds: float) -> list[dict]:
    """Alternating pairs of the base and the (restarted) head, as many as fit before `deadline`:
    [{index, side, qps, seconds}]."""
    pairs, seconds = pairs_plan(deadline - time.monotonic(), round_seconds)
    out = []
    for index in range(pairs):
        if index >= LEAST_PAIRS and time.monotonic() + 2 * seconds + PAIR_OVERHEAD_SECONDS > deadline:
            break
        for r in rounds.alternating_pair(workload, index, seconds):
            out.append({"index": r["index"], "side": r["side"], "qps": r["qps"], "seconds": round(r["seconds"], 3)})
    return out
