#!/usr/bin/env bash
# Unpacks the two real MariaDB builds perfgate's demo and integration tests compare
# (Debian's 10.11.18 as base, 10.11.19 as head) into the cache, without installing a service.
# Prints nothing but progress on stderr; the basedirs are
#   $PERFGATE_CACHE/servers/mariadb-<version>/usr
set -euo pipefail
CACHE=${PERFGATE_CACHE:-$HOME/.cache/perfgate}
VERSIONS=(10.11.18 10.11.19)
CLIENT_VERSION=${PERFGATE_CLIENT_VERSION:-}

for v in "${VERSIONS[@]}"; do
  dest="$CACHE/servers/mariadb-$v"
  [ -x "$dest/usr/sbin/mariadbd" ] && [ -x "$dest/usr/bin/my_print_defaults" ] && continue
  echo "perfgate setup: fetching MariaDB $v into $dest" >&2
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  ( cd "$work" && chmod 777 . &&
    apt-get download -qq "mariadb-server-core=1:$v-0+deb12u1" "mariadb-client-core${CLIENT_VERSION:+=$CLIENT_VERSION}" 2>/dev/null ) || {
    apt-get update -qq
    ( cd "$work" && apt-get download -qq "mariadb-server-core=1:$v-0+deb12u1" "mariadb-client-core${CLIENT_VERSION:+=$CLIENT_VERSION}" )
  }
  # Unpack into a temporary folder and move it into place last, so that an interrupted
  # fetch never leaves a half-unpacked server behind.
  mkdir -p "$work/root"
  for deb in "$work"/*.deb; do dpkg -x "$deb" "$work/root"; done
  mkdir -p "$CACHE/servers"
  rm -rf "$dest.partial" && mv "$work/root" "$dest.partial" && rm -rf "$dest" && mv "$dest.partial" "$dest"
  rm -rf "$work"; trap - EXIT
done
