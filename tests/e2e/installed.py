"""hookd as users install it: `pip install .` of this checkout into a fresh virtualenv, not editable.

The end-to-end suites run the real agents against this install: `hookd bridge install AGENT` is this
venv's `hookd`, so every path it writes into an agent (its own absolute path, the shim built from the
packaged C source, the opencode plugin and its bundled client from the package data) is one a user
would get, never the checkout's. The daemon runs from it too. Built once per test session, under the
session's temporary directory (the source is copied there first, so the build never writes into the
checkout, and pip's cache lives there too).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# What the distribution is built from (the Makefile's run venv copies the same).
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE", "hookd", "client", "systemd", "docs")
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "node_modules", "*.egg-info", "build", "dist")


class InstallFailed(RuntimeError):
    pass


def build(where: Path) -> Path:
    """A venv under ``where`` with this checkout installed as a copy; returns its `hookd` command."""
    src = where / "src"
    venv = where / "venv"
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, src / name, symlinks=True, ignore=_IGNORE)
        else:
            src.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, src / name)
    env = {**os.environ, "PIP_CACHE_DIR": str(where / "pip-cache"), "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"}
    env.pop("PYTHONPATH", None)
    log = where / "install.log"
    with log.open("wb") as out:
        # The tests' own pip installs into the new venv (`pip --python`): a copy of pip in it would cost the run's
        # first e2e test (and the workers waiting for it) about 2.5 CPU-s, and users' pip is not what is tested.
        install = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", str(src)]
        for argv in ([sys.executable, "-m", "venv", "--without-pip", str(venv)], install):
            done = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, env=env, timeout=900, check=False)
            if done.returncode != 0:
                raise InstallFailed(f"{' '.join(argv)} failed:\n{log.read_text(errors='replace')[-3000:]}")
    hookd = venv / "bin" / "hookd"
    check = subprocess.run([str(hookd), "--version"], capture_output=True, text=True, timeout=60, check=False)
    if check.returncode != 0:
        raise InstallFailed(f"the installed hookd does not run: {check.stderr}")
    # Not the checkout: the package it imports lives in the venv.
    where_from = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import hookd, hookd_client; print(hookd.__file__); print(hookd_client.__file__)"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=where,
    ).stdout.split()
    if not all(p.startswith(str(venv)) for p in where_from):
        raise InstallFailed(f"the installed hookd imports from outside its venv: {where_from}")
    return hookd
