#!/usr/bin/env bash
# Fetches the MySQL test fork (test/e2e/fetch-mysql-source.sh) and builds every ref the MySQL
# tier uses with `perfgate build --flavor mysql`, at nice 19 unless PERFGATE_BUILD_NICE says
# otherwise. The first build is cold (about an hour on two cores); the others change a file or
# two and reuse the build tree and ccache. Each build's record goes to $MYSQL_BUILDS_OUT
# (default runs/mysql-builds)/<ref>.json: commit, prefix, cache (hit, warm or cold), seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PERFGATE_CACHE=${PERFGATE_CACHE:-$HOME/.cache/perfgate}
export PERFGATE_BUILD_NICE=${PERFGATE_BUILD_NICE:-19}
OUT=${MYSQL_BUILDS_OUT:-$PWD/runs/mysql-builds}
FORK=$(bash test/e2e/fetch-mysql-source.sh)
mkdir -p "$OUT"
for ref in $(bash test/e2e/mysql-refs.sh "$FORK"); do
  name=$(git -C "$FORK" describe --all --exact-match "$ref" 2>/dev/null | sed 's|^heads/||; s|^tags/||' || echo "$ref")
  echo "build-mysql: $name" >&2
  node cli/bin/perfgate.js build --source "$FORK" --flavor mysql --ref "$ref" --json > "$OUT/${name//\//-}.json"
done
