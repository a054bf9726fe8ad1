#!/usr/bin/env bash
# Prepares the MySQL fork of the MySQL tier and `make demo-mysql`: Debian unstable's MySQL
# 9.7.2 source (package mysql-9.7=9.7.2-4, Debian's patches applied, packaging left out),
# committed into a scratch git repository as its `base` commit; then the fork's own commits
# on top (test/e2e/make-pr-commits.py mysql). Installs the build dependencies first (as root).
#
# The host runs Debian 12, which has no MySQL: the source comes from the unstable suite through
# a private source list ($PERFGATE_CACHE/mysql/apt), so the host's own package lists are left
# as they are. Files already downloaded are reused. Safe to run again: every step checks first.
# Prints the repository path on stdout; messages go to stderr.
set -euo pipefail
cd "$(dirname "$0")/../.."

PERFGATE_CACHE=${PERFGATE_CACHE:-$HOME/.cache/perfgate}
VERSION=9.7.2-4
UPSTREAM=9.7.2
WORK=$PERFGATE_CACHE/e2e
FORK=$WORK/mysql-fork
APT_DIR=$PERFGATE_CACHE/mysql/apt
DOWNLOAD=$PERFGATE_CACHE/mysql/download
DSC=$DOWNLOAD/mysql-9.7_$VERSION.dsc
# What cmake needs with the mysql recipe of thresholds/build.yml (system libraries instead of
# the bundled ones), and dpkg-dev to unpack the source package.
BUILD_DEPS=(cmake ninja-build g++ bison pkg-config ccache git dpkg-dev libssl-dev zlib1g-dev
            libzstd-dev liblz4-dev libicu-dev libedit-dev libncurses-dev libtirpc-dev
            libprotobuf-dev libprotoc-dev protobuf-compiler)

say() { echo "fetch-mysql-source: $*" >&2; }
# shellcheck source=test/e2e/fork-common.sh
. test/e2e/fork-common.sh

install_missing "$WORK/apt.log" "${BUILD_DEPS[@]}"

if ! git -C "$FORK" rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
  if [ ! -f "$DSC" ] || [ ! -f "$DOWNLOAD/mysql-9.7_$UPSTREAM.orig.tar.gz" ]; then
    fetch_private_source sid "mysql-9.7=$VERSION" "$APT_DIR" "$DOWNLOAD"
  fi
  say "unpacking $(basename "$DSC") and committing it into $FORK (tag: base); git add of ~60,000 files takes minutes"
  rm -rf "$FORK.tmp"
  mkdir -p "$WORK"
  dpkg-source --no-copy -x "$DSC" "$FORK.tmp" > "$WORK/dpkg-source.log" 2>&1 \
    || { tail -n 20 "$WORK/dpkg-source.log" >&2; say "dpkg-source -x failed (log: $WORK/dpkg-source.log)"; exit 1; }
  commit_base "$FORK.tmp" "$FORK" "MySQL $UPSTREAM (Debian mysql-9.7 $VERSION)"
fi
python3 test/e2e/make-pr-commits.py mysql "$FORK"
echo "$FORK"
