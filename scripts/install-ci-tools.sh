#!/usr/bin/env bash
# Installs the tools that run and lint this repository's workflows on the host: act (runs the
# workflow files with no Docker) and actionlint, and go-tpc, the client of the TPC-C suite
# (harness/perfgate_harness/tpcc_workload.py looks for it on PATH, then here). All are Go
# programs built from the Go module proxy into ${PERFGATE_CACHE:-$HOME/.cache/perfgate}/tools/bin, never into system folders.
# Safe to run again: a tool already at its pinned version is left alone.
set -euo pipefail

ACT_VERSION=v0.2.89
ACTIONLINT_VERSION=v1.7.12
GO_TPC_VERSION=v1.0.7  # tpcc_workload.py's VERSION

TOOLS_BIN="${PERFGATE_CACHE:-$HOME/.cache/perfgate}/tools/bin"

# act v0.2.89 and actionlint v1.7.12 need Go 1.25 or newer (Debian 12's golang-go is 1.19).
GO_MINIMUM=1.25
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  PATH="/usr/local/go/bin:$PATH"
fi
if ! command -v go >/dev/null 2>&1; then
  echo "perfgate setup: 'go' is not on PATH; install Go $GO_MINIMUM or newer from go.dev into /usr/local/go" >&2
  exit 1
fi
go_version="$(go env GOVERSION | sed 's/^go//')"
if [ "$(printf '%s\n%s\n' "$GO_MINIMUM" "$go_version" | sort -V | head -n1)" != "$GO_MINIMUM" ]; then
  echo "perfgate setup: go $go_version is too old; act $ACT_VERSION needs Go $GO_MINIMUM or newer" >&2
  exit 1
fi

# The version a Go binary was built from is in its build information: `go version -m` reads it
# without running the program, whatever the program itself prints as its version.
installed_version() {
  local binary="$1"
  [ -x "$binary" ] || return 0
  go version -m "$binary" 2>/dev/null | awk '$1 == "mod" { print $3; exit }'
}

install_tool() {
  local name="$1" package="$2" version="$3"
  if [ "$(installed_version "$TOOLS_BIN/$name")" = "$version" ]; then
    return 0
  fi
  echo "perfgate setup: go install $package@$version into $TOOLS_BIN"
  mkdir -p "$TOOLS_BIN"
  # go lists every module it downloads; show that only when the install fails.
  local log
  log="$(mktemp)"
  if ! GOBIN="$TOOLS_BIN" GOFLAGS=-buildvcs=false go install "$package@$version" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "perfgate setup: go install $package@$version failed (output above)" >&2
    return 1
  fi
  rm -f "$log"
}

install_tool act github.com/nektos/act "$ACT_VERSION"
install_tool actionlint github.com/rhysd/actionlint/cmd/actionlint "$ACTIONLINT_VERSION"
install_tool go-tpc github.com/pingcap/go-tpc/cmd/go-tpc "$GO_TPC_VERSION"
