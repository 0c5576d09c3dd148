# Two commands for a fresh clone: `make demo` and `make test`.
PYTHON ?= python3

# Python caches compiled modules (and pytest its rewritten test modules) only when
# allowed: with PYTHONDONTWRITEBYTECODE set, as on some machines, every process
# the suite starts (two workers, the CLI and gateway subprocesses) compiles
# streamkit and its tests again.
unexport PYTHONDONTWRITEBYTECODE

VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo web web-build gateway test check-tools docs docs-serve lint typecheck fuzz bench bench-before-after bench-foundation bench-partial bench-sse bench-reads bench-micro bench-translation bench-observability bench-gateway clean bench-output

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# pip install, through uv when it installs (parallel downloads: a fresh .venv in
# seconds instead of minutes), with pip itself as the fallback.
# $(call install,VENV_BIN,EXTRAS), the extras joined by $(comma).
comma := ,
install = $(1)/python -m pip install -q uv && $(1)/uv pip install --python $(1)/python -q -e '.[$(2)]' \
	|| $(1)/python -m pip install -q -e '.[$(2)]'

$(VENV)/.dev-installed: pyproject.toml | $(BIN)/python
	$(call install,$(BIN),dev$(comma)cli$(comma)web)
	touch $@

$(VENV)/.web-installed: pyproject.toml | $(BIN)/python
	$(call install,$(BIN),web)
	touch $@

$(VENV)/.gateway-installed: pyproject.toml | $(BIN)/python
	$(call install,$(BIN),gateway)
	touch $@

# The browser side (web/): the `ai` package and esbuild, exactly as locked.
web/node_modules/.package-lock.json: web/package-lock.json
	cd web && npm ci --no-audit --no-fund
	touch $@

$(VENV)/.cli-installed: pyproject.toml | $(BIN)/python
	$(call install,$(BIN),cli)
	touch $@

# The rivals of bench/ live in their own venv so they never leak into the tests' one.
BENCH_VENV := .venv-bench
BENCH_BIN := $(BENCH_VENV)/bin

$(BENCH_VENV)/.installed: pyproject.toml
	test -x $(BENCH_BIN)/python || $(PYTHON) -m venv $(BENCH_VENV)
	$(call install,$(BENCH_BIN),dev$(comma)cli$(comma)bench)
	touch $@

# bench-output's rivals, one venv each: instructor and pydantic-ai pin different
# versions of the same packages, and neither may leak into the other's timing.
RIVAL_INSTRUCTOR := .venv-bench-instructor
RIVAL_PYDANTIC_AI := .venv-bench-pydantic-ai

$(RIVAL_INSTRUCTOR)/.installed:
	test -x $(RIVAL_INSTRUCTOR)/bin/python || $(PYTHON) -m venv $(RIVAL_INSTRUCTOR)
	$(RIVAL_INSTRUCTOR)/bin/python -m pip install -q instructor
	touch $@

$(RIVAL_PYDANTIC_AI)/.installed:
	test -x $(RIVAL_PYDANTIC_AI)/bin/python || $(PYTHON) -m venv $(RIVAL_PYDANTIC_AI)
	$(RIVAL_PYDANTIC_AI)/bin/python -m pip install -q pydantic-ai-slim
	touch $@

# LiteLLM's proxy, the rival of bench-gateway, in a venv of its own. Today pip settles on
# litellm 1.108.7 for the proxy extra: newer ones pin a package the index here lacks
# (1.110.x: litellm-proxy of the same version; 1.108.11: litellm-enterprise==0.1.79.post2).
LITELLM_PROXY := .venv-bench-litellm-proxy

$(LITELLM_PROXY)/.installed:
	test -x $(LITELLM_PROXY)/bin/python || $(PYTHON) -m venv $(LITELLM_PROXY)
	$(LITELLM_PROXY)/bin/python -m pip install -q 'litellm[proxy]'
	touch $@

# The gateway's side needs the gateway extra in the bench venv.
$(BENCH_VENV)/.gateway-installed: $(BENCH_VENV)/.installed
	$(call install,$(BENCH_BIN),dev$(comma)cli$(comma)bench$(comma)gateway)
	touch $@

demo: $(VENV)/.cli-installed
	$(BIN)/python -m streamkit demo

# The demo page on http://127.0.0.1:8000/: the AI SDK's Chat reading streamkit.web.
web-build: web/node_modules/.package-lock.json
	cd web && npm run --silent build

web: $(VENV)/.web-installed web-build
	$(BIN)/python -m streamkit web

# The gateway (streamkit.gateway) on http://127.0.0.1:8787, serving $(GATEWAY_CONFIG).
GATEWAY_CONFIG ?= examples/gateway.toml
gateway: $(VENV)/.gateway-installed
	$(BIN)/python -m streamkit gateway --config $(GATEWAY_CONFIG)

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check streamkit tests examples bench
	$(BIN)/lint-imports --no-cache

typecheck: $(VENV)/.dev-installed
	$(BIN)/mypy

# Everything the suite needs that pip does not install: said clearly, never skipped.
CHROMIUM := /usr/bin/chromium
CHROMEDRIVER := /usr/bin/chromedriver
check-tools:
	@command -v node >/dev/null && command -v npm >/dev/null || { \
	  echo "make test needs Node.js 18+ and npm (the AI SDK checks of streamkit.web):" >&2; \
	  echo "    sudo apt-get install -y nodejs npm" >&2; exit 1; }
	@test -x $(CHROMIUM) && test -x $(CHROMEDRIVER) || { \
	  echo "make test runs the demo page in Chromium and needs $(CHROMIUM) and $(CHROMEDRIVER):" >&2; \
	  echo "    sudo apt-get install -y chromium chromium-driver    (Debian; .ci/run does it in CI)" >&2; \
	  exit 1; }

# The whole suite on every core and one worker more (pytest-xdist, JOBS=N to
# choose): many tests wait on sockets, timeouts and subprocesses (the gateway,
# the CLI, node, Chromium), and the extra worker runs while they wait (fresh
# clone on 2 cores: 6:17 with 2 workers, 5:25 with 3). The docs site built strictly
# (tests/test_docs.py) and every code block of the docs and README run. A
# skipped test fails here (STREAMKIT_NO_SKIPS, tests/support/skips_fail.py), as in CI.
# mypy --strict runs beside the suite, not before it: from a fresh clone (no
# cache) it takes a minute and a half of one core, which the suite's workers
# share; its report is printed after the suite's, and either failing fails.
WORKERS := $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))

test: lint check-tools web/node_modules/.package-lock.json
	@typed=$$(mktemp); $(BIN)/mypy > $$typed 2>&1 & mypy=$$!; \
	STREAMKIT_NO_SKIPS=1 $(BIN)/python -m pytest -q -n $(or $(JOBS),$(WORKERS)) --dist worksteal; \
	tests=$$?; wait $$mypy; checked=$$?; echo "$(BIN)/mypy"; cat $$typed; rm -f $$typed; \
	test $$tests -eq 0 && test $$checked -eq 0

# The documentation site (mkdocs-material + mkdocstrings) in site/; --strict
# fails on a broken link or reference. docs-serve: live at http://127.0.0.1:8001/.
docs: $(VENV)/.dev-installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

docs-serve: $(VENV)/.dev-installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve -a 127.0.0.1:8001

# 100,000 mutated recordings through every reading path, then 2,000 client calls against a
# faulty server; prints the outcomes (bench/fuzz.py). Then the gateway under attack, the
# encoders and FakeProvider scripts (bench/fuzz_gateway.py): N encoder and script cases, N/10
# gateway requests of each kind and fault. Either finding a breach fails it. The suite runs a
# short loop of each (tests/test_fuzz.py, tests/test_fuzz_campaign.py).
fuzz: $(VENV)/.dev-installed
	@$(BIN)/python bench/fuzz.py -n $(or $(N),100000); read=$$?; \
	$(BIN)/python bench/fuzz_gateway.py -n $(or $(N),100000); served=$$?; \
	test $$read -eq 0 && test $$served -eq 0

# Writes bench/RESULTS.latest.md (untracked); UPDATE=1 rewrites the tracked
# bench/RESULTS.md. Progress (step, steps left) goes to stderr as it runs.
bench: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/compare.py $(if $(UPDATE),--update)

# streamkit against an older revision of itself: make bench's floor ratios, both trees in
# one run, alternating (bench/before_after.py). BEFORE=<revision>, e.g. BEFORE=HEAD~3.
bench-before-after: $(BENCH_VENV)/.installed
	@test -n "$(BEFORE)" || { echo "name the older revision: make bench-before-after BEFORE=<rev>" >&2; exit 1; }
	@tree=$$(mktemp -d) && git worktree add -q --detach $$tree $(BEFORE) && \
	  $(BENCH_BIN)/python bench/before_after.py --before $$tree --output bench/before-after.latest.md; \
	  status=$$?; git worktree remove --force $$tree; exit $$status

bench-foundation: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/foundation.py

bench-partial: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/partial_args.py

# Partial models after every fragment: streamkit vs instructor and pydantic-ai, each in its venv.
bench-output: $(VENV)/.dev-installed $(RIVAL_INSTRUCTOR)/.installed $(RIVAL_PYDANTIC_AI)/.installed
	$(BIN)/python bench/partial_output.py

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

# streamkit's gateway vs LiteLLM's proxy on one fake upstream: overhead per chunk, TTFB added,
# 1,000 concurrent streams, 1 vs 2 workers (bench/gateway.py). Writes bench/gateway.latest.md;
# UPDATE=1 rewrites the tracked bench/RESULTS-gateway.md.
bench-gateway: $(BENCH_VENV)/.gateway-installed $(LITELLM_PROXY)/.installed
	$(BENCH_BIN)/python bench/gateway.py --litellm $(LITELLM_PROXY)/bin/litellm $(if $(UPDATE),--update)

clean:
	rm -rf $(VENV) $(BENCH_VENV) $(LITELLM_PROXY) .mypy_cache .ruff_cache .pytest_cache web/node_modules streamkit/web/static/app.js $(RIVAL_INSTRUCTOR) $(RIVAL_PYDANTIC_AI) site
