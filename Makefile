# Two commands a newcomer needs: `make demo` and `make test`. Both create .venv and install on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install demo test lint bench corpus clean peers gitpeers bench-peers js-globals browser browser-test screenshots

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m assay.server.demo

test: $(STAMP) peers gitpeers browser
	$(BIN)/pytest -q

# The real browser of the dashboard test (tests/dashboard/test_browser.py): Debian's Chromium and its
# chromedriver, installed when missing on a machine where apt-get can (root, as on CI); elsewhere the test skips.
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
		{ [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
		  (apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-dejavu-core) \
		  || echo "chromium/chromedriver not installed: the dashboard's browser test will skip"; }

# The real SSH git server of the remote-source tests (tests/sources/test_ssh_remote.py): Debian's OpenSSH
# daemon, installed when missing on a machine where apt-get can (root, as on CI); elsewhere those tests skip.
# The tests run /usr/sbin/sshd with a configuration of their own on a free 127.0.0.1 port, never the system's.
gitpeers:
	@test -x /usr/sbin/sshd || \
		{ [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
		  (apt-get update -qq && apt-get install -y -qq --no-install-recommends openssh-server) \
		  || echo "openssh-server not installed: the SSH git source tests will skip"; }

# Every browser test of the dashboard (tests/dashboard/test_browser*.py) in Chromium; screenshots in
# out/screenshots/dashboard.
browser-test: $(STAMP) browser
	ASSAY_SCREENSHOT_DIR=out/screenshots/dashboard $(BIN)/pytest -q tests/dashboard/test_browser*.py

# The real MCP servers the runtime engine's tests probe (tests/runtime): the official reference servers
# from npm (tests/runtime/peers/package.json) and the deliberately vulnerable mcp-server-everything-wrong
# from PyPI, in its own virtual environment (it needs the 1.x SDK). Each step runs only when its peer is
# missing, and is skipped when npm is not installed; the tests skip what is absent.
PEERS_NODE := tests/runtime/peers/node_modules/.bin/mcp-server-everything
PEERS_PY   := .peers-venv/bin/mcp-server-everything-wrong
peers: $(PEERS_NODE) $(PEERS_PY)

$(PEERS_NODE): tests/runtime/peers/package.json
	@command -v npm >/dev/null || { echo "npm not found: the runtime tests against the MCP reference servers will skip"; exit 0; }; \
		cd tests/runtime/peers && npm install --no-audit --no-fund --silent

$(PEERS_PY):
	$(PYTHON) -m venv .peers-venv
	.peers-venv/bin/pip install --quiet "mcp-server-everything-wrong==0.2.1" "mcp>=1.9,<2"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: $(STAMP)
	$(BIN)/python -m bench

# The peer the runtime benchmark compares with (bench/runtime_probe.py): cisco-ai-mcp-scanner's offline YARA
# analyzer, in its own virtual environment (its dependencies are heavy); installed only when missing.
bench-peers: .bench-peers-venv/bin/mcp-scanner .bench-semgrep-venv/bin/semgrep
.bench-peers-venv/bin/mcp-scanner:
	$(PYTHON) -m venv .bench-peers-venv
	.bench-peers-venv/bin/pip install --quiet "cisco-ai-mcp-scanner==4.8.7"
# Semgrep for bench/semgrep_peer.py, in a venv of its own (its pins differ from the scanner's).
.bench-semgrep-venv/bin/semgrep:
	$(PYTHON) -m venv .bench-semgrep-venv
	.bench-semgrep-venv/bin/pip install --quiet "semgrep==1.185.0"

# The engine measured on the labelled corpus (docs/corpus.md); needs the fetched mirrors.
# CORPUS_ARGS="--misses", "--unit ID", "--json".
corpus: $(STAMP)
	$(BIN)/python -m bench.corpus.score $(CORPUS_ARGS)

# The Master Report of each example (and a generated 60-tool system) as HTML and PDF, with PNGs to look at:
# an HTML screenshot from headless Chromium and every PDF page from pdftoppm, in out/screenshots/; and every
# dashboard page of a finished run (laptop and phone widths) in out/screenshots/dashboard.
# Installs Debian's chromium, its driver and poppler-utils when they are missing (needs root, as on CI machines).
screenshots: $(STAMP)
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null && command -v pdftoppm >/dev/null || \
		(apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium chromium-driver poppler-utils fonts-dejavu-core)
	rm -rf out/screenshots
	$(BIN)/python -m tests.reports.screenshots out/screenshots
	ASSAY_SCREENSHOT_DIR=out/screenshots/dashboard $(BIN)/pytest -q tests/dashboard/test_browser*.py

# The JavaScript globals the engine knows (rules/javascript_globals.json), regenerated from the `globals`
# npm package: `make js-globals` after updating GLOBALS_VERSION.
GLOBALS_VERSION ?= 17.14.0
js-globals: $(STAMP)
	tmp=$$(mktemp -d) && (cd $$tmp && npm pack --silent globals@$(GLOBALS_VERSION) >/dev/null && tar xzf globals-*.tgz) && \
		$(BIN)/python -m assay.backend.engines.static.rules.js_globals $$tmp/package \
		> backend/assay/backend/engines/static/rules/javascript_globals.json; rm -rf $$tmp

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .peers-venv tests/runtime/peers/node_modules
