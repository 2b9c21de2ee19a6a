# hookd: two commands on a fresh machine.
#   make run   install hookd into .venv (runtime dependencies only, not editable, byte-compiled)
#              and run the daemon in the foreground
#   make test  install hookd and the test tools into .venv-test (editable), the lint tools into
#              .venv-lint, the end-to-end suites' npm packages, then run the linters and the tests
#
# Each uses virtualenvs of its own, so they can start together; each venv is built under
# a lock (two `make run` at once wait for each other), stamped only when the install
# succeeded, and removed when a first install fails, so a failure never leaves a half
# venv behind. Python >= 3.11 is needed: `make run PYTHON=python3.12` picks another one.

# The first Python >= 3.11 found, unless PYTHON is given.
PYTHON ?= $(firstword $(foreach p,python3 python3.13 python3.12 python3.11,$(shell command -v $(p) >/dev/null 2>&1 && $(p) -c 'import sys; print("$(p)" if sys.version_info >= (3, 11) else "")' 2>/dev/null)) python3)

VENV       ?= .venv
TEST_VENV  ?= .venv-test
# The lint tools live apart from the tests' venv: what they bring (rich, through import-linter) would
# otherwise be imported by structlog in every process a test starts.
LINT_VENV  ?= .venv-lint
RUN_STAMP   = $(VENV)/.installed-run
TEST_STAMP  = $(TEST_VENV)/.installed
LINT_STAMP  = $(LINT_VENV)/.installed
BIN         = $(TEST_VENV)/bin
LINT_BIN    = $(LINT_VENV)/bin
# What the run venv is built from: it holds a copy of the code, so a change to it reinstalls
# (the Makefile too: a venv made by an older recipe, editable say, is replaced).
# setup.py copies docs/*.md into the package and writes the manual page from the parser at build time.
SOURCES    := Makefile pyproject.toml setup.py MANIFEST.in client/pyproject.toml $(wildcard docs/*.md) $(shell find hookd client/hookd_client systemd -type f \( -name '*.py' -o -name '*.service' -o -name '*.socket' \) 2>/dev/null)
# Test processes: two per CPU, since most of a test's time is spent waiting on the processes it starts
# (daemons, agents, hooks); on 2 vCPUs the suite took 8.4 min with 2 workers and 7.0 min with 4.
TEST_WORKERS ?= $(shell echo $$(( $$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1) * 2 )))
# Results go here unless asked otherwise (`make bench BENCH_OUT=bench/RESULTS.md` rewrites the tracked file).
BENCH_OUT  ?= bench/out/RESULTS.md

# Runs a command under an exclusive flock(2) on a file; Python's fcntl, so no util-linux needed.
LOCKED = $(PYTHON) -c 'import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_CREAT | os.O_RDWR, 0o600); fcntl.flock(fd, fcntl.LOCK_EX); os.set_inheritable(fd, True); os.execvp(sys.argv[2], sys.argv[2:])'

# npm suites of the end-to-end tests: every tests/e2e/*/ with a package-lock.json.
E2E_DIRS   := clients/typescript $(patsubst %/package-lock.json,%,$(wildcard tests/e2e/*/package-lock.json))
E2E_STAMPS := $(addsuffix /node_modules/.hookd-installed,$(E2E_DIRS))

.PHONY: run test lint bench e2e-deps check-python clean

run: $(RUN_STAMP)
	$(VENV)/bin/hookd serve

# The tests run with bytecode written, whatever PYTHONDONTWRITEBYTECODE the shell has: under it, every process a
# test starts (thousands: daemons, bridges, CLI calls) compiled the modules it imported from source again, and
# each worker rewrote every test module: a daemon's imports took 0.28 CPU-s that way, 0.14 from .pyc files.
test: $(TEST_STAMP) e2e-deps lint
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m compileall -q hookd client/hookd_client >/dev/null
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

lint: $(LINT_STAMP)
	$(LINT_BIN)/ruff check hookd client tests bench
	$(LINT_BIN)/ruff format --check hookd client tests bench
	$(LINT_BIN)/lint-imports --no-cache
	$(LINT_BIN)/mypy

bench: $(TEST_STAMP)
	@mkdir -p $(dir $(BENCH_OUT))
	@if grep -q -- '"--out"' bench/run.py; then set -x; $(BIN)/python bench/run.py --out $(BENCH_OUT); \
	else echo "==> bench/run.py has no --out: printing only, bench/RESULTS.md left as it is"; set -x; $(BIN)/python bench/run.py --no-write; fi

check-python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
	  echo "hookd needs Python >= 3.11; '$(PYTHON)' is $$($(PYTHON) -c 'import sys; print("Python", sys.version.split()[0])' 2>/dev/null || echo 'not a working Python')." >&2; \
	  echo "Install Python 3.11 or newer (your package manager's python3.12, 'pyenv install 3.12' or 'uv python install 3.12')," >&2; \
	  echo "then run: make $(or $(MAKECMDGOALS),run) PYTHON=/path/to/python3.12" >&2; exit 1; }
	@$(PYTHON) -c 'import ensurepip, venv' 2>/dev/null || { \
	  echo "'$(PYTHON)' has no venv/ensurepip module: install your distribution's python3-venv package (Debian, Ubuntu)." >&2; exit 1; }

# The run venv: runtime dependencies only; hookd installed as a copy (no editable import
# finder on every Python start) and byte-compiled by pip, so hooks and the Claude Code
# bridge start from .pyc files even under PYTHONDONTWRITEBYTECODE.
$(RUN_STAMP): $(SOURCES) | check-python
	@$(LOCKED) .venv.lock $(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) _venv \
	  _VENV=$(VENV) _STAMP=$(RUN_STAMP) _WHAT='hookd (runtime only)' _COPY=1

$(TEST_STAMP): pyproject.toml client/pyproject.toml | check-python
	@$(LOCKED) .venv-test.lock $(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) _venv \
	  _VENV=$(TEST_VENV) _STAMP=$(TEST_STAMP) _WHAT='hookd (editable) and the test tools' _EDITABLE=-e _EXTRAS='[test,otel]'
$(LINT_STAMP): pyproject.toml client/pyproject.toml | check-python
	@$(LOCKED) .venv-lint.lock $(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) _venv \
	  _VENV=$(LINT_VENV) _STAMP=$(LINT_STAMP) _WHAT='hookd (editable) and the lint tools' _EDITABLE=-e _EXTRAS='[lint,otel]'

# An editable install with two source roots (hookd at the top, hookd_client in client/) gets setuptools' import
# finder, which every Python process of the venv then loads at start, pathlib and importlib.util with it: about
# 4 ms of CPU a process, for the thousands of processes the tests start. The two roots on sys.path, in the
# install's own .pth file, find the same modules in the same checkout for nothing.
SOURCE_ROOTS = import glob, os, sysconfig; roots = os.getcwd() + "\n" + os.path.join(os.getcwd(), "client") + "\n"; \
  [open(pth, "w").write(roots) for pth in glob.glob(os.path.join(sysconfig.get_path("purelib"), "__editable__.hookd-*.pth"))]

# Under the lock: whoever waited finds the stamp fresh and does nothing. A venv without its
# stamp (a first install that failed, one made by an older recipe) is made again from
# scratch; a stale one is updated in place, and loses its stamp if that fails. pip's output goes to a log, shown when it fails. The run venv is built from
# a copy of the sources in a temporary directory, so its build never writes into the
# checkout while the test venv's editable install does.
.PHONY: _venv
_venv:
	@if [ -f $(_STAMP) ] && [ -z "$$(find $(if $(_COPY),$(SOURCES),pyproject.toml client/pyproject.toml) -newer $(_STAMP) 2>/dev/null | head -1)" ]; then exit 0; fi; \
	log=$(_VENV).log; fresh=; src=.; \
	if [ ! -f $(_STAMP) ] || [ ! -x $(_VENV)/bin/python ] || ! $(_VENV)/bin/python -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then \
	  rm -rf $(_VENV); fresh=1; fi; \
	echo "==> installing $(_WHAT) into $(_VENV) (about a minute the first time; pip's log: $$log)"; \
	if [ -n "$(_COPY)" ]; then src=$$(mktemp -d) && cp -R pyproject.toml setup.py MANIFEST.in README.md LICENSE hookd client systemd docs "$$src"/; fi; \
	if { [ -z "$$fresh" ] || $(PYTHON) -m venv $(_VENV); } >$$log 2>&1 \
	   && $(_VENV)/bin/python -m pip install --disable-pip-version-check --no-input $(_EDITABLE) "$$src$(_EXTRAS)" >>$$log 2>&1 \
	   && { [ -z "$(_EDITABLE)" ] || $(_VENV)/bin/python -c '$(SOURCE_ROOTS)' >>$$log 2>&1; }; then \
	  ok=1; touch $(_STAMP); \
	else \
	  ok=; tail -n 25 $$log >&2; \
	  if [ -n "$$fresh" ]; then rm -rf $(_VENV); else rm -f $(_STAMP); fi; \
	  echo "==> install failed (full log: $$log); fix the cause above and run make again" >&2; \
	fi; \
	if [ "$$src" != . ]; then rm -rf "$$src"; fi; \
	[ -n "$$ok" ]

# `npm ci` in each suite whose node_modules is older than its lock file; no npm: those suites skip.
e2e-deps: $(E2E_STAMPS)

# npm ci refuses a lock file that lists only this platform's build of a package with native
# builds per platform (as npm itself writes it for opencode); npm install then installs the
# same locked versions.
%/node_modules/.hookd-installed: %/package-lock.json %/package.json
	@command -v npm >/dev/null 2>&1 || { echo "==> npm not found: the $* suite will be skipped" >&2; exit 0; }; \
	echo "==> npm ci in $*"; \
	$(LOCKED) $*/.npm.lock sh -c 'cd $* && { npm ci --no-audit --no-fund --loglevel=error 2>/dev/null || npm install --no-audit --no-fund --loglevel=error; } && mkdir -p node_modules && touch node_modules/.hookd-installed'

clean:
	rm -rf $(VENV) $(TEST_VENV) $(LINT_VENV) $(VENV).log $(TEST_VENV).log $(LINT_VENV).log .venv.lock .venv-test.lock .venv-lint.lock .pytest_cache tests/e2e/*/node_modules tests/e2e/*/.npm.lock clients/typescript/node_modules clients/typescript/.npm.lock clients/typescript/dist
