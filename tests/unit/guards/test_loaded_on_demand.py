"""The guard packs (and their shell parser) load only where a built-in hook is made: a daemon without one, and
the hookd modules every command imports, never pay for them."""

from __future__ import annotations

import subprocess
import sys

# What is loaded of the guards, but for their data (hookd.guards.model: OptionsError, which the daemon catches).
LOADED = "sorted(m for m in sys.modules if m.startswith(('hookd.guards.', 'tree_sitter')) and m != 'hookd.guards.model')"


def _loaded_after(code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", f"import sys\n{code}\nprint({LOADED})"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return eval(done.stdout)  # a list of module names printed by repr


def test_the_daemon_and_the_hook_maker_load_no_pack() -> None:
    assert _loaded_after("import hookd.edge.service, hookd.daemon.daemon, hookd.daemon.hookmaker, hookd.config.userconfig") == []


def test_making_a_built_in_hook_loads_them() -> None:
    loaded = _loaded_after("from hookd.runners.builtin import BuiltinRunner\nBuiltinRunner(['git'], None)")
    assert "hookd.guards.catalogue" in loaded and "hookd.guards.check" in loaded
