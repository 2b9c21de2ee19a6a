# hookd: two commands on a fresh machine.
#   make run   create .venv, install hookd, run the daemon in the foreground
#   make test  create .venv, install hookd with test tools, run lint and the tests
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed

.PHONY: run test lint bench clean node-deps

$(STAMP): pyproject.toml client/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ./client -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/hookd serve

lint: $(STAMP)
	$(BIN)/ruff check hookd client tests bench
	$(BIN)/ruff format --check hookd client tests bench

# npm packages of the TypeScript client and of the end-to-end suites, installed once from their lock files.
NODE_DIRS = clients/typescript $(patsubst %/package-lock.json,%,$(wildcard tests/e2e/*/package-lock.json))
node-deps:
	@for d in $(NODE_DIRS); do [ -d $$d/node_modules ] || (cd $$d && npm ci --no-audit --no-fund) || exit 1; done

test: $(STAMP) lint node-deps
	$(BIN)/pytest -q

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache
