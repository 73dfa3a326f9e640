# Two commands a newcomer needs: `make demo` and `make test`. Both create .venv and install on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install demo test lint bench corpus clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m assay.server.demo

test: $(STAMP)
	$(BIN)/pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: $(STAMP)
	$(BIN)/python -m bench

# The engine measured on the labelled corpus (docs/corpus.md); needs the fetched mirrors.
# CORPUS_ARGS="--misses", "--unit ID", "--json".
corpus: $(STAMP)
	$(BIN)/python -m bench.corpus.score $(CORPUS_ARGS)

# The Master Report of each example (and a generated 60-tool system) as HTML and PDF, with PNGs to look at:
# an HTML screenshot from headless Chromium and every PDF page from pdftoppm, in out/screenshots/.
# Installs Debian's chromium and poppler-utils when they are missing (needs root, as on CI machines).
screenshots: $(STAMP)
	@command -v chromium >/dev/null && command -v pdftoppm >/dev/null || \
		(apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium poppler-utils fonts-dejavu-core)
	rm -rf out/screenshots
	$(BIN)/python -m tests.reports.screenshots out/screenshots

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
