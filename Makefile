# hookd: two commands on a fresh machine.
#   make run   create .venv, install hookd, run the daemon in the foreground
#   make test  create .venv, install hookd with test tools, run lint and the tests
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed

.PHONY: run test lint bench clean

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

test: $(STAMP) lint
	$(BIN)/pytest -q

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache
