#!/usr/bin/env bash
# MySQL tier: perfgate on real MySQL 9.7 servers built from the test fork
# (test/e2e/fetch-mysql-source.sh: Debian's MySQL 9.7.2 source as `base`, commits on top).
#
#   lifecycle   the integration tests that start, crash, cancel and starve real servers
#               (test_run_quick, test_faults, test_cancel, test_full_disk) on base and
#               pr-comment, with the MySQL profile (binary log off); and test_shapes: every
#               microbenchmark of the catalogue sends the SQL its name promises, on mysqld
#   full        the full suite (42 microbenchmarks) base against itself at a tiny scale, time
#               only: every row measured and judged, none an error
#   pr-comment  changes only a comment                  -> compare passes (exit 0)
#   pr-slow     spins in every secondary-index update   -> compare fails (exit 1): update-index
#               fails on instructions, with row_upd_sec_index_entry_low among the three
#               functions that grew most; point-query's instructions pass
#   A/A         base against itself                     -> no fail
#   AHI         the pull-request AHI slice (ahi-quick: point selects alone and with 2% indexed
#               updates, AHI off and on) on base and pr-comment: every cell measured with the
#               setting it names (MySQL turned the AHI off by default in 8.4), the AHI counters
#               moving only with it on
#   bisect-tip  six commits on base, one of which adds work to every secondary-index update
#               (tagged bisect-slow) -> perfgate bisect --good base --bad bisect-tip names it
#
# It builds nothing: a cold MySQL build takes about an hour on two cores, so the builds come
# from `make build-mysql` (cached under $PERFGATE_CACHE), and a missing one fails the tier with
# that instruction. Run folders and timings go to $MYSQL_OUT (default runs/mysql).
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
export PERFGATE_CACHE=${PERFGATE_CACHE:-$HOME/.cache/perfgate}
OUT=${MYSQL_OUT:-$REPO/runs/mysql}
FORK=$PERFGATE_CACHE/e2e/mysql-fork
PERFGATE=(node "$REPO/cli/bin/perfgate.js")
# Small scale: two microbenchmarks of the e2e suite, the one the slow commit spins in and one
# it does not touch (about 3.5 minutes each per comparison, most of it under callgrind).
SCALE=(--thresholds "$REPO/test/e2e/thresholds" --suite e2e --tests "point-query,update-index_range=100")
TIER=test-mysql
# shellcheck source=test/e2e/checks.sh
. test/e2e/checks.sh

cached_prefix() { # cached_prefix <ref>: the installed prefix of its MySQL build, or nothing
  node -e '
const path = require("node:path");
const fs = require("node:fs");
const core = require(process.argv[1]);
const [cache, commit] = process.argv.slice(2);
const recipe = core.loadRecipe({ thresholdsDir: core.SHIPPED_THRESHOLDS_DIR, buildConfigs: [], flavor: "mysql", cacheDir: cache });
const prefix = path.join(cache, "builds", core.cacheKey(commit, recipe.flagsHash), "prefix");
if (fs.existsSync(path.join(prefix, "bin", "mysqld")) && fs.existsSync(path.join(prefix, "..", "build.json"))) console.log(prefix);
' "$REPO/core" "$PERFGATE_CACHE" "$(git -C "$FORK" rev-parse "$1^{commit}")"
}

HOW_TO_BUILD="run \`make build-mysql\` first (it fetches the fork and builds it: about an hour cold on two cores, minutes once cached)"
if ! git -C "$FORK" rev-parse -q --verify refs/heads/bisect-tip >/dev/null 2>&1; then
  say "FAIL - no MySQL test fork at $FORK: $HOW_TO_BUILD"
  exit 1
fi
missing=()
for ref in $(bash test/e2e/mysql-refs.sh "$FORK"); do
  [ -n "$(cached_prefix "$ref")" ] || missing+=("$ref")
done
if ((${#missing[@]})); then
  say "FAIL - no MySQL build in $PERFGATE_CACHE/builds of: ${missing[*]}; $HOW_TO_BUILD"
  exit 1
fi
BASE_PREFIX=$(cached_prefix base)
COMMENT_PREFIX=$(cached_prefix pr-comment)

rm -rf "$OUT"
mkdir -p "$OUT"

say "checking the MySQL regression variants' anchors in the fork (bench/mysql_variants.py)"
PERFGATE_E2E_FAMILY=mysql PERFGATE_E2E_FORK="$FORK" python3 -m pytest -q test/e2e/test_variant_anchors.py
T_START=$(now)

say "lifecycle: the integration tests on mysqld $("$BASE_PREFIX/bin/mysqld" --no-defaults --version | sed 's/.* Ver //')"
T=$(now)
CODE_LIFECYCLE=0
PERFGATE_FLAVOR=mysql PERFGATE_BASE=$BASE_PREFIX PERFGATE_HEAD=$COMMENT_PREFIX \
  python3 -m pytest -q test/integration/test_run_quick.py test/integration/test_faults.py \
  test/integration/test_cancel.py test/integration/test_full_disk.py test/integration/test_shapes.py \
  > "$OUT/lifecycle.log" 2>&1 || CODE_LIFECYCLE=$?
T_LIFECYCLE=$(since "$T")
check "lifecycle: initialise, start, crash, cancel, full disk, every shape on real mysqld ($(tail -n 1 "$OUT/lifecycle.log"); log: $OUT/lifecycle.log)" \
  test "$CODE_LIFECYCLE" = 0

say "full: the 42 microbenchmarks of the full suite, base against itself, tiny scale, time only"
T=$(now); CODE_FULL=0
"${PERFGATE[@]}" compare --base "$BASE_PREFIX" --head "$BASE_PREFIX" --suite full --metric time --threads 1 \
  --tables 2 --rows 1000 --seconds 1 --warmup-seconds 0 --rounds 2 \
  --out "$OUT/full" > "$OUT/full.stdout" 2> >(tee "$OUT/full.stderr" >&2) || CODE_FULL=$?
T_FULL=$(since "$T")
check "full: an answer (exit 0, 1 or 3), got $CODE_FULL" test "$CODE_FULL" = 0 -o "$CODE_FULL" = 1 -o "$CODE_FULL" = 3
check "full: all 42 microbenchmarks measured on mysqld, none an error" python3 - "$OUT/full/verdict.json" <<'PY'
import json, sys
verdict = json.load(open(sys.argv[1]))
rows = verdict["benchmarks"]
assert len(rows) == 42, len(rows)
errors = [(r["id"], r["reason"]) for r in rows if r["verdict"] == "error"]
assert not errors, errors
assert verdict["run"]["sides"]["base"]["flavor"] == "mysql", verdict["run"]["sides"]["base"]
PY

compare() { # compare <base ref> <head ref> <run name> -> exit code
  local code=0
  "${PERFGATE[@]}" compare --source "$FORK" --flavor mysql --base "$1" --head "$2" "${SCALE[@]}" --out "$OUT/$3" \
    > "$OUT/$3.stdout" 2> >(tee "$OUT/$3.stderr" >&2) || code=$?
  echo "$code"
}

T=$(now); CODE_COMMENT=$(compare base pr-comment pr-comment); T_COMMENT=$(since "$T")
check "pr-comment: exit 0 (pass), got $CODE_COMMENT" test "$CODE_COMMENT" = 0
check "pr-comment: update-index_range=100 instructions unchanged (pass)" \
  test "$(verdict_of "$OUT/pr-comment" update-index_range=100 instructions_verdict)" = pass
check "pr-comment: both sides ran with the mysql profile" \
  grep -q 'Server options (profile mysql):' "$OUT/pr-comment/comment.md"

T=$(now); CODE_SLOW=$(compare base pr-slow pr-slow); T_SLOW=$(since "$T")
check_slow_pr "$OUT/pr-slow" "$CODE_SLOW" row_upd_sec_index_entry_low

T=$(now); CODE_AA=$(compare base base aa); T_AA=$(since "$T")
check "A/A: exit 0 (no fail), got $CODE_AA" test "$CODE_AA" = 0
for name in point-query update-index_range=100; do
  check "A/A: $name is not a fail" passes "$(verdict_of "$OUT/aa" "$name")"
done

say "AHI: the ahi-quick suite, AHI off and on"
T=$(now); CODE_AHI=0
"${PERFGATE[@]}" compare --source "$FORK" --flavor mysql --base base --head pr-comment --suite ahi-quick \
  --out "$OUT/ahi" > "$OUT/ahi.stdout" 2> >(tee "$OUT/ahi.stderr" >&2) || CODE_AHI=$?
T_AHI=$(since "$T")
check "AHI: an answer (exit 0, 1 or 3), got $CODE_AHI" test "$CODE_AHI" = 0 -o "$CODE_AHI" = 1 -o "$CODE_AHI" = 3
check "AHI: every cell measured, AHI off and on, its counters moving only with it on" python3 - "$OUT/ahi/results.json" <<'PY'
import json, sys
cells = json.load(open(sys.argv[1]))["benchmarks"]
assert sorted({c["ahi"] for c in cells}) == ["off", "on"], [c["id"] for c in cells]
for c in cells:
    assert c["status"] == "ok", (c["id"], c["status"])
    for side in ("base", "head"):
        searches = c["ahi_counters"][side].get("adaptive_hash_searches", 0)
        assert (searches > 0) == (c["ahi"] == "on"), (c["id"], side, searches)
PY

say "bisect: base .. bisect-tip (six commits, one slow)"
T=$(now)
CODE_BISECT=0
"${PERFGATE[@]}" bisect --source "$FORK" --flavor mysql --good base --bad bisect-tip \
  --thresholds "$REPO/test/e2e/thresholds" --suite e2e --tests update-index_range=100 \
  --out "$OUT/bisect" > "$OUT/bisect.stdout" 2> >(tee "$OUT/bisect.stderr" >&2) || CODE_BISECT=$?
T_BISECT=$(since "$T")
SLOW=$(git -C "$FORK" rev-parse bisect-slow)
BISECT_JSON=$OUT/bisect/bisect.json
check "bisect: exit 0 (culprit named), got $CODE_BISECT" test "$CODE_BISECT" = 0
check "bisect: the culprit is the slow commit $SLOW" test "$(bisect_field "$BISECT_JSON" 'd["culprit"]["commit"]')" = "$SLOW"
check "bisect: prints the culprit last" test "$(tail -n 1 "$OUT/bisect.stdout")" = "culprit: $SLOW"
check "bisect: the culprit fails on instructions against its parent" \
  test "$(bisect_field "$BISECT_JSON" 'd["culprit"]["measurements"][0]["instructions_verdict"]')" = fail
CULPRIT_TOP=$(bisect_field "$BISECT_JSON" 'd["culprit"]["measurements"][0]["grown"][0]["name"]')
check "bisect: row_upd_sec_index_entry_low grew most in the culprit ($CULPRIT_TOP)" grep -q '^row_upd_sec_index_entry_low' <<<"$CULPRIT_TOP"

TOTAL=$(since "$T_START")
python3 - "$OUT" <<PY
import json, sys
out = sys.argv[1]
summary = {
    "seconds": {"lifecycle": $T_LIFECYCLE, "full": $T_FULL, "pr-comment": $T_COMMENT, "pr-slow": $T_SLOW, "aa": $T_AA, "ahi": $T_AHI, "bisect": $T_BISECT, "total": $TOTAL},
    "exit_codes": {"lifecycle": $CODE_LIFECYCLE, "full": $CODE_FULL, "pr-comment": $CODE_COMMENT, "pr-slow": $CODE_SLOW, "aa": $CODE_AA, "ahi": $CODE_AHI, "bisect": $CODE_BISECT},
    "failures": $failures,
}
json.dump(summary, open(f"{out}/mysql-summary.json", "w"), indent=2)
print(json.dumps(summary, indent=2))
PY
if ((failures)); then report_failures; exit 1; fi
say "all checks passed in ${TOTAL}s; run folders in $OUT"
