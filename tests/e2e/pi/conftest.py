"""What `hookd bridge install pi` writes, made once per test process and copied into each test's HOME.

Install loads the extension through pi's own loader before it writes it (a cold start of pi's package, about
6 s here), and what it writes does not depend on the HOME, the daemon or the hooks: the same two files, whose
record of what the install created names the same directories. So each test gets a fresh copy of one real
install's output in its own HOME, and a test that installs with other options still runs the install itself."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import Env, make_env

HERE = Path(__file__).resolve().parent
BIN = HERE / "node_modules" / ".bin"


@pytest.fixture(scope="session")
def pi_install(tmp_path_factory: pytest.TempPathFactory, installed_hookd: Path) -> Path:
    """The `.pi` folder of a HOME in which the installed hookd ran `hookd bridge install pi`, pi on its PATH."""
    if not (BIN / "pi").exists():
        pytest.skip(f"SKIPPED LOUDLY: {BIN / 'pi'} is missing: run `make e2e-deps` (npm ci in tests/e2e/pi)")
    env = make_env(tmp_path_factory.mktemp("pi-install"))
    env.command = [str(installed_hookd)]
    env.env.update(PATH=f"{BIN}{os.pathsep}{env.env['PATH']}", PI_OFFLINE="1")
    done = env.hookd("bridge", "install", "pi", timeout=120)
    assert done.returncode == 0, done.stderr
    assert "installed the hookd extension for pi" in done.stdout, done.stdout
    return env.home / ".pi"


def install_pi(env: Env, pi_install: Path) -> Path:
    """That install's output in ``env``'s HOME, as `hookd bridge install pi` would write it there; the extension."""
    shutil.copytree(pi_install, env.home / ".pi", symlinks=True)
    return env.home / ".pi" / "agent" / "extensions" / "hookd.ts"
