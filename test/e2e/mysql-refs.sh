#!/usr/bin/env bash
# The refs of the MySQL test fork whose builds the MySQL tier uses: the compared ends and every
# commit a bisection of base..bisect-tip may visit. `make build-mysql` builds them,
# test/e2e/run-mysql.sh refuses to run without them. Usage: mysql-refs.sh <fork>.
set -euo pipefail
echo base pr-comment pr-slow
git -C "$1" rev-list --reverse base..bisect-tip
