#!/usr/bin/env bash
# Prepares MariaDB 11.8.9 for the chain of releases (make chain): Debian 13's source package
# (mariadb 1:11.8.9+ds-0+deb13u1, Debian's patches applied, packaging left out), committed into
# a scratch git repository as its `base` commit, which `perfgate build --flavor mariadb` turns
# into a prefix. Installs the build dependencies first (as root).
#
# The host runs Debian 12: the source comes from the trixie suite through a private source list
# ($PERFGATE_CACHE/mariadb-11.8/apt), so the host's own package lists are left as they are.
# Safe to run again: every step checks first. Prints the repository path on stdout.
set -euo pipefail
cd "$(dirname "$0")/../.."

PERFGATE_CACHE=${PERFGATE_CACHE:-$HOME/.cache/perfgate}
VERSION=1:11.8.9+ds-0+deb13u1
DSC_VERSION=11.8.9+ds-0+deb13u1
UPSTREAM=11.8.9
WORK=$PERFGATE_CACHE/e2e
FORK=$WORK/mariadb-11.8
APT_DIR=$PERFGATE_CACHE/mariadb-11.8/apt
DOWNLOAD=$PERFGATE_CACHE/mariadb-11.8/download
DSC=$DOWNLOAD/mariadb_$DSC_VERSION.dsc
BUILD_DEPS=(cmake ninja-build bison libncurses-dev libssl-dev zlib1g-dev libpcre2-dev
            liburing-dev libaio-dev libfmt-dev ccache dpkg-dev git)

say() { echo "fetch-mariadb-11.8-source: $*" >&2; }
# shellcheck source=test/e2e/fork-common.sh
. test/e2e/fork-common.sh

install_missing "$WORK/apt.log" "${BUILD_DEPS[@]}"

if ! git -C "$FORK" rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
  [ -f "$DSC" ] || fetch_private_source trixie "mariadb=$VERSION" "$APT_DIR" "$DOWNLOAD"
  say "unpacking $(basename "$DSC") and committing it into $FORK (tag: base)"
  rm -rf "$FORK.tmp"
  mkdir -p "$WORK"
  dpkg-source --no-copy -x "$DSC" "$FORK.tmp" > "$WORK/dpkg-source-11.8.log" 2>&1 \
    || { tail -n 20 "$WORK/dpkg-source-11.8.log" >&2; say "dpkg-source -x failed (log: $WORK/dpkg-source-11.8.log)"; exit 1; }
  commit_base "$FORK.tmp" "$FORK" "MariaDB $UPSTREAM (Debian $VERSION)"
fi
echo "$FORK"
