#!/usr/bin/env bash
# Installs the Go tools the tests use into the perfgate cache (nothing system-wide):
#   actionlint  checks the workflow files
# Safe to run again: a tool already there at the wanted version is left alone.
set -euo pipefail
TOOLS=${PERFGATE_CACHE:-$HOME/.cache/perfgate}/tools/bin
ACTIONLINT_VERSION=v1.7.12

mkdir -p "$TOOLS"
if ! "$TOOLS/actionlint" -version 2>/dev/null | grep -q "^${ACTIONLINT_VERSION#v}"; then
  command -v go >/dev/null || { echo "perfgate setup: go is needed to install actionlint (apt-get install golang-go, or the Go toolchain)" >&2; exit 1; }
  echo "perfgate setup: go install actionlint@$ACTIONLINT_VERSION into $TOOLS"
  GOBIN=$TOOLS go install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION"
fi
