"""Validation against the JSON Schemas in schema/, shared with the gate."""
import json
from functools import lru_cache

import jsonschema

from .paths import SCHEMA_DIR


@lru_cache(maxsize=None)
def load_schema(kind: str) -> dict:
    with open(SCHEMA_DIR / f"{kind}.schema.json", encoding="utf-8") as f:
        return json.load(f)


def _location(path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _line(error) -> str:
    """One line naming the key and the rule; a schema explains its rules in `description`."""
    path = list(error.absolute_path)
    if "propertyNames" in error.absolute_schema_path:
        # A bad key: the error is about the name itself, at the path of its object.
        path.append(error.instance)
        rule = error.schema.get("not", {}) if error.validator == "not" else error.schema
        why = rule.get("description") if isinstance(rule, dict) else None
        return f"{_location(path)}: {why or error.message}"
    return f"{_location(path)}: {error.message}"


def schema_errors(kind: str, document) -> list[str]:
    """One line per violation, naming the key path and the bad value, most specific first."""
    validator = jsonschema.Draft202012Validator(load_schema(kind))
    errors = sorted(validator.iter_errors(document), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    return [_line(e) for e in errors]
