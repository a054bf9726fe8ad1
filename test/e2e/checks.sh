# shellcheck shell=bash
# Shared by the slow tiers (test/e2e/run.sh on MariaDB, test/e2e/run-mysql.sh on MySQL): timing,
# the ok/FAIL lines and the readers of a run folder the checks look at. Sourced, not run; the
# caller sets TIER (the prefix of its messages) and OUT (its run folders).

now() { date +%s.%N; }
since() { python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$1" "$(now)"; }
say() { echo "$TIER: $*" >&2; }
failures=0
failed_checks=()
check() { # check <description> <command...>
  local what=$1; shift
  if "$@"; then say "ok   - $what"; else say "FAIL - $what"; failures=$((failures + 1)); failed_checks+=("$what"); fi
}
# The last lines a tier prints: which checks failed, by name, after the summary (a CI log
# often keeps only its tail).
report_failures() {
  local what
  for what in "${failed_checks[@]}"; do say "failed: $what"; done
  say "$failures check(s) failed; run folders in $OUT"
}
# A change passes the check when perfgate says pass or warn (both exit 0): on a noisy shared
# machine an unchanged microbenchmark's interval may reach below the warn limit, never the fail.
passes() { [ "$1" = pass ] || [ "$1" = warn ]; }
# A row that is not a fail, nor a failed measurement: pass, warn or undecided.
not_fail() { [ "$1" = pass ] || [ "$1" = warn ] || [ "$1" = undecided ]; }
verdict_of() { # verdict_of <run folder> <benchmark name or "" for the run> [field, default verdict]
  python3 - "$1" "$2" "${3:-verdict}" <<'PY'
import json, sys
v = json.load(open(f"{sys.argv[1]}/verdict.json"))
if not sys.argv[2]:
    print(v["verdict"])
else:
    print(next((b.get(sys.argv[3]) for b in v["benchmarks"] if b["name"] == sys.argv[2] or b["id"] == sys.argv[2]), "missing"))
PY
}
# The three functions whose instructions per query grew most for one microbenchmark, as the
# pull request comment lists them.
top_grown_in_comment() { # top_grown_in_comment <run folder> <benchmark>
  python3 - "$1/comment.md" "$2" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
start = text.index(f"**{sys.argv[2]}**: instr/o")
rows = [l for l in text[start:].splitlines()[1:] if l.startswith("| `")]
print(" ".join(re.match(r"\| `([^`]*)`", l).group(1).split("(")[0] for l in rows[:3]))
PY
}
bisect_field() { # bisect_field <bisect.json> <python expression over d = bisect.json>
  python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"
}
# The checks of the slow pull request (a spin in every secondary-index update), on either fork:
# the run fails, update-index fails on time or instructions and on instructions, the function
# it spins in is among the three that grew most, point-query's instructions are unchanged.
check_slow_pr() { # check_slow_pr <run folder> <exit code> <function the spin is in>
  local run=$1 code=$2 function=$3 top3
  check "pr-slow: exit 1 (fail), got $code" test "$code" = 1
  check "pr-slow: update-index_range=100 fails" test "$(verdict_of "$run" update-index_range=100)" = fail
  check "pr-slow: update-index_range=100 fails on instructions" \
    test "$(verdict_of "$run" update-index_range=100 instructions_verdict)" = fail
  top3=$(top_grown_in_comment "$run" update-index_range=100)
  check "pr-slow: comment.md names $function among the top three grown functions ($top3)" grep -qw "$function" <<<"$top3"
  check "pr-slow: point-query instructions unchanged (pass)" \
    test "$(verdict_of "$run" point-query instructions_verdict)" = pass
}
