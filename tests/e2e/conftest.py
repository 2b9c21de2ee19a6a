"""Every end-to-end suite runs hookd as users install it (tests/e2e/installed.py): its `hookd` commands,
the daemon, and whatever `hookd bridge install` writes into the agents come from a non-editable
install of this checkout into a fresh virtualenv, built once per test run (the workers of a
parallel run share it: the first builds it under a lock, the others wait for it)."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from tests.conftest import Env, make_env

from .installed import build


@pytest.fixture(scope="session")
def installed_hookd(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    if worker_id == "master":  # not a parallel run
        return build(tmp_path_factory.mktemp("installed-hookd"))
    shared = tmp_path_factory.getbasetemp().parent  # the run's temporary directory, the workers' parent
    fd = os.open(shared / "installed-hookd.lock", os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        built = shared / "installed-hookd.path"
        if built.exists():
            return Path(built.read_text())
        hookd = build(shared / "installed-hookd")
        built.write_text(str(hookd))
        return hookd
    finally:
        os.close(fd)


@pytest.fixture
def env(tmp_path: Path, installed_hookd: Path, shim_data: Path) -> Env:
    e = make_env(tmp_path)
    e.command = [str(installed_hookd)]
    e.env["XDG_DATA_HOME"] = str(shim_data)  # the compiled shim, built once per worker (tests/conftest.py's shim_data)
    return e
