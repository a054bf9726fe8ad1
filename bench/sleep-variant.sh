#!/usr/bin/env bash
# A time-only variant of an installed server, without a source build: a copy of the prefix
# whose server binary also loads a small library that sleeps on one call in K of pwrite()
# (the redo log and page writes: the write path; a point query writes nothing). The server
# runs the same instructions, bar a counter per pwrite: what changes is time only, the case a
# gate must judge on time alone (a lock wait, a slow device).
#   bench/sleep-variant.sh <prefix> <out prefix> <K> <microseconds>
#   e.g. bench/sleep-variant.sh ~/.cache/perfgate/servers/mariadb-10.11.18/usr runs/sleep-50x20 20 50
# Needs gcc and patchelf. The sizes are aims: measure what a variant really changes.
set -euo pipefail
if [ $# -ne 4 ]; then
  echo "usage: $0 <prefix> <out prefix> <K: sleep on one pwrite in K> <microseconds>" >&2; exit 2
fi
prefix=$1 out=$2 every=$3 micros=$4
[[ $every =~ ^[1-9][0-9]*$ ]] || { echo "$0: K: '$every' is not a whole number ≥ 1" >&2; exit 2; }
[[ $micros =~ ^[1-9][0-9]*$ ]] || { echo "$0: microseconds: '$micros' is not a whole number ≥ 1" >&2; exit 2; }
binary=
for candidate in sbin/mariadbd sbin/mysqld bin/mysqld; do
  if [ -x "$prefix/$candidate" ] && [ ! -L "$prefix/$candidate" ]; then binary=$candidate; break; fi
done
[ -n "$binary" ] || { echo "$0: $prefix: no server binary (sbin/mariadbd, sbin/mysqld or bin/mysqld)" >&2; exit 2; }
for tool in gcc patchelf; do
  command -v "$tool" >/dev/null || { echo "$0: $tool is not installed (apt-get install $tool)" >&2; exit 2; }
done
[ ! -e "$out" ] || { echo "$0: $out exists; expected a new path" >&2; exit 2; }

tmp=$(mktemp -d "${out%/}.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -a "$prefix/." "$tmp/"
mkdir -p "$tmp/lib/perfgate-sleep"
cat > "$tmp/lib/perfgate-sleep/sleep.c" <<C
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static atomic_ulong calls;

static void maybe_sleep(void) {
  if (atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed) % ${every}UL == 0) {
    struct timespec wait = { 0, ${micros}L * 1000L };
    nanosleep(&wait, 0);
  }
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t offset) {
  static ssize_t (*real)(int, const void *, size_t, off_t);
  if (!real) real = (ssize_t (*)(int, const void *, size_t, off_t)) dlsym(RTLD_NEXT, "pwrite");
  maybe_sleep();
  return real(fd, buf, n, offset);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t offset) {
  static ssize_t (*real)(int, const void *, size_t, off64_t);
  if (!real) real = (ssize_t (*)(int, const void *, size_t, off64_t)) dlsym(RTLD_NEXT, "pwrite64");
  maybe_sleep();
  return real(fd, buf, n, offset);
}
C
gcc -O2 -shared -fPIC -o "$tmp/lib/perfgate-sleep/libperfgate-sleep.so" "$tmp/lib/perfgate-sleep/sleep.c" -ldl
# The library is named by its absolute path, so it is added once the copy is where it stays.
mv "$tmp" "$out"
trap 'rm -rf "$out"' EXIT
patchelf --add-needed "$(cd "$out" && pwd)/lib/perfgate-sleep/libperfgate-sleep.so" "$out/$binary"
trap - EXIT
echo "$out: $binary sleeps ${micros} µs on one pwrite in ${every}"
