# The two commands of the README: `make run` (the main job) and `make test`.
# The first use creates .venv and installs the package with its dev tools.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
BUILD  := $(VENV)/.built-stamp
# The compiled sources, read from setup.py's COMPILED list (one place for both).
COMPILED_SRC := setup.py $(shell grep -o '"src/svoi_kozyri/[^"]*\.py"' setup.py | tr -d '"')
SCENARIOS ?= ../shared/scenarios

.PHONY: run test lint typecheck unit scenarios bench clean

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

test: lint typecheck scenarios unit

bench: $(BUILD)
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
