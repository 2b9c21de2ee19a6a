"""One NATS connection for a daemon's team features, kept up while the server comes and goes.

The first connection is retried with a growing pause (the server may be down
when hookd starts; the guards already hold from their record). Once connected,
the client reconnects by itself, forever; the features hear of each reconnect
(the guards' watch starts again from the bucket's state).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import structlog

from hookd.team.settings import TeamSettings

log = structlog.get_logger("hookd.team")

RETRY_FIRST = 0.25
RETRY_MAX = 5.0


class Link:
    def __init__(self, settings: TeamSettings, name: str = "hookd") -> None:
        self.settings = settings
        self.name = name
        self.nc: Any = None
        self.error = ""
        self.connected = asyncio.Event()
        self.on_reconnect: list[Callable[[], Awaitable[None]]] = []
        self.on_disconnect: list[Callable[[], Awaitable[None]]] = []
        self._closing = False
        self._connecting = asyncio.Lock()

    async def _disconnected(self) -> None:
        self.connected.clear()
        for cb in self.on_disconnect:
            await cb()

    async def _reconnected(self) -> None:
        self.connected.set()
        for cb in self.on_reconnect:
            await cb()

    async def _error(self, exc: Exception) -> None:
        self.error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__

    async def connect(self) -> Any:
        """The connection, made now or waited for; retries until it works or the link closes."""

        async with self._connecting:  # the features share one connection: one of them makes it
            await self._connect()
        await self.connected.wait()
        return self.nc

    async def _connect(self) -> None:
        import nats

        pause = RETRY_FIRST
        while self.nc is None and not self._closing:
            try:
                # The client's first connection retries forever by itself when asked to reconnect
                # forever, and says nothing meanwhile: look for a listening server first, so the
                # status can say the server is unreachable.
                await self._probe()
                self.nc = await nats.connect(
                    **self.settings.connect_options(),
                    name=self.name,
                    allow_reconnect=True,
                    max_reconnect_attempts=-1,
                    reconnect_time_wait=0.5,
                    connect_timeout=2,
                    disconnected_cb=self._disconnected,
                    reconnected_cb=self._reconnected,
                    error_cb=self._error,
                )
                self.error = ""
                if self._closing:  # closed while connecting
                    nc, self.nc = self.nc, None
                    await nc.close()
                    return
                self.connected.set()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                unreachable = isinstance(exc, ConnectionError)
                self.error = f"cannot reach the team's server: {exc}" if unreachable else f"{type(exc).__name__}: {exc}"
                log.debug("team server unreachable", error=self.error)
                await asyncio.sleep(pause)
                pause = min(RETRY_MAX, pause * 2)

    async def _probe(self) -> None:
        errors = []
        for server in self.settings.servers:
            url = urlsplit(server if "://" in server else f"nats://{server}")
            try:
                async with asyncio.timeout(2.0):
                    _, writer = await asyncio.open_connection(url.hostname or "127.0.0.1", url.port or 4222)
            except (OSError, TimeoutError, ValueError) as exc:
                errors.append(f"{server}: {exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__}")
                continue
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
            return
        raise ConnectionError("; ".join(errors))

    async def close(self) -> None:
        self._closing = True
        nc, self.nc = self.nc, None
        if nc is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(2.0):
                    await nc.close()
