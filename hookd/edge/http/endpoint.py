"""The HTTP endpoint as the daemon holds it: its options and limits, port, secret and Host names, and its open
connections (those that have not shown the secret, oldest first, are the ones evicted when every slot is taken)."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import structlog

from hookd.config import endpoint_files as files
from hookd.edge.http import checks

if TYPE_CHECKING:
    from hookd.daemon.daemon import Daemon

log = structlog.get_logger("hookd.httphooks")

EVICTIONS_LOGGED = 10.0  # seconds between log lines about evicted connections


@dataclass(slots=True)
class Options:
    port: int | None = None  # None: the recorded port (or a free one, then recorded); 0: any free port
    max_body: int = 32 << 20
    max_head: int = 64 << 10
    head_timeout: float = 10.0
    body_timeout: float = 30.0
    max_connections: int = 256
    unauth_head_timeout: float = 2.0  # for the first request head of a connection that has not shown the secret


class Served(Protocol):
    """A connection as the endpoint holds it (hookd/edge/http/connection.py)."""

    def evict(self) -> None: ...

    def idle_close(self) -> None: ...


class Endpoint:
    """What the daemon holds while the endpoint serves."""

    def __init__(self, daemon: Daemon, options: Options, token: str, state: str, connect: Callable[[Endpoint], asyncio.Protocol]) -> None:
        self.daemon = daemon
        self.options = options
        self.token = token.encode()
        self.state = state
        self.port = 0
        self.hosts: frozenset[bytes] = frozenset()
        self.server: asyncio.AbstractServer | None = None
        self.connections: set[Served] = set()
        # Connections that have not yet sent a request with the secret, oldest first: the ones evicted
        # when every slot is taken.
        self.unauthenticated: dict[Served, None] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self._evictions = 0  # since the last log line about them
        self._evictions_logged = 0.0
        self._connect = connect

    def evicted(self) -> None:
        """Count an eviction; logged at most every EVICTIONS_LOGGED seconds, so a flood cannot flood the log too."""
        self._evictions += 1
        now = time.monotonic()
        if now - self._evictions_logged >= EVICTIONS_LOGGED:
            log.warning(
                "HTTP hook connections evicted: every slot was taken, and they had not sent the secret",
                evicted=self._evictions,
                limit=self.options.max_connections,
            )
            self._evictions = 0
            self._evictions_logged = now

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        wanted = self.options.port
        recorded = files.read_endpoint(self.state) if wanted is None else None
        port = int(recorded["port"]) if recorded is not None else (wanted or 0)
        try:
            self.server = await loop.create_server(lambda: self._connect(self), files.HOST, port, reuse_address=True)
        except OSError as exc:
            if wanted is not None or port == 0:
                raise
            log.error(
                "the recorded HTTP hook port is taken; serving on another; run `hookd bridge install` again", port=port, error=str(exc)
            )
            self.server = await loop.create_server(lambda: self._connect(self), files.HOST, 0, reuse_address=True)
        self.port = int(self.server.sockets[0].getsockname()[1])
        self.hosts = checks.hosts(self.port)
        files.write_endpoint(self.state, self.port, os.getpid())
        log.info("HTTP hooks served", url=f"http://{files.HOST}:{self.port}{checks.PATH_PREFIX}EVENT")

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
        for conn in list(self.connections):
            conn.idle_close()
