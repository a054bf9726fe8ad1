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


def schema_errors(kind: str, document) -> list[str]:
    """One line per violation, naming the key path and the bad value, most specific first."""
    validator = jsonschema.Draft202012Validator(load_schema(kind))
    errors = sorted(validator.iter_errors(document), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    return [f"{_location(e.absolute_path)}: {e.message}" for e in errors]
