# Two commands for a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint typecheck bench bench-micro clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.dev-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev,cli]'
	touch $@

$(VENV)/.cli-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[cli]'
	touch $@

$(VENV)/.bench-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev,cli,bench]'
	touch $@

demo: $(VENV)/.cli-installed
	$(BIN)/python -m streamkit demo

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check streamkit tests examples bench

typecheck: $(VENV)/.dev-installed
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/python -m pytest -q

bench: $(VENV)/.bench-installed
	$(BIN)/python bench/compare.py

bench-micro: $(VENV)/.bench-installed
	$(BIN)/python -m pytest bench/micro -q --benchmark-only -p no:cacheprovider

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
