#!/usr/bin/env bash
# Installs what perfgate needs on a Debian/Ubuntu host, as root. Safe to run again: each step
# checks first and does nothing when its part is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

# chromium: report.html is checked in a real headless browser by the tests.
# valgrind: instructions per query are counted under callgrind (callgrind_control, callgrind_annotate).
APT_PACKAGES=(sysbench liburing2 procps cmake ninja-build g++ git ccache chromium valgrind)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "perfgate setup: apt-get install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! python3 -c 'import pymysql, yaml, jsonschema, pytest' 2>/dev/null; then
  echo "perfgate setup: pip install -r harness/requirements.txt"
  python3 -m pip install -q -r harness/requirements.txt
fi

# scipy is the independent implementation the statistics tests check gate's numbers against.
if ! python3 -c 'import scipy' 2>/dev/null; then
  echo "perfgate setup: pip install scipy"
  python3 -m pip install -q 'scipy>=1.10'
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "perfgate setup: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
