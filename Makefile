# The two commands of the README: `make run` (the main job) and `make test`.
# The first use creates .venv and installs the package with its dev tools.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
SCENARIOS ?= ../shared/scenarios

.PHONY: run test lint typecheck unit scenarios bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/svoi-kozyri demo

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(STAMP)
	$(BIN)/mypy --strict src/svoi_kozyri

scenarios: $(STAMP)
	$(BIN)/svoi-kozyri scenarios $(SCENARIOS)

unit: $(STAMP)
	$(BIN)/pytest

test: lint typecheck scenarios unit

bench: $(STAMP)
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
