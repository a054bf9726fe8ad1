# perfgate: `make demo` measures MariaDB 10.11.18 (base) against 10.11.19 (head) on this
# machine; `make test` runs every test tier that needs no source build. Both install what they
# need first and can be run again.
SHELL := /bin/bash
PERFGATE_CACHE ?= $(HOME)/.cache/perfgate
export PERFGATE_CACHE
SERVERS := $(PERFGATE_CACHE)/servers
BASE ?= $(SERVERS)/mariadb-10.11.18/usr
HEAD ?= $(SERVERS)/mariadb-10.11.19/usr
DEMO_OUT ?= runs/demo
PERFGATE := node cli/bin/perfgate.js

.PHONY: setup demo test test-unit test-integration test-act test-e2e

setup:
	@bash scripts/install-deps.sh
	@bash scripts/install-ci-tools.sh
	@bash scripts/fetch-servers.sh

# A fail (1) or an inconclusive answer (3) is a result the demo shows, not a broken demo;
# bad input (2) and a failed measurement (4) stop make.
demo: setup
	@$(PERFGATE) compare --base $(BASE) --head $(HEAD) --suite quick --out $(DEMO_OUT); \
	  code=$$?; [ $$code -eq 0 ] || [ $$code -eq 1 ] || [ $$code -eq 3 ]

test: setup test-unit test-integration test-act

# Unit tier: Node and Python, no servers (the tiny CMake build and the report's headless
# browser check need cmake, ninja and chromium, which setup installs).
test-unit:
	node --test $$(find test/unit -name '*.test.js' -o -name '*.test.mjs' | sort)
	python3 -m pytest -q test/unit/harness test/unit/runner-setup test/stats

test-integration:
	PERFGATE_BASE=$(BASE) PERFGATE_HEAD=$(HEAD) python3 -m pytest -q test/integration
	PERFGATE_MARIADB=$(BASE) node --test $$(find test/integration -name '*.test.js' | sort)

# The workflows under act (no Docker) against the local GitHub double: the act plumbing, and the
# action's example workflows and its entry point run by hand on the two Debian MariaDB builds at
# a tiny scale (about 2.5 minutes here).
test-act:
	node --test $$(find test/e2e -name '*.test.mjs' | sort)

# Slow tier: builds a real MariaDB fork from source (about 16 min cold on 2 cores, cached
# under $(PERFGATE_CACHE) afterwards), checks the verdicts of three pull requests and bisects
# a ten-commit history to its one slow commit.
# `make test` does not run it; .ci/run does unless PERFGATE_E2E=0.
test-e2e: setup
	bash test/e2e/run.sh
