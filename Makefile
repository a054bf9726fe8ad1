# perfgate: `make demo` measures MariaDB 10.11.18 (base) against 10.11.19 (head) on this
# machine; `make demo-mysql` builds two commits of a MySQL 9.7 fork and measures them;
# `make test` runs every test tier that needs no source build. All install what they need
# first and can be run again.
SHELL := /bin/bash
PERFGATE_CACHE ?= $(HOME)/.cache/perfgate
export PERFGATE_CACHE
SERVERS := $(PERFGATE_CACHE)/servers
BASE ?= $(SERVERS)/mariadb-10.11.18/usr
HEAD ?= $(SERVERS)/mariadb-10.11.19/usr
DEMO_OUT ?= runs/demo
PERFGATE := node cli/bin/perfgate.js

DEMO_MYSQL_OUT ?= runs/demo-mysql
DEMO_MYSQL_TESTS ?= point-query,update-index_range=100,update-nonindex_range=100

.PHONY: setup demo demo-mysql build-mysql test test-unit test-integration test-slow test-act test-e2e test-mysql fetch-11.8 test-11.8

setup:
	@bash scripts/install-deps.sh
	@bash scripts/install-ci-tools.sh
	@bash scripts/fetch-servers.sh

# A fail (1) or an undecided answer (3) is a result the demo shows, not a broken demo;
# bad input (2) and a failed measurement (4) stop make.
demo: setup
	@$(PERFGATE) compare --base $(BASE) --head $(HEAD) --suite quick --out $(DEMO_OUT); \
	  code=$$?; [ $$code -eq 0 ] || [ $$code -eq 1 ] || [ $$code -eq 3 ]

# MySQL 9.7.2 from Debian's source package, committed into a scratch fork (test/e2e/
# fetch-mysql-source.sh); perfgate builds its base and its tip (six commits later, one of them
# slower in InnoDB's secondary-index update) at nice 19 and compares them on three
# microbenchmarks of the quick suite. The first build is cold: about an hour on two cores.
demo-mysql: setup
	@fork=$$(bash test/e2e/fetch-mysql-source.sh) || exit 1; \
	  PERFGATE_BUILD_NICE=$${PERFGATE_BUILD_NICE:-19} $(PERFGATE) compare --source "$$fork" --flavor mysql \
	    --base base --head bisect-tip --suite quick --tests $(DEMO_MYSQL_TESTS) --out $(DEMO_MYSQL_OUT); \
	  code=$$?; [ $$code -eq 0 ] || [ $$code -eq 1 ] || [ $$code -eq 3 ]

test: setup test-unit test-integration test-act

# Unit tier: Node and Python, no servers (the tiny CMake build and the report's headless
# browser check need cmake, ninja and chromium, which setup installs).
test-unit:
	node --test $$(find test/unit -name '*.test.js' -o -name '*.test.mjs' | sort)
	python3 -m pytest -q test/unit/harness test/unit/runner-setup test/unit/bench test/stats

test-integration:
	PERFGATE_BASE=$(BASE) PERFGATE_HEAD=$(HEAD) python3 -m pytest -q -m "not slow" test/integration
	PERFGATE_MARIADB=$(BASE) node --test $$(find test/integration -name '*.test.js' | sort)

# The workflows under act (no Docker) against the local GitHub double: the act plumbing, and the
# action's example workflows and its entry point run by hand on the two Debian MariaDB builds at
# a tiny scale (about 2.5 minutes here).
test-act:
	node --test $$(find test/e2e -name '*.test.mjs' | sort)

# The integration tests too slow for CI's budget (marked slow: the full suite in two shards, a
# calibration and judging again, about 3 minutes here); run on their own before a stop, the
# result and date in docs/measurements.md ("Slow tier").
test-slow: setup
	PERFGATE_BASE=$(BASE) PERFGATE_HEAD=$(HEAD) python3 -m pytest -q -m slow test/integration

# Slow tier: builds a real MariaDB fork from source (about 16 min cold on 2 cores, cached
# under $(PERFGATE_CACHE) afterwards), checks the verdicts of three pull requests and bisects
# a ten-commit history to its one slow commit.
# `make test` does not run it; .ci/run does unless PERFGATE_E2E=0.
test-e2e: setup
	bash test/e2e/run.sh

# MySQL tier: the server lifecycle tests on real mysqld (initialise, start, crash, cancel, a full
# disk) and the pull-request and bisection checks of the MySQL test fork's commits. It builds
# nothing and fails, saying so, when `make build-mysql` has not been run: the builds take
# about an hour cold on two cores. Not part of `make test` or .ci/run.
build-mysql: setup
	bash test/e2e/build-mysql.sh

test-mysql: setup
	bash test/e2e/run-mysql.sh

# MariaDB 11.8.9: Debian 13's binary build with Debian 13's libraries, in a prefix of its own
# ($(SERVERS)/mariadb-11.8.9/usr; its source is not served here). About 16 MB from Debian's
# archive, which drops 11.8.9 once a newer 11.8 replaces it: so neither setup nor `make test`
# depends on it. test-11.8 fails, naming this target, when it has not been run.
fetch-11.8:
	bash scripts/fetch-server-trixie.sh

test-11.8:
	PERFGATE_BASE=$(HEAD) python3 -m pytest -q test/releases
