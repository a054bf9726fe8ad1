#!/usr/bin/env bash
# Unpacks MariaDB 11.8.9 from Debian 13 (trixie) into a prefix perfgate measures like the 10.11
# ones of fetch-servers.sh:
#   $PERFGATE_CACHE/servers/mariadb-11.8.9/usr
# Debian's source package of 11.8.9 is listed but its tarball is not served here, so this is
# Debian's own binary build: mariadb-server-core and mariadb-client-core, run with trixie's own
# libraries (glibc 2.41, libstdc++ 14, OpenSSL 3.5, ...) unpacked into the same prefix, since
# the host (Debian 12, glibc 2.36) cannot load them. Each executable is patched (patchelf) to
# load them: its ELF interpreter is the prefix's own ld-linux-x86-64.so.2 and its RPATH the
# prefix's library folder, so the binary runs as itself, under valgrind too (a shell wrapper
# that exec'd the loader would leave valgrind measuring the shell), and nothing in the prefix
# points outside it (the sandbox shows a run only the prefixes it measures). The interpreter
# is an absolute path: a copy of the prefix elsewhere still loads this one's libraries.
#
# The packages come through a private source list ($PERFGATE_CACHE/trixie/apt): the host's
# package lists, apt cache and dpkg state are left as they are. Unpacks into a temporary
# folder and moves the checked prefix into place last; does nothing when the prefix is there
# and its server runs. Progress on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=${PERFGATE_CACHE:-$HOME/.cache/perfgate}
VERSION=1:11.8.9+ds-0+deb13u1
DEST=$CACHE/servers/mariadb-11.8.9
APT_DIR=$CACHE/trixie/apt
SERVER_PACKAGES=(mariadb-server-core mariadb-client-core)
# What the executables of those two packages load (found with trixie's loader: `--list` below
# fails the fetch if one is missing), at trixie's current versions. libcap2 and libzstd1 are
# loaded by libsystemd0 and libcrypto.
RUNTIME_PACKAGES=(libc6 libstdc++6 libgcc-s1 libssl3t64 libpcre2-8-0 liburing2 libaio1t64 zlib1g
                  libzstd1 libcrypt1 libnuma1 libsystemd0 libcap2 libedit2 libbsd0 libmd0
                  libncurses6 libtinfo6)
LIBDIR=usr/lib/x86_64-linux-gnu
LOADER=$LIBDIR/ld-linux-x86-64.so.2

say() { echo "fetch-server-trixie: $*" >&2; }
# shellcheck source=scripts/debian-apt.sh
. scripts/debian-apt.sh

if [ -x "$DEST/usr/sbin/mariadbd" ] && "$DEST/usr/sbin/mariadbd" --no-defaults --version 2>/dev/null | grep -q 'Ver 11\.8\.9-MariaDB'; then
  exit 0
fi
install_missing "$CACHE/trixie/apt-install.log" patchelf

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
fetch_private_binaries trixie "$APT_DIR" "$work/debs" "${SERVER_PACKAGES[@]/%/=$VERSION}" "${RUNTIME_PACKAGES[@]}"
root=$work/root
mkdir -p "$root"
for deb in "$work"/debs/*.deb; do dpkg -x "$deb" "$root"; done
# What the prefix was made of, one "package version" a line, beside it (outside usr/).
# shellcheck disable=SC2016 # ${Package} is dpkg-deb's field, not the shell's
for deb in "$work"/debs/*.deb; do dpkg-deb --showformat='${Package} ${Version}\n' -W "$deb"; done | sort > "$root/debian-packages.txt"

mapfile -t executables < <(cd "$root" && for f in usr/sbin/* usr/bin/*; do
  [ -f "$f" ] && [ "$(head -c 4 "$f")" = $'\x7fELF' ] && echo "$f"; done)
((${#executables[@]})) || { say "no executable in ${SERVER_PACKAGES[*]}"; exit 1; }

# Every library an executable loads must come from the prefix: `--list` names each one and
# where it was found (a host library, or "not found", means a package is missing above).
for exe in "${executables[@]}"; do
  patchelf --force-rpath --set-rpath "\$ORIGIN/../lib/x86_64-linux-gnu" "$root/$exe"
  outside=$("$root/$LOADER" --list "$root/$exe" | grep -v -e "=> $root/" -e 'linux-vdso' -e "^[[:space:]]*$root/" || true)
  [ -z "$outside" ] || { say "$exe loads libraries from outside the prefix: $outside"; exit 1; }
done
if found=$(find "$root" -type l -lname '/*' -print -quit) && [ -n "$found" ]; then
  say "$found is a symlink to an absolute path, outside the prefix"; exit 1
fi

# The interpreter last: it names the prefix where it will be, not the temporary folder.
for exe in "${executables[@]}"; do patchelf --set-interpreter "$DEST/$LOADER" "$root/$exe"; done
mkdir -p "$CACHE/servers"
rm -rf "$DEST.partial" && mv "$root" "$DEST.partial" && rm -rf "$DEST" && mv "$DEST.partial" "$DEST"
version=$("$DEST/usr/sbin/mariadbd" --no-defaults --version 2>&1) || true
if [[ $version != *"Ver 11.8.9-MariaDB"* ]]; then
  rm -rf "$DEST"; say "the unpacked mariadbd does not run: $version"; exit 1
fi
say "MariaDB 11.8.9 (Debian $VERSION) in $DEST/usr"
