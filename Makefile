# Two commands for a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint typecheck bench bench-foundation bench-partial bench-sse bench-micro clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.dev-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev,cli]'
	touch $@

$(VENV)/.cli-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[cli]'
	touch $@

# The rivals of bench/ live in their own venv so they never leak into the tests' one.
BENCH_VENV := .venv-bench
BENCH_BIN := $(BENCH_VENV)/bin

$(BENCH_VENV)/.installed: pyproject.toml
	test -x $(BENCH_BIN)/python || $(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_BIN)/python -m pip install -q -e '.[dev,cli,bench]'
	touch $@

demo: $(VENV)/.cli-installed
	$(BIN)/python -m streamkit demo

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check streamkit tests examples bench

typecheck: $(VENV)/.dev-installed
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/python -m pytest -q

bench: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/compare.py

bench-foundation: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/foundation.py

bench-partial: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/partial_args.py

bench-sse: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/sse_decoders.py

bench-micro: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python -m pytest bench/micro -q --benchmark-only -p no:cacheprovider

clean:
	rm -rf $(VENV) $(BENCH_VENV) .mypy_cache .ruff_cache .pytest_cache
