# Thin wrapper over the package's own commands. See README.md for what each target does and takes.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PRESET ?= quick
IDS    ?=
WORKERS ?= 2

.PHONY: venv lab book test test-book reproduce verify assets browser clean

venv: $(VENV)/.installed

# A venv with the pinned stack (requirements.txt), the package in editable mode, and the scripts the book serves (widgets, MathJax).
$(VENV)/.installed: requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q -U pip
	$(BIN)/python -m pip install -q -r requirements.txt
	$(BIN)/python -m pip install -q --no-deps -e .
	$(MAKE) assets
	touch $@

# JupyterLab (the `lab` extra of pyproject.toml, installed into .venv once) opened on notebooks/.
lab: $(VENV)/.lab
	cd notebooks && ../$(BIN)/jupyter lab

$(VENV)/.lab: $(VENV)/.installed pyproject.toml
	$(BIN)/python -m pip install -q -c requirements.txt -e ".[lab]"
	touch $@

assets:
	test -f _assets/mathjax/tex-mml-chtml.js -a -f _assets/vega/vega-embed.min.js || $(BIN)/python -c "from statetrack.site.book import fetch_assets; fetch_assets()"

# Chromium for the browser test (tests/test_browser.py), from the system's package manager; the test
# skips loudly without it. Needs root (or sudo) and apt; elsewhere install chromium by hand.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && apt-get update -qq && apt-get install -y -qq chromium >/dev/null; } || \
	  echo "make browser: could not install chromium here (needs root and apt); tests/test_browser.py will be skipped"

# Execute every claim notebook with papermill at $(PRESET) (default quick), $(WORKERS) at a time (a missing
# run is trained first by a pool of $(WORKERS), each run with one thread), then build _build/html offline.
book: venv
	env -u MPLBACKEND $(BIN)/statetrack reproduce $(IDS) --preset $(PRESET) --workers $(WORKERS)
	env -u MPLBACKEND $(BIN)/statetrack book

# The unit tests (every module, every claim's statements, the CLI, the store), two pytest workers: under five minutes on 2 cores.
test: venv
	env -u MPLBACKEND $(BIN)/python -m pytest -n 2 --durations=5 -m "not slow and not notebooks and not book"

# Every notebook at the smoke preset under papermill, the book build and the browser test (CI runs both).
test-book: venv
	env -u MPLBACKEND $(BIN)/python -m pytest --durations=5 -m "not slow and (notebooks or book)"

# Rerun claims (e.g. `make reproduce PRESET=paper IDS=ne1` on a GPU box).
reproduce: venv
	$(BIN)/statetrack reproduce $(IDS) --preset $(PRESET)

verify: venv
	$(BIN)/statetrack verify

clean:
	rm -rf _build
