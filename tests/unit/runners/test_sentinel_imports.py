"""The hook sentinel lives as long as its daemon, one per daemon that ran a hook: it imports the standard library
and its own two modules, nothing more (no asyncio, no structlog, none of the daemon)."""

from __future__ import annotations

import json
import subprocess
import sys

OWN = {"hookd", "hookd.runners", "hookd.runners.sentinel", "hookd.runners.procs"}


def _modules_after_import(module: str) -> set[str]:
    code = f"import json, sys\nbefore = set(sys.modules)\nimport {module}\nprint(json.dumps(sorted(set(sys.modules) - before)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout))


def test_the_sentinel_imports_only_the_standard_library_and_its_own_modules() -> None:
    loaded = _modules_after_import("hookd.runners.sentinel")
    foreign = {name for name in loaded - OWN if name.split(".")[0] not in sys.stdlib_module_names}
    assert foreign == set(), f"the sentinel imports {sorted(foreign)}"
    assert not loaded & {"asyncio", "logging", "subprocess"}, sorted(loaded)


def test_a_daemon_module_would_be_caught() -> None:
    # The check above can fail: the containment module itself brings structlog in.
    loaded = _modules_after_import("hookd.runners.contain")
    assert "structlog" in loaded
