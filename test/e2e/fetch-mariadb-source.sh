#!/usr/bin/env bash
# Prepares the fork that the end-to-end test builds: Debian's MariaDB 10.11.18 source, committed
# into a scratch git repository as its base commit. Installs the build dependencies and a
# deb-src entry first (as root). Safe to run again: every step checks first, and the base
# commit has fixed author, committer and dates, so it gets the same SHA on every machine and
# a rebuilt repository still hits the build cache.
# Prints the repository path on stdout; messages go to stderr.
set -euo pipefail

PERFGATE_CACHE=${PERFGATE_CACHE:-$HOME/.cache/perfgate}
VERSION=1:10.11.18-0+deb12u1
UPSTREAM=10.11.18
WORK=$PERFGATE_CACHE/e2e
FORK=$WORK/mariadb-fork
BUILD_DEPS=(cmake ninja-build bison libncurses-dev libssl-dev zlib1g-dev libpcre2-dev
            liburing-dev libaio-dev libfmt-dev ccache dpkg-dev git)

say() { echo "fetch-mariadb-source: $*" >&2; }
# shellcheck source=test/e2e/fork-common.sh
. "$(dirname "$0")/fork-common.sh"

install_missing "$WORK/apt.log" "${BUILD_DEPS[@]}"

# apt-get source needs a deb-src entry; add one mirroring the host's own Debian entry so the
# source matches the archive the binaries came from.
DEB_SRC=/etc/apt/sources.list.d/perfgate-deb-src.sources
if [ ! -f "$DEB_SRC" ] && ! grep -rqs '^Types:.*deb-src\|^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  entry=$(ls /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1 || true)
  [ -n "$entry" ] || { say "no /etc/apt/sources.list.d/*.sources entry to copy as deb-src"; exit 1; }
  say "adding $DEB_SRC (deb-src copy of $entry)"
  sed 's/^Types:.*/Types: deb-src/' "$entry" > "$DEB_SRC.tmp" && mv "$DEB_SRC.tmp" "$DEB_SRC"
  apt-get update -qq > /dev/null
fi

mkdir -p "$WORK"
SRC=$WORK/mariadb-$UPSTREAM
if [ ! -f "$SRC/.perfgate-unpacked" ]; then
  say "apt-get source mariadb=$VERSION into $WORK"
  rm -rf "$SRC" "$WORK/download"
  mkdir -p "$WORK/download"
  (cd "$WORK/download" && apt-get source -qq "mariadb=$VERSION" > "$WORK/apt-source.log" 2>&1) \
    || { tail -n 20 "$WORK/apt-source.log" >&2; say "apt-get source failed (log: $WORK/apt-source.log)"; exit 1; }
  mv "$WORK/download/mariadb-$UPSTREAM" "$SRC"
  rm -rf "$WORK/download"
  touch "$SRC/.perfgate-unpacked"
fi

if ! git -C "$FORK" rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
  say "committing the source into $FORK (tag: base)"
  rm -rf "$FORK.tmp"
  mkdir -p "$FORK.tmp"
  # Copy without the Debian packaging and quilt state: the fork is the server source tree.
  tar -C "$SRC" --exclude=./.pc --exclude=./debian --exclude=./.perfgate-unpacked -cf - . | tar -C "$FORK.tmp" -xf -
  commit_base "$FORK.tmp" "$FORK" "MariaDB $UPSTREAM (Debian $VERSION)"
fi
echo "$FORK"
