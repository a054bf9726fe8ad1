#!/usr/bin/env bash
# Installs what perfgate needs on a Debian/Ubuntu host, as root. Safe to run again: each step
# checks first and does nothing when its part is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

# chromium: report.html is checked in a real headless browser by the tests.
# shellcheck: the runner-setup scripts are checked by the tests.
# valgrind: instructions per query are counted under callgrind (driven through vgdb), the
# server on jemalloc (libjemalloc2: harness/perfgate_harness/counted_malloc.py).
# bubblewrap: the sandbox builds, servers and sysbench run in (tested); util-linux: setpriv.
# make, python3: better-sqlite3 (the bot's SQLite store) compiles its native module at npm ci.
# python3-pip: the harness and its tests; python3-venv: Apache Otava's environment of its own.
# binutils: readelf reads the compiler from a server binary's .comment section (results.json).
# patchelf: bench/sleep-variant.sh makes the time-only variants of an installed server.
# fonts-noto-color-emoji: the verdict marks in the pictures scripts/render-pictures.mjs takes.
# bubblewrap: pull-request code runs in a sandbox (cli/src/sandbox.js).
# linux-perf: the explanation step's on- and off-CPU stacks (docs/explain.md); elfutils: eu-stack.
APT_PACKAGES=(sysbench liburing2 procps cmake ninja-build g++ make python3 python3-pip python3-venv git ccache chromium shellcheck util-linux valgrind libjemalloc2 binutils bubblewrap patchelf fonts-noto-color-emoji linux-perf elfutils)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "perfgate setup: apt-get install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The harness and what its tests use (harness/pyproject.toml), installed in place.
if ! python3 -c 'import pymysql, yaml, jsonschema, pytest, scipy, perfgate_harness' 2>/dev/null; then
  echo "perfgate setup: pip install -e harness[test]"
  python3 -m pip install -q -e 'harness[test]'
fi

# The change-point adapter (harness/perfgate_harness/change_points.py) runs Apache Otava, which
# pins numpy and scipy versions other than the harness's: it gets a virtual environment of its
# own with the harness's `changepoints` extra and jsonschema (versions from
# harness/pyproject.toml). The bot runs the adapter with this python and PYTHONPATH=harness.
OTAVA_VENV="${PERFGATE_OTAVA_VENV:-$HOME/.cache/perfgate/tools/otava}"
if ! "$OTAVA_VENV/bin/python" -c 'import otava.analysis, jsonschema' 2>/dev/null; then
  mapfile -t otava_requirements < <(python3 -c '
import tomllib
project = tomllib.load(open("harness/pyproject.toml", "rb"))["project"]
print("\n".join(project["optional-dependencies"]["changepoints"] + [d for d in project["dependencies"] if d.startswith("jsonschema")]))')
  echo "perfgate setup: $OTAVA_VENV: pip install ${otava_requirements[*]}"
  python3 -m venv "$OTAVA_VENV"
  "$OTAVA_VENV/bin/python" -m pip install -q "${otava_requirements[@]}"
fi

# inferno: the explanation step's differential flame graph from the folded stacks of both
# sides (inferno-diff-folded, inferno-flamegraph). A Rust crate: installed where cargo is.
if ! command -v inferno-flamegraph >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/inferno-flamegraph" ]; then
  if command -v cargo >/dev/null 2>&1; then
    echo "perfgate setup: cargo install inferno"
    cargo install --quiet --locked inferno
  else
    echo "perfgate setup: no cargo here: inferno (the flame graphs of docs/explain.md) is not installed; install Rust's cargo and run this again"
  fi
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "perfgate setup: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
