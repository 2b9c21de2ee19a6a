"""hookd installed as users install it (a non-editable `pip install` into a fresh virtualenv, no checkout in
sight) writes an opencode plugin that loads and guards: no npm package, the client bundled beside it. The
plugin is called as opencode calls it, by a Node driver, against a real daemon running the README's guard."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, Env
from tests.docs.test_samples import readme_hooks_file

from .test_plugin_outcomes import drive

pytestmark = [pytest.mark.timeout(900), pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")]

# What the Makefile's run venv is built from: the distribution's sources, nothing else of the checkout.
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "hookd", "client", "systemd")


def packaged_hookd(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for name in SOURCES:
        here = ROOT / name
        if here.is_dir():
            shutil.copytree(here, src / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(here, src / name)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--no-input", "--disable-pip-version-check", str(src)]
    done = subprocess.run(pip, capture_output=True, text=True, timeout=800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    shutil.rmtree(src)  # nothing of a checkout is left to import from
    return venv / "bin" / "hookd"


def test_a_pip_installed_hookd_writes_a_plugin_that_loads_and_denies(env: Env, daemon_factory, tmp_path: Path) -> None:
    hookd = packaged_hookd(tmp_path)
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
