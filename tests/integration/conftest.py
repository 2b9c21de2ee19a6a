"""Fixtures of the integration tier beyond tests/conftest.py's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ..conftest import DaemonProcess, make_env


@pytest.fixture(scope="module")
def module_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaemonProcess]:
    """One `hookd serve` for a whole module, in an environment of its own: for modules whose tests
    each use their own connections, sessions and names, never stop or signal it, and read nothing
    another test leaves behind. A test that needs a daemon to itself takes `daemon_factory`."""
    d = DaemonProcess(make_env(tmp_path_factory.mktemp("module-daemon"))).start()
    yield d
    d.kill()
