"""hookd installed as users install it (a non-editable `pip install` into a fresh virtualenv, no checkout in
sight: tests/e2e/installed.py) writes an opencode plugin that loads and guards: no npm package, the client bundled beside it. The
plugin is called as opencode calls it, by a Node driver, against a real daemon running the README's guard."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, Env
from tests.docs.test_samples import readme_hooks_file

from .test_plugin_outcomes import drive

pytestmark = [pytest.mark.timeout(900), pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")]


def test_a_pip_installed_hookd_writes_a_plugin_that_loads_and_denies(
    env: Env, daemon_factory, tmp_path: Path, installed_hookd: Path
) -> None:  # type: ignore[no-untyped-def]
    # The run's one `pip install` of this checkout into a fresh venv (tests/e2e/installed.py), which imports
    # nothing from the checkout: the same install every end-to-end suite runs, built once, not once more here.
    hookd = installed_hookd
    install = [str(hookd), "bridge", "install", "opencode"]
    done = subprocess.run(install, env=env.env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    directory = env.config / "opencode" / "plugin"
    assert sorted(p.name for p in directory.iterdir()) == ["hookd-client.mjs", "hookd.js"]
    text = (directory / "hookd.js").read_text()
    assert 'from "./hookd-client.mjs"' in text and "file://" not in text and str(ROOT) not in text
    env.write_global_hooks(readme_hooks_file())
    daemon_factory()
    tool = {"tool": "bash", "sessionID": "ses_packaged", "callID": "call_1"}
    results = drive(
        env,
        directory / "hookd.js",
        [
            {"event": "tool.execute.before", "input": tool, "output": {"args": {"command": "rm -rf /tmp/packaged-victim"}}},
            {"event": "tool.execute.before", "input": tool, "output": {"args": {"command": "ls"}}},
        ],
    )
    assert results[0]["thrown"] == "Blocked by hookd (block-dangerous-commands): 'rm -rf' is blocked", results
    assert results[1] == {"output": {"args": {"command": "ls"}}, "thrown": None}
    gone = subprocess.run([str(hookd), "bridge", "uninstall", "opencode"], env=env.env, capture_output=True, text=True, timeout=60)
    assert gone.returncode == 0, gone.stderr
    assert not (env.config / "opencode").exists()
