#!/usr/bin/env bash
# A/A noise of this machine: the same server on both sides of the quick suite, at its default
# scale and timing, with ROUNDS rounds per side, holding the measuring lock for the whole run.
# Prints the table the README shows.   usage: bench/noise.sh <basedir> [rounds] [out-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
basedir=${1:?usage: bench/noise.sh <basedir> [rounds] [out-dir]}
rounds=${2:-8}
out=${3:-runs/noise}
mkdir -p "$out"
node bench/noise-plan.js "$basedir" "$rounds" "$out/plan.json"
flock /tmp/perfgate-measure.lock env PYTHONPATH=harness \
  python3 -m perfgate_harness run --plan "$out/plan.json" --out "$out" > "$out/progress.jsonl"
PYTHONPATH=harness python3 -m perfgate_harness.noise "$out/results.json"
