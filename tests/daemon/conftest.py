"""An in-process daemon: the real Daemon, its features and their parts, on an event loop of the
test's own, answering requests handed to its one dispatch by a fake peer. No socket and no
`hookd serve` process; hooks still run for real (subprocess command hooks, YAML files under a
temporary HOME). What needs a process (the edge, signals, systemd, agents): see tests/README.md."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hookd_client import messages as m

from hookd.core.settings import Settings
from hookd.daemon.daemon import Daemon

T = TypeVar("T")
CALL_BOUND = 60.0  # seconds: a hang guard on a loaded machine, not a speed check


class FakePeer:
    """A connection as the daemon's handlers see it (hookd.daemon.handlers.common.Peer)."""

    def __init__(self) -> None:
        self.body_size = 0
        self.holds = False
        self.transport: Any = None
        self.sent: list[m.Reply] = []

    def send(self, reply: m.Reply) -> None:
        self.sent.append(reply)


class InProcess:
    """A daemon and a way to call it as a client would."""

    def __init__(self, daemon: Daemon, home: Path) -> None:
        self.daemon = daemon
        self.home = home
        self.peer = FakePeer()
        self._ids = itertools.count(1)

    def id(self) -> int:
        return next(self._ids)

    async def call(self, request: m.Request, peer: FakePeer | None = None) -> m.Reply:
        """The reply the daemon's dispatch gives ``request``, awaited when it has to wait."""
        result = self.daemon.handle(peer or self.peer, request)
        if isinstance(result, m.Reply):
            return result
        return await asyncio.wait_for(asyncio.ensure_future(result), CALL_BOUND)


Scenario = Callable[[InProcess], Awaitable[T]]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME and XDG directories of the test's own: the daemon reads and writes only there."""
    for name, sub in (("HOME", "home"), ("XDG_CONFIG_HOME", "config"), ("XDG_STATE_HOME", "state"), ("XDG_RUNTIME_DIR", "run")):
        (tmp_path / sub).mkdir(mode=0o700)
        monkeypatch.setenv(name, str(tmp_path / sub))
    monkeypatch.delenv("HOOKD_TRUST_ALL", raising=False)
    monkeypatch.setenv("HOOKD_WATCH_INTERVAL", "0")  # files load when the test says so, not on a poll
    return tmp_path


@pytest.fixture
def in_process(home: Path) -> Iterator[Callable[[Scenario[Any]], Any]]:
    """Runs a scenario against a fresh daemon on a fresh loop, then stops it as `hookd serve` does:
    shutdown begun, warm workers and hook processes ended, the bus closed."""

    async def run(scenario: Scenario[T]) -> T:
        settings = Settings(socket=str(home / "run" / "hookd.sock"), journal=False, hook_timeout=10.0)
        daemon = Daemon(settings)
        daemon.start()
        try:
            return await scenario(InProcess(daemon, home))
        finally:
            daemon.begin_shutdown()
            await daemon.persistent.stop_all()
            daemon.commands.groups.kill_all()
            await asyncio.wait_for(daemon.commands.groups.settle(), CALL_BOUND)
            daemon.stop()

    yield lambda scenario: asyncio.run(run(scenario))
