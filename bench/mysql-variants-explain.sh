#!/usr/bin/env bash
# The explanation step on seeded regressions of MySQL 9.7 (bench/mysql_variants.py): builds each
# variant of the MySQL test fork (make build-mysql builds base first), then compares base against
# it on the rows it must slow and one it must leave alone, the explanation step on whatever is
# not a plain pass. Prints each run's table and cause lines; run folders under $OUT.
#   bash bench/mysql-variants-explain.sh [variant ...]
set -euo pipefail
cd "$(dirname "$0")/.."
export PERFGATE_CACHE=${PERFGATE_CACHE:-$HOME/.cache/perfgate}
OUT=${OUT:-runs/mysql-variants}
FORK=$(bash test/e2e/fetch-mysql-source.sh)
mkdir -p "$OUT"
declare -A TESTS=(
  [fsync-commit]="update-index_range=100,point-query"
  [lock-sleep]="point-query,insert_range=100"
  [leak-statement]="point-query,scan_range=100"
  [default-sort-buffer]="read-only_range=10000,point-query"
)
prefix() { node cli/bin/perfgate.js build --source "$FORK" --flavor mysql --ref "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["prefix"])'; }
BASE=$(prefix base)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(fsync-commit lock-sleep leak-statement default-sort-buffer)
for name in "${names[@]}"; do
  tag=$(cd bench && python3 mysql_variants.py "$FORK" "$name" | awk '{print $2}')
  head=$(prefix "$tag")
  echo "## $name ($tag): base against it, --tests ${TESTS[$name]}, $(date -u +%H:%M) UTC"
  code=0
  flock /tmp/perfgate-measure.lock node cli/bin/perfgate.js compare --base "$BASE" --head "$head" --suite quick \
    --tests "${TESTS[$name]}" --metric time --explain auto --out "$OUT/$name" > "$OUT/$name.stdout" 2> "$OUT/$name.stderr" || code=$?
  grep -E "^perfgate compare: where|^[a-z].*(pass|warn|fail|undecided|error)$|cause:|server variables|memory growth" "$OUT/$name.stdout" "$OUT/$name.stderr" | sed 's/^[^:]*: *//' || true
  echo "exit $code"
done
