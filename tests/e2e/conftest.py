"""Every end-to-end suite runs hookd as users install it (tests/e2e/installed.py): its `hookd` commands,
the daemon, and whatever `hookd bridge install` writes into the agents come from a non-editable
install of this checkout into a fresh virtualenv, built once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Env, make_env

from .installed import build


@pytest.fixture(scope="session")
def installed_hookd(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("installed-hookd"))


@pytest.fixture
def env(tmp_path: Path, installed_hookd: Path) -> Env:
    e = make_env(tmp_path)
    e.command = [str(installed_hookd)]
    return e
