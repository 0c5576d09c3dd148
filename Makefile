# Two commands for a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo web web-build test lint typecheck fuzz bench bench-foundation bench-partial bench-sse bench-reads bench-micro bench-translation bench-observability clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.dev-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev,cli,web]'
	touch $@

$(VENV)/.web-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[web]'
	touch $@

# The browser side (web/): the `ai` package and esbuild, exactly as locked.
web/node_modules/.package-lock.json: web/package-lock.json
	cd web && npm ci --no-audit --no-fund
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

# The demo page on http://127.0.0.1:8000/: the AI SDK's Chat reading streamkit.web.
web-build: web/node_modules/.package-lock.json
	cd web && npm run --silent build

web: $(VENV)/.web-installed web-build
	$(BIN)/python -m streamkit web

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check streamkit tests examples bench

typecheck: $(VENV)/.dev-installed
	$(BIN)/mypy

# The Node and Chromium tests (tests/test_web_node.py, test_web_browser.py) run
# `npm ci` and the page build themselves (and say so clearly when node is missing).
test: lint typecheck
	$(BIN)/python -m pytest -q

# 100,000 mutated recordings through every reading path, then 2,000 client calls against a
# faulty server; prints the outcomes (see bench/fuzz.py).
fuzz: $(VENV)/.dev-installed
	$(BIN)/python bench/fuzz.py -n $(or $(N),100000)

bench: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/compare.py

bench-foundation: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/foundation.py

bench-partial: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/partial_args.py

bench-sse: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/sse_decoders.py

# What telemetry costs per call (an in-memory tracer) and timing per chunk (tracing off).
bench-observability: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/observability.py

# Reads after every delta, the value kept and dropped, at four sizes (bench/reads.py): no rivals.
bench-reads: $(VENV)/.dev-installed
	$(BIN)/python bench/reads.py

bench-micro: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python -m pytest bench/micro -q --benchmark-only -p no:cacheprovider

# OpenAI-format requests to Anthropic and Gemini, streamkit against LiteLLM: who is right, how
# fast; prints the report and writes bench/translation.latest.md (see bench/translation.py).
bench-translation: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/translation.py

clean:
	rm -rf $(VENV) $(BENCH_VENV) .mypy_cache .ruff_cache .pytest_cache web/node_modules streamkit/web/static/app.js
