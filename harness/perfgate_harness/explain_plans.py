"""The statements a row sends, captured once through the general log (sysbench's prepared
statements leave no text in performance_schema; the log's Execute lines carry their values),
grouped into shapes with one example each, and EXPLAIN FORMAT=JSON of every example."""
import json
import re
from pathlib import Path

import pymysql

# Statements that are the session's plumbing, not the row's work.
PLUMBING = ("set ", "show ", "select @@", "commit", "rollback", "begin", "start ", "prepare", "deallocate")
EXPLAINABLE = ("select", "update", "delete", "insert", "replace")
MOST_SHAPES = 200
# MariaDB's "<yymmdd hh:mm:ss>\t    <id> <Command>\t<text>" (or a tab-indented continuation of
# the same second); MySQL's "<ISO 8601 time>\t    <id> <Command>\t<text>" on every entry.
_ENTRY = re.compile(r"^(?:\d{6}\s+[\d:]+\s+|\t\t|\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:\d\d)\s+)"
                    r"\s*(\d+)\s+([A-Z][\w ]*?)\t(.*)$")


# ------------------------------------------------------------------------------ pure decisions

def log_statements(text: str) -> list[str]:
    """The texts of the Query and Execute entries of a general log (an entry may span lines)."""
    entries = []
    for line in text.splitlines():
        match = _ENTRY.match(line)
        if match:
            entries.append([match.group(2), match.group(3)])
        elif entries and not line.startswith(("Time", "Tcp port", "/")):
            entries[-1][1] += "\n" + line
    return [body.strip() for command, body in entries if command in ("Query", "Execute")]


def shape_of(sql: str) -> str:
    """The statement with its values as ?: the tables of a sysbench scale and their k_N indexes
    as one, strings and numbers as ?, IN lists of any length as one."""
    s = re.sub(r"\bsbtest\d+\b", "sbtestN", sql)
    s = re.sub(r"\bk_\d+\b", "k_N", s)
    s = re.sub(r"'(?:[^'\\]|\\.)*'", "?", s)
    s = re.sub(r"(?<![\w.])-?\d+(?:\.\d+)?\b", "?", s)
    s = re.sub(r"\?(?:\s*,\s*\?)+", "?,...", s)
    return re.sub(r"\s+", " ", s).strip()


def shapes(statements: list[str]) -> list[dict]:
    """One example per shape, in the order first seen: [{shape, sql}]."""
    seen = {}
    for sql in statements:
        low = sql.lower()
        if low.startswith(PLUMBING) or not low.startswith(EXPLAINABLE):
            continue
        seen.setdefault(shape_of(sql), sql)
        if len(seen) >= MOST_SHAPES:
            break
    return [{"shape": shape, "sql": sql} for shape, sql in seen.items()]


# ------------------------------------------------------------------------------ capture and EXPLAIN

def capture(connect, run_events, events: int, log_file: Path) -> list[dict]:
    """The shapes of `events` events, logged by the server to `log_file` (an absolute path)."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    log_file.write_text("")
    conn = connect()
    try:
        cur = conn.cursor()
        cur.execute("SET GLOBAL log_output = 'FILE'")
        cur.execute("SET GLOBAL general_log_file = %s", (str(log_file),))
        cur.execute("SET GLOBAL general_log = ON")
        try:
            run_events(events)
        finally:
            cur.execute("SET GLOBAL general_log = OFF")
    finally:
        conn.close()
    try:
        return shapes(log_statements(log_file.read_text(errors="replace")))
    finally:
        log_file.unlink(missing_ok=True)


# MySQL 8.3+ can write EXPLAIN JSON in a second form (query_plan, index_name, estimated_rows),
# MySQL 9.7 by default; the plans are read in the first (query_block, key, rows_examined_per_scan),
# the one MariaDB writes too. "Unknown system variable" where the server has one form only.
JSON_FORMAT_1_SQL = "SET SESSION explain_json_format_version = 1"
UNKNOWN_VARIABLE = 1193


def json_format_1(cur) -> None:
    try:
        cur.execute(JSON_FORMAT_1_SQL)
    except pymysql.err.MySQLError as e:
        if not e.args or e.args[0] != UNKNOWN_VARIABLE:
            raise


def explain_all(connect, found: list[dict]) -> list[dict]:
    """[{plan | error}] of EXPLAIN FORMAT=JSON of every shape's example, in order."""
    conn = connect()
    try:
        cur = conn.cursor()
        json_format_1(cur)
        out = []
        for shape in found:
            try:
                cur.execute("EXPLAIN FORMAT=JSON " + shape["sql"])
                out.append({"plan": json.loads(cur.fetchone()[0])})
            except (pymysql.err.MySQLError, json.JSONDecodeError, TypeError) as e:
                out.append({"error": str(e)[:1000]})
        return out
    finally:
        conn.close()


def plans_record(found: list[dict], explained: dict) -> dict:
    """explain.json's `plans`: per shape its example and each side's plan (null with an error
    when a side could not EXPLAIN it)."""
    out = []
    for i, shape in enumerate(found):
        entry = {"shape": shape["shape"][:4096], "sql": shape["sql"][:65536]}
        errors = []
        for side in ("base", "head"):
            got = explained[side][i] if explained.get(side) else {"error": "not explained"}
            entry[side] = got.get("plan")
            if "error" in got:
                errors.append(f"{side}: {got['error']}")
        if errors:
            entry["error"] = "; ".join(errors)[:4096]
        out.append(entry)
    return {"shapes": out}
