"""Where the harness finds the files it ships with and the repository's shared schemas."""
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
LUA_DIR = PACKAGE_DIR / "lua"
REPO_DIR = PACKAGE_DIR.parent.parent
SCHEMA_DIR = REPO_DIR / "schema"
SYSBENCH_BUILTIN_DIR = Path("/usr/share/sysbench")
