"""An in-process daemon: the real Daemon, its features and their parts, on an event loop of the
test's own, answering requests handed to its one dispatch by a fake peer. No socket and no
`hookd serve` process; hooks still run for real (subprocess command hooks, YAML files under a
temporary HOME). What needs a process (the edge, signals, systemd, agents): see tests/README.md."""

from __future__ import annotations

import asyncio
import itertools
import textwrap
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hookd_client import messages as m
from hookd_client.api import Api, build
from hookd_client.errors import HookdError
from hookd_client.framing import FrameDecoder, reply_codec
from hookd_client.stream import Since, subscribe_request

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


class Wire:
    """A connection's transport as a subscription writes to it: it keeps the frames."""

    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, data: bytes) -> None:
        self.data += data

    def is_closing(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return 0


class InProcessClient(Api):
    """The client library's own calls (its requests built and its replies read by hookd_client's Api,
    errors raised as HookdError) made through the in-process daemon's dispatch: every call is awaited,
    as on the AsyncClient. One client is one connection (its own peer)."""

    def __init__(self, d: InProcess, peer: FakePeer | None = None) -> None:
        self._d = d
        self.peer = peer or FakePeer()
        self._init_ids()

    async def _call(self, request: Any, convert: Callable[[m.Reply], Any]) -> Any:
        return convert(await self._d.call(build(request), self.peer))

    async def events(
        self,
        points: Iterator[str] | list[str] | tuple[str, ...] = (),
        *,
        since: Since = 0,
        sessions: list[str] | tuple[str, ...] = (),
        at_least: int = 0,
    ) -> list[m.Event]:
        """The events the daemon holds, as ``subscribe(points, since=..., follow=False)`` yields them,
        read from what the subscription writes on a connection of its own; read again until there are
        ``at_least`` (an event is published when its call's last hook, a shadow too, has answered)."""
        deadline = asyncio.get_running_loop().time() + CALL_BOUND
        while True:
            got = [e for e in await self.replay(points, since=since, sessions=sessions) if isinstance(e, m.Event)]
            if len(got) >= at_least:
                return got
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"{len(got)} events, never {at_least}: {got}")
            await asyncio.sleep(0.01)

    async def replay(self, points: Any = (), *, since: Since = 0, sessions: Any = ()) -> list[m.Event | m.Gap]:
        """What ``subscribe(points, since=..., follow=False)`` yields: events and gaps, up to the Live marker."""
        request = subscribe_request(points, sessions, (), since, False)
        peer = FakePeer()
        peer.transport = wire = Wire()
        reply = await self._d.call(request, peer)
        if isinstance(reply, m.Error):
            raise HookdError(reply.code, reply.message)
        decoder, codec = FrameDecoder(1 << 30), reply_codec()
        got: list[m.Event | m.Gap] = []
        deadline = asyncio.get_running_loop().time() + CALL_BOUND
        while True:
            data, wire.data = bytes(wire.data), bytearray()
            for body in decoder.feed(data):
                msg = codec.decode(body)
                if isinstance(msg, m.Live):
                    return got
                if isinstance(msg, m.Event | m.Gap):
                    got.append(msg)
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError("the replay never ended")
            await asyncio.sleep(0.005)


class InProcess:
    """A daemon and a way to call it as a client would."""

    def __init__(self, daemon: Daemon, home: Path) -> None:
        self.daemon = daemon
        self.home = home
        self.peer = FakePeer()
        self._ids = itertools.count(1)

    def id(self) -> int:
        return next(self._ids)

    def global_hooks(self, yaml_text: str) -> Path:
        """The user's global hook file, written (dedented) and loaded at once, as `hookd serve` loads it."""
        path = self.home / "config" / "hookd" / "hooks.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(yaml_text))
        problems = self.daemon.files.load_global_now()
        assert not problems, problems
        return path

    def client(self, peer: FakePeer | None = None) -> InProcessClient:
        """A client of this daemon on a connection of its own (``peer``, or a fresh one)."""
        return InProcessClient(self, peer)

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
def trust_all(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every project hook file trusted, as the integration tier's environment has it (HOOKD_TRUST_ALL=1)."""
    monkeypatch.setenv("HOOKD_TRUST_ALL", "1")


@pytest.fixture
def in_process(home: Path) -> Iterator[Callable[[Scenario[Any]], Any]]:
    """Runs a scenario against a fresh daemon on a fresh loop, then stops it as `hookd serve` does:
    shutdown begun, warm workers and hook processes ended, the bus closed."""

    async def run(scenario: Scenario[T], overrides: dict[str, Any]) -> T:
        # journal, stats, history...: as `hookd serve`'s options set them (hookd.core.settings)
        settings = Settings(**{"socket": str(home / "run" / "hookd.sock"), "journal": False, "hook_timeout": 10.0, **overrides})
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

    yield lambda scenario, **overrides: asyncio.run(run(scenario, overrides))
